"""Whether a placed scene is physically plausible, measured with real engines on the exact meshes rather
than the columns placement used: python-fcl for interpenetration and for the gap under each carried
object, MuJoCo for whether every object stays put under gravity.

In MuJoCo each object is a free body whose collision shape is its mesh's convex hull; an object that
holds others also gets a height field of its top (what its columns say is the highest surface in each
cell) and one that carries others a box on its declared flat top, so a bowl's cavity and a laptop's
deck keep their shape where a hull would fill them. Each object collides only with what carries it:
the table, or its carrier's top (never the carrier's hull). Hulls do not collide with one another (a
hull fills the concavities a neighbour may stand in, under a spout or a handle; fcl has already
measured that the meshes do not overlap), so the simulation measures whether each object stays put
where it rests.

MuJoCo needs the `physics` extra (`pip install -e '.[physics]'`); placement itself never does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tabletest.errors import UserError
from tabletest.layout.arrangements import Pose, Shape, region_m, support_heights
from tabletest.assets.canonical import model_mesh
from tabletest.layout.instances import kind_of
from tabletest.layout.meshes import mesh_distance, placed_mesh
from tabletest.layout.random_scene import PlacedObject

PROBE_M = 0.001  # an overlap that survives moving the objects this far apart is deeper than it
TIMESTEP_S = 0.001
DENSITY = 600.0  # kg/m³: wood, fruit, plastic shells; only the ratios between objects matter here
FIELD_CELLS = 3  # columns per height-field point: 6 mm
# Hulls collide with the table and carriers' tops, never with one another; the table and the tops never
# with each other. Rolling friction (condim 6) as a real ball on a real table has.
HULL = 'contype="1" conaffinity="2" condim="6" friction="0.9 0.005 0.0005"'
SURFACE = 'contype="2" conaffinity="1" condim="6" friction="0.9 0.005 0.0005"'


@dataclass(frozen=True)
class Plausibility:
    deepest_overlap_m: float  # the deepest interpenetration among all pairs (0: none)
    overlaps_over_1mm: int  # pairs interpenetrating deeper than PROBE_M
    carried_gaps_m: tuple[float, ...]  # for each (object, carrier) pair given: the distance between their meshes
    moved_m: Mapping[str, float]  # how far each object's origin moved in the simulation


def plausibility(
    objects: Sequence[PlacedObject], shapes: Mapping[str, Shape], carried: Sequence[tuple[str, str]], table_top: float,
    seconds: float = 2.0,
) -> Plausibility:
    """Measure a placed scene: interpenetration and carried gaps with fcl, then `seconds` of MuJoCo (0: none)."""
    placed = {o.name: (shapes[kind_of(o.name)], _pose(o)) for o in objects}
    deepest, over = 0.0, 0
    for i, a in enumerate(objects):
        for b in objects[i + 1 :]:
            if _collide(placed_mesh(*placed[a.name]), placed_mesh(*placed[b.name])):
                depth = _depth(placed[a.name], placed[b.name])
                deepest = max(deepest, depth)
                over += depth > PROBE_M
    gaps = tuple(mesh_distance(*placed[a], *placed[b]) for a, b in carried)
    moved = simulate(objects, shapes, carried, table_top, seconds) if seconds > 0 else {}
    return Plausibility(deepest, over, gaps, moved)


def simulate(
    objects: Sequence[PlacedObject], shapes: Mapping[str, Shape], carried: Sequence[tuple[str, str]], table_top: float,
    seconds: float,
) -> dict[str, float]:
    """How far each object's origin moves in `seconds` of MuJoCo, starting at rest where placement put it."""
    mujoco = _import("mujoco", "mujoco")
    model = mujoco.MjModel.from_xml_string(_scene_xml(objects, shapes, carried, table_top))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    start = {o.name: data.body(_body(k)).xpos.copy() for k, o in enumerate(objects)}
    for _ in range(int(round(seconds / TIMESTEP_S))):
        mujoco.mj_step(model, data)
    return {o.name: float(np.linalg.norm(data.body(_body(k)).xpos - start[o.name])) for k, o in enumerate(objects)}


def _scene_xml(objects: Sequence[PlacedObject], shapes: Mapping[str, Shape], carried: Sequence[tuple[str, str]], table_top: float) -> str:
    carriers = {b for _, b in carried}
    index = {o.name: k for k, o in enumerate(objects)}
    assets, bodies = [], []
    for k, obj in enumerate(objects):
        shape = shapes[kind_of(obj.name)]
        hull = _hull_vertices(shape.path, shape.sha256)
        assets.append(f'<mesh name="hull{k}" vertex="{_numbers(hull.ravel())}"/>')
        x, y, z = obj.position_m
        turn = math.radians(obj.yaw_deg) / 2
        surfaces = []
        if obj.name in carriers and shape.container is not None:
            field, size, center = _height_field(shape)
            rows, cols = field.shape
            assets.append(f'<hfield name="top{k}" nrow="{rows}" ncol="{cols}" size="{_numbers(size)}" elevation="{_numbers(field.ravel())}"/>')
            surfaces.append(f'<geom type="hfield" hfield="top{k}" pos="{_numbers(center)}" {SURFACE}/>')
        if obj.name in carriers and shape.support is not None:
            center, extent = _support_box(shape)
            surfaces.append(f'<geom type="box" size="{_numbers(extent)}" pos="{_numbers(center)}" {SURFACE}/>')
        top = f'<body name="top{k}">{"".join(surfaces)}</body>' if surfaces else ""
        bodies.append(
            f'<body name="{_body(k)}" pos="{x} {y} {z}" quat="{math.cos(turn)} 0 0 {math.sin(turn)}"><freejoint/>'
            f'{_inertial(shape)}<geom type="mesh" mesh="hull{k}" {HULL}/>{top}</body>'
        )
    held = set(carried)
    excludes = "".join(  # a carrier's top bears only what it carries
        f'<exclude body1="{_body(index[a.name])}" body2="top{index[b]}"/>'
        for a in objects for b in carriers if b != a.name and (a.name, b) not in held
    )
    return (
        f'<mujoco><option timestep="{TIMESTEP_S}"/><asset>{"".join(assets)}</asset><worldbody>'
        f'<geom type="plane" size="5 5 0.1" pos="0 0 {table_top}" {SURFACE}/>{"".join(bodies)}</worldbody>'
        f"<contact>{excludes}</contact></mujoco>"
    )


def _height_field(shape: Shape) -> tuple[np.ndarray, list[float], list[float]]:
    """The columns' tops as a MuJoCo height field, one point per `FIELD_CELLS` × `FIELD_CELLS` columns (their
    mean top, so a bowl's slope keeps its height; MuJoCo keeps at most 50 contacts between a body and a
    height field, and a grid as fine as the columns would hold a base at one side only). Returns the
    elevations normalised to [0, 1], its size (x and y half-extents, top, base) and its centre in the
    object's frame."""
    columns = shape.columns
    n = FIELD_CELLS
    rows, cols = -(-columns.top.shape[0] // n), -(-columns.top.shape[1] // n)
    padded = np.full((rows * n, cols * n), np.nan)
    padded[: columns.top.shape[0], : columns.top.shape[1]] = columns.top
    blocks = padded.reshape(rows, n, cols, n)
    filled = (~np.isnan(blocks)).sum(axis=(1, 3))
    top = np.where(filled > 0, np.nansum(blocks, axis=(1, 3)) / np.maximum(filled, 1), 0.0)
    height = max(float(top.max()), 1e-4)
    step = n * columns.cell
    half_x, half_y = (cols - 1) * step / 2, (rows - 1) * step / 2  # grid points at the blocks' centres
    center = [columns.x0 + step / 2 + half_x, columns.y0 + step / 2 + half_y, 0.0]
    return top / height, [half_x, half_y, height, 0.001], center


def _inertial(shape: Shape) -> str:
    """Mass and centre of mass of the object's columns (`Columns.solid`) at 600 kg/m³."""
    volume, center = shape.columns.solid()
    mass = max(volume * DENSITY, 1e-3)
    sx, sy, sz = shape.size_m
    inertia = [mass * (sy**2 + sz**2) / 12, mass * (sx**2 + sz**2) / 12, mass * (sx**2 + sy**2) / 12]
    return f'<inertial pos="{_numbers(center)}" mass="{mass:.6g}" diaginertia="{_numbers(inertia)}"/>'


def _support_box(shape: Shape) -> tuple[list[float], list[float]]:
    """A flat support as a box: its declared region in plan, its top at the highest column there, 1 cm thick
    (a height field under a large flat base keeps its 50 contacts at one side, and the base tips)."""
    left, front, right, back = region_m(shape, shape.support)
    height = support_heights(shape)[1]
    return [(left + right) / 2, (front + back) / 2, height - 0.005], [(right - left) / 2, (back - front) / 2, 0.005]


@lru_cache(maxsize=128)
def _hull_vertices(path: str, sha256: str) -> np.ndarray:
    import trimesh

    vertices, _ = model_mesh(path, sha256)
    return np.asarray(trimesh.convex.convex_hull(vertices).vertices)


def _pose(obj: PlacedObject) -> Pose:
    return Pose(*obj.position_m, obj.yaw_deg)


def _collide(a, b) -> bool:
    import fcl

    return fcl.collide(a, b, fcl.CollisionRequest(), fcl.CollisionResult()) > 0


def _depth(a: tuple[Shape, Pose], b: tuple[Shape, Pose]) -> float:
    """How far the two must move apart (the higher one up if one is over the other, else apart in plan)
    before their meshes stop intersecting, to 0.1 mm, up to 20 mm."""
    (shape_a, pose_a), (shape_b, pose_b) = a, b
    if abs(pose_a.z - pose_b.z) > 1e-6:
        direction = np.array([0.0, 0.0, 1.0 if pose_a.z > pose_b.z else -1.0])
    else:
        d = np.subtract((pose_a.x, pose_a.y), (pose_b.x, pose_b.y))
        direction = np.r_[d / max(float(np.linalg.norm(d)), 1e-9), 0.0]
    fixed = placed_mesh(shape_b, pose_b)
    for step in range(1, 201):
        if not _collide(placed_mesh(shape_a, pose_a, tuple(direction * step * 1e-4)), fixed):
            return step * 1e-4
    return 0.02


def _body(k: int) -> str:
    return f"object{k}"


def _numbers(values) -> str:
    return " ".join(f"{float(v):.6g}" for v in values)


def _import(module: str, package: str):
    try:
        return __import__(module)
    except ImportError:
        raise UserError(f"measuring plausibility needs {package}: pip install -e '.[physics]'") from None
