"""Which way objects face (DORI's, 3DSRBench's and ViewSpatial's orientation questions), of objects with a front:

- the way an object faces as the viewer sees it, one of eight words (towards the viewer, away, left, right and
  the diagonals between them) and as a clock hour (12 straight away from the viewer, 3 to the right), each
  asked only of a front within 7.5° of the direction it names (`truth.facing`);
- whether it faces another object, or faces away from it, each yes beside a no of the same object facing
  another one that reads alike (`negatives`; a yes with none is not asked);
- whether two face the same way, or opposite ways, each yes beside a pair of the scene that does not and
  shares an object with it.

Every fact is `SceneGeometry.facing_of`, `faces` or `same_way`, decided once with its withheld band. The words
and hours are evened out by `--balance`, as every template's answers are.
"""

from __future__ import annotations

import itertools

from tabletest.prompts.hierarchy.negatives import alike, matched, sharing, stream
from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker
from tabletest.prompts.hierarchy.naming import named
from tabletest.truth.facing import OPTIONS
from tabletest.truth.scene_facts import SceneGeometry, Thing

FACING = {"facing": ("towards", "facing"), "facing_away": ("away", "facing away from")}  # relation -> (way, words)
SAME = {"same_way": ("same", "the same way"), "opposite_way": ("opposite", "opposite ways")}


def orientation(ask: Asker, g: SceneGeometry) -> None:
    """Every orientation question of the scene's objects that a question may name."""
    things = named(g)
    for x in (t for t in things if t.has_front):
        seen = g.facing_of(x)
        if seen is None:
            continue
        fact = [x.name, "faces", f"{seen.angle_deg:g} deg clockwise from away from the viewer"]
        if seen.direction is not None:
            ask.ask(
                f"facing-dir-{x.name}", Wording("facing-direction", {"x": x.name}), skill="orientation", level="single",
                frame="viewer", relation="facing_direction", answer_type="choice", options=list(OPTIONS), answer=seen.direction,
                objects=[x.name], facts=[fact],
            )  # fmt: skip
        if seen.hour is not None:
            ask.ask(
                f"facing-clock-{x.name}", Wording("facing-clock", {"x": x.name}), skill="orientation", level="single",
                frame="viewer", relation="facing_clock", answer_type="number", answer=seen.hour, objects=[x.name], facts=[fact],
            )  # fmt: skip
    _facing_others(ask, g, things)
    _same_way(ask, g, things)


def _facing_others(ask: Asker, g: SceneGeometry, things: list[Thing]) -> None:
    """Is an object facing (facing away from) another: each yes beside the no most like it."""
    for key, (way, words) in FACING.items():
        held = [(a, b) for a, b in itertools.permutations(things, 2) if g.faces(a, b, way)]
        unheld = [(a, b) for a, b in itertools.permutations(things, 2) if g.faces(a, b, way) is False]
        for (a, b), negative in zip(held, matched(held, unheld, alike, stream(ask.scene_id, f"orientation-{key}"))):
            if negative is None:  # a yes with no no beside it would lean its template: not asked
                continue
            for x, y, gold in ((a, b, True), (*negative, False)):
                ask.ask(
                    f"facing-{key}-{x.name}-{y.name}", Wording("facing-object-yes/no", {"x": x.name, "rel": words, "y": y.name}),
                    skill="orientation", level="single", frame="intrinsic", relation=key, answer_type="yes/no", answer=gold,
                    objects=[x.name, y.name], facts=[[x.name, key if gold else f"not_{key}", y.name]],
                    pair=f"facing-{key}-{a.name}-{b.name}",
                )  # fmt: skip


def _same_way(ask: Asker, g: SceneGeometry, things: list[Thing]) -> None:
    """Do two objects face the same way (opposite ways): each yes beside a pair that does not and shares an object."""
    fronted = [t for t in things if t.has_front]
    for key, (way, words) in SAME.items():
        held = [p for p in itertools.combinations(fronted, 2) if g.same_way(*p, way)]
        unheld = [p for p in itertools.permutations(fronted, 2) if g.same_way(*p, way) is False]
        for (a, b), negative in sharing(held, unheld, stream(ask.scene_id, f"orientation-{key}")):
            for (x, y), gold in (((a, b), True), (negative, False)):
                ask.ask(
                    f"facing-{key}-{x.name}-{y.name}", Wording("facing-same-yes/no", {"x": x.name, "rel": words, "y": y.name}),
                    skill="orientation", level="single", frame=None, relation=key, answer_type="yes/no", answer=gold,
                    objects=[x.name, y.name], facts=[[x.name, key if gold else f"not_{key}", y.name]],
                    pair=f"facing-{key}-{a.name}-{b.name}",
                )  # fmt: skip
