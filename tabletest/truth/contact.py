"""Relations off the table plane, from the final poses and the models (never from how the scene was drawn):
on / under, inside / contains and above / below from the models' columns; touching and next to from the
least distance between their meshes in 3D, so two objects under one another's overhang do not touch.

Margins as for the other relations: a pair whose meshes are within `contact_m` touches (or, over one
another, rests), a pair farther than twice that does not, and one in between is withheld (`ambiguous`
with `touching`); a pair on the same surface within `next_to_m` is next to each other, beyond it by more
than `margin_m` it is not, and in between it is withheld (`next_to`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from scipy.spatial import ConvexHull

from tabletest.assets.footprint import Footprint, model_footprint
from tabletest.layout.arrangements import Pose, Shape, near, region_m, to_own, vertical_gap, within
from tabletest.layout.meshes import SLIDE_CONTACT_M, mesh_distance, slide_until
from tabletest.layout.random_config import Arrangements
from tabletest.layout.random_scene import PlacedObject, rects_apart
from tabletest.truth.relation_table import STACKED


def contact_relations(
    objs: Sequence[PlacedObject], shapes: Mapping[str, Shape], arrangements: Arrangements, next_to_margin_m: float, table_top: float
) -> tuple[dict[str, list], list[list[str]]]:
    """What the meshes decide among `objs` (those not hidden): the pairs on, inside, above, touching and next to
    each other (`touching` and `next_to` in both orders), and the pairs withheld inside a margin. Their converses
    and their place in a record are the relation table's (`truth.geometry.scene_relations`)."""
    c = arrangements.contact_m
    poses = [Pose(*o.position_m, o.yaw_deg) for o in objs]
    shape = [shapes[o.model] for o in objs]
    names = [o.name for o in objs]
    rel: dict[str, list] = {key: [] for key in (*STACKED, "touching", "next_to")}
    ambiguous: list[list[str]] = []
    carrier: dict[int, int] = {}
    for i, j, how in _carried(objs, shape, poses, c, table_top):
        rel[how].append([names[i], names[j]])
        carrier[i] = j
    for i, j in itertools.permutations(range(len(objs)), 2):
        if _near(objs[i], objs[j], 0.0) and poses[i].z >= poses[j].z + shape[j].size_m[2] - c:
            if vertical_gap(shape[i], poses[i], shape[j], poses[j]) is not None:
                rel["above"].append([names[i], names[j]])
    for i, j in itertools.combinations(range(len(objs)), 2):
        if not _near(objs[i], objs[j], arrangements.next_to_m + next_to_margin_m):
            continue
        apart = mesh_distance(shape[i], poses[i], shape[j], poses[j])
        if apart <= c:
            rel["touching"] += [[names[i], names[j]], [names[j], names[i]]]
        elif apart <= 2 * c:
            ambiguous.append([names[i], names[j], "touching"])
        if _same_surface(i, j, carrier, poses, table_top, c):
            if apart <= arrangements.next_to_m:
                rel["next_to"] += [[names[i], names[j]], [names[j], names[i]]]
            elif apart <= arrangements.next_to_m + next_to_margin_m:
                ambiguous.append([names[i], names[j], "next_to"])
    return rel, ambiguous


def gaps(objs: Sequence[PlacedObject], shapes: Mapping[str, Shape]) -> list[list]:
    """[a, b, metres] for every pair, in the objects' order: the least distance between their meshes in 3D
    (0 where they touch), what "how far apart are their surfaces" and "how far would one move to touch the
    other" answer. Rounded to 0.1 mm, the models' own precision."""
    poses = [Pose(*o.position_m, o.yaw_deg) for o in objs]
    shape = [shapes[o.model] for o in objs]
    return [
        [objs[i].name, objs[j].name, round(mesh_distance(shape[i], poses[i], shape[j], poses[j]), 4)]
        for i, j in itertools.combinations(range(len(objs)), 2)
    ]


def slides(
    placed: Sequence[PlacedObject], shown: Sequence[str], shapes: Mapping[str, Shape], contact_m: float, table_top: float,
    footprint: Callable[[str, str], Footprint | None] = model_footprint,
) -> list[list]:
    """[a, b, metres] for each ordered pair of the `shown` objects where a, slid along the table straight towards
    b's middle (its box's centre, `truth.geometry.box3d`), meets b: how far it moves until their meshes touch
    (`layout.meshes.slide_until`), what "how far would a move to touch b" answers. None is kept where the slide is no slide
    or never ends at b: a and b on different surfaces (one raised on another object, or in a container), a
    carrying something, a line that misses b (a padlock on a book slid towards a stapler on the table passes over
    it), or another object (hidden ones too: `placed` is the whole scene) met first. Rounded as `gaps`. A model's
    `footprint` (path, sha256) is read from the user's cache unless another way is given (`verify` measures it)."""
    poses = [Pose(*o.position_m, o.yaw_deg) for o in placed]
    shape = [shapes[o.model] for o in placed]
    carried = _carried(placed, shape, poses, contact_m, table_top)
    held = {i: {(j, how) for k, j, how in carried if k == i} for i in range(len(placed))}  # what each rests on or in
    loaded = {j for _, j, _ in carried}
    middles = [_middle(o, footprint(s.path, s.sha256)) for o, s in zip(placed, shape)]
    reach = [math.hypot(*o.size_m[:2]) / 2 for o in placed]
    feet = [o.footprint() for o in placed]
    index = {o.name: k for k, o in enumerate(placed)}
    out = []
    swept: dict[frozenset[int], float | None] = {}  # a towards b and b towards a: one motion of the two, swept once
    for a, b in itertools.permutations([index[n] for n in shown], 2):
        on_table = not held[a] and not held[b] and all(abs(poses[k].z - table_top) <= contact_m for k in (a, b))
        on_one = len(held[a]) == 1 and held[a] == held[b] and next(iter(held[a]))[1] == "on"
        if a in loaded or not (on_table or on_one):
            continue
        line = middles[b] - middles[a]
        if np.linalg.norm(line) < 1e-9:
            continue
        way = line / np.linalg.norm(line)
        if (pair := frozenset((a, b))) not in swept:
            swept[pair] = slide_until(shape[a], poses[a], way, shape[b], poses[b], float(np.linalg.norm(line)) + reach[a] + reach[b])
        if (moved := swept[pair]) is None:
            continue
        in_way = [k for k in range(len(placed)) if k not in (a, b) and _may_meet(feet[a], way, moved, feet[k])]
        if any((first := slide_until(shape[a], poses[a], way, shape[k], poses[k], moved)) is not None and first <= moved for k in in_way):
            continue
        out.append([placed[a].name, placed[b].name, round(moved, 4)])
    return out


def _may_meet(foot: np.ndarray, way: np.ndarray, length: float, other: np.ndarray) -> bool:
    """Whether an object whose footprint box is `foot` (corners), moved `length` along `way`, may reach another's
    (`other`): the boxes hold the meshes, so a swept footprint that keeps clear of the other's (by more than
    contact) meets nothing of it; a cheap test before the meshes."""
    if length < SLIDE_CONTACT_M:
        return True
    ends = np.vstack([foot, foot + length * way])
    swept = ends[ConvexHull(ends).vertices]
    return not rects_apart(swept.tolist(), other.tolist(), SLIDE_CONTACT_M)


def _carried(objs: Sequence[PlacedObject], shape: Sequence[Shape], poses: Sequence[Pose], c: float, table_top: float) -> list[tuple[int, int, str]]:
    """(i, j, how) for each object i resting on (`on`) or in (`inside`) object j, by index, in pair order."""
    carried = []
    for i, j in itertools.permutations(range(len(objs)), 2):
        gap = vertical_gap(shape[i], poses[i], shape[j], poses[j]) if _near(objs[i], objs[j], 0.0) else None
        if gap is None:
            continue
        if _inside(objs[i], objs[j], shape[j], poses[j], c):
            carried.append((i, j, "inside"))
        elif abs(gap) <= c and poses[i].z > table_top + c:
            carried.append((i, j, "on"))
    return carried


def _middle(obj: PlacedObject, footprint: Footprint | None) -> np.ndarray:
    """Where an object's middle stands on the table: its box's centre (along its model's footprint where the model
    lies diagonally in its own box)."""
    if footprint is None:
        return np.asarray(obj.position_m[:2], dtype=float)
    return np.asarray(footprint.box(obj.position_m, obj.yaw_deg, obj.size_m[2])[0][:2], dtype=float)


def _near(a: PlacedObject, b: PlacedObject, slack: float) -> bool:
    return near(a.size_m, a.position_m, b.size_m, b.position_m, slack)


def _inside(a: PlacedObject, b: PlacedObject, container: Shape, pose: Pose, c: float) -> bool:
    """a's footprint centre within b's opening, its lowest point below b's rim and above b's base (an object
    standing on the table beside a bowl, its centre over the bowl's opening, is not in it)."""
    if container.container is None:
        return False
    x, y = to_own(pose, np.array([a.position_m[0]]), np.array([a.position_m[1]]))
    over = bool(within(x, y, region_m(container, container.container))[0])
    return bool(over and pose.z + c < a.position_m[2] < pose.z + container.size_m[2] - c)


def _same_surface(i: int, j: int, carrier: Mapping[int, int], poses: Sequence[Pose], table_top: float, c: float) -> bool:
    if i in carrier or j in carrier:
        return carrier.get(i) == carrier.get(j)
    return abs(poses[i].z - table_top) <= c and abs(poses[j].z - table_top) <= c
