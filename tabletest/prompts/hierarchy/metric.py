"""Questions answered with a number: how far apart two objects are (centre to centre, and between their
surfaces), how far one is from the viewer, how tall, long and wide one is, how high it stands above the
table, how far one would slide straight towards another to touch it, and where one stands from another as a
clock position.

Every answer comes from the record's own fields (`truth.scene_facts`), never from pixels: its 3D boxes,
its camera, and the gaps between the meshes and the slides until they meet that it stores. A length is stated in
centimetres whatever its size (the question says so, and reads a number alone in them; a unit chosen by the size
would give the size away), to two significant figures below 10 cm and to the centimetre from there (so within 5 %
of the exact value, which the record keeps in metres). Lengths too small to state that way are not asked
(`MIN_LENGTH_M`).
"""

from __future__ import annotations

import itertools
import math

from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker, Quantity
from tabletest.prompts.hierarchy.naming import named
from tabletest.truth.scene_facts import SceneGeometry, Thing

# No length under this is asked: two significant figures of it are millimetres nobody reads off a picture;
# surfaces nearer than it are asked as touching or not, an object raised less than it stands on the table.
MIN_LENGTH_M = 0.02


def stated(metres: float) -> Quantity:
    """A length as its answer says it: in centimetres, two significant figures below 10 cm, whole from there."""
    value = metres * 100
    digits = max(0, 1 - math.floor(math.log10(value)))
    rounded = round(value, digits)
    return Quantity(int(rounded) if rounded == int(rounded) else rounded, "cm", round(metres, 6))


def metric(ask: Asker, g: SceneGeometry) -> None:
    """Every metric question of the scene's objects that a question may name."""
    things = named(g)
    for a in things:
        _length(ask, "metric-viewer-distance", "distance", "viewer", "viewer_distance", a, [], g.viewer_distance(a))
        length, width = sorted(a.size[:2], reverse=True)
        for template, measure, value in (("metric-height", "height", a.size[2]), ("metric-length", "length", length), ("metric-width", "width", width)):
            _length(ask, template, "size", None, measure, a, [], value)
        _length(ask, "metric-above-table", "distance", None, "above_table", a, [], g.above_table(a))
    for a, b in itertools.combinations(things, 2):
        _length(ask, "metric-distance-centres", "distance", None, "centre_distance", a, [b], g.centre_distance(a, b))
        if (gap := g.gap(a, b)) is not None:
            _length(ask, "metric-gap", "distance", None, "gap", a, [b], gap)
        # sliding either towards the other is one motion of the two: asked once, of the first that may slide
        slider, target = (a, b) if g.slide(a, b) is not None else (b, a)
        if (slide := g.slide(slider, target)) is not None:
            _length(ask, "metric-move-to-touch", "distance", None, "move_to_touch", slider, [target], slide)
    for a, b in itertools.permutations(things, 2):
        if (hour := g.clock(a, b)) is not None:
            ask.ask(
                f"clock-{a.name}-{b.name}",
                Wording("direction-clock", {"x": a.name, "y": b.name}),
                skill="direction",
                level="single",
                frame="viewer",
                relation="clock",
                answer_type="number",
                answer=hour,
                objects=[a.name, b.name],
                facts=[[b.name, f"at_{hour}_oclock_from", a.name]],
            )


def _length(ask: Asker, template: str, skill: str, frame: str | None, relation: str, a: Thing, others: list[Thing], metres: float) -> None:
    """One question whose answer is a length of `a` (and `others`), stated as `stated` says; none under
    `MIN_LENGTH_M`."""
    if metres < MIN_LENGTH_M:
        return
    answer = stated(metres)
    names = [a.name, *(o.name for o in others)]
    ask.ask(
        "-".join(["len", relation, *names]),
        Wording(template, dict(zip("xy", names))),
        skill=skill,
        level="single",
        frame=frame,
        relation=relation,
        answer_type="quantity",
        answer=answer.stated,
        objects=names,
        facts=[[*names, relation, f"{answer.exact_value} m"]],
        quantity=answer,
    )
