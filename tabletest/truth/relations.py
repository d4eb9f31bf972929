"""Every true spatial relation of a scene, stored beside it (as CLEVR does).

Object A is the leftmost, B the one to its right; all relations are as the camera sees them.
"""

from __future__ import annotations

from tabletest.truth.relation_table import BY_KEY

SIDES = {1: ("middle",), 2: ("left", "right"), 3: ("left", "middle", "right")}
CONVERSE = {key: BY_KEY[key].converse for key in ("left_of", "right_of", "in_front_of", "behind")}  # the viewer's directions
# `bigger` is the longer largest extent; where the other object's box holds this many times the volume, a
# person could read "bigger" either way (a screwdriver beside a mug), so no question asks it of that pair
SIZE_READS_BOTH_WAYS = 1.5


def bigger_reads_both_ways(bigger_size, smaller_size) -> bool:
    """Whether a `bigger` pair's smaller object (by largest extent) has the far larger box volume."""
    return _volume(smaller_size) >= SIZE_READS_BOTH_WAYS * _volume(bigger_size)


def _volume(size) -> float:
    x, y, z = size
    return float(x) * float(y) * float(z)


def table_sides(n_objects: int) -> tuple[str, ...]:
    """Slot names left to right; also each object's side of the table."""
    return SIDES[n_objects]


def relations(objects: tuple[str, ...]) -> dict:
    """`left_of` / `right_of` hold [subject, object] pairs; `between` holds [subject, one, other]."""
    n = len(objects)
    left_of = [[objects[i], objects[j]] for i in range(n) for j in range(i + 1, n)]
    right_of = [[objects[j], objects[i]] for i in range(n) for j in range(i + 1, n)]
    between = [[objects[k], objects[0], objects[-1]] for k in range(1, n - 1)]
    return {
        "left_of": left_of,
        "right_of": right_of,
        "between": between,
        "table_side": dict(zip(objects, table_sides(n))),
    }
