"""Negatives that read like the positives: the "no" of a yes/no question (and the wrong option of a choice) is a
pair of the same scene for which the words are just as likely, not the positive turned round. "Is the egg
inside the bowl?" answered yes is paired with "Is the egg inside the mug?" where the egg could be in the mug
and is not, never with "Is the bowl inside the egg?", which the names alone answer (small things go in big
things). Each positive takes the candidate most like it (the same object in the same place first), drawn by
a stream of the scene's own among equals, and each candidate serves one positive; a positive with no
candidate is asked alone, and `--balance` evens its template out. A yes that a name gives away in nearly
every scene, whatever its pair, is not asked (`under_its_load`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from tabletest.truth.relation_table import STACKED
from tabletest.truth.scene_facts import SceneGeometry, Thing

Pair = tuple[Thing, Thing]
T = TypeVar("T")


def could(key: str, x: Thing, y: Thing) -> bool:
    """Whether "the x is <key> the y" reads as possible: y can carry x that way (the catalog's support for on and
    above, its container for inside) and x is the smaller."""
    return ("inside" if key == "inside" else "on") in y.carries and max(x.size) < max(y.size)


def apart(g: SceneGeometry, x: Thing, y: Thing) -> bool:
    """Neither is on, inside or above the other, as the record says (a pair it withholds is not apart): a "no"
    to any of those holds, however it is asked."""
    return all(g.off_plane(key, a, b) is False for key in STACKED for a, b in ((x, y), (y, x)))


def alike(positive: Pair, candidate: Pair) -> int:
    """How much a candidate pair reads like a positive: the same object in the same place counts most, then an
    object that carries the same way (a container for a container)."""
    same = sum(2 for p, c in zip(positive, candidate) if p is c)
    return same + sum(1 for p, c in zip(positive, candidate) if p is not c and p.carries == c.carries)


def similar_size(a: Thing, b: Thing) -> float:
    """How alike two objects are in size (0 for the same largest extent, lower the further apart)."""
    return -abs(math.log(max(a.size) / max(b.size)))


def matched(
    positives: Sequence[T], candidates: Sequence[T], likeness: Callable[[T, T], float], rng: random.Random, same: Callable[[T], Hashable] = id
) -> list[T | None]:
    """For each positive in turn, the unused candidate most like it (a seeded draw among equals), or None; a
    candidate used takes those `same` calls the same with it (a symmetric relation's pair the other way round)."""
    left = list(candidates)
    rng.shuffle(left)
    chosen: list[T | None] = []
    for positive in positives:
        best = max(left, key=lambda c: likeness(positive, c), default=None)
        if best is not None:
            left = [c for c in left if same(c) != same(best)]
        chosen.append(best)
    return chosen


def unordered(pair: Pair) -> frozenset[str]:
    return frozenset(t.label for t in pair)


def sharing(held: Sequence[Pair], unheld: Sequence[Pair], rng: random.Random) -> list[tuple[Pair, Pair]]:
    """A symmetric relation's pairs that hold (touching, next to), each turned the way round that lets it share
    an object, in the same place, with an unused pair of the scene that does not hold and whose other object
    carries as its own does (a carrier for a carrier), and that pair; a pair that holds with no such pair is
    left out (asked alone, or beside a pair of other kinds, the names it holds between would read as yes)."""
    left = list(unheld)
    rng.shuffle(left)
    made = []
    for a, b in held:
        best = max((((x, y), c) for x, y in ((a, b), (b, a)) for c in left), key=lambda pn: alike(*pn), default=None)
        if best is not None and alike(*best) >= 3:
            left = [c for c in left if unordered(c) != unordered(best[1])]
            # both turned round on a coin: the first way found puts the object listed first first, and a name
            # listed last (the leftmost of several) would read as the "no"'s
            made.append((best[0][::-1], best[1][::-1]) if rng.random() < 0.5 else best)
    return made


def under_its_load(g: SceneGeometry, t: Thing) -> bool:
    """Whether all that covers part of t (as the render saw it, else the one box overlapping its own) stands on,
    in or above it: a carrier is partly hidden by its load in nearly every scene that loads it, so "is the book
    partly hidden?" would be answered yes by its name."""
    things = {u.label: u for u in g.things}
    covering = [things.get(label) for label in t.covered_by] if t.covered_by is not None else g.occluders(t) or []
    return bool(covering) and all(u is not None and any(g.off_plane(key, u, t) for key in STACKED) for u in covering)


def stream(scene_id: str, what: str) -> random.Random:
    """The stream that draws one kind of negative of one scene: the scene's own, whatever the seed, so that only
    trick counts and stories change with it."""
    return random.Random(f"{scene_id}:{what}")
