"""Questions about a copy of the image with numbered marks on its objects (set-of-marks prompting,
`truth.marks`), asked of `marked/<id>.png`: which number marks an object, and whether one marked object is
left of (right of, in front of, behind) another, as the viewer sees them. Objects of a kind the scene holds
several of are named by their marks alone, which is what marks are for."""

from __future__ import annotations

import random

from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker
from tabletest.prompts.hierarchy.naming import AXIS, FACT, OTHER, PHRASE, named
from tabletest.truth.marks import Mark
from tabletest.truth.scene_facts import SceneGeometry

MARKED = "marked"  # the folder of the marked copies, beside images/
STYLES = ("numbers", "boxes")  # numbered discs, or numbered discs and each object's box


def marked_file(record: dict) -> str:
    """Where a record's marked copy goes, beside its image: `marked/<id>.png`."""
    return f"{MARKED}/{record['id']}.png"


def mark_questions(ask: Asker, g: SceneGeometry, marks: list[Mark]) -> None:
    """Which number marks each object a question may name; is one marked object left of (in front of) another,
    each yes beside the same pair asked the other way round (a no)."""
    number = {m.label: m.number for m in marks}
    for x in named(g):
        if x.label in number:
            ask.ask(
                f"mark-{x.name}", Wording("mark-which", {"x": x.name}), skill="grounding", level="single", frame=None,
                relation="mark", answer_type="number", answer=number[x.label], objects=[x.name],
                facts=[[x.name, "marked", str(number[x.label])]],
            )  # fmt: skip
    things = [t for t in g.things if t.label in number]
    rng = random.Random(f"{ask.scene_id}:marks")
    for i, a in enumerate(things):
        for b in things[i + 1 :]:
            for kind, relate in (("lr", g.viewer_lateral), ("fb", g.viewer_depth)):
                rel = relate(a, b)
                if rel is None:
                    continue
                word = rng.choice(AXIS[kind])  # asked in either word, one object first then the other
                first, second = (a, b) if word == rel else (b, a)
                pair = f"mark-pos-{kind}-{number[a.label]}-{number[b.label]}"
                for x, y in ((first, second), (second, first)):
                    ask.ask(
                        f"mark-pos-{kind}-{number[x.label]}-{number[y.label]}",
                        Wording("mark-position-yes/no", {"a": str(number[x.label]), "rel": PHRASE[word], "b": str(number[y.label])}),
                        skill="grounding", level="single", frame="viewer", relation=word, answer_type="yes/no",
                        answer=x is first, objects=[x.name, y.name],
                        facts=[[x.label, FACT[rel if x is a else OTHER[rel]], y.label]], pair=pair,
                    )  # fmt: skip
