"""Random table-top scenes, sampled in pure Python: scene i is a pure function of the random config's
digest, the seed, i, the frame's aspect ratio and the models' boxes (pinned by the assets manifest).

Each scene is drawn from its own seeded streams (`random.Random("digest:seed:i:...")`), so any scene
is made alone, in any order, on any machine. Placement and camera are drawn with bounded attempts;
when they run out, the whole scene is drawn again from the next stream, and after `redraws` the
config is refused with a one-line error: never an unbounded loop.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from tabletest.errors import UserError
from tabletest.layout.arrangements import Pose, Shape, carry, clear, column_cost, slide_to
from tabletest.layout.camera import PinholeCamera
from tabletest.layout.exposure import exposed
from tabletest.layout.looks import Backdrop, KeyLight, TableLook, Vec3, WorldLight
from tabletest.files.family import view_id
from tabletest.layout.instances import kind_of, numbered
from tabletest.layout.meshes import close_gap
from tabletest.layout.random_config import RandomConfig
from tabletest.layout.variants import Variant, draw_variants, model_key

EDGE_M = 0.05  # objects keep this far from the table's edge
NEAR_M = 0.1  # every box corner at least this far in front of the camera
# A view goes round the table at least this far from its scene's camera (where the range leaves room), to the
# right for an even scene index plus view number and to the left for an odd one: as many views turn each way,
# so which way the second photo was taken from is no constant guess.
VIEW_TURN_DEG = 10.0


@dataclass(frozen=True)
class PlacedObject:
    name: str
    position_m: Vec3  # its origin: footprint centre on the table top
    yaw_deg: float
    size_m: Vec3  # its box in its own frame (dx, dy, dz)
    variant: Variant | None = None  # its look (config `looks`); None: its kind's catalog model in its own colours

    @property
    def model(self) -> str:
        """The key of its model in the size, shape and asset maps: `mug`, or another model of the kind, `mug/2`."""
        return model_key(self.name, self.variant)

    def footprint(self) -> np.ndarray:
        """The 4 corners (x, y) of its footprint on the table, turned with it."""
        return footprint_corners(self.position_m[:2], self.size_m[:2], self.yaw_deg)

    def box_corners(self) -> np.ndarray:
        """The 8 corners of its 3D box in world coordinates."""
        foot = self.footprint()
        z0, z1 = self.position_m[2], self.position_m[2] + self.size_m[2]
        return np.concatenate([np.c_[foot, np.full(4, z0)], np.c_[foot, np.full(4, z1)]])

    @property
    def box_center(self) -> Vec3:
        x, y, z = self.position_m
        return (x, y, z + self.size_m[2] / 2)


@dataclass(frozen=True)
class CameraPose:
    position: Vec3
    target: Vec3
    focal_mm: float
    sensor_width_mm: float
    azimuth_deg: float
    elevation_deg: float
    distance_m: float

    def pinhole(self, resolution: tuple[int, int]) -> PinholeCamera:
        return PinholeCamera(self.position, self.target, self.focal_mm, self.sensor_width_mm, *resolution)

    @property
    def right_axis(self) -> np.ndarray:
        """The camera's left-to-right direction (unit; horizontal, as the camera has no roll)."""
        return self.pinhole((2, 2)).axes[0]  # the axes do not depend on the frame's size


@dataclass(frozen=True)
class Change:
    """What a partner changed: the scene it was made from, the kind, the objects named (`swap`: the two;
    `move`: the one moved, then the one it crossed; `replace`: the old, then the new; `unstack`: the one
    taken off, then its carrier; `rotate`: the one turned), how far a rotate turned it (degrees, anticlockwise
    seen from above), and the relations that became true, became false or held in both (filled in by the
    truth stage: `tabletest.truth.pairs`)."""

    of: str
    kind: str
    objects: tuple[str, ...]
    difference: Mapping[str, Mapping[str, list]] = field(default_factory=dict)
    turn_deg: float | None = None


@dataclass(frozen=True)
class View:
    """A second (third, ...) view of a scene: the scene it shows, and its number (the scene itself is view 1)."""

    of: str
    number: int


@dataclass(frozen=True)
class RandomScene:
    """Everything the renderer applies for one random scene; objects left to right as the camera sees them."""

    id: str
    index: int
    objects: tuple[PlacedObject, ...]
    camera: CameraPose
    table: TableLook
    key_light: KeyLight
    world: WorldLight
    backdrop: Backdrop
    draws: int  # how many draws the scene took (1: the first one fitted)
    change: Change | None = None  # a counterfactual partner's change (`counterfactuals.py`); None for a scene of the set
    view: View | None = None  # another view of a scene of the set (`scene_view`); None for the scene itself


def random_scene_id(seed: int, index: int) -> str:
    return f"rnd{seed}-{index:07d}"


def left_to_right(objects: Sequence[PlacedObject], camera: CameraPose) -> tuple[PlacedObject, ...]:
    """The objects in the order the camera sees them from left to right (the order every scene keeps)."""
    right = camera.right_axis
    return tuple(sorted(objects, key=lambda o: float(np.subtract(o.box_center, camera.position) @ right)))


def scene_view(
    config: RandomConfig, scene: RandomScene, number: int, seed: int, sensor_width_mm: float, resolution: tuple[int, int]
) -> RandomScene | None:
    """View `number` (2, 3, ...) of a scene: its objects, table, lights and backdrop seen from another camera,
    drawn from the config's camera ranges out of the scene's own stream for that view, its azimuth on the side
    `view_azimuths` gives; None when no camera of those ranges frames every object."""
    rng = random.Random(f"{config.digest}:{seed}:{scene.index}:view{number}")
    azimuths = view_azimuths(config.camera.azimuth_deg, scene.camera.azimuth_deg, (scene.index + number) % 2 == 0)
    camera = _camera(config, rng, list(scene.objects), sensor_width_mm, resolution, Work(scene.index), azimuths)
    if camera is None:
        return None
    return replace(scene, id=view_id(scene.id, number), objects=left_to_right(scene.objects, camera), camera=camera, view=View(scene.id, number))


def view_azimuths(span: Sequence[float], scene_deg: float, right: bool) -> tuple[float, float]:
    """The azimuths a view may take: those of `span` at least `VIEW_TURN_DEG` to the right of its scene's camera
    (`right`) or to its left; the other side where that one has no room, the whole span where neither has."""
    low, high = span
    sides = [(scene_deg + VIEW_TURN_DEG, high), (low, scene_deg - VIEW_TURN_DEG)]
    for start, end in sides if right else sides[::-1]:
        if start <= end:
            return start, end
    return low, high


def framed(camera: CameraPose, objects: Sequence[PlacedObject], resolution: tuple[int, int], margin_px: float) -> bool:
    """Whether every object's 3D box lies in front of the camera and inside the image, `margin_px` from its
    edges: what a scene's own camera guarantees every object (`_camera`), and a partner must keep."""
    corners = np.concatenate([o.box_corners() for o in objects])
    pinhole = camera.pinhole(resolution)
    if np.any(pinhole.depth(corners) < NEAR_M):
        return False
    u, v = pinhole.project(corners).T
    width, height = resolution
    return bool(u.min() >= margin_px and v.min() >= margin_px and u.max() <= width - margin_px and v.max() <= height - margin_px)


def footprint_corners(center: Sequence[float], size: Sequence[float], yaw_deg: float) -> np.ndarray:
    """The 4 corners (x, y) of a box's footprint turned by `yaw_deg` about `center`."""
    return np.array(_corners(center, size, yaw_deg))


def _corners(center: Sequence[float], size: Sequence[float], yaw_deg: float) -> list[tuple[float, float]]:
    dx, dy = size[0] / 2, size[1] / 2
    t = math.radians(yaw_deg)
    c, s = math.cos(t), math.sin(t)
    x0, y0 = center[0], center[1]
    return [(x0 + px * c - py * s, y0 + px * s + py * c) for px, py in ((-dx, -dy), (dx, -dy), (dx, dy), (-dx, dy))]


def rects_apart(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]], gap: float) -> bool:
    """Whether two convex footprints (corner lists) are at least `gap` apart: separating-axis test
    on the footprints grown by gap/2 on every side (a square grow contains the round one, so this is
    safe). Plain floats: this runs millions of times and numpy's per-call cost would dominate."""
    for poly in (a, b):
        for k in range(len(poly)):
            (x0, y0), (x1, y1) = poly[k], poly[(k + 1) % len(poly)]
            norm = math.hypot(x1 - x0, y1 - y0)
            ax, ay = -(y1 - y0) / norm, (x1 - x0) / norm
            pa = [x * ax + y * ay for x, y in a]
            pb = [x * ax + y * ay for x, y in b]
            if max(pa) + gap <= min(pb) or max(pb) + gap <= min(pa):
                return True
    return False


def sample_scene(
    config: RandomConfig,
    pool: Sequence[str],
    sizes: Mapping[str, Vec3],
    seed: int,
    index: int,
    table_height_m: float,
    sensor_width_mm: float,
    resolution: tuple[int, int],
    shapes: Mapping[str, Shape] | None = None,
    work: Work | None = None,
    variants: Mapping[str, tuple[Variant, ...]] | None = None,
) -> RandomScene:
    """Scene `index` of the set (`pool`: the names it may draw, in catalog order; `sizes`: their models' boxes,
    by model key; `shapes`: their models, needed when the config's arrangements put objects on or beside others;
    `work`: the meter its draws are charged to, for a caller that wants to read what they cost; `variants`:
    the looks each kind may take, with the config's `looks` on)."""
    stream = f"{config.digest}:{seed}:{index}"
    look = _look_stream(config, seed, index)
    table = _table(config, look)
    work = Work(index) if work is None else work
    for draw in range(1, config.placement.redraws + 1):
        rng = random.Random(f"{stream}:{draw}")
        arrange = _Arranger(config, random.Random(f"{stream}:{draw}:arrange"), shapes, table_height_m) if config.arrangements.enabled else None
        repeat = random.Random(f"{stream}:{draw}:repeat") if config.objects.repeats.chance else None
        looks = (variants, random.Random(f"{stream}:{draw}:looks")) if variants else None
        objects = _place(config, rng, pool, sizes, table, table_height_m, work, arrange, repeat, looks)
        if objects is None:
            continue
        camera = _camera(config, rng, objects, sensor_width_mm, resolution, work)
        if camera is None:
            continue
        ordered = _labelled(left_to_right(objects, camera))
        key_light, world = _key_light(config, look, camera), _world(config, look)
        lights = exposed(table, key_light, world, table_height_m, camera.pinhole(resolution))
        scene_id = random_scene_id(seed, index)
        return RandomScene(scene_id, index, ordered, camera, table, *lights, _backdrop(config, look), draw)
    raise UserError(
        f"random scene {index} did not fit after {config.placement.redraws} draws: the objects do not fit "
        "placement.area_m with placement.min_gap_m, or the camera ranges cannot frame them; "
        "enlarge area_m or distance_m, or lower objects.count"
    )


@dataclass
class Work:
    """The work spent on one scene's draws, in flat footprint tests (a camera probe costs `CAMERA_PROBE`, a
    column test off the table plane its `column_cost`): a config whose scenes cannot fit is refused once it
    passes `WORK_BUDGET` (seconds), not after every allowed draw (minutes at the validator's maxima). No scene
    of a config that fits comes near it."""

    index: int
    spent: int = 0
    column_tests: int = 0  # of those, the column tests made (each charged at its cost): what bounds a touching search

    def column_test(self, cost: int) -> None:
        """Charge one column test before it runs: a slide is bisection over them, far dearer than a footprint test."""
        self.column_tests += 1
        self.spend(cost)

    def spend(self, units: int) -> None:
        self.spent += units
        if self.spent > WORK_BUDGET:
            raise UserError(
                f"random scene {self.index} did not fit after {WORK_BUDGET:,} placement tests: the objects do not fit "
                "placement.area_m with placement.min_gap_m, or the camera ranges cannot frame them; enlarge area_m or "
                "distance_m, or lower objects.count, placement.attempts or placement.redraws"
            )


WORK_BUDGET = 1_000_000
CAMERA_PROBE = 25


def _uniform(rng: random.Random, span: Sequence[float]) -> float:
    return rng.uniform(span[0], span[1])


def _jitter(rng: random.Random, color: Sequence[float], amount: float) -> Vec3:
    return tuple(round(min(1.0, c * rng.uniform(1 - amount, 1 + amount)), 4) for c in color)  # type: ignore[return-value]


def placement_bounds(config: RandomConfig, table_width_m: float, table_depth_m: float) -> tuple[float, float]:
    """Half the width and depth of the area objects stand in: the config's, kept `EDGE_M` inside the table."""
    return min(config.placement.area_m[0], table_width_m - 2 * EDGE_M) / 2, min(config.placement.area_m[1], table_depth_m - 2 * EDGE_M) / 2


def scene_table(config: RandomConfig, seed: int, index: int) -> TableLook:
    """Scene `index`'s table (its views' and partners' too): the first draw of its look's stream, whatever else the
    scene draws, so a record's table can be drawn again without its models."""
    return _table(config, _look_stream(config, seed, index))


def _look_stream(config: RandomConfig, seed: int, index: int) -> random.Random:
    """The stream scene `index`'s look is drawn from: its table, then its key light, world and backdrop."""
    return random.Random(f"{config.digest}:{seed}:{index}:look")


def _table(config: RandomConfig, rng: random.Random) -> TableLook:
    t = config.table
    surface = rng.choice(t.surfaces)
    return TableLook(
        surface.name,
        surface.kind,
        _jitter(rng, surface.color, t.color_jitter),
        round(_uniform(rng, t.width_m), 4),
        round(_uniform(rng, t.depth_m), 4),
    )


def _labelled(objects: tuple[PlacedObject, ...]) -> tuple[PlacedObject, ...]:
    """The objects with their labels numbered left to right (`instances.numbered`)."""
    labels = numbered(kind_of(o.name) for o in objects)
    return tuple(o if o.name == label else replace(o, name=label) for o, label in zip(objects, labels))


def _kinds(config: RandomConfig, rng: random.Random, pool: Sequence[str], repeat: random.Random | None) -> list[str]:
    """How many objects and of which kinds: distinct kinds, or with `repeat` (the config's `objects.repeats`, its
    own stream, so a config without repeats draws exactly the scenes it always did) sometimes one kind 2 to `max`
    times in place of others, the total unchanged."""
    lo, hi = config.objects.count
    n = rng.randint(min(lo, len(pool)), min(hi, len(pool)))
    names = rng.sample(list(pool), n)
    repeats = config.objects.repeats
    if repeat is None or n < 2 or repeat.random() >= repeats.chance:
        return names
    times = repeat.randint(2, min(repeats.max, n))
    return [names[0]] * times + names[1 : n - times + 1]


def _place(
    config: RandomConfig, rng: random.Random, pool: Sequence[str], sizes: Mapping[str, Vec3], table: TableLook, top: float,
    work: Work, arrange: _Arranger | None = None, repeat: random.Random | None = None,
    looks: tuple[Mapping[str, tuple[Variant, ...]], random.Random] | None = None,
) -> list[PlacedObject] | None:
    """Draw how many objects, which, in which look, and where; None when one of them finds no free spot. With
    `arrange`, an object may instead go on, into or beside one already placed (drawn from its own stream, so a
    config without arrangements draws exactly the scenes it always did; so with `looks`, the looks' stream).
    Objects of one kind get labels (numbered in the order drawn here, renumbered left to right once the camera
    is chosen)."""
    names = numbered(_kinds(config, rng, pool, repeat))
    drawn = dict(zip(names, draw_variants(names, *looks))) if looks is not None else {}
    area_w, area_d = placement_bounds(config, table.width_m, table.depth_m)
    gap = config.placement.min_gap_m
    placed: list[PlacedObject] = []
    feet: list[tuple[float, float, float, list[tuple[float, float]]]] = []  # centre, reach, corners
    if arrange is not None:  # what can carry or hold others is placed first, so anything drawn after may go on it
        names.sort(key=arrange.carries_nothing)
    for name in names:
        variant = drawn.get(name)
        size = tuple(sizes[model_key(name, variant)])
        arranged = arrange.place(name, variant, placed, (area_w, area_d), work) if arrange is not None and placed else None
        if arranged is not None:
            placed.append(arranged)
            if arranged.position_m[2] == top:
                feet.append((arranged.position_m[0], arranged.position_m[1], math.hypot(size[0], size[1]) / 2, arranged.footprint().tolist()))
            continue
        for _ in range(config.placement.attempts):
            work.spend(1 + len(feet))
            yaw = round(_uniform(rng, config.objects.yaw_deg), 3)
            corners = _corners((0.0, 0.0), size, yaw)
            ex, ey = max(abs(x) for x, _ in corners), max(abs(y) for _, y in corners)
            if ex > area_w or ey > area_d:
                continue
            x, y = round(rng.uniform(-area_w + ex, area_w - ex), 5), round(rng.uniform(-area_d + ey, area_d - ey), 5)
            foot, reach = _corners((x, y), size, yaw), math.hypot(size[0], size[1]) / 2
            if all(
                math.hypot(x - ox, y - oy) >= reach + other_reach + gap or rects_apart(foot, other, gap)
                for ox, oy, other_reach, other in feet
            ):
                placed.append(PlacedObject(name, (x, y, top), yaw, size, variant))
                feet.append((x, y, reach, foot))
                break
        else:
            return None
    return placed


@dataclass
class _Arranger:
    """Puts an object on, into or touching one already placed, as the config's `arrangements` draw it."""

    config: RandomConfig
    rng: random.Random
    shapes: Mapping[str, Shape] | None
    top: float
    levels: dict[str, int] = field(default_factory=dict)  # 0: on the table, 1: on or in something there, ...

    def carries_nothing(self, name: str) -> bool:
        shape = self.shapes[kind_of(name)] if self.shapes is not None else None
        return shape is None or (shape.support is None and shape.container is None)

    def place(self, name: str, variant: Variant | None, placed: list[PlacedObject], bounds: tuple[float, float], work: Work) -> PlacedObject | None:
        for obj in placed:
            self.levels.setdefault(obj.name, 0)
        a = self.config.arrangements
        u = self.rng.random()
        kind = "on" if u < a.stack else "inside" if u < a.stack + a.contain else "touching" if u < a.stack + a.contain + a.touch else None
        if kind is None:
            return None
        if self.shapes is None:
            raise ValueError("arrangements need the models' shapes")
        poses = {o.name: Pose(*o.position_m, o.yaw_deg) for o in placed}
        shape = self.shapes[model_key(name, variant)]
        if kind == "touching":
            return self._touching(name, variant, shape, placed, poses, bounds, work)
        carriers = [o for o in placed if self.shapes[o.model].region(kind) is not None and self.levels[o.name] < a.max_levels]
        if not carriers:
            return None
        carrier = self.rng.choice(carriers)
        work.spend(a.attempts * len(placed))
        others = [(self.shapes[o.model], poses[o.name]) for o in placed if o is not carrier]
        pose = carry(self.rng, kind, shape, self.shapes[carrier.model], poses[carrier.name], self.config.objects.yaw_deg, a.attempts, others, 2 * a.contact_m)
        if pose is None:
            return None
        self.levels[name] = self.levels[carrier.name] + 1
        return PlacedObject(name, (pose.x, pose.y, pose.z), pose.yaw_deg, shape.size_m, variant)

    def _touching(
        self, name: str, variant: Variant | None, shape: Shape, placed: list[PlacedObject], poses: dict[str, Pose],
        bounds: tuple[float, float], work: Work,
    ) -> PlacedObject | None:
        """Beside a neighbour on the table, their meshes a third of `contact_m` apart (slid in by their columns,
        then closed by the meshes); clear of the rest by `min_gap_m`."""
        a = self.config.arrangements
        neighbours = [o for o in placed if self.levels[o.name] == 0]
        for _ in range(a.attempts):
            work.spend(len(placed))
            neighbour = self.rng.choice(neighbours)
            yaw = round(_uniform(self.rng, self.config.objects.yaw_deg), 3)
            angle = self.rng.uniform(0.0, 360.0)
            beside = self.shapes[neighbour.model]
            pose = slide_to(shape, yaw, self.top, beside, poses[neighbour.name], angle, work.column_test)
            if pose is None:
                continue
            pose = close_gap(shape, pose, beside, poses[neighbour.name], angle, a.contact_m / 3)
            candidate = PlacedObject(name, (pose.x, pose.y, pose.z), pose.yaw_deg, shape.size_m, variant)
            corners = candidate.footprint()
            if np.any(np.abs(corners[:, 0]) > bounds[0]) or np.any(np.abs(corners[:, 1]) > bounds[1]):
                continue
            if all(o is neighbour or self._apart(shape, pose, corners, o, poses[o.name], work) for o in placed):
                self.levels[name] = 0
                return candidate
        return None

    def _apart(self, shape: Shape, pose: Pose, corners: np.ndarray, other: PlacedObject, other_pose: Pose, work: Work) -> bool:
        """Whether a touching candidate keeps clear of an object it does not touch: `min_gap_m` from one on the
        table (footprints), contact clearance from one off it (columns, charged as a column test)."""
        if self.levels[other.name] == 0:
            return rects_apart(corners.tolist(), other.footprint().tolist(), self.config.placement.min_gap_m)
        work.column_test(column_cost(shape))
        return clear(shape, pose, self.shapes[other.model], other_pose, 2 * self.config.arrangements.contact_m)


def _camera(
    config: RandomConfig, rng: random.Random, objects: list[PlacedObject], sensor_mm: float, resolution: tuple[int, int],
    work: Work, azimuths: Sequence[float] | None = None,
) -> CameraPose | None:
    """Azimuth (from `azimuths`, else the config's range), elevation and focal length drawn from their ranges; the
    distance is the nearest one that frames every object's box (exact: moving back along the view axis only shrinks
    the image) times a `zoom_out` factor, kept inside `distance_m`; None when even the far end cannot frame them."""
    c = config.camera
    corners = np.concatenate([o.box_corners() for o in objects])
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    centers = np.array([o.box_center for o in objects])
    target = ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, float(centers[:, 2].mean()))
    width, height = resolution
    margin = c.frame_margin * width
    for _ in range(c.attempts):
        work.spend(CAMERA_PROBE)
        azimuth, elevation = round(_uniform(rng, azimuths or c.azimuth_deg), 3), round(_uniform(rng, c.elevation_deg), 3)
        focal = round(_uniform(rng, c.focal_mm), 3)
        direction = _direction(azimuth, elevation)
        probe = PinholeCamera(tuple(np.add(target, direction)), target, focal, sensor_mm, width, height)
        rel = (corners - np.asarray(target)) @ probe.axes.T  # camera axes do not change with the distance
        half_u, half_v = (width / 2 - margin) / probe.focal_px, (height / 2 - margin) / probe.focal_px
        if half_u <= 0 or half_v <= 0:
            return None
        nearest = float(np.max(np.maximum(np.abs(rel[:, 0]) / half_u, np.abs(rel[:, 1]) / half_v) - rel[:, 2]))
        nearest = max(nearest, float(np.max(NEAR_M - rel[:, 2])), c.distance_m[0])
        if nearest > c.distance_m[1]:
            continue
        distance = round(min(nearest * _uniform(rng, c.zoom_out), c.distance_m[1]) + 1e-4, 4)  # + a hair: rounding never crops
        position = tuple(round(float(v), 6) for v in np.add(target, np.multiply(direction, distance)))
        return CameraPose(position, tuple(round(float(v), 6) for v in target), focal, sensor_mm, azimuth, elevation, distance)
    return None


def _direction(azimuth_deg: float, elevation_deg: float) -> np.ndarray:
    """Unit vector from the look-at point towards the camera (azimuth 0: straight in front, at −Y)."""
    a, e = math.radians(azimuth_deg), math.radians(elevation_deg)
    return np.array([math.sin(a) * math.cos(e), -math.cos(a) * math.cos(e), math.sin(e)])


def _key_light(config: RandomConfig, rng: random.Random, camera: CameraPose) -> KeyLight:
    k = config.key_light
    azimuth = camera.azimuth_deg + _uniform(rng, k.azimuth_deg)
    direction = _direction(azimuth, _uniform(rng, k.elevation_deg))
    position = tuple(round(float(v), 5) for v in np.add(camera.target, direction * k.distance_m))
    return KeyLight(
        position,
        camera.target,
        round(_uniform(rng, k.size_m), 4),
        round(_uniform(rng, k.power_w), 2),
        round(_uniform(rng, k.temperature_k), 1),
    )


def _world(config: RandomConfig, rng: random.Random) -> WorldLight:
    w = config.world
    return WorldLight(rng.choice(w.hdris), round(_uniform(rng, w.rotation_deg), 3), round(_uniform(rng, w.strength), 4))


def _backdrop(config: RandomConfig, rng: random.Random) -> Backdrop:
    b = config.backdrop
    if rng.random() < b.hdri_probability:
        return Backdrop("hdri", (0.0, 0.0, 0.0))
    return Backdrop("color", _jitter(rng, rng.choice(b.colors), 0.1))
