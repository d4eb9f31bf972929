"""Questions about a copy of the image with numbered marks on its objects (set-of-marks prompting,
`truth.marks`), asked of `marked/<id>.png`: which number marks an object, and whether one marked object is
left of (right of, in front of, behind) another, as the viewer sees them; and of a scene's photo and another
view of it, each marked on its own (`marked/<id>.png` of both), which mark in the second photo is the object
a mark of the first is on. Objects of a kind the scene holds several of are named by their marks alone, which
is what marks are for."""

from __future__ import annotations

import random

from tabletest.layout.instances import kind_of
from tabletest.prompts.hierarchy.correspondence import seen, visible
from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker, Phrasings
from tabletest.prompts.hierarchy.naming import AXIS, FACT, OTHER, PHRASE, named
from tabletest.truth.marks import Mark
from tabletest.truth.nouns import Nouns
from tabletest.truth.scene_facts import SceneGeometry

MARKED = "marked"  # the folder of the marked copies, beside images/
STYLES = ("numbers", "boxes")  # numbered discs, or numbered discs and each object's box
MATCH_FROM = 3  # marks a second photo has at least to be asked which is an object's: the first's number is right at most a third of the time


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


def mark_match_questions(
    scene: dict, view: dict, marks: tuple[list[Mark], list[Mark]], style: str, nouns: Nouns = Nouns(), seed: int = 0, phrasings: Phrasings = "one"
) -> list[dict]:
    """Of each object marked and clearly seen (`correspondence.seen`) in a scene's photo and in another view of it,
    which mark of the second photo is on the object a mark of the first is on. Each photo's marks are numbered in
    an order drawn from its own id, so an object's two numbers agree by chance alone. An object of a kind the scene
    holds several of is asked only where every one of them is, so that none is told from a twin that one photo
    leaves out."""
    shown = visible(scene), visible(view)
    if "file_name" not in scene or "file_name" not in view or shown[0] is None or shown[1] is None or len(marks[1]) < MATCH_FROM:
        return []
    first, second = ({m.label: m.number for m in placed} for placed in marks)
    clear = {label for label in first if label in second and seen(shown[0][label]) and seen(shown[1].get(label, 0.0))}
    asked = [label for label in first if label in clear and all(twin in clear for twin in shown[0] if kind_of(twin) == kind_of(label))]
    names = list(dict.fromkeys(o["name"] for o in scene["objects"]))
    images = [marked_file(scene), marked_file(view)]
    ask = Asker(view["id"], "images", names, images=images, nouns=nouns, seed=seed, phrasings=phrasings)
    for label in asked:
        ask.ask(
            f"mark-match-{first[label]}", Wording("mark-match", {"a": str(first[label])}), skill="correspondence", level="multi",
            frame=None, relation="mark", answer_type="number", options=[str(n) for n in sorted(second.values())],
            answer=second[label], objects=[kind_of(label)],
            facts=[[label, "marked", "first", str(first[label])], [label, "marked", "second", str(second[label])]],
        )  # fmt: skip
    return [{**question, "marks": style, "scene_of": scene["id"]} for question in ask.made]
