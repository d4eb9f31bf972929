"""The canonical scene enumeration: `itertools.permutations(range(N), n)` in lexicographic order.

Index and tuple convert both ways in O(n) without materialising the list, so a shard of the
249,984 three-object scenes, or one scene id, costs nothing to locate.
"""

from __future__ import annotations

from math import perm

MAX_OBJECTS = 3


def scene_count(n_catalog: int, n_objects: int) -> int:
    return perm(n_catalog, n_objects)


def scene_id(n_objects: int, index: int) -> str:
    return f"{n_objects}obj-{index:06d}"


def index_to_tuple(index: int, n_catalog: int, n_objects: int) -> tuple[int, ...]:
    """Decode a position in the lexicographic permutation order into catalog indices, left to right."""
    total = scene_count(n_catalog, n_objects)
    if not 0 <= index < total:
        raise IndexError(f"index {index} out of range 0..{total - 1}")
    remaining = list(range(n_catalog))
    out = []
    for k in range(n_objects):
        block = perm(n_catalog - 1 - k, n_objects - 1 - k)
        pos, index = divmod(index, block)
        out.append(remaining.pop(pos))
    return tuple(out)


def tuple_to_index(objects: tuple[int, ...] | list[int], n_catalog: int) -> int:
    """Inverse of `index_to_tuple`."""
    n_objects = len(objects)
    if len(set(objects)) != n_objects or not all(0 <= o < n_catalog for o in objects):
        raise ValueError(f"not a permutation of distinct catalog indices: {objects}")
    index = 0
    used: list[int] = []
    for k, obj in enumerate(objects):
        rank = obj - sum(1 for u in used if u < obj)
        index += rank * perm(n_catalog - 1 - k, n_objects - 1 - k)
        used.append(obj)
    return index
