"""Objects off the table plane: one standing on another, inside a container, or touching a neighbour.

Every pose is found from the models' columns (`assets/columns.py`), never from boxes alone: a carried object is
lowered until its underside meets its carrier's top (or a container's floor), a touching one slid towards
its neighbour until their sides meet. A pose is kept only if it is physically plausible: nothing overlaps
any other object, a carried object rests with its centre of mass over what holds it, and it keeps clear
of everything but its carrier. Pure Python and seeded: the same draw gives the same scene anywhere.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tabletest.assets.columns import Columns
from tabletest.layout.random_config import Arrangements

Region = tuple[float, float, float, float]  # x0, y0, x1, y1: fractions of the footprint (x left to right, y front to back)
REST_M = 0.0015  # a cell this close to its carrier bears on it (for the balance test)
BALANCE_M = 0.002  # a single contact patch may sit this far off the centre of mass
TILT_DEG = 3.0  # a carried object must stay balanced tipped this far (a knock, the slope of what carries it)
SLIDE_STEPS = 14  # bisection steps sliding towards a neighbour: the gap left is under 0.1 mm
SETTLE_STEPS_M = (0.004, 0.001)  # an object settling downhill moves in steps this long, coarse then fine
SETTLE_DROP_M = 0.0001  # a step counts as downhill when it lowers the object by more than this
# What a column test (one object's cells looked up in another's columns: `cells_in`) costs in the placement budget's
# unit, a flat footprint test: a fixed part plus one unit per `CELLS_PER_UNIT` of its cells. Measured on one CPU
# core: a footprint test ~6 µs, a column test ~90 µs + 0.04 µs a cell (a padlock's 224 cells: 155 µs, a laptop's
# 26,608: 1.4 ms).
COLUMN_TEST = 16
CELLS_PER_UNIT = 128

Charge = Callable[[int], None]  # told the cost of each column test before it runs; may raise to stop the search


@dataclass(frozen=True, eq=False)
class Shape:
    """What placement knows of a model: its box, its file (measured into columns when first needed), and
    from the catalog what it can carry."""

    size_m: tuple[float, float, float]
    path: str
    sha256: str
    support: Region | None = None  # the flat top things can stand on
    container: Region | None = None  # the opening of its cavity

    @property
    def columns(self) -> Columns:
        from tabletest.assets.canonical import model_columns  # loading a model file: trimesh, only when first needed

        return model_columns(self.path, self.sha256)

    def region(self, kind: str) -> Region | None:
        return self.support if kind == "on" else self.container


@dataclass(frozen=True)
class Contact:
    """What relations off the table plane are measured with: the models' shapes and the config's arrangements."""

    shapes: Mapping[str, Shape]
    arrangements: Arrangements


@dataclass(frozen=True)
class Pose:
    x: float
    y: float
    z: float
    yaw_deg: float


def region_m(shape: Shape, region: Region) -> tuple[float, float, float, float]:
    """A region (fractions of the footprint) in metres of the object's own frame: left, front, right, back."""
    w, d = shape.size_m[0], shape.size_m[1]
    return -w / 2 + region[0] * w, -d / 2 + region[1] * d, -w / 2 + region[2] * w, -d / 2 + region[3] * d


def within(x: np.ndarray, y: np.ndarray, bounds: tuple[float, float, float, float]) -> np.ndarray:
    left, front, right, back = bounds
    return (x >= left) & (x <= right) & (y >= front) & (y <= back)


def support_heights(shape: Shape) -> tuple[float, float]:
    """The lowest and highest top of the object's columns inside its support region."""
    x, y, _, top = shape.columns.cell_centers()
    inside = within(x, y, region_m(shape, shape.support))
    return float(top[inside].min()), float(top[inside].max())


def to_world(pose: Pose, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = math.radians(pose.yaw_deg)
    c, s = math.cos(t), math.sin(t)
    return pose.x + x * c - y * s, pose.y + x * s + y * c


def to_own(pose: Pose, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = math.radians(pose.yaw_deg)
    c, s = math.cos(t), math.sin(t)
    dx, dy = x - pose.x, y - pose.y
    return dx * c + dy * s, -dx * s + dy * c


def cells_in(shape: Shape, pose: Pose, other: Shape, other_pose: Pose, reach: int = 0) -> tuple[np.ndarray, ...]:
    """`shape`'s filled cells placed at `pose`, in world z, with what `other` (at `other_pose`) has in the same
    column, or within `reach` cells of it: (x, y, bottom, top, other's bottom, other's top), NaN where `other`
    has nothing."""
    x, y, bottom, top = shape.columns.cell_centers()
    wx, wy = to_world(pose, x, y)
    ox, oy = to_own(other_pose, wx, wy)
    below = other.columns.lookup(ox, oy, "bottom", reach) + other_pose.z
    above = other.columns.lookup(ox, oy, "top", reach) + other_pose.z
    return wx, wy, bottom + pose.z, top + pose.z, below, above


def overlaps(shape: Shape, pose: Pose, other: Shape, other_pose: Pose, clearance: float = 0.0, reach: int = 0) -> bool:
    """Whether the two objects' columns share any space (each column solid from its lowest to highest point),
    with `clearance` metres of air demanded between them vertically and `reach` cells in plan."""
    _, _, bottom, top, below, above = cells_in(shape, pose, other, other_pose, reach)
    both = ~np.isnan(above)
    return bool(np.any((bottom[both] < above[both] + clearance) & (below[both] < top[both] + clearance)))


def vertical_gap(shape: Shape, pose: Pose, carrier: Shape, carrier_pose: Pose) -> float | None:
    """How far `shape`'s underside is above `carrier`'s top where one is over the other (negative: sunk
    into it); None when their footprints share no cell."""
    _, _, bottom, _, _, above = cells_in(shape, pose, carrier, carrier_pose)
    both = ~np.isnan(above)
    return float(np.min(bottom[both] - above[both])) if both.any() else None


def horizontal_gap(a: Shape, pose_a: Pose, b: Shape, pose_b: Pose) -> float:
    """The least distance in plan between the two objects' columns (cell centres, less one cell)."""
    from scipy.spatial import cKDTree

    nearest, _ = cKDTree(_plan_points(b, pose_b)).query(_plan_points(a, pose_a), k=1)
    return max(0.0, float(nearest.min()) - max(a.columns.cell, b.columns.cell))


def _plan_points(shape: Shape, pose: Pose) -> np.ndarray:
    """The centres of the object's filled cells in world x, y (n × 2)."""
    x, y, _, _ = shape.columns.cell_centers()
    return np.c_[to_world(pose, x, y)]


def rest_height(shape: Shape, pose: Pose, carrier: Shape, carrier_pose: Pose) -> float | None:
    """The z at which `shape` (its x, y and yaw from `pose`) rests on `carrier`: lowered until its underside
    meets the carrier's top in some column. None when no column of it is over the carrier."""
    _, _, bottom, _, _, above = cells_in(shape, Pose(pose.x, pose.y, 0.0, pose.yaw_deg), carrier, carrier_pose)
    both = ~np.isnan(above)
    return float(np.max(above[both] - bottom[both])) if both.any() else None


def balanced(shape: Shape, pose: Pose, carrier: Shape, carrier_pose: Pose) -> bool:
    """Whether the object, resting at `pose`, has its centre of mass (of its columns' volume) over the patch
    where it bears on the carrier, far enough inside it to stay put when tilted by `TILT_DEG` (a tall bottle
    on the curved floor of a bowl is not, though its centre is over its base)."""
    wx, wy, bottom, top, _, above = cells_in(shape, pose, carrier, carrier_pose)
    weight = top - bottom
    total = max(float(np.sum(weight)), 1e-12)
    center = np.array([np.sum(wx * weight), np.sum(wy * weight)]) / total
    height = float(np.sum((bottom + top) / 2 * weight)) / total - float(np.min(bottom))
    needed = height * math.tan(math.radians(TILT_DEG))
    bearing = ~np.isnan(above) & (bottom - above <= REST_M)
    points = np.c_[wx[bearing], wy[bearing]]
    if len(points) >= 3:
        from scipy.spatial import ConvexHull, QhullError  # here: readers of records import this module, not scipy

        try:
            hull = ConvexHull(points)
            inside = -float(np.max(hull.equations[:, :2] @ center + hull.equations[:, 2]))  # distance to the edge
            return inside >= needed
        except QhullError:
            pass  # the patch is a line or a point: judged by distance below
    if len(points) == 0:
        return False
    return float(np.min(np.hypot(points[:, 0] - center[0], points[:, 1] - center[1]))) <= BALANCE_M


def region_pose(rng: random.Random, shape: Shape, yaw_deg: float, carrier: Shape, carrier_pose: Pose, region: Region) -> Pose | None:
    """A pose (z left at 0) for `shape` turned by `yaw_deg` whose footprint lies inside the carrier's region
    (fractions of its box), its centre drawn uniformly where that holds; None if it cannot fit turned so."""
    t = math.radians(yaw_deg - carrier_pose.yaw_deg)
    c, s = abs(math.cos(t)), abs(math.sin(t))
    dx, dy = shape.size_m[0] / 2, shape.size_m[1] / 2
    ex, ey = dx * c + dy * s, dx * s + dy * c  # half-extents of the turned footprint in the carrier's frame
    left, front, right, back = region_m(carrier, region)
    x0, x1, y0, y1 = left + ex, right - ex, front + ey, back - ey
    if x0 > x1 or y0 > y1:
        return None
    x, y = to_world(carrier_pose, np.array([rng.uniform(x0, x1)]), np.array([rng.uniform(y0, y1)]))
    return Pose(round(float(x[0]), 5), round(float(y[0]), 5), 0.0, yaw_deg)


def settle(shape: Shape, probe: Pose, carrier: Shape, carrier_pose: Pose, region: Region) -> Pose | None:
    """Lower the object onto the carrier, then let it slide downhill in plan, step by step, while that
    lowers it and its footprint stays in the region: in a bowl it ends at the bottom, on a flat top where
    it was put. Where it stops no step lowers it, so a round object has nowhere to roll."""
    z = rest_height(shape, probe, carrier, carrier_pose)
    if z is None:
        return None
    x, y = probe.x, probe.y
    for step in SETTLE_STEPS_M:
        moved = True
        while moved:
            moved = False
            for dx, dy in _COMPASS:
                candidate = Pose(round(x + dx * step, 5), round(y + dy * step, 5), 0.0, probe.yaw_deg)
                if not _in_region(shape, candidate, carrier, carrier_pose, region):
                    continue
                lower = rest_height(shape, candidate, carrier, carrier_pose)
                if lower is not None and lower < z - SETTLE_DROP_M:
                    x, y, z, moved = candidate.x, candidate.y, lower, True
                    break
    return Pose(x, y, round(z, 5), probe.yaw_deg)


def _in_region(shape: Shape, pose: Pose, carrier: Shape, carrier_pose: Pose, region: Region) -> bool:
    dx, dy = shape.size_m[0] / 2, shape.size_m[1] / 2
    corners = np.array([(-dx, -dy), (dx, -dy), (dx, dy), (-dx, dy)])
    ox, oy = to_own(carrier_pose, *to_world(pose, corners[:, 0], corners[:, 1]))
    return bool(np.all(within(ox, oy, region_m(carrier, region))))


_COMPASS = [(math.cos(math.radians(a)), math.sin(math.radians(a))) for a in range(0, 360, 45)]


def carry(
    rng: random.Random, kind: str, shape: Shape, carrier: Shape, carrier_pose: Pose, yaw_range: Sequence[float],
    attempts: int, clear_of: Sequence[tuple[Shape, Pose]], clearance: float,
) -> Pose | None:
    """A resting pose for `shape` on the carrier's support (`kind` "on") or in its container ("inside"),
    drawn inside the declared region, lowered onto what is under it, balanced, and `clearance` metres clear
    of every object in `clear_of`; None when no attempt gives one. Inside a container the object's lowest
    point must end below the rim (its top may stand out, as a screwdriver from a mug)."""
    region = carrier.region(kind)
    if region is None:
        return None
    rim = carrier_pose.z + carrier.size_m[2]
    for _ in range(attempts):
        yaw = round(rng.uniform(yaw_range[0], yaw_range[1]), 3)
        probe = region_pose(rng, shape, yaw, carrier, carrier_pose, region)
        if probe is None:  # it does not fit turned so: squared up with the carrier, as one sets a bowl on a book
            yaw = round((carrier_pose.yaw_deg + 90 * round((yaw - carrier_pose.yaw_deg) / 90)) % 360, 3)
            probe = region_pose(rng, shape, yaw, carrier, carrier_pose, region)
        if probe is None:
            continue
        pose = settle(shape, probe, carrier, carrier_pose, region)
        if pose is None or (kind == "inside" and pose.z >= rim - REST_M):
            continue
        if balanced(shape, pose, carrier, carrier_pose) and all(clear(shape, pose, o, op, clearance) for o, op in clear_of):
            return pose
    return None


def column_cost(shape: Shape) -> int:
    """What one column test of `shape` against another costs, in flat footprint tests: a slide makes up to
    1 + `SLIDE_STEPS` of them, so a budget counting it as one test would run hundreds of times too long."""
    return COLUMN_TEST + shape.columns.cells // CELLS_PER_UNIT


def _free(cost: int) -> None:
    """No budget: a slide outside scene sampling (tests, tools) charges nothing."""


def slide_to(
    shape: Shape, yaw: float, z: float, neighbour: Shape, neighbour_pose: Pose, angle_deg: float, charge: Charge = _free
) -> Pose | None:
    """`shape` moved in along the horizontal direction `angle_deg` towards its neighbour's centre until their
    columns, the neighbour's grown by a cell (two sampled surfaces may otherwise meet up to a cell inside each
    other), just do not overlap (bisection to under 0.1 mm); None if they overlap even at the far end. Each
    column test is first charged its `column_cost`, so a budget sees what the slide really costs."""
    a = math.radians(angle_deg)
    far = math.hypot(*shape.size_m[:2]) / 2 + math.hypot(*neighbour.size_m[:2]) / 2 + 0.01
    cost = column_cost(shape)

    def at(t: float) -> Pose:
        return Pose(round(neighbour_pose.x + t * math.cos(a), 5), round(neighbour_pose.y + t * math.sin(a), 5), z, yaw)

    def hits(t: float) -> bool:
        charge(cost)
        return overlaps(shape, at(t), neighbour, neighbour_pose, reach=1)

    if hits(far):
        return None
    near = 0.0
    for _ in range(SLIDE_STEPS):
        mid = (near + far) / 2
        near, far = (mid, far) if hits(mid) else (near, mid)
    return at(far)


def near(size_a: Sequence[float], xy_a: Sequence[float], size_b: Sequence[float], xy_b: Sequence[float], slack: float) -> bool:
    """Whether two boxes' footprint circles come within `slack` of each other (a cheap test before the columns)."""
    reach = math.hypot(*size_a[:2]) / 2 + math.hypot(*size_b[:2]) / 2
    return math.dist(xy_a[:2], xy_b[:2]) < reach + slack


def clear(shape: Shape, pose: Pose, other: Shape, other_pose: Pose, clearance: float) -> bool:
    """Whether the object keeps `clearance` metres of air from the other, in plan or in height."""
    if not near(shape.size_m, (pose.x, pose.y), other.size_m, (other_pose.x, other_pose.y), clearance):
        return True
    if overlaps(shape, pose, other, other_pose, clearance):
        return False
    return horizontal_gap(shape, pose, other, other_pose) > clearance or _apart_vertically(shape, pose, other, other_pose, clearance)


def _apart_vertically(shape: Shape, pose: Pose, other: Shape, other_pose: Pose, clearance: float) -> bool:
    """Whether the two are `clearance` apart in height wherever they are close in plan (one far above the other)."""
    low_a, high_a = pose.z, pose.z + shape.size_m[2]
    low_b, high_b = other_pose.z, other_pose.z + other.size_m[2]
    return low_a > high_b + clearance or low_b > high_a + clearance
