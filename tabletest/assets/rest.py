"""A model's rest pose: how it lies on a table once let go, so that nothing a scene places rolls or falls.

A model at rest (its centre of mass over the face it stands on, far enough in that a tilt of 2° does not
topple it) keeps its pose exactly: an upright mug, lamp or bottle stays as its source made it. Any other
settles on the stable face of its convex hull nearest its pose, among those at least a quarter as likely
as the likeliest (trimesh's quasi-static drop probabilities) and at rest as above: a ball on its seam
rolls onto the face beside it, a sitting bear leans back onto its seat, and a wrench standing on its end
lies flat rather than on its thin edge. The centre of mass is the one physics weighs the model by
(`Columns.solid`).

The model tips over without turning, then turns about +Z so that its front (−Y, what "facing" questions
ask of) still faces −Y; a front tipped to within 30° of straight up or down keeps the tip's own turn
(fallen on its face, its top faces the camera). Angles are rounded to 0.01°, so that the same model
gives the same pose on any machine; the user's cache (`rest-poses/`) keeps them by the model's exact
triangles and the rule's version (`REST_POSE`), so a rebuild does not search again.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence

import numpy as np
import trimesh
from scipy.spatial import ConvexHull, QhullError

from tabletest.assets.manifest import REST_POSE
from tabletest.cache import cache_entry, cache_folder
from tabletest.assets.columns import CELL_M, columns_of, merged
from tabletest.files.jsonl import atomic_output

MIN_TIP_DEG = 2.0  # a pose that a smaller tilt topples is a balance, not a rest
LIKELY = 0.25  # a stable face less likely than this share of the likeliest one: a thin edge the model balances on
CONTACT_M = 1e-4  # the points this close to the table bear the model
FRONT_KEPT = 0.5  # the horizontal share of the tipped front below which it no longer says where it faces
DIGITS = 2  # angles in degrees are rounded to this many decimals: 0.01°
CELLS = 64  # the centre of mass from columns no finer than this many across the model (big flat faces sample slowly)


def rest_turn(meshes: Sequence[trimesh.Trimesh]) -> np.ndarray | None:
    """The rotation (4 × 4, about the origin) that puts the model, resting on z = 0 at its real size, on a
    stable face; None where it is at rest already (or has no volume to tip). Cached: trimesh's stable poses
    take up to a second for a round model."""
    vertices, faces = merged(meshes)
    key = hashlib.sha256(f"{REST_POSE}:{vertices.shape}:{faces.shape}".encode() + vertices.tobytes() + faces.tobytes())
    path = cache_entry(cache_folder("rest-poses") / f"{key.hexdigest()}.json")
    try:
        settled = _pose(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, RecursionError):  # not found yet, cut short, or of another shape: found again
        settled = _settle(vertices, faces)
        try:
            with atomic_output(path) as fh:
                fh.write(json.dumps(settled) + "\n")
        except OSError:  # a read-only or full cache: the pose is found again next time
            pass
    return None if settled is None else _turn(*settled)


def _pose(kept: object) -> tuple[float, float] | None:
    """A pose as the cache keeps it (`null`, or the tilt and the azimuth it tips towards); a ValueError for
    anything else, which is then never trusted."""
    if kept is None:
        return None
    numbers = isinstance(kept, list) and len(kept) == 2 and all(type(x) in (int, float) and math.isfinite(x) for x in kept)
    if not numbers or not (0 <= kept[0] <= 180 and -180 <= kept[1] <= 180):
        raise ValueError("not a rest pose")
    return float(kept[0]), float(kept[1])


def _settle(vertices: np.ndarray, faces: np.ndarray) -> tuple[float, float] | None:
    """The tilt and the azimuth it tips towards (degrees) of the rest pose; None where it is at rest already."""
    spread = np.linalg.svd(vertices - vertices.mean(axis=0), compute_uv=False)
    if spread[-1] <= 1e-9 * spread[0]:
        return None  # flat: no volume to tip over
    size = float(np.ptp(vertices, axis=0).max())
    _, center = columns_of(vertices, faces, max(CELL_M, size / CELLS)).solid()
    hull = trimesh.Trimesh(vertices, faces, process=False).convex_hull
    if tip_deg(hull.vertices, center) >= MIN_TIP_DEG:
        return None
    if not np.all(np.einsum("ij,ij->i", center - hull.triangles_center, hull.face_normals) < 0):
        return None  # its centre of mass on its hull (a sheet bent in a corner): nothing to balance
    transforms, likelihood = trimesh.poses.compute_stable_poses(hull, center_mass=center)
    normals = -transforms[:, 2, :3]  # each pose's face, outwards, in the model's frame
    candidates = []
    for k in np.flatnonzero(likelihood >= LIKELY * likelihood.max()):
        tilt = _degrees(np.arccos(np.clip(-normals[k, 2], -1.0, 1.0)))
        towards = _degrees(np.arctan2(normals[k, 1], normals[k, 0]))
        turn = _turn(tilt, towards)[:3, :3]
        at_rest = tip_deg(hull.vertices @ turn.T, turn @ center) >= MIN_TIP_DEG
        candidates.append(((not at_rest, tilt, -round(float(likelihood[k]), 6), towards), (tilt, towards)))
    return min(candidates)[1]


def tip_deg(vertices: np.ndarray, center: np.ndarray) -> float:
    """The tilt that topples a model with this centre of mass from the points it stands on (its lowest, within
    `CONTACT_M`): 0 or less where the centre is not over them, or they bound no area (a point, an edge)."""
    low = vertices[:, 2].min()
    contact = vertices[vertices[:, 2] <= low + CONTACT_M, :2]
    try:
        edges = ConvexHull(contact).equations
    except (QhullError, ValueError):  # fewer than 3 points, or all in a line
        return 0.0
    inside = -float(np.max(edges[:, :2] @ center[:2] + edges[:, 2]))
    return math.degrees(math.atan2(inside, center[2] - low))


def _turn(tilt_deg: float, towards_deg: float) -> np.ndarray:
    """Tip by `tilt_deg` towards the azimuth `towards_deg` (the face there ends down), then turn the front back
    to −Y."""
    towards = math.radians(towards_deg)
    tip = trimesh.transformations.rotation_matrix(math.radians(tilt_deg), [-math.sin(towards), math.cos(towards), 0.0])
    front = tip[:2, :3] @ [0.0, -1.0, 0.0]
    if math.hypot(*front) < FRONT_KEPT:
        return tip
    yaw = _degrees(math.atan2(-1.0, 0.0) - math.atan2(front[1], front[0]))
    return trimesh.transformations.rotation_matrix(math.radians(yaw), [0.0, 0.0, 1.0]) @ tip


def _degrees(radians: float) -> float:
    return round(math.degrees(radians), DIGITS)
