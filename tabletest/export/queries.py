"""Questions and gold answers for training and evaluation files, all made by the prompt battery.

`--variations` picks how many of the study's trivial variations each scene contributes:
`all` every one (the battery's `full` protocol), `paper` the study's own protocol, and `one` a
single question per scene and prompt type, drawn (seeded by the scene) from the paper protocol's.
The gold answer is written as a short sentence a reader, and `tabletest score`, accepts as correct.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from functools import cache
from typing import Literal

from tabletest.prompts import templates as t
from tabletest.prompts.battery import SceneInput, scene_queries

Variations = Literal["all", "paper", "one"]
BLANK = "[blank]"


def queries(
    scene: SceneInput, types: tuple[int, ...], variations: Variations, seed: int, modality: str = "image"
) -> Iterator[dict]:
    """The queries of one scene about its image (or, with `modality` text, its vignettes), each with its `gold`
    answer text added."""
    if variations == "one":
        rng = random.Random(f"{seed}:{scene.id}")
        chosen = []
        for ptype in types:
            if scene.left_of is None:
                count = paper_count(len(scene.objects), ptype)
            else:  # a random scene: how many depends on its unambiguous pairs
                count = sum(1 for _ in scene_queries(scene, (ptype,), "paper", modality, seed))
            if not count:
                continue
            pick = rng.randrange(count)
            chosen.append(next(itertools.islice(scene_queries(scene, (ptype,), "paper", modality, seed), pick, None)))
    else:
        chosen = scene_queries(scene, types, "full" if variations == "all" else "paper", modality, seed)
    for query in chosen:
        query["gold"] = gold(query)
        yield query


@cache
def paper_count(n_objects: int, ptype: int) -> int:
    """How many questions of a type the paper protocol asks of an n-object scene (the same for every scene)."""
    probe = SceneInput(
        "probe", 0, tuple(f"object {i}" for i in range(n_objects)), {"left_first": "", "right_first": ""}
    )
    return sum(1 for _ in scene_queries(probe, (ptype,), "paper", "image", 0))


def gold(query: dict) -> str:
    """The answer a model should give: `True`/`False`, the first acceptable option, or the true sentence."""
    ptype, answer = query["prompt_type"], query["answer"]
    if ptype == 1:
        return "True" if answer["truth"] else "False"
    if ptype in (2, 3):
        return answer["options"][0]
    if ptype in (4, 5):
        first, second = answer["names"]
        return t.option(first, answer["relation"], second)
    fills = [answer["relation"]] if ptype == 8 else answer["names"]
    return _fill(query["text"].split(": ", 1)[1], fills)


def _fill(sentence: str, words: list[str]) -> str:
    """The fill-in sentence (prompts 6-8) with its blanks filled in order."""
    for word in words:
        sentence = sentence.replace(BLANK, word, 1)
    return sentence
