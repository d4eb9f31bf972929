"""Questions asked from observers other than the camera, as Spatial457 and ViewSpatial ask them: a person at a side
of the table ("A person stands at the other side of the table, straight across from you, facing you. From where
they stand, is the mug on their left?"; frame `person`, the side in `observer`), and someone standing where one
object is, facing another ("Standing where the mug is and facing the lamp, is the apple on your left?"; frame
`object`, `objects` the one stood at, the one faced and the one asked about).

Every fact is `SceneGeometry.person_side` or `object_side`, decided once with its withheld band. Each yes/no
question comes with its "no" (the other side, of the same observer and object), and each choice with the same
object asked from the opposite observer, whose left is its right: the person across the table (near and far,
left and right), or standing where the faced object is, facing back. So each cell holds as many yes as no and as
many left as right answers.
"""

from __future__ import annotations

import itertools

from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker
from tabletest.prompts.hierarchy.naming import named
from tabletest.truth.scene_facts import SIDES, SceneGeometry, Thing

OTHER = {"left": "right", "right": "left"}  # an observer's other hand
ACROSS = {"near": "far", "left": "right"}  # the sides whose choice question is asked with their opposite's
# a person at each side of the table, as the viewer sees it: a sentence setting them there, and the reader
# standing there, asked up to the side named ("... would the mug be" on your left)
THEY = {
    "near": "A person stands in your place at the table, facing it as you do.",
    "far": "A person stands at the other side of the table, straight across from you, facing you.",
    "left": "A person stands at the table's left side as you see it, facing across the table to your right.",
    "right": "A person stands at the table's right side as you see it, facing across the table to your left.",
}
YOU = {
    "near": "Standing where you are, is the {y}",
    "far": "If you walked around to the other side of the table and faced back across it, would the {y} be",
    "left": "If you walked around to the table's left side as you see it now and faced across it, would the {y} be",
    "right": "If you walked around to the table's right side as you see it now and faced across it, would the {y} be",
}


def _key(*parts: object) -> str:
    return "-".join(str(p) for p in parts)


def people(ask: Asker, g: SceneGeometry) -> None:
    """Where each object stands for a person at each side of the table: on their left? on their right? (a yes
    beside a no), and left or right, asked beside the same from the person across the table."""
    for y in named(g):
        sides = {side: g.person_side(side, y) for side in SIDES}
        for side, rel in sides.items():
            if rel is None:
                continue
            for word in (rel, OTHER[rel]):
                ask.ask(
                    _key("person", "yn", side, word, y.name),
                    _said("person-yes/no", side, y, side=word),
                    **_asked("person", word, [y.name], [_person_fact(y, rel, side)], observer=side),
                    answer_type="yes/no",
                    answer=word == rel,
                    rules=[] if word == rel else ["exclusion"],
                    pair=_key("person", "yn", side, y.name),
                )
        for side, across in ACROSS.items():
            if sides[side] is None:  # the person across stands on the same line: undecided alike
                continue
            for at in (side, across):
                ask.ask(
                    _key("person", "ch", at, y.name),
                    _said("person-choice", at, y),
                    **_asked("person", sides[at], [y.name], [_person_fact(y, sides[at], at)], observer=at),
                    answer_type="choice",
                    options=["left", "right"],
                    answer=sides[at],
                    rules=[] if at == side else ["inverse"],
                    pair=_key("person", "ch", side, "across", y.name),
                )


def objects(ask: Asker, g: SceneGeometry) -> None:
    """Where an object stands for someone standing where another is and facing a third: on your left? on your right?
    (a yes beside a no), and left or right, asked beside the same facing back from the object faced."""
    things = named(g)
    for at, facing in itertools.permutations(things, 2):
        for y in (t for t in things if t is not at and t is not facing):
            rel = g.object_side(at, facing, y)
            if rel is None:
                continue
            for word in (rel, OTHER[rel]):
                ask.ask(
                    _key("facing", "yn", word, at.name, facing.name, y.name),
                    Wording("object-yes/no", {"at": at.name, "facing": facing.name, "y": y.name, "side": word}),
                    **_asked("object", word, [at.name, facing.name, y.name], [_object_fact(y, rel, at, facing)]),
                    answer_type="yes/no",
                    answer=word == rel,
                    rules=[] if word == rel else ["exclusion"],
                    pair=_key("facing", "yn", at.name, facing.name, y.name),
                )
    for a, b in itertools.combinations(things, 2):
        for y in (t for t in things if t is not a and t is not b):
            there, back = g.object_side(a, b, y), g.object_side(b, a, y)
            if there is None or back is None:
                continue
            for at, facing, rel in ((a, b, there), (b, a, back)):
                ask.ask(
                    _key("facing", "ch", at.name, facing.name, y.name),
                    Wording("object-choice", {"at": at.name, "facing": facing.name, "y": y.name}),
                    **_asked("object", rel, [at.name, facing.name, y.name], [_object_fact(y, rel, at, facing)]),
                    answer_type="choice",
                    options=["left", "right"],
                    answer=rel,
                    rules=[] if at is a else ["inverse"],
                    pair=_key("facing", "ch", "back", a.name, b.name, y.name),
                )


def _said(template: str, stands: str, y: Thing, **words: str) -> Wording:
    """A person question's words: the person at the side they stand at, and the reader standing there."""
    return Wording(template, {"they": THEY[stands], "you": YOU[stands].format(y=y.name), "y": y.name, **words})


def _asked(frame: str, relation: str, names: list[str], facts: list[list[str]], observer: str | None = None) -> dict:
    """What every question of these frames records alike: perspective taking, a single skill (a position, from
    another observer than the viewer), in its frame."""
    return {
        "skill": "perspective", "level": "single", "frame": frame, "relation": relation, "objects": names, "facts": facts,
        "observer": observer,
    }  # fmt: skip


def _person_fact(y: Thing, rel: str, side: str) -> list[str]:
    return [y.name, f"{rel}_of", f"person at the {side} side"]


def _object_fact(y: Thing, rel: str, at: Thing, facing: Thing) -> list[str]:
    return [y.name, f"{rel}_of", f"{at.name} facing {facing.name}"]
