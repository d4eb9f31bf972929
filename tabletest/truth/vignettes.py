"""The text-only descriptions of a scene, word for word as the study fixes them (docs/guide/benchmark.md)."""

from __future__ import annotations

from collections.abc import Callable

from tabletest.layout.instances import kind_of
from tabletest.truth.nouns import Nouns
from tabletest.truth.relations import CONVERSE, table_sides

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
    """A random scene in words: one sentence per neighbouring pair of the objects on the table, left to
    right (`left_first`) or right to left (`right_first`), each stating the pair's left/right relation, or
    where that is withheld by the margin, its front/behind relation, else that they stand next to each
    other; then one sentence for each object on or in another ("The apple is in the bowl."). A pair noun
    (`nouns`) takes "are". Of a kind the scene holds several of, each object is called by its place among them
    from the left ("the second apple from the left"), as `objects` lists them."""
    say = _called(objects)  # objects are named by label in the relations, by these words in the text
    carried = {a: f"on the {say(b)}" for a, b in relations.get("on", [])} | {a: f"in the {say(b)}" for a, b in relations.get("inside", [])}
    standing = tuple(o for o in objects if o not in carried)
    held = [f"The {say(a)} is {carried[a]}." for a in objects if a in carried]
    if len(standing) == 1:
        sentence = f"The {say(standing[0])} is on the table."
        return {"left_first": nouns.agree(" ".join([sentence, *held])), "right_first": nouns.agree(" ".join([sentence, *held[::-1]]))}
    stated = [(say(a), r, say(b)) for a, r, b in neighbour_facts(standing, relations)]
    backwards = [(b, CONVERSE.get(r), a) for a, r, b in reversed(stated)]
    return {
        "left_first": nouns.agree(" ".join([*(_sentence(fact) for fact in stated), *held])),
        "right_first": nouns.agree(" ".join([*(_sentence(fact) for fact in backwards), *held[::-1]])),
    }

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def _called(labels: tuple[str, ...]) -> Callable[[str], str]:
    """What a vignette calls each object: its name, or for one of a kind listed several times (apple#2), its place
    among them from the left."""
    called, seen = {}, {}
    for label in labels:
        kind = kind_of(label)
        if kind != label:
            seen[kind] = seen.get(kind, 0) + 1
            called[label] = f"{ORDINALS[seen[kind] - 1]} {kind} from the left"
    return lambda label: called.get(label, label)


def neighbour_facts(objects: tuple[str, ...], relations: dict) -> list[tuple[str, str | None, str]]:
    """What a random scene's vignette states of each neighbouring pair, left to right: `left_of`, else
    `in_front_of` or `behind` (left/right withheld by the margin), else None ("next to": nothing)."""
    holds = {key: {tuple(pair) for pair in relations[key]} for key in ("left_of", "in_front_of", "behind")}
    return [
        (a, next((key for key in ("left_of", "in_front_of", "behind") if (a, b) in holds[key]), None), b)
        for a, b in zip(objects, objects[1:])
    ]


def _sentence(fact: tuple[str, str | None, str]) -> str:
    a, relation, b = fact
    if relation in ("left_of", "right_of"):
        return f"The {a} is to the {relation.removesuffix('_of')} of the {b}."
    if relation == "in_front_of":
        return f"The {a} is in front of the {b}."
    if relation == "behind":
        return f"The {a} is behind the {b}."
    return f"The {a} is next to the {b}."
