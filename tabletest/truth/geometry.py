"""Ground truth of a random scene from its geometry (pure Python): camera, 3D boxes, and every
relation in the viewer's frame, withheld where it falls inside a CLEVR-style margin.

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
from tabletest.layout.arrangements import Contact
from tabletest.layout.camera import PinholeCamera
from tabletest.layout.instances import kind_of
from tabletest.layout.random_config import RelationMargins
from tabletest.layout.random_scene import PlacedObject
from tabletest.truth.contact import contact_relations, stacked_pairs

REFERENCE_WIDTH_PX = 512  # `margin_px` is given at this image width and scales with it


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
    """Every relation that holds beyond its margin, for every ordered pair (and triple) of the objects
    not `hidden` (those the render measured as hidden: no relation names them, `counts` leaves them out).
    With `contact` (the models' shapes and the config's arrangements) also on, inside, touching, above
    and next to (`contact.py`); a pair one of which is on, in or above the other is then neither left
    nor right of, nor in front of or behind, the other (withheld as `ambiguous`).

    Lists hold [subject, object] (`between`: [subject, one, other]; `nearer`: [a, b, c] = a is nearer
    to b than to c; `farther`: [a, c, b] = a is farther from c than from b). `ambiguous` holds
    [a, b, direction] for the pairs (a left of b in the record's order) withheld along
    `left_right` or `front_back`.
    """
    objs = [o for o in placed if o.name not in hidden]
    names = [o.name for o in objs]
    table_top = min(o.position_m[2] for o in placed)  # the lowest object stands on the table
    stacked: set[frozenset[str]] = set()
    if contact is not None:
        off_plane, withheld = contact_relations(objs, contact.shapes, contact.arrangements, margins.margin_m, table_top)
        stacked = stacked_pairs(off_plane)
    centers = np.array([o.box_center for o in objs], dtype=float).reshape(-1, 3)
    cam = (centers - np.asarray(camera.position)) @ camera.axes.T
    ground = ground_depths(camera, objs)
    u = camera.project(centers)[:, 0]
    margin_px = margins.margin_px * camera.width / REFERENCE_WIDTH_PX
    rel: dict[str, list] = {key: [] for key in ("left_of", "right_of", "in_front_of", "behind", "ambiguous")}
    left = set()
    for i, j in itertools.permutations(range(len(objs)), 2):
        if frozenset((names[i], names[j])) in stacked:
            continue
        if cam[j, 0] - cam[i, 0] > margins.margin_m and u[j] - u[i] > margin_px:
            rel["left_of"].append([names[i], names[j]])
            left.add((i, j))
        if ground[j] - ground[i] > margins.margin_m:
            rel["in_front_of"].append([names[i], names[j]])
    rel["right_of"] = [[b, a] for a, b in rel["left_of"]]
    rel["behind"] = [[b, a] for a, b in rel["in_front_of"]]
    for i, j in itertools.combinations(range(len(objs)), 2):
        if (i, j) not in left and (j, i) not in left:
            rel["ambiguous"].append([names[i], names[j], "left_right"])
        if abs(ground[j] - ground[i]) <= margins.margin_m or frozenset((names[i], names[j])) in stacked:
            rel["ambiguous"].append([names[i], names[j], "front_back"])
    between = [[names[b], names[a], names[c]] for a, b, c in itertools.permutations(range(len(objs)), 3) if (a, b) in left and (b, c) in left]
    nearer = []
    for a, b, c in itertools.permutations(range(len(objs)), 3):
        if math.dist(centers[a], centers[c]) - math.dist(centers[a], centers[b]) > margins.distance_margin_m:
            nearer.append([names[a], names[b], names[c]])
    big = [max(o.size_m) for o in objs]
    tall = [o.size_m[2] for o in objs]
    pairs = list(itertools.permutations(range(len(objs)), 2))
    bigger = [[names[i], names[j]] for i, j in pairs if big[i] >= margins.size_ratio * big[j]]
    taller = [[names[i], names[j]] for i, j in pairs if tall[i] >= margins.size_ratio * tall[j]]
    table_x = float(camera.axes[0] @ (np.array([0.0, 0.0, table_top]) - np.asarray(camera.position)))
    kind_counts = {kind: sum(1 for n in names if kinds[kind_of(n)] == kind) for kind in ("natural", "artifact")}
    relations = {
        "left_of": rel["left_of"],
        "right_of": rel["right_of"],
        "between": between,
        "table_side": {n: _side(x - table_x, margins.side_margin_m) for n, x in zip(names, cam[:, 0])},
        "in_front_of": rel["in_front_of"],
        "behind": rel["behind"],
        "ambiguous": rel["ambiguous"],
        "nearer": nearer,
        "farther": [[a, c, b] for a, b, c in nearer],
        "bigger": bigger,
        "smaller": [[b, a] for a, b in bigger],
        "taller": taller,
        "shorter": [[b, a] for a, b in taller],
        "counts": {"objects": len(names), **kind_counts},
        "hidden": [o.name for o in placed if o.name in hidden],
    }
    if contact is not None:
        relations = {**{k: v for k, v in relations.items() if k not in ("counts", "hidden")}, **off_plane, "counts": relations["counts"], "hidden": relations["hidden"]}
        relations["ambiguous"] = relations["ambiguous"] + withheld
    return relations


def _side(offset: float, margin: float) -> str:
    return "left" if offset < -margin else "right" if offset > margin else "middle"


def _r(value: float) -> float:
    return round(float(value), 6)
