"""A scene's geometry read from its record, and every spatial fact the questions ask, decided in one place.

Both scene families are read: random records carry `camera` (K, world_to_camera, resolution) and per
object `box3d` (center_m, size_m, yaw_deg) and `visible_fraction`; benchmark records carry
`position_m` (the object's origin on the table top), `size_m` and `yaw_deg`, and their camera is the
render config's. Text records (`tabletest vignettes`) have names only: their one fact is the
left-to-right order they are listed in. What a record lacks (depth, front and behind, apparent
size, occlusion) is derived here from the boxes and the camera. Where a record stores its own
viewer relations (a random record's `left_of` and `in_front_of`), those decide left/right and
front/behind, so questions never contradict the record; pairs it lists as `ambiguous` are withheld.

A fact inside its margin is None: questions about it are withheld, never guessed.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from tabletest.config import Catalog
from tabletest.errors import UserError
from tabletest.layout.camera import CameraView
from tabletest.layout.instances import kind_of, label_of
from tabletest.layout.random_config import RelationMargins
from tabletest.truth.facing import Facing, bearing, between_fronts, facing, front_vector, within
from tabletest.truth.relation_table import BY_KEY, stacked_pairs

LATERAL_M = 0.03  # viewer left/right: the camera-space x of the two box centres differs by this much ...
LATERAL_PX = 8.0  # ... and their image columns by this many pixels at 1024 px width
# viewer front/behind: ground distance along the camera's horizontal view direction; the records' margin
# (`RelationMargins.margin_m`, whose stored pairs decide where a record has them)
DEPTH_M = RelationMargins.model_fields["margin_m"].default
APART_M = 0.05  # two objects nearer than this on the table: no direction from one to the other
DISTANCE_M, DISTANCE_SHARE = 0.05, 0.05  # nearer/farther: at least 5 cm and 5 % of the nearer distance
PAIR_SHARE = 0.15  # nearer to another object: 15 % of the nearer distance (and DISTANCE_M)
BETWEEN_SHARE = 0.25  # between: at most this share of the outer pair's distance off the line that joins them
SIDE_DEG, FRONT_DEG = 30.0, 70.0  # intrinsic: left/right beyond 30° off the front-back axis (nearer, read either way); front within 70°
# a person at a side of the table (near: the viewer's own place; far, left, right as the viewer sees them), facing
# across it: an object this near their line is on neither of their sides (where along it they stand is said no finer)
PERSON_SIDE_M = 0.15
OBJECT_SIDE_DEG = 35.0  # standing where one object is, facing another: left/right beyond this off the facing line
SIDES = ("near", "far", "left", "right")
CLOCK_BAND_DEG = 5.0  # a direction this near the line between two hours of a clock face is neither
ORDINAL_SHARE = 0.05  # the leftmost of a kind: at least this share of the image's width left of each other one
# bigger: the largest box extent at least this many times the other's; taller: the height. The records'
# definition (`RelationMargins.size_ratio`, whose stored pairs decide where a record has them).
SIZE_RATIO = RelationMargins.model_fields["size_ratio"].default
# nearer: a is nearer to b than to c where its box centre's distance to c exceeds that to b by this much (3D). The
# records' definition (`RelationMargins.distance_margin_m`, whose stored triples decide where a record has them).
DISTANCE_MARGIN_M = RelationMargins.model_fields["distance_margin_m"].default
SIZES = ("bigger", "taller")  # the comparisons of size a random record stores besides the relation table's relations
APPARENT_RATIO = 1.1  # size cue: one object looks at least 10 % bigger in the image than the other
HIDDEN, VISIBLE = 0.9, 0.99  # visible_fraction at most 0.9: partly hidden; at least 0.99: fully visible


UNIT_CORNERS = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
REFERENCE_WIDTH_PX = 1024  # the width `Margins.lateral_px` is given at; it scales with the image's


@dataclass(frozen=True)
class Margins:
    """Where the viewer's left/right and front/behind and the size comparisons are withheld, where the scene does not
    store its own pairs: these defaults for a record read back, the random config's `relations` where the writer
    decides what a record stores (`truth.geometry.scene_relations`)."""

    lateral_m: float = LATERAL_M
    lateral_px: float = LATERAL_PX
    depth_m: float = DEPTH_M
    size_ratio: float = SIZE_RATIO
    distance_m: float = DISTANCE_MARGIN_M

    @classmethod
    def of(cls, margins: RelationMargins, reference_width_px: int) -> Margins:
        """The random config's margins (`margin_px` given at `reference_width_px`)."""
        px = margins.margin_px * REFERENCE_WIDTH_PX / reference_width_px
        return cls(margins.margin_m, px, margins.margin_m, margins.size_ratio, margins.distance_margin_m)


@dataclass(frozen=True)
class Thing:
    name: str
    center: np.ndarray  # world centre of the 3D box
    size: tuple[float, float, float]  # box in its own frame (dx, dy, dz)
    yaw_deg: float
    has_front: bool
    visible_fraction: float | None
    covered_by: tuple[str, ...] | None = None  # what the render saw covering it (random renders since `covered_by`)
    label: str = ""  # its label where the scene holds several of its kind (apple#2; `layout.instances`), else its name
    carries: frozenset[str] = frozenset()  # how the catalog says it can carry others: `on` (a support), `inside` (a container)
    colour: str | None = None  # its look's colour (a random render with looks), what tells it from others of its kind
    heading_deg: float | None = None  # its own turn (the record's `yaw_deg`), where its front points; None: its box's
    front_deg: float = 0.0  # where its front points in its model's frame (the catalog's `front_deg`), from −Y

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.name)

    def corners(self) -> np.ndarray:
        return (UNIT_CORNERS * self.size) @ _turn(self.yaw_deg).T + self.center

    @property
    def bottom(self) -> float:
        """The height of its lowest point (its box's bottom face)."""
        return float(self.center[2] - self.size[2] / 2)

    @property
    def front(self) -> np.ndarray:
        """Its own front on the ground: −Y of its canonical frame turned by its kind's `front_deg` and its own yaw
        (a box along a footprint that lies diagonally in its model's frame is turned further)."""
        return front_vector(self._heading, self.front_deg)

    @property
    def own_left(self) -> np.ndarray:
        """Its own left on the ground: facing −Y, an object's left hand is at +X."""
        return (_turn(self._heading + self.front_deg) @ [1.0, 0.0, 0.0])[:2]

    @property
    def _heading(self) -> float:
        return self.yaw_deg if self.heading_deg is None else self.heading_deg


def _turn(yaw_deg: float) -> np.ndarray:
    t = math.radians(yaw_deg)
    return np.array([[math.cos(t), -math.sin(t), 0.0], [math.sin(t), math.cos(t), 0.0], [0.0, 0.0, 1.0]])


class SceneGeometry:
    """The objects of one record and the facts between them; `view` is None for a text record."""

    def __init__(
        self,
        things: list[Thing],
        view: CameraView | None,
        order: list[str] | None = None,
        ambiguous: frozenset = frozenset(),
        hidden: tuple[str, ...] = (),
        stacked: frozenset[frozenset[str]] = frozenset(),
        gaps: dict[frozenset[str], float] | None = None,
        table_top: float | None = None,
        table: tuple[float, float] | None = None,
        slides: dict[tuple[str, str], float] | None = None,
        hidden_things: tuple[Thing, ...] = (),
        margins: Margins = Margins(),
    ):
        self.things = things
        self.view = view
        self.hidden_names = hidden  # on the table but measured hidden: not asked about, and never counted as absent
        self.hidden_things = hidden_things  # their geometry: where they stand may make a question ambiguous
        self._ambiguous = ambiguous  # pairs of names the record withholds
        self._stacked = stacked  # pairs of labels one of which is on, in or above the other: beside each other in no frame
        self._gaps = gaps or {}  # the record's `gaps_m`: least distance between two objects' meshes, by their labels
        self._slides = slides or {}  # the record's `slides_m`: how far one slides towards another until they touch
        self.table_top = table_top  # the table top's height: where the lowest object stands
        self.table = table  # the table top's width and depth, centred on the world's origin, where the record says
        self.margins = margins
        self.stored: dict[str, set[tuple[str, str]]] | None = None  # a random record's own pairs, by relation
        self._order = order  # text records: names left to right
        self._seen: dict[int, tuple[np.ndarray, np.ndarray, tuple[float, float, float, float]]] = {}

    def _sight(self, a: Thing) -> tuple[np.ndarray, np.ndarray, tuple[float, float, float, float]]:
        """a's centre in camera coordinates, its centre in the image, and its projected box (computed once)."""
        if id(a) not in self._seen:
            uv = self.view.project(a.corners())
            box = (*uv.min(axis=0), *uv.max(axis=0))
            self._seen[id(a)] = (self.view.to_camera(a.center), self.view.project(a.center), box)
        return self._seen[id(a)]

    @classmethod
    def from_record(cls, record: dict, catalog: Catalog) -> SceneGeometry:
        """The facts of a scene record: a text record's listing, or a render record's geometry as it describes
        itself (its camera and 3D boxes: `truth.described` gives them to one rendered before records held them)."""
        fronts = {o.name: (o.has_front, o.front_deg) for o in catalog.objects}
        carriers = {o.name: frozenset(k for k, region in (("on", o.support), ("inside", o.container)) if region) for o in catalog.objects}
        objects = record["objects"]
        if all(isinstance(o, str) for o in objects):
            labels = record.get("instances") or objects  # a text record lists names, and labels where kinds repeat
            things = [Thing(n, np.zeros(3), (0.0, 0.0, 0.0), 0.0, fronts.get(n, NO_FRONT)[0], None, label=label) for n, label in zip(objects, labels)]
            return cls(things, None, list(labels))  # listed left to right
        relations = record.get("relations", {})
        hidden = set(relations.get("hidden", ()))  # measured as hidden by the render: never asked about
        things = [
            _thing(record, o, fronts.get(o.get("name"), NO_FRONT), carriers.get(o.get("name"), frozenset())) for o in objects if _label(o) not in hidden
        ]
        if not isinstance(record.get("camera"), dict):
            raise UserError(
                f"scene {record.get('id')}: its objects have geometry but the record names no camera; "
                "give a render's metadata.jsonl (read through its folder) or a `tabletest vignettes` file"
            )
        view = CameraView.from_record(record["camera"])
        stacked = frozenset(stacked_pairs(relations))
        gaps = {frozenset(entry[:2]): float(entry[2]) for entry in record.get("gaps_m") or ()}
        table_top = min(_thing(record, o, NO_FRONT, frozenset()).bottom for o in objects)  # hidden ones too: a carrier may be
        hidden_names = tuple(n for n in hidden if isinstance(n, str))
        look = (record.get("scene") or {}).get("table") or {}
        table = (float(look["width_m"]), float(look["depth_m"])) if "width_m" in look and "depth_m" in look else None
        slides = {(entry[0], entry[1]): float(entry[2]) for entry in record.get("slides_m") or ()}
        unseen = tuple(_thing(record, o, fronts.get(o.get("name"), NO_FRONT), frozenset()) for o in objects if _label(o) in hidden)
        geometry = cls(things, view, None, withheld_pairs(relations.get("ambiguous", [])), hidden_names, stacked, gaps, table_top, table, slides, unseen)
        unique = len({t.label for t in things}) == len(things)  # stored pairs name objects by label
        if "camera" in record and unique and "left_of" in relations and "in_front_of" in relations:
            kept = [key for key in relations if key in BY_KEY or key in SIZES]
            geometry.stored = {key: {tuple(p[:2]) for p in relations[key]} for key in kept}
            if "nearer" in relations:  # [a, b, c]: a is nearer to b than to c
                geometry.stored["nearer"] = {tuple(p[:3]) for p in relations["nearer"]}
        return geometry

    def kinds(self) -> Counter:
        """How many objects of each kind the scene holds, the hidden ones included."""
        return Counter([t.name for t in self.things] + [kind_of(h) for h in self.hidden_names])

    @property
    def has_geometry(self) -> bool:
        return self.view is not None

    def _withheld(self, a: Thing, b: Thing, key: str) -> bool:
        """Whether the record withholds relation `key` of the pair (as its `ambiguous` names it, or all of the pair's)."""
        pair = frozenset((a.label, b.label))
        return (pair, BY_KEY[key].withheld_as) in self._ambiguous or (pair, None) in self._ambiguous

    def _stacked_pair(self, a: Thing, b: Thing) -> bool:
        return frozenset((a.label, b.label)) in self._stacked

    def lateral_key(self, a: Thing) -> float:
        """Where a stands along the viewer's left-right axis (a text record: its place in the listing)."""
        return float(self._order.index(a.label) if self.view is None else self._sight(a)[0][0])

    def depth_key(self, a: Thing) -> float:
        """How far a stands from the camera along its view on the table."""
        return float(a.center[:2] @ self.view.ground_forward)

    # --- the viewer frame -------------------------------------------------------------------------
    def ordinal_lateral(self, a: Thing, b: Thing) -> str | None:
        """`left` or `right` as `viewer_lateral` says, where the two also stand `ORDINAL_SHARE` of the image's width
        apart in it (a text record: as listed), so "the leftmost" of two that nearly share a column is neither."""
        apart = self.view is None or abs(float(self._sight(a)[1][0] - self._sight(b)[1][0])) >= ORDINAL_SHARE * self.view.width
        return self.viewer_lateral(a, b) if apart else None

    def viewer_lateral(self, a: Thing, b: Thing) -> str | None:
        """`left` if a is to the left of b as the camera sees it (in 3D and in the image), `right`, or None."""
        if self.view is None:
            i, j = self._order.index(a.label), self._order.index(b.label)
            return "left" if i < j else "right"
        if self._withheld(a, b, "left_of"):
            return None
        if self.stored is not None and "left_of" in self.stored and a.label not in self.hidden_names and b.label not in self.hidden_names:
            return _stored(self.stored["left_of"], a, b, "left", "right")  # a hidden object is in no stored pair
        if self._stacked_pair(a, b):
            return None
        (ca, ua, _), (cb, ub, _) = self._sight(a), self._sight(b)
        dx, du = float(cb[0] - ca[0]), float(ub[0] - ua[0])
        metres, px = self.margins.lateral_m, self.margins.lateral_px * self.view.width / REFERENCE_WIDTH_PX
        if dx >= metres and du >= px:
            return "left"
        if dx <= -metres and du <= -px:
            return "right"
        return None

    def viewer_between(self, m: Thing, a: Thing, b: Thing) -> bool | None:
        """True if m stands between a and b as the viewer sees them (right of one, left of the other), False if it is
        to the left or the right of both, None where either is withheld: what a record stores as `between`."""
        first, second = self.viewer_lateral(a, m), self.viewer_lateral(m, b)
        return None if first is None or second is None else first == second

    def between(self, m: Thing, a: Thing, b: Thing) -> bool | None:
        """What a question of "between" asks: `viewer_between`, and where that holds, m near the line joining them on
        the table (None, not asked, off it). `m` may be hidden (`hidden_things`): where it stands is then read from
        the geometry."""
        held = self.viewer_between(m, a, b)
        if not held or self.view is None:
            return held
        ab, am = b.center[:2] - a.center[:2], m.center[:2] - a.center[:2]
        off = abs(float(ab[0] * am[1] - ab[1] * am[0])) / float(ab @ ab)  # distance from the line / |ab|
        return True if off <= BETWEEN_SHARE else None

    def viewer_depth(self, a: Thing, b: Thing) -> str | None:
        """`front` if a stands in front of b (nearer the camera along its view on the table), `behind`, or None."""
        if self.view is None or self._withheld(a, b, "in_front_of"):
            return None
        if self.stored is not None and "in_front_of" in self.stored:
            return _stored(self.stored["in_front_of"], a, b, "front", "behind")
        if self._stacked_pair(a, b):
            return None
        gap = float((b.center[:2] - a.center[:2]) @ self.view.ground_forward)
        return "front" if gap >= self.margins.depth_m else "behind" if gap <= -self.margins.depth_m else None

    def off_plane(self, key: str, a: Thing, b: Thing) -> bool | None:
        """Whether the record says a is `key` b (on, inside, above, touching, next_to); None where it cannot say: a record
        without relations off the table plane, or a pair it withholds."""
        if self.stored is None or key not in self.stored or self._withheld(a, b, key):
            return None
        return (a.label, b.label) in self.stored[key]

    def viewer_distance(self, a: Thing) -> float:
        return float(np.linalg.norm(a.center - self.view.position))

    def nearer_viewer(self, a: Thing, b: Thing) -> str | None:
        """`nearer` if a is nearer the camera than b (centre to camera), `farther`, or None."""
        if self.view is None:
            return None
        da, db = self.viewer_distance(a), self.viewer_distance(b)
        return _compare(da, db, max(DISTANCE_M, DISTANCE_SHARE * min(da, db)), "nearer", "farther")

    def nearer(self, a: Thing, b: Thing, c: Thing) -> bool:
        """Whether a is nearer to b than to c: what a record stores as `nearer` [a, b, c] (its own triples where it
        has them), its box centre's distance to c exceeding that to b by the margin."""
        if self.stored is not None and "nearer" in self.stored:
            return (a.label, b.label, c.label) in self.stored["nearer"]
        return math.dist(a.center, c.center) - math.dist(a.center, b.center) > self.margins.distance_m

    def nearer_object(self, a: Thing, b: Thing, to: Thing) -> str | None:
        """`nearer` if a is nearer `to` than b is (distance between box centres on the table), `farther`, or None;
        None too where `nearer` (what a record stores) does not say so, or where the record's gaps between surfaces
        say otherwise (a long object's near end may be nearer `to` than a small object whose centre is nearer: a
        careful person reads "nearer" either way)."""
        if self.view is None:
            return None
        da = float(np.linalg.norm(a.center[:2] - to.center[:2]))
        db = float(np.linalg.norm(b.center[:2] - to.center[:2]))
        by_centres = _compare(da, db, max(DISTANCE_M, PAIR_SHARE * min(da, db)), "nearer", "farther")
        if by_centres is None or not self.nearer(to, *((a, b) if by_centres == "nearer" else (b, a))):
            return None
        ga, gb = self.gap(a, to), self.gap(b, to)
        if ga is None or gb is None:
            return by_centres
        return by_centres if _compare(ga, gb, 0.001, "nearer", "farther") == by_centres else None

    # --- numbers, from the record's own fields ------------------------------------------------------
    def centre_distance(self, a: Thing, b: Thing) -> float:
        """Metres between the two objects' 3D box centres."""
        return float(np.linalg.norm(a.center - b.center))

    def gap(self, a: Thing, b: Thing) -> float | None:
        """Metres between the two objects' surfaces (their meshes' least distance), where the record holds it."""
        return self._gaps.get(frozenset((a.label, b.label)))

    def slide(self, a: Thing, b: Thing) -> float | None:
        """Metres a would slide along the table straight towards b until they touch, where the record holds it (a slide
        that would end at b: `truth.contact.slides`)."""
        return self._slides.get((a.label, b.label))

    def above_table(self, a: Thing) -> float:
        """How high a's lowest point stands above the table top, in metres (0 for an object on the table)."""
        return a.bottom - self.table_top

    def clock(self, of: Thing, other: Thing) -> int | None:
        """Where `other` stands from `of` on the table as an hour of a clock face lying on it, 12 straight away from
        the viewer and 3 to the viewer's right (SpatialRGPT's directions); None within CLOCK_BAND_DEG of the line
        between two hours, or for objects too near each other for a direction (or stacked)."""
        if self.view is None or frozenset((of.label, other.label)) in self._stacked:
            return None
        v = other.center[:2] - of.center[:2]
        if np.linalg.norm(v) < APART_M:
            return None
        forward = self.view.ground_forward
        right = np.array([forward[1], -forward[0]])
        angle = math.degrees(math.atan2(float(v @ right), float(v @ forward))) % 360
        hour, off = divmod(angle + 15, 30)  # hour 0 is 12 o'clock; `off` how far past the band's start
        if min(off, 30 - off) < CLOCK_BAND_DEG:
            return None
        return int(hour) % 12 or 12

    # --- which way an object faces ------------------------------------------------------------------
    def facing_of(self, of: Thing) -> Facing | None:
        """Which way its front points as the viewer sees it (`truth.facing`); None for an object without a front,
        or a text record."""
        if self.view is None or not of.has_front:
            return None
        return facing(of.front, of.center, self.view.position)

    def bearing(self, of: Thing, other: Thing) -> float | None:
        """How far off its front (0-180 degrees) another object stands from an object with a front; None for one
        without, objects too near each other for a direction, or one on, in or above the other."""
        if self.view is None or not of.has_front or frozenset((of.label, other.label)) in self._stacked:
            return None
        if np.linalg.norm(other.center[:2] - of.center[:2]) < APART_M:
            return None
        return bearing(of.front, of.center, other.center)

    def faces(self, of: Thing, other: Thing, way: str = "towards") -> bool | None:
        """Whether `of` faces `other` (`towards`: it stands within 45° of its front) or faces away from it (`away`:
        of its back), withheld within `truth.facing.BAND_DEG` of 45°."""
        return within(self.bearing(of, other), 0.0 if way == "towards" else 180.0)

    def same_way(self, a: Thing, b: Thing, way: str = "same") -> bool | None:
        """Whether two objects with fronts face the same way (`same`: their fronts within 45° of each other) or
        opposite ways (`opposite`: within 45° of opposite), withheld within `truth.facing.BAND_DEG` of 45°."""
        if self.view is None or not (a.has_front and b.has_front):
            return None
        return within(between_fronts(a.front, b.front), 0.0 if way == "same" else 180.0)

    # --- an object's own frame --------------------------------------------------------------------

    def intrinsic(self, of: Thing, other: Thing, front_deg: float = FRONT_DEG) -> tuple[str | None, str | None]:
        """Where `other` stands from `of`'s own front: (left/right or None, front/behind or None); front within
        `front_deg` of its front, behind within as much of its back."""
        if self.view is None or not of.has_front or frozenset((of.label, other.label)) in self._stacked:
            return None, None  # one on, in or above the other stands beside it in no frame
        v = other.center[:2] - of.center[:2]
        if np.linalg.norm(v) < APART_M:
            return None, None
        angle = math.degrees(math.atan2(float(v @ of.own_left), float(v @ of.front)))
        side = (
            "left"
            if SIDE_DEG <= angle <= 180 - SIDE_DEG
            else "right"
            if -180 + SIDE_DEG <= angle <= -SIDE_DEG
            else None
        )
        ahead = "front" if abs(angle) <= front_deg else "behind" if abs(angle) >= 180 - front_deg else None
        return side, ahead

    # --- other observers: a person at a side of the table, someone standing where an object is ------------
    @cached_property
    def depth_middle(self) -> float:
        """Halfway between the nearest and the farthest corner of the objects' boxes along the camera's view on the
        table: where the line of a person at the table's left or right side runs across it."""
        depths = np.concatenate([t.corners()[:, :2] @ self.view.ground_forward for t in self.things])
        return float(depths.min() + depths.max()) / 2

    def person_side(self, side: str, a: Thing) -> str | None:
        """`left` or `right`: where a stands for a person at `side` of the table (SIDES, as the viewer sees them), facing
        across it: `near` in the viewer's place, facing the way the camera looks, and `far` straight across, facing
        the viewer, on the camera's line of sight on the table; `left` and `right` on the line square to it at
        `depth_middle`, facing the viewer's right and left. None within PERSON_SIDE_M of their line."""
        if self.view is None:
            return None
        forward = self.view.ground_forward
        right = np.array([forward[1], -forward[0]])
        left_hand = {"near": -right, "far": right, "left": forward, "right": -forward}[side]
        through = self.view.position[:2] if side in ("near", "far") else forward * self.depth_middle
        across = float((a.center[:2] - through) @ left_hand)
        return "left" if across >= PERSON_SIDE_M else "right" if across <= -PERSON_SIDE_M else None

    def object_side(self, at: Thing, facing: Thing, other: Thing) -> str | None:
        """`left` or `right`: where `other` stands for someone standing where `at` is and facing `facing` (box centres
        on the table); None within OBJECT_SIDE_DEG of the facing line, ahead or behind, for objects too near each
        other for a direction, or where two of the three are stacked (beside each other in no frame)."""
        trio = ((at, facing), (at, other), (facing, other))
        if self.view is None or any(frozenset((p.label, q.label)) in self._stacked for p, q in trio):
            return None
        ahead, v = facing.center[:2] - at.center[:2], other.center[:2] - at.center[:2]
        if min(np.linalg.norm(ahead), np.linalg.norm(v)) < APART_M:
            return None
        angle = math.degrees(math.atan2(float(ahead[0] * v[1] - ahead[1] * v[0]), float(ahead @ v)))  # + to the left
        if OBJECT_SIDE_DEG <= abs(angle) <= 180 - OBJECT_SIDE_DEG:
            return "left" if angle > 0 else "right"
        return None

    # --- size ----------------------------------------------------------------------------------------
    def bigger(self, a: Thing, b: Thing) -> str | None:
        """`bigger` if a's largest extent is at least SIZE_RATIO times b's, `smaller` the other way, else None:
        the record's `bigger` pairs where it stores them, the same rule otherwise."""
        return self._size(a, b, "bigger", "smaller", max(a.size), max(b.size))

    def taller(self, a: Thing, b: Thing) -> str | None:
        """`taller` / `shorter` by height, as `bigger` is by largest extent."""
        return self._size(a, b, "taller", "shorter", a.size[2], b.size[2])

    def _size(self, a: Thing, b: Thing, more: str, less: str, ea: float, eb: float) -> str | None:
        if self.view is None:
            return None
        if self.stored is not None and more in self.stored:
            return _stored(self.stored[more], a, b, more, less)
        ratio = self.margins.size_ratio
        return more if ea >= ratio * eb else less if eb >= ratio * ea else None

    def apparent(self, a: Thing) -> tuple[float, float]:
        """(area, height) in pixels of the image rectangle holding its projected box."""
        x0, y0, x1, y1 = self._sight(a)[2]
        return float((x1 - x0) * (y1 - y0)), float(y1 - y0)

    def looks(self, a: Thing, b: Thing, measure: str) -> str | None:
        """How a (really the bigger or taller) looks beside b in the image: `same way` (the size cue agrees),
        `reversed` (b looks bigger: it is nearer, and only size constancy answers), or None (too close to call)."""
        k = 0 if measure == "bigger" else 1
        seen_a, seen_b = self.apparent(a)[k], self.apparent(b)[k]
        if seen_b >= APPARENT_RATIO * seen_a:
            return "reversed"
        return "same way" if seen_a >= APPARENT_RATIO * seen_b else None

    # --- occlusion -----------------------------------------------------------------------------------
    def hidden(self, a: Thing) -> bool | None:
        """Partly hidden (True), fully visible (False) or withheld (None). Where the render recorded what
        covers it (`covered_by`): partly hidden when something does and its fraction is at most HIDDEN,
        fully visible when nothing does and its fraction is at least VISIBLE (a sliver hidden at its edge
        covers no pixel wholly inside it, and is not asked about). Else from the boxes: an object whose
        projected box overlaps no other object's is fully visible, whatever its `visible_fraction` reads (a
        measured fraction of a small object reads low from its edge pixels alone); one that overlaps
        another is partly hidden when its fraction is at most HIDDEN, fully visible from VISIBLE on."""
        if self.view is None:
            return None
        f = a.visible_fraction
        if a.covered_by is not None:
            if a.covered_by and f is not None and f <= HIDDEN:
                return True
            return False if not a.covered_by and (f is None or f >= VISIBLE) else None
        if not self.overlapping(a):
            return False
        return None if f is None else True if f <= HIDDEN else False if f >= VISIBLE else None

    def overlapping(self, a: Thing) -> list[Thing]:
        box = self._sight(a)[2]
        return [b for b in self.things if b is not a and _overlap(box, self._sight(b)[2])]

    def occluders(self, a: Thing) -> list[Thing] | None:
        """What hides part of a partly hidden object: the render's `covered_by` where the record has it (None
        if one of them is not an object a question may name: hidden, or sharing its name). Else where the
        boxes settle it: only an object whose projected box overlaps a's can hide any of it, so when
        exactly one does, it is that one; with two or more, a box overlap is no covering: None."""
        if self.hidden(a) is not True:
            return None
        if a.covered_by is not None:
            by_label = {t.label: t for t in self.things}
            named = [by_label.get(n) for n in a.covered_by]
            kinds = self.kinds()
            unique = all(kinds[t.name] == 1 for t in named if t is not None)
            return named if None not in named and unique else None
        candidates = self.overlapping(a)
        return candidates if len(candidates) == 1 else None


def _stored(pairs: set[tuple[str, str]], a: Thing, b: Thing, holds: str, converse: str) -> str | None:
    return holds if (a.label, b.label) in pairs else converse if (b.label, a.label) in pairs else None


def _compare(da: float, db: float, margin: float, less: str, more: str) -> str | None:
    return less if db - da >= margin else more if da - db >= margin else None


def _overlap(p: tuple, q: tuple) -> bool:
    return p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]


NO_FRONT = (False, 0.0)  # has_front and front_deg of a kind the catalog does not hold


def _thing(record: dict, obj: dict, front: tuple[bool, float], carries: frozenset[str]) -> Thing:
    if not isinstance(obj, dict) or "name" not in obj or not isinstance(obj.get("box3d"), dict):
        raise UserError(
            f"scene {record['id']}: an object has no name and 3D box (box3d); "
            "give a render's metadata.jsonl or a `tabletest vignettes` file"
        )
    box = obj["box3d"]
    return Thing(
        obj["name"],
        np.asarray(box["center_m"], dtype=float),
        tuple(float(s) for s in box["size_m"]),
        float(box.get("yaw_deg", 0.0)),
        front[0],
        obj.get("visible_fraction"),
        tuple(obj["covered_by"]) if isinstance(obj.get("covered_by"), list) else None,
        _label(obj),
        carries,
        (obj.get("variant") or {}).get("colour"),
        float(obj["yaw_deg"]) if isinstance(obj.get("yaw_deg"), (int, float)) else None,
        front[1],
    )


def _label(obj: dict) -> str | None:
    return label_of(obj) if isinstance(obj, dict) and "name" in obj else None


def withheld_pairs(ambiguous: list) -> frozenset:
    """(pair of names, name) a record's `relations.ambiguous` withholds; entries `[a, b]`, `[a, b, name]` or
    `{"pair": [a, b], "relation": ...}`; the name is the relation table's `withheld_as` (`left_right`, `front_back`,
    `touching`, `next_to`; a relation's own key is read as its), or None (every relation of the pair) when none is named."""
    axes = {r.withheld_as: r.withheld_as for r in BY_KEY.values() if r.withheld_as} | {k: r.withheld_as for k, r in BY_KEY.items() if r.withheld_as}
    withheld = set()
    for entry in ambiguous:
        if isinstance(entry, dict):
            names, relation = entry.get("pair") or entry.get("objects"), entry.get("relation")
        else:
            names, relation = entry, entry[2] if isinstance(entry, list) and len(entry) > 2 else None
        if isinstance(names, list) and len(names) >= 2 and all(isinstance(n, str) for n in names[:2]):
            withheld.add((frozenset(names[:2]), axes.get(relation) if isinstance(relation, str) else None))
    return frozenset(withheld)
