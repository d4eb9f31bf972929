"""One table of the spatial relations TableTest labels and asks: for each, its key (as records and questions
name it), its words (the first the plainest; VSR's own names among them), its converse, its axis and frame,
VSR's category, what decides it from the 3D truth (`truth.scene_facts`) and where it is withheld.

Every stage reads relations from here: the questions word them with `words`, the docs list them with their
definitions, the gallery filters by them. A relation is decided by a function of the scene's facts and two
of its objects: True, False, or None inside its withheld band, where a careful person could answer either
way, which no question asks. Adding a relation is one entry here (its words, its decision) and, where it
needs a fact the scene's facts lack, that fact in `truth/scene_facts.py`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


# What a decision reads of an object and of its scene (`truth.scene_facts`' Thing and SceneGeometry are
# these): named here, not imported, as every stage reads the table, some without NumPy.
class Thing(Protocol):
    center: Any  # world centre of its 3D box (x, y, z)
    size: tuple[float, float, float]  # box in its own frame
    yaw_deg: float
    carries: frozenset[str]  # what it can carry others as: `on`, `inside`

    @property
    def bottom(self) -> float: ...

    def corners(self) -> Sequence[Sequence[float]]: ...


class SceneGeometry(Protocol):
    view: Any  # the camera as records store it (`layout.camera.CameraView`): its `ground_forward`
    table_top: float | None
    table: tuple[float, float] | None  # the table top's width and depth

    def viewer_lateral(self, a: Thing, b: Thing) -> str | None: ...

    def viewer_depth(self, a: Thing, b: Thing) -> str | None: ...

    def off_plane(self, key: str, a: Thing, b: Thing) -> bool | None: ...

    def gap(self, a: Thing, b: Thing) -> float | None: ...

    def faces(self, of: Thing, other: Thing, way: str = "towards") -> bool | None: ...

    def same_way(self, a: Thing, b: Thing, way: str = "same") -> bool | None: ...


Decide = Callable[[SceneGeometry, Thing, Thing], "bool | None"]

# near and far from: the gap between the two surfaces against the pair's mean size (its largest extents):
# within NEAR_SHARE of it near, beyond FAR_SHARE far, and neither between
NEAR_SHARE, FAR_SHARE = 0.5, 2.0
# parallel and perpendicular: both objects this much longer than wide on the table, their long axes within
# LINE_DEG of parallel (or of square), not where they are between LINE_DEG and twice that
ELONGATED, LINE_DEG = 1.4, 10.0
# the edge of the table: an object's footprint within EDGE_NEAR_M of it, not beyond EDGE_FAR_M
EDGE_NEAR_M, EDGE_FAR_M = 0.1, 0.2
# the middle of the table: its centre within MIDDLE_SHARE of the table's half extents of the centre, not beyond
# twice that
MIDDLE_SHARE = 0.2
# across the table from: on its two halves along the viewer's depth, at least ACROSS_SHARE of its depth apart that
# way and more apart in depth than across; on one half (less than SAME_SIDE_SHARE apart) not
ACROSS_SHARE, SAME_SIDE_SHARE = 0.4, 0.15
# beyond: behind the other as the viewer sees them, and no farther to its side than its own half width
BEYOND_SIDE_SHARE = 1.0
# one object resting on or in another (what carries it), or over it: such a pair stands beside each other in no
# frame, neither left nor right of nor in front of or behind the other
RESTING = ("on", "inside")
STACKED = (*RESTING, "above")
# which way objects face (`truth.facing`): its eight words SECTOR_DEG apart, and an object faces another within
# SECTOR_DEG of its front, two fronts the same way within SECTOR_DEG of each other; each withheld within BAND_DEG
# of its boundary
SECTOR_DEG, BAND_DEG = 45.0, 15.0
_FACING_BAND = f"{SECTOR_DEG - BAND_DEG:g}° to {SECTOR_DEG + BAND_DEG:g}°"


@dataclass(frozen=True)
class Relation:
    key: str
    words: tuple[str, ...]  # "The mug is <words> the lamp": the first the plainest; VSR's names among them
    converse: str | None  # the key the same fact has the other way round (its own where symmetric; None: none says it)
    axis: str  # lateral, depth, vertical, contact, proximity, containment, orientation, table
    frame: str | None  # viewer (the camera's), intrinsic (the relatum's own front), or None: the same in every frame
    vsr: str  # VSR's category: projective, topological, proximity, adjacency, directional, orientation, unallocated
    definition: str
    withheld: str
    decide: Decide
    table: bool = False  # a relation of an object to the table ("the mug is at the edge of the table"), not to another
    meshes: bool = False  # decided from the models' meshes (`truth.contact`): known where the random config arranges objects
    withheld_as: str | None = None  # what a record's `relations.ambiguous` names a pair withheld inside its band

    @property
    def symmetric(self) -> bool:
        return self.converse == self.key


def _viewer(word: str) -> Decide:
    return lambda g, a, b: _said(g.viewer_lateral(a, b) if word in ("left", "right") else g.viewer_depth(a, b), word)


def _said(found: str | None, word: str) -> bool | None:
    return None if found is None else found == word


def _off_plane(key: str) -> Decide:
    return lambda g, a, b: g.off_plane(key, a, b)


def _converse(decide: Decide) -> Decide:
    return lambda g, a, b: decide(g, b, a)


def _not(decide: Decide) -> Decide:
    return lambda g, a, b: None if (held := decide(g, a, b)) is None else not held


def _gap(g: SceneGeometry, a: Thing, b: Thing) -> float:
    """Metres between the two surfaces: the record's mesh gap, else between the boxes' footprints on the table."""
    found = g.gap(a, b)
    if found is not None:
        return found
    reach = (max(a.size[:2]) + max(b.size[:2])) / 2
    return max(0.0, math.dist(a.center[:2], b.center[:2]) - reach)


def _stacked(g: SceneGeometry, a: Thing, b: Thing) -> bool:
    return any(g.off_plane(key, x, y) for key in STACKED for x, y in ((a, b), (b, a)))


def stacked_pairs(relations: Mapping[str, list]) -> set[frozenset[str]]:
    """The pairs of a record's `relations` one of which is on, in or above the other."""
    return {frozenset(pair[:2]) for key in STACKED for pair in relations.get(key, ())}


def near(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    gap, size = _gap(g, a, b), (max(a.size) + max(b.size)) / 2
    return True if gap <= NEAR_SHARE * size else False if gap >= FAR_SHARE * size else None


def far(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    return _not(near)(g, a, b) if near(g, a, b) is not None else None


def _long_axis(t: Thing) -> float | None:
    """The direction of its long side on the table in degrees (0-180), or None for one about as wide as long."""
    dx, dy = t.size[:2]
    if max(dx, dy) < ELONGATED * min(dx, dy):
        return None
    return (t.yaw_deg + (0.0 if dx >= dy else 90.0)) % 180


def _turned(a: Thing, b: Thing) -> float | None:
    """The angle between the two long axes, 0-90 degrees; None unless both are elongated."""
    axes = _long_axis(a), _long_axis(b)
    if None in axes:
        return None
    turn = abs(axes[0] - axes[1]) % 180
    return min(turn, 180 - turn)


def parallel(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    turn = _turned(a, b)
    return None if turn is None or _stacked(g, a, b) else True if turn <= LINE_DEG else False if turn >= 2 * LINE_DEG else None


def perpendicular(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    turn = _turned(a, b)
    return None if turn is None or _stacked(g, a, b) else True if turn >= 90 - LINE_DEG else False if turn <= 90 - 2 * LINE_DEG else None


def alongside(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    """Next to each other with their long sides facing: next to, parallel, and side by side across their long axis."""
    beside, lined = g.off_plane("next_to", a, b), parallel(g, a, b)
    if beside is None or lined is None:
        return None
    if not (beside and lined):
        return False if beside is False or lined is False else None
    axis = math.radians(_long_axis(a))
    along = abs((b.center[0] - a.center[0]) * math.cos(axis) + (b.center[1] - a.center[1]) * math.sin(axis))
    return along <= max(a.size[:2]) / 2


def against(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    """Touching side by side: touching, and neither on, in or above the other."""
    touching = g.off_plane("touching", a, b)
    return None if touching is None else touching and not _stacked(g, a, b)


def detached(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    touching = g.off_plane("touching", a, b)
    return None if touching is None else not touching


def outside(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    """Not in a container it could be in: asked only of a container and a smaller object."""
    if "inside" not in b.carries or max(a.size) >= max(b.size):
        return None
    inside = g.off_plane("inside", a, b)
    return None if inside is None else not inside


def off(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    """Not on a support it could rest on: asked only of a support and a smaller object."""
    if "on" not in b.carries or max(a.size) >= max(b.size):
        return None
    resting = g.off_plane("on", a, b)
    return None if resting is None else not resting


def beyond(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    """Behind the other as the viewer sees them and roughly in line with it: what a look past it would reach."""
    depth = g.viewer_depth(a, b)
    if depth is None or _stacked(g, a, b):
        return None
    if depth == "front":
        return False
    _, side = _along_view(g, b, a)
    return True if abs(side) <= BEYOND_SIDE_SHARE * max(b.size[:2]) / 2 else None


def _along_view(g: SceneGeometry, a: Thing, b: Thing) -> tuple[float, float]:
    """Where b stands from a on the table: metres along the viewer's view (away from it), and to its right."""
    fx, fy = (float(v) for v in g.view.ground_forward)
    dx, dy = float(b.center[0] - a.center[0]), float(b.center[1] - a.center[1])
    return dx * fx + dy * fy, dx * fy - dy * fx


def across(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    """On the table's two sides along the viewer's depth, facing each other across it."""
    if g.table is None or _stacked(g, a, b):
        return None
    depth, side = (abs(v) for v in _along_view(g, a, b))
    table_depth = g.table[1]
    if depth <= SAME_SIDE_SHARE * table_depth:
        return False
    fx, fy = (float(v) for v in g.view.ground_forward)
    halves = {math.copysign(1.0, float(t.center[0]) * fx + float(t.center[1]) * fy) for t in (a, b)}
    return True if depth >= ACROSS_SHARE * table_depth and depth > side and len(halves) == 2 else None


def facing(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    return g.faces(a, b, "towards")


def facing_away(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    return g.faces(a, b, "away")


def ahead_of(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    """Farther along the way b faces (as one walker is ahead of another): a within 45° of b's own front."""
    return g.faces(b, a, "towards")


def same_way(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    return g.same_way(a, b, "same")


def opposite_way(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    return g.same_way(a, b, "opposite")


def at_edge(g: SceneGeometry, a: Thing, _: Thing | None = None) -> bool | None:
    """Its footprint near one of the table's edges (the table centred where the scene stands)."""
    if g.table is None or g.table_top is None or a.bottom > g.table_top + 0.005:
        return None
    corners = a.corners()
    reach = min(g.table[k] / 2 - max(abs(float(c[k])) for c in corners) for k in (0, 1))  # the footprint's least distance to an edge
    return True if reach <= EDGE_NEAR_M else False if reach >= EDGE_FAR_M else None


def in_middle(g: SceneGeometry, a: Thing, _: Thing | None = None) -> bool | None:
    """Its centre near the table's centre: within MIDDLE_SHARE of the half extents, not beyond twice that."""
    if g.table is None:
        return None
    share = max(abs(float(a.center[k])) / (g.table[k] / 2) for k in (0, 1))
    return True if share <= MIDDLE_SHARE else False if share >= 2 * MIDDLE_SHARE else None


RELATIONS: tuple[Relation, ...] = (
    # projective, in the viewer's frame (VSR's "relative" frame)
    Relation("left_of", ("to the left of", "left of", "at the left side of"), "right_of", "lateral", "viewer", "projective",
             "left of the other as the camera sees them, in the room and in the picture", "box centres closer than the margin across the view", _viewer("left"),
             withheld_as="left_right"),
    Relation("right_of", ("to the right of", "right of", "at the right side of"), "left_of", "lateral", "viewer", "projective",
             "right of the other as the camera sees them, in the room and in the picture", "box centres closer than the margin across the view", _viewer("right"),
             withheld_as="left_right"),
    Relation("in_front_of", ("in front of",), "behind", "depth", "viewer", "projective",
             "nearer the camera than the other where they stand on the table", "footprints closer than the margin along the view", _viewer("front"),
             withheld_as="front_back"),
    Relation("behind", ("behind", "at the back of"), "in_front_of", "depth", "viewer", "projective",
             "farther from the camera than the other where they stand on the table", "footprints closer than the margin along the view", _viewer("behind"),
             withheld_as="front_back"),
    Relation("beyond", ("beyond",), None, "depth", "viewer", "unallocated",
             "behind the other as the camera sees them, and no farther to its side than its half width",
             "a pair the margin leaves neither in front nor behind; behind, but farther to the side", beyond),
    # off the table plane, the same in every frame
    Relation("on", ("on top of", "on"), "under", "vertical", None, "topological",
             "resting on the other's support surface", "a gap between contact and twice it", _off_plane("on"), meshes=True),
    Relation("under", ("under", "beneath"), "on", "vertical", None, "projective",
             "carrying the other on its support surface", "a gap between contact and twice it", _converse(_off_plane("on")), meshes=True),
    Relation("above", ("above", "over"), "below", "vertical", None, "projective",
             "its lowest point higher than the other's highest, their footprints overlapping", "within contact of either", _off_plane("above"), meshes=True),
    Relation("below", ("below",), "above", "vertical", None, "projective",
             "its highest point lower than the other's lowest, their footprints overlapping", "within contact of either", _converse(_off_plane("above")), meshes=True),
    Relation("inside", ("inside", "in", "within", "enclosed by"), "contains", "containment", None, "topological",
             "in the other's container opening, below its rim and above its base", "within contact of the rim or the base", _off_plane("inside"), meshes=True),
    Relation("contains", ("holding", "containing", "surrounding"), "inside", "containment", None, "topological",
             "holding the other in its container opening", "within contact of the rim or the base", _converse(_off_plane("inside")), meshes=True),
    Relation("outside", ("outside", "out of"), None, "containment", None, "topological",
             "not in a container it could be in (a container and a smaller object)", "as inside", outside, meshes=True),
    Relation("off", ("off",), None, "vertical", None, "directional",
             "not on a support it could rest on (a support and a smaller object)", "as on", off, meshes=True),
    Relation("touching", ("touching", "in contact with"), "touching", "contact", None, "topological",
             "their meshes within contact distance in 3D", "between contact and twice it", _off_plane("touching"),
             meshes=True, withheld_as="touching"),
    Relation("against", ("against",), "against", "contact", None, "adjacency",
             "touching side by side, neither on, in or above the other", "as touching", against, meshes=True),
    Relation("detached", ("detached from", "apart from"), "detached", "contact", None, "topological",
             "not touching: their meshes farther apart than twice the contact distance", "as touching", detached, meshes=True),
    Relation("next_to", ("next to", "beside", "by", "adjacent to", "at the side of"), "next_to", "proximity", None, "adjacency",
             "on the same surface, their meshes within the next-to distance in 3D", "up to the margin beyond it", _off_plane("next_to"),
             meshes=True, withheld_as="next_to"),
    Relation("alongside", ("alongside",), "alongside", "proximity", None, "adjacency",
             "next to each other with their long sides facing: parallel, and side by side across their long axes",
             "as next to and parallel", alongside, meshes=True),
    Relation("near", ("near", "close to"), "near", "proximity", None, "proximity",
             f"their surfaces at most {NEAR_SHARE:g} of their mean size apart (the mesh gap; their largest extents)",
             f"between {NEAR_SHARE:g} and {FAR_SHARE:g} of it", near),
    Relation("far", ("far from", "far away from"), "far", "proximity", None, "proximity",
             f"their surfaces at least {FAR_SHARE:g} times their mean size apart", f"between {NEAR_SHARE:g} and {FAR_SHARE:g} of it", far),
    Relation("across_from", ("across from", "opposite to"), "across_from", "depth", "viewer", "directional",
             f"on the table's two sides along the view, at least {ACROSS_SHARE:g} of its depth apart that way and farther apart along the view than across it",
             f"less apart along the view, or farther across it; never asked of a pair less than {SAME_SIDE_SHARE:g} of the depth apart (on one side)", across),
    # orientation: the subject's own front, or how the long axes lie
    Relation("facing", ("facing", "turned toward"), None, "orientation", "intrinsic", "orientation",
             f"the other within {SECTOR_DEG:g}° of its own front (an object with a front)", _FACING_BAND, facing),
    Relation("facing_away", ("facing away from", "turned away from"), None, "orientation", "intrinsic", "orientation",
             f"the other within {SECTOR_DEG:g}° of its own back (an object with a front)", _FACING_BAND, facing_away),
    Relation("ahead_of", ("ahead of",), None, "orientation", "intrinsic", "adjacency",
             f"farther along the way the other faces: within {SECTOR_DEG:g}° of the other's own front (an object with a front)",
             _FACING_BAND, ahead_of),
    Relation("same_way", ("facing the same way as", "turned the same way as", "pointing the same way as"), "same_way", "orientation", None,
             "orientation", f"both with a front, their fronts within {SECTOR_DEG:g}° of each other", _FACING_BAND, same_way),
    Relation("opposite_way", ("facing the opposite way to", "facing the other way from", "turned the opposite way to"), "opposite_way",
             "orientation", None, "orientation", f"both with a front, their fronts within {SECTOR_DEG:g}° of opposite", _FACING_BAND, opposite_way),
    Relation("parallel", ("parallel to",), "parallel", "orientation", None, "orientation",
             f"both at least {ELONGATED:g} times as long as wide on the table, their long axes within {LINE_DEG:g}°", f"{LINE_DEG:g}° to {2 * LINE_DEG:g}° apart", parallel),
    Relation("perpendicular", ("perpendicular to", "at right angles to"), "perpendicular", "orientation", None, "orientation",
             f"both at least {ELONGATED:g} times as long as wide, their long axes within {LINE_DEG:g}° of square", f"{LINE_DEG:g}° to {2 * LINE_DEG:g}° off square", perpendicular),
    # an object and the table
    Relation("at_edge", ("at the edge of",), None, "table", None, "adjacency",
             f"its footprint within {EDGE_NEAR_M * 100:g} cm of one of the table's edges", f"{EDGE_NEAR_M * 100:g} to {EDGE_FAR_M * 100:g} cm", at_edge, table=True),
    Relation("in_middle", ("in the middle of",), None, "table", None, "projective",
             f"its centre within {MIDDLE_SHARE:g} of the table's half extents of its centre", f"{MIDDLE_SHARE:g} to {2 * MIDDLE_SHARE:g} of them", in_middle, table=True),
)
BY_KEY = {relation.key: relation for relation in RELATIONS}
WITHHELD = tuple(dict.fromkeys(r.withheld_as for r in RELATIONS if r.withheld_as))  # the names `relations.ambiguous` gives
VSR_NAMES = (
    "adjacent to", "alongside", "at the side of", "at the right side of", "at the left side of", "attached to", "at the back of",
    "ahead of", "against", "at the edge of", "off", "past", "toward", "down", "away from", "along", "around", "into", "across",
    "across from", "down from", "facing", "facing away from", "parallel to", "perpendicular to", "on top of", "beneath", "beside",
    "behind", "left of", "right of", "under", "in front of", "below", "above", "over", "in the middle of", "by", "close to", "near",
    "far from", "far away from", "connected to", "detached from", "has as a part", "part of", "contains", "within", "at", "on", "in",
    "with", "surrounding", "among", "consists of", "out of", "between", "inside", "outside", "touching", "beyond", "next to",
    "opposite to", "enclosed by",
)  # fmt: skip  VSR's 65 relations (Liu et al., Table 1, less the 6 its dataset leaves out; "among" is listed twice there)


OWN_WORDS = {"contains": "containing"}  # VSR's name as "The X is <words> the Y." says it


def vsr_asked() -> list[str]:
    """VSR's relations asked in their own words ("between" is asked by the position skill, of three objects)."""
    said = {word for relation in RELATIONS for word in relation.words} | {"between"}
    return [name for name in VSR_NAMES if OWN_WORDS.get(name, name) in said]
