"""Ground truth of a random scene from its geometry (pure Python): camera, 3D boxes, and every relation its
record stores, each decided by the relation table (`truth.relation_table`) from the scene's facts and withheld
where it falls inside a CLEVR-style margin (the random config's `relations`).

Frames: `world` (+Z up, the table top at z = table height); `camera` (x right, y down, z forward,
the camera at the origin). The viewer's left/right compares the objects' box centres along the
camera's x axis (horizontal: the camera has no roll) AND their projected centres in the image, so
a label holds both in the room and in the picture; in front/behind compares depth (z in the camera
frame: closer to the camera is in front).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np

from tabletest.assets.footprint import Footprint
from tabletest.files.records import RandomRelations
from tabletest.layout.arrangements import Contact
from tabletest.layout.camera import CameraView, PinholeCamera
from tabletest.layout.instances import kind_of
from tabletest.layout.random_config import RelationMargins
from tabletest.layout.random_scene import PlacedObject
from tabletest.truth.contact import contact_relations
from tabletest.truth.relation_table import BY_KEY, RELATIONS, Relation, stacked_pairs
from tabletest.truth.scene_facts import Margins, SceneGeometry, Thing, withheld_pairs

REFERENCE_WIDTH_PX = 512  # `margin_px` is given at this image width and scales with it
RECORD_KEYS = tuple(RandomRelations.model_fields)  # what a random record's relations hold, in its order


def camera_record(camera: PinholeCamera) -> dict:
    """Intrinsics K (pixels, origin top-left), the 4×4 world-to-camera pose, and the resolution."""
    f = camera.focal_px
    rotation = camera.axes
    translation = -rotation @ np.asarray(camera.position)
    pose = np.eye(4)
    pose[:3, :3], pose[:3, 3] = rotation, translation
    return {
        "K": [[_r(f), 0.0, camera.width / 2], [0.0, _r(f), camera.height / 2], [0.0, 0.0, 1.0]],
        "world_to_camera": [[_r(v) for v in row] for row in pose],
        "resolution": [camera.width, camera.height],
    }


def pinhole_record(camera: PinholeCamera) -> dict:
    """`camera_record`, and where the camera stands around what it looks at: the azimuth (0: straight in front, at
    −Y; positive towards +X), the elevation above the table's plane and the distance, and its focal length."""
    d = np.subtract(camera.position, camera.target)
    return {
        **camera_record(camera),
        "azimuth_deg": _r(math.degrees(math.atan2(d[0], -d[1]))),
        "elevation_deg": _r(math.degrees(math.atan2(d[2], math.hypot(d[0], d[1])))),
        "distance_m": _r(np.linalg.norm(d)),
        "focal_mm": camera.focal_mm,
    }


def object_geometry(camera: PinholeCamera, obj: PlacedObject, footprint: Footprint | None = None) -> dict:
    """The object's 3D box (world frame, `box3d`), the centre it is placed by (its model box's, half its height
    above its origin) in the camera frame, and that centre's depth."""
    in_camera = camera.axes @ (np.asarray(obj.box_center) - np.asarray(camera.position))
    return {
        "box3d": box3d(obj.position_m, obj.yaw_deg, obj.size_m, footprint),
        "center_camera_m": [_r(v) for v in in_camera],
        "depth_m": _r(in_camera[2]),
    }


def box3d(position: Sequence[float], yaw_deg: float, size: Sequence[float], footprint: Footprint | None = None) -> dict:
    """An object's 3D box in the world, as records keep it: its model's own box standing at its origin (`position`
    on the table top, the box's centre half its height above), or its model's footprint box (`assets.footprint`)
    where the model lies diagonally in its own box."""
    if footprint is None:
        x, y, z = (float(v) for v in position)
        return {"center_m": [round(x, 6), round(y, 6), round(z + size[2] / 2, 6)], "size_m": list(size), "yaw_deg": yaw_deg, "frame": "world"}
    center, sides, yaw = footprint.box(tuple(position), yaw_deg, size[2])
    return {"center_m": center, "size_m": sides, "yaw_deg": yaw, "frame": "world"}


def ground_depths(camera: PinholeCamera, placed: Sequence[PlacedObject]) -> np.ndarray:
    """Where each object stands on the table along the camera's view, in metres: its footprint centre
    projected on the camera's horizontal forward direction. "In front of" compares these, as people
    judge objects on a table by where they touch it (a tall lamp farther back has its box centre higher,
    so nearer the camera along its tilted axis, yet it stands behind)."""
    forward = camera.axes[2][:2] / np.linalg.norm(camera.axes[2][:2])
    feet = np.array([o.position_m[:2] for o in placed], dtype=float).reshape(-1, 2)
    return (feet - np.asarray(camera.position[:2])) @ forward


def scene_relations(
    placed: Sequence[PlacedObject], camera: PinholeCamera, margins: RelationMargins, kinds: Mapping[str, str], hidden: frozenset[str] = frozenset(),
    contact: Contact | None = None,
) -> dict:
    """Every relation a random record stores (`files.records.RandomRelations`, in its order) that holds beyond its
    margin, for every ordered pair (and triple) of the objects not `hidden` (those the render measured as hidden: no
    relation names them, `counts` leaves them out). Each relation of the relation table is decided by the table's
    own `decide`, from the scene's facts (`placed_facts`); with `contact` (the models' shapes and the config's
    arrangements) also those the meshes decide (on, in, above, touching, next to: `contact.py`), and a pair one of
    which is on, in or above the other is then neither left nor right of, nor in front of or behind, the other.

    Lists hold [subject, object] (`between`: [subject, one, other]; `nearer`: [a, b, c] = a is nearer
    to b than to c; `farther`: [a, c, b] = a is farther from c than from b). `ambiguous` holds
    [a, b, name] for the pairs (in the record's order) a relation withholds, named as the table's `withheld_as`.
    """
    objs = [o for o in placed if o.name not in hidden]
    table_top = min(o.position_m[2] for o in placed)  # the lowest object stands on the table
    meshes = None if contact is None else contact_relations(objs, contact.shapes, contact.arrangements, margins.margin_m, table_top)
    g = placed_facts(objs, camera, margins, meshes)
    kept: dict[str, list] = {}
    for key in RECORD_KEYS:
        relation = BY_KEY.get(key)
        if relation is not None and (meshes is not None or not relation.meshes):
            kept[key] = _pairs(g, relation, kept)
    table_x = float(camera.axes[0] @ (np.array([0.0, 0.0, table_top]) - np.asarray(camera.position)))
    names = [t.label for t in g.things]
    found = {
        **kept,
        **_compared(g),
        "table_side": {t.label: _side(g.lateral_key(t) - table_x, margins.side_margin_m) for t in g.things},
        "ambiguous": _ambiguous(g, kept),
        "counts": {"objects": len(names), **{kind: sum(1 for n in names if kinds[kind_of(n)] == kind) for kind in ("natural", "artifact")}},
        "hidden": [o.name for o in placed if o.name in hidden],
    }
    return {key: found[key] for key in RECORD_KEYS if key in found}


def placed_facts(objs: Sequence[PlacedObject], camera: PinholeCamera, margins: RelationMargins, meshes: tuple[dict, list] | None) -> SceneGeometry:
    """The facts the relation table decides from, of placed objects: each one's model box (the centre it is placed
    by), the camera, the config's margins and, where known, what the meshes decide (`contact_relations`)."""
    things = [Thing(kind_of(o.name), np.asarray(o.box_center, dtype=float), tuple(o.size_m), o.yaw_deg, False, None, label=o.name) for o in objs]
    off_plane, withheld = meshes or ({}, [])
    facts = SceneGeometry(
        things, CameraView.of(camera), ambiguous=withheld_pairs(withheld), stacked=frozenset(stacked_pairs(off_plane)),
        margins=Margins.of(margins, REFERENCE_WIDTH_PX),
    )
    facts.stored = {key: {tuple(pair) for pair in pairs} for key, pairs in off_plane.items()}
    return facts


def _pairs(g: SceneGeometry, relation: Relation, kept: Mapping[str, list]) -> list[list[str]]:
    """A relation's pairs as a record lists them: the converse of one it lists already turned round, a symmetric one
    in both orders pair by pair, any other in the objects' order."""
    if relation.symmetric:
        held = [(a.label, b.label) for a, b in itertools.combinations(g.things, 2) if relation.decide(g, a, b)]
        return [list(pair) for a, b in held for pair in ((a, b), (b, a))]
    if relation.converse in kept:
        return [[b, a] for a, b in kept[relation.converse]]
    return [[a.label, b.label] for a, b in itertools.permutations(g.things, 2) if relation.decide(g, a, b)]


def _ambiguous(g: SceneGeometry, kept: Mapping[str, list]) -> list[list[str]]:
    """[a, b, name] for each pair a kept relation withholds: what the camera withholds pair by pair, then what the
    meshes do."""
    withholding = {r.withheld_as: r for r in RELATIONS if r.withheld_as and r.key in kept}.values()  # each name's first relation
    return [
        [a.label, b.label, r.withheld_as]
        for meshes in (False, True)
        for a, b in itertools.combinations(g.things, 2)
        for r in withholding
        if r.meshes == meshes and r.decide(g, a, b) is None
    ]


def _compared(g: SceneGeometry) -> dict[str, list]:
    """The record's comparisons of three objects and of sizes: `between` as the viewer sees them, `nearer` by box
    centres, `bigger` and `taller` (`SceneGeometry.viewer_between`, `.nearer`, `.bigger`, `.taller`: the rules the
    records' readers apply), each with its converse."""
    trios = list(itertools.permutations(g.things, 3))
    between = [[m.label, a.label, c.label] for a, m, c in trios if g.viewer_lateral(a, m) == "left" and g.viewer_between(m, a, c)]
    nearer = [[a.label, b.label, c.label] for a, b, c in trios if g.nearer(a, b, c)]
    pairs = list(itertools.permutations(g.things, 2))
    bigger = [[a.label, b.label] for a, b in pairs if g.bigger(a, b) == "bigger"]
    taller = [[a.label, b.label] for a, b in pairs if g.taller(a, b) == "taller"]
    return {
        "between": between,
        "nearer": nearer,
        "farther": [[a, c, b] for a, b, c in nearer],
        "bigger": bigger,
        "smaller": [[b, a] for a, b in bigger],
        "taller": taller,
        "shorter": [[b, a] for a, b in taller],
    }


def _side(offset: float, margin: float) -> str:
    return "left" if offset < -margin else "right" if offset > margin else "middle"


def _r(value: float) -> float:
    return round(float(value), 6)
