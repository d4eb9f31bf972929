"""The text-only descriptions of a scene, word for word as DESIGN.md fixes them."""

from __future__ import annotations

from tabletest.truth.nouns import Nouns
from tabletest.truth.relations import table_sides

_PLACE = {"left": "on the left side of", "middle": "in the middle of", "right": "on the right side of"}


def _describe(named_sides: list[tuple[str, str]]) -> str:
    sentences = []
    for k, (name, side) in enumerate(named_sides):
        table = "the table" if k == 0 else "the same table"
        sentences.append(f"The {name} is {_PLACE[side]} {table}.")
    return " ".join(sentences)


def vignettes(objects: tuple[str, ...]) -> dict[str, str]:
    """Both orders of mention: left to right and right to left (identical for one object)."""
    named = list(zip(objects, table_sides(len(objects))))
    return {"left_first": _describe(named), "right_first": _describe(named[::-1])}


def relation_vignettes(objects: tuple[str, ...], relations: dict, nouns: Nouns = Nouns()) -> dict[str, str]:
    """A random scene in words: one sentence per neighbouring pair, left to right (`left_first`) or
    right to left (`right_first`), each stating the pair's left/right relation, or where that is
    withheld by the margin, its front/behind relation, else that they stand next to each other; a pair
    noun (`nouns`) takes "are"."""
    if len(objects) == 1:
        sentence = nouns.agree(f"The {objects[0]} is on the table.")
        return {"left_first": sentence, "right_first": sentence}
    holds = {key: {tuple(pair) for pair in relations[key]} for key in ("left_of", "right_of", "in_front_of", "behind")}

    def sentence(a: str, b: str, lateral: str) -> str:
        if (a, b) in holds[lateral]:
            return f"The {a} is to the {lateral.removesuffix('_of')} of the {b}."
        if (a, b) in holds["in_front_of"]:
            return f"The {a} is in front of the {b}."
        if (a, b) in holds["behind"]:
            return f"The {a} is behind the {b}."
        return f"The {a} is next to the {b}."

    pairs = list(zip(objects, objects[1:]))
    return {
        "left_first": nouns.agree(" ".join(sentence(a, b, "left_of") for a, b in pairs)),
        "right_first": nouns.agree(" ".join(sentence(b, a, "right_of") for a, b in reversed(pairs))),
    }
