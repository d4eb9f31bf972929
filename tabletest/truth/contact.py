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
from collections.abc import Mapping, Sequence

import numpy as np

from tabletest.layout.arrangements import Pose, Shape, near, region_m, to_own, vertical_gap, within
from tabletest.layout.meshes import mesh_distance
from tabletest.layout.random_config import Arrangements
from tabletest.layout.random_scene import PlacedObject
from tabletest.truth.relations import CONTACT_KEYS


def contact_relations(
    objs: Sequence[PlacedObject], shapes: Mapping[str, Shape], arrangements: Arrangements, next_to_margin_m: float, table_top: float
) -> tuple[dict[str, list], list[list[str]]]:
    """The relations among `objs` (those not hidden) and the pairs withheld inside a margin."""
    c = arrangements.contact_m
    poses = [Pose(*o.position_m, o.yaw_deg) for o in objs]
    shape = [shapes[o.model] for o in objs]
    names = [o.name for o in objs]
    rel: dict[str, list] = {key: [] for key in CONTACT_KEYS}
    ambiguous: list[list[str]] = []
    carrier: dict[int, int] = {}
    for i, j in itertools.permutations(range(len(objs)), 2):
        gap = vertical_gap(shape[i], poses[i], shape[j], poses[j]) if _near(objs[i], objs[j], 0.0) else None
        if gap is None:
            continue
        if _inside(objs[i], objs[j], shape[j], poses[j], c):
            rel["inside"].append([names[i], names[j]])
            carrier[i] = j
        elif abs(gap) <= c and poses[i].z > table_top + c:
            rel["on"].append([names[i], names[j]])
            carrier[i] = j
        if poses[i].z >= poses[j].z + shape[j].size_m[2] - c:
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
    rel["under"] = [[b, a] for a, b in rel["on"]]
    rel["contains"] = [[b, a] for a, b in rel["inside"]]
    rel["below"] = [[b, a] for a, b in rel["above"]]
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


def stacked_pairs(rel: Mapping[str, list]) -> set[frozenset[str]]:
    """Pairs one of which is on, in or above the other: neither left nor right of, nor in front of, each other."""
    return {frozenset(pair[:2]) for key in ("on", "inside", "above") for pair in rel.get(key, ())}


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
