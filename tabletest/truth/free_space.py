"""Free table in the image, and room on the table, decided from a record's own geometry (its camera, the table
top it names, each object's 3D box), never from pixels.

- **Free space** ("a free spot on the table right next to the laptop, on its side towards the mug", RoboSpatial's
  spatial context): the pixels of the table top that no object's box covers in the image (each box projected:
  its outline, the convex hull of its eight corners, holds every pixel the object can show) and whose point on
  the table stands next to the object on the side asked (the side the other object stands on, within
  `SIDE_CONE_DEG` of its axis, `side_towards`: left, right, in front or behind as the viewer sees them):
  beyond the records' margin that way (`SIDE_M`, and for left and right `SIDE_PX` columns in the image, as
  the records decide `left_of`), at most `NEAR_M` beyond it and never past the other object's footprint that
  way (`reach_towards`), and within `ACROSS_M` of the object's centre
  across that direction (so the spot is beside the object, not anywhere on that half of the table, and no
  constant point is a good answer). Each bound is a line on the table, and the table maps to
  the image by a homography, so it is a line in the image too: the region is a convex polygon (the table top,
  clipped to the image), some half-planes and the outlines to stay out of, which a judge tests exactly
  (`truth.locations.in_region`). Asked only where the region holds a disc of `MIN_CLEAR_SHARE` of the image's
  width.
- **Fit** ("is there room for the apple between the mug and the bowl?"): the object's footprint, turned with
  its narrow side along the line between the two others' box centres and slid along it, clears every other
  footprint and stays on the table somewhere between them. Yes where it does with `FIT_MARGIN_M` to spare on
  every side, no where even `FIT_MARGIN_M` less on every side collides everywhere, withheld between.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.ndimage import distance_transform_edt

from tabletest.layout.camera import CameraView
from tabletest.layout.instances import label_of
from tabletest.layout.random_config import RelationMargins
from tabletest.truth.scene_facts import SceneGeometry, Thing

MARGINS = RelationMargins()
SIDE_M = MARGINS.margin_m  # a free spot is left of (right of, in front of, behind) an object beyond the records' margin ...
SIDE_PX_AT_512 = MARGINS.margin_px  # ... in metres and in image columns (at 512 px wide, scaled with the width)
NEAR_M = 0.35  # a free spot is at most this far beyond the margin in the direction asked ...
ACROSS_M = 0.15  # ... and at most this far from the object's centre across it
MIN_CLEAR_SHARE = 0.02  # a free-space question is asked where its region holds a disc this share of the width in radius
RASTER_PX = 128  # the deepest point is searched on a grid of at most this many cells across
FIT_MARGIN_M = 0.02  # fit: yes with this much to spare on every side, no where this much less still collides
AHEAD_M = 0.01  # points in front of the camera: at least this far along its axis
# A free-space question names a side of an object by another object ("on its side towards the bowl"): the
# bowl's direction from it on the table must lie within this angle of the side's axis, so that the words
# name that one side only. Two neighbouring sides' cones then stay 30° apart and never share an object, and
# one in a cone stands at least 1.7 times as far along its axis as across it (tan 60°), where an object at
# 45° would stand as much to the side as in front and name neither side.
SIDE_CONE_DEG = 30.0


@dataclass(frozen=True)
class FreeRegion:
    """Free table in the image, in pixels: inside `table` (convex), on the kept side of each of `sides`
    (a, b, c with a*x + b*y + c >= 0, a² + b² = 1), outside every one of `objects` (convex outlines)."""

    table: np.ndarray
    sides: tuple[tuple[float, float, float], ...]
    objects: tuple[np.ndarray, ...]

    def as_record(self) -> dict:
        """The region as a question record holds it, to 0.01 px (its spot lies pixels inside it)."""
        return {
            "table": _rounded(self.table),
            "sides": [[round(v, 6) for v in side] for side in self.sides],
            "objects": [_rounded(outline) for outline in self.objects],
        }

    def spot(self, size: tuple[int, int]) -> tuple[tuple[float, float], float]:
        """Its deepest point (the centre of the largest disc it holds, on a grid of at most RASTER_PX cells across
        the part of the table its half-planes leave) and that disc's radius in pixels (0 where it is empty)."""
        area = self.table
        for a, b, c in self.sides:
            area = _clip(area, np.array([a, b]), c)
        if len(area) < 3:
            return (0.0, 0.0), 0.0
        (x0, y0), (x1, y1) = area.min(axis=0), area.max(axis=0)
        step = max(1.0, max(x1 - x0, y1 - y0) / RASTER_PX)
        xs, ys = np.arange(x0 + step / 2, x1, step), np.arange(y0 + step / 2, y1, step)
        if not len(xs) or not len(ys):
            return (0.0, 0.0), 0.0
        x, y = np.meshgrid(xs, ys)
        free = inside_convex(area, x, y)
        for outline in self.objects:
            free &= ~inside_convex(outline, x, y)
        depth = distance_transform_edt(np.pad(free, 1))[1:-1, 1:-1]
        row, col = np.unravel_index(int(np.argmax(depth)), depth.shape)
        return (float(xs[col]), float(ys[row])), max(0.0, float(depth[row, col]) * step - step)


def free_region(g: SceneGeometry, record: dict, of: Thing, word: str, towards: Thing | None = None) -> FreeRegion | None:
    """The free table `word` (left, right, front, behind) of `of`, as the viewer sees it, up to `towards` where
    it names that side; None where the record names no table or a box reaches behind the camera."""
    view, size = g.view, image_size(record)
    if view is None or g.table is None or g.table_top is None or size is None:
        return None
    table = table_outline(view, g.table, g.table_top, size)
    outlines = [box_outline(view, box) for box in boxes(record)]
    if table is None or any(o is None for o in outlines):
        return None
    reach = SIDE_M + NEAR_M if towards is None else reach_towards(view, g.table_top, of, word, towards)
    return FreeRegion(table, tuple(side_planes(view, g.table_top, of, word, reach)), tuple(outlines))  # type: ignore[arg-type]


def image_size(record: dict) -> tuple[int, int] | None:
    """(width, height) of the record's image."""
    resolution = (record.get("camera") or {}).get("resolution") or (record.get("render") or {}).get("resolution")
    return (int(resolution[0]), int(resolution[1])) if resolution else None


def boxes(record: dict) -> list[dict]:
    """Every object's 3D box, hidden ones too (they stand on the table all the same)."""
    return [o["box3d"] for o in record["objects"] if isinstance(o, dict) and isinstance(o.get("box3d"), dict)]


def corners(box: dict) -> np.ndarray:
    """A box's eight corners, world frame (as a scene's objects' are, `Thing.corners`)."""
    size = tuple(float(v) for v in box["size_m"])
    return Thing("", np.asarray(box["center_m"], dtype=float), size, float(box.get("yaw_deg", 0.0)), False, None).corners()  # type: ignore[arg-type]


def footprint(box: dict) -> np.ndarray:
    """A box's footprint on the table, its four corners in turning order."""
    sx, sy = box["size_m"][:2]
    return _rectangle(np.asarray(box["center_m"][:2], dtype=float), sx, sy, math.radians(box.get("yaw_deg", 0.0)))


def box_outline(view: CameraView, box: dict) -> np.ndarray | None:
    """The image outline of a 3D box: the convex hull of its projected corners; None if one is behind the camera."""
    points = corners(box)
    if np.any(view.to_camera(points)[:, 2] < AHEAD_M):
        return None
    return convex_hull(view.project(points))


def table_outline(view: CameraView, table: tuple[float, float], top: float, size: tuple[int, int]) -> np.ndarray | None:
    """The table top in the image: its rectangle (centred on the world's origin) cut to what lies in front of the
    camera, projected, and cut to the image; None where none of it is in view."""
    w, d = table[0] / 2, table[1] / 2
    camera = view.to_camera(np.array([[-w, -d, top], [w, -d, top], [w, d, top], [-w, d, top]]))
    camera = _clip(camera, np.array([0.0, 0.0, 1.0]), -AHEAD_M)
    if len(camera) < 3:
        return None
    pixels = camera @ view.K.T
    polygon = pixels[:, :2] / pixels[:, 2:3]
    width, height = size
    for normal, offset in (((1, 0), 0), ((-1, 0), width), ((0, 1), 0), ((0, -1), height)):
        polygon = _clip(polygon, np.array(normal, dtype=float), offset)
    return polygon if len(polygon) >= 3 else None


def side_planes(view: CameraView, top: float, of: Thing, word: str, reach: float = SIDE_M + NEAR_M) -> list[tuple[float, float, float]]:
    """The image half-planes of the table points just `word` of `of`: left or right beyond SIDE_M in the camera's
    x and beyond SIDE_PX columns in the image (as the records decide `left_of`), in front or behind beyond SIDE_M
    along the view on the table (as they decide `in_front_of`); at most `reach` from `of` that way (NEAR_M
    beyond SIDE_M, or less: `reach_towards`), and within ACROSS_M of `of` across."""
    rotation, translation = view.world_to_camera[:3, :3], view.world_to_camera[:3, 3]
    homography = view.K @ np.column_stack([rotation[:, 0], rotation[:, 1], top * rotation[:, 2] + translation])
    to_image = np.linalg.inv(homography).T  # a line on the table (l . (X, Y, 1) >= 0) as a line in the image
    sign, way, other = _side_axes(view, top, of, word)
    bounds = [sign * way - [0, 0, SIDE_M], -sign * way + [0, 0, reach], other + [0, 0, ACROSS_M], -other + [0, 0, ACROSS_M]]
    lines = [to_image @ bound for bound in bounds]
    if word in ("left", "right"):
        u_of = float(view.project(of.center)[0])
        lines.append(np.array([sign, 0.0, -sign * u_of - SIDE_PX_AT_512 * view.width / 512]))
    return [tuple(float(v) for v in line / math.hypot(line[0], line[1])) for line in lines]  # type: ignore[misc]


def reach_towards(view: CameraView, top: float, of: Thing, word: str, towards: Thing) -> float:
    """How far `word` of `of` the free table named by `towards` reaches: NEAR_M beyond SIDE_M, cut at the nearest
    corner of `towards`'s footprint that way, so that a spot "on its side towards the bowl" never lies past the bowl."""
    sign, way, _ = _side_axes(view, top, of, word)
    footprint = np.c_[towards.corners()[:, :2], np.ones(8)]
    return min(SIDE_M + NEAR_M, float(np.min(footprint @ (sign * way))))


def _side_axes(view: CameraView, top: float, of: Thing, word: str) -> tuple[float, np.ndarray, np.ndarray]:
    """The sign of `word` and the offsets of a table point (X, Y) from `of` as affine functions l . (X, Y, 1), in
    metres: along `word`'s axis (the camera's x across the table, or the view along it) and across that axis."""
    rotation, translation = view.world_to_camera[:3, :3], view.world_to_camera[:3, 3]
    forward = view.ground_forward
    across = np.array([rotation[0, 0], rotation[0, 1], rotation[0, 2] * top + translation[0] - float((rotation @ of.center + translation)[0])])
    along = np.array([forward[0], forward[1], -float(of.center[:2] @ forward)])
    sign = 1.0 if word in ("right", "behind") else -1.0
    return (sign, across, along) if word in ("left", "right") else (sign, along, across)


def side_towards(view: CameraView, top: float, of: Thing, towards: Thing) -> str | None:
    """The side of `of` (left, right, front, behind, as `side_planes` bounds it) that `towards` stands on: the
    one whose axis on the table (the camera's x across it, `ground_forward` along it) its direction from `of`
    lies within SIDE_CONE_DEG of; None where it lies nearer a diagonal, or stands where `of` does."""
    _, across, along = _side_axes(view, top, of, "right")
    x, y = (float(np.array([*towards.center[:2], 1.0]) @ axis) for axis in (across, along))
    if math.hypot(x, y) < 1e-9:
        return None
    off_axis = math.degrees(math.atan2(min(abs(x), abs(y)), max(abs(x), abs(y))))
    if off_axis > SIDE_CONE_DEG:
        return None
    if abs(x) >= abs(y):
        return "right" if x > 0 else "left"
    return "behind" if y > 0 else "front"


def room_between(g: SceneGeometry, record: dict, x: Thing, a: Thing, b: Thing) -> bool | None:
    """Whether `x` fits on the table between `a` and `b` (see the module docstring); None inside the margin, or
    where one of the three does not stand on the table."""
    if g.table_top is None or any(t.bottom > g.table_top + 0.005 for t in (x, a, b)):
        return None
    others = [footprint(o["box3d"]) for o in record["objects"] if isinstance(o.get("box3d"), dict) and label_of(o) != x.label]
    start, end = a.center[:2], b.center[:2]
    length = float(np.linalg.norm(end - start))
    if length < 1e-6:
        return None
    along = (end - start) / length
    angle = math.atan2(along[1], along[0])
    narrow, wide = sorted(x.size[:2])

    def fits(spare: float) -> bool:
        placed = _rectangle(start, narrow + 2 * spare, wide + 2 * spare, angle)  # at the start, slid along `along`
        low, high = _on_table(g, placed, along, length)
        blocked = sorted(b for b in (_blocked(placed, along, other) for other in others) if b is not None)
        for first, last in blocked:  # open intervals of the slide: touching is no overlap
            if first >= low:
                break
            low = max(low, last)
        return low <= high

    if fits(FIT_MARGIN_M):
        return True
    return False if not fits(-FIT_MARGIN_M) else None


def convex_hull(points: np.ndarray) -> np.ndarray:
    """The convex hull of 2D points, counter-clockwise in x-right y-up terms (Andrew's monotone chain)."""
    ordered = sorted(map(tuple, np.asarray(points, dtype=float)))
    if len(ordered) < 3:
        return np.array(ordered)

    def half(points_in_order: list) -> list:
        chain: list = []
        for p in points_in_order:
            while len(chain) >= 2 and _cross(chain[-2], chain[-1], p) <= 0:
                chain.pop()
            chain.append(p)
        return chain

    lower, upper = half(ordered), half(ordered[::-1])
    return np.array(lower[:-1] + upper[:-1])


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _rectangle(centre: np.ndarray, along: float, across: float, angle: float) -> np.ndarray:
    """A rectangle `along` long in the direction `angle` (radians) and `across` wide, corners in turning order."""
    u = np.array([math.cos(angle), math.sin(angle)])
    v = np.array([-u[1], u[0]])
    return np.array([centre + su * along / 2 * u + sv * across / 2 * v for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _blocked(p: np.ndarray, way: np.ndarray, q: np.ndarray) -> tuple[float, float] | None:
    """The open interval of t for which convex polygon p moved by t * way overlaps convex polygon q (touching is
    no overlap), or None: on each separating axis of the two (their edges' normals) their shadows overlap for
    an interval of t, and they overlap where every axis's does (separating axis theorem)."""
    low, high = -math.inf, math.inf
    for polygon in (p, q):
        for i in range(len(polygon)):
            edge = polygon[(i + 1) % len(polygon)] - polygon[i]
            axis = np.array([-edge[1], edge[0]])
            a, b, speed = p @ axis, q @ axis, float(way @ axis)
            if abs(speed) < 1e-12:
                if a.max() <= b.min() or b.max() <= a.min():
                    return None
                continue
            ends = sorted(((b.min() - a.max()) / speed, (b.max() - a.min()) / speed))
            low, high = max(low, ends[0]), min(high, ends[1])
    return (float(low), float(high)) if low < high else None


def _on_table(g: SceneGeometry, polygon: np.ndarray, way: np.ndarray, length: float) -> tuple[float, float]:
    """The closed interval of t in [0, length] for which polygon moved by t * way lies on the table (empty: low > high)."""
    low, high = 0.0, length
    if g.table is None:
        return low, high
    for k, half in enumerate(np.array(g.table) / 2):
        for corner in polygon[:, k]:
            if abs(way[k]) < 1e-12:
                if abs(corner) > half:
                    return 1.0, 0.0
                continue
            ends = sorted(((-half - corner) / way[k], (half - corner) / way[k]))
            low, high = max(low, ends[0]), min(high, ends[1])
    return float(low), float(high)


def _clip(polygon: np.ndarray, normal: np.ndarray, offset: float) -> np.ndarray:
    """The part of a convex polygon where normal . p + offset >= 0 (Sutherland-Hodgman against one plane)."""
    out = []
    n = len(polygon)
    for i in range(n):
        p, q = polygon[i], polygon[(i + 1) % n]
        fp, fq = float(normal @ p[: len(normal)] + offset), float(normal @ q[: len(normal)] + offset)
        if fp >= 0:
            out.append(p)
        if (fp >= 0) != (fq >= 0):
            out.append(p + (q - p) * fp / (fp - fq))
    return np.array(out)


def inside_convex(polygon: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Which of the points (x, y) lie inside or on a convex polygon."""
    inside = np.ones(x.shape, dtype=bool)
    area = sum(_cross(polygon[0], polygon[i], polygon[i + 1]) for i in range(1, len(polygon) - 1))
    sign = 1.0 if area >= 0 else -1.0
    for (x0, y0), (x1, y1) in zip(polygon, np.roll(polygon, -1, axis=0)):
        inside &= sign * ((x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)) >= 0
    return inside


def _rounded(polygon: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in polygon]
