"""VSR-style captions to judge true or false ("The mug is behind the lamp."), balanced: each true caption
comes with the false one that swaps its two objects.

VSR's categories covered: projective (left of, right of, in front of, behind; the viewer's frame,
VSR's "relative") and orientation (facing, facing away from; the object's own front, "intrinsic").
"""

from __future__ import annotations

import itertools

from tabletest.prompts.hierarchy.geometry import SceneGeometry
from tabletest.prompts.hierarchy.record import Asker
from tabletest.prompts.hierarchy.skills import FACT, OTHER, PHRASE, named

ASK = 'Is this caption true of the image: "{}"'


def captions(ask: Asker, g: SceneGeometry) -> None:
    things = named(g)
    for a, b in itertools.combinations(things, 2):
        for relate in (g.viewer_lateral, g.viewer_depth):
            rel = relate(a, b)
            if rel is None:
                continue
            for word in (rel, OTHER[rel]):
                first, second = (a, b) if word == rel else (b, a)
                for x, y in ((first, second), (second, first)):
                    caption = f"The {x.name} is {PHRASE[word]} the {y.name}."
                    ask.ask(
                        f"cap-{word}-{x.name}-{y.name}",
                        ASK.format(caption),
                        skill="position",
                        level="single",
                        frame="viewer",
                        relation=word,
                        answer_type="yes/no",
                        answer=(x, y) == (first, second),
                        objects=[x.name, y.name],
                        facts=[[a.name, FACT[rel], b.name]],
                        form="caption",
                        pair=f"cap-{word}-{a.name}-{b.name}",
                    )
    for x in (t for t in things if t.has_front):
        for y in (t for t in things if t is not x):
            ahead = g.intrinsic(x, y)[1]
            if ahead is None:
                continue
            for word, phrase in (("front", "facing"), ("behind", "facing away from")):
                ask.ask(
                    f"cap-facing-{word}-{x.name}-{y.name}",
                    ASK.format(f"The {x.name} is {phrase} the {y.name}."),
                    skill="orientation",
                    level="single",
                    frame="intrinsic",
                    relation=phrase,
                    answer_type="yes/no",
                    answer=ahead == word,
                    objects=[x.name, y.name],
                    facts=[[y.name, f"own_{FACT[ahead]}", x.name]],
                    form="caption",
                    pair=f"cap-facing-{x.name}-{y.name}",
                )
