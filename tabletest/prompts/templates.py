"""Every prompt text of the battery, word for word as the paper's Table 1 gives it.

This is the only module that spells prompt wording; the battery and the scorer both build their
strings here, so the texts a model receives and the texts the scorer expects cannot drift apart.
"""

from __future__ import annotations

from typing import Literal

Modality = Literal["image", "text"]
Relation = Literal["left", "right"]

SOURCE = {"image": "according to the image", "text": "according to the description"}

P2_HEAD = "Please select a correct relationship from:"
P3_HEAD = "Please select a relationship that does not hold from:"

# The four options of prompts 2 and 3 in the paper's order, as (subject, relation, object) roles.
OPTION_ROLES: tuple[tuple[str, Relation, str], ...] = (
    ("A", "right", "B"),
    ("A", "left", "B"),
    ("B", "right", "A"),
    ("B", "left", "A"),
)
OPTION_HOLDS = frozenset({1, 2})  # the options true when A is left of B


def statement(x: str, relation: str, y: str) -> str:
    """Prompt 1."""
    return f"Is the following statement true or false: the {x} is to the {relation} of the {y}"


def option(x: str, relation: str, y: str) -> str:
    """One option of prompts 2 and 3."""
    return f"The {x} is to the {relation} of the {y}"


def canonical_options(a: str, b: str) -> list[str]:
    names = {"A": a, "B": b}
    return [option(names[s], r, names[o]) for s, r, o in OPTION_ROLES]


def choice_list(head: str, options: list[str]) -> str:
    """Prompts 2 and 3: the instruction, then one option per line in the order presented."""
    return "\n".join([head, *options])


def disjunction(x: str, relations: tuple[str, ...], y: str) -> str:
    """Prompts 4 and 5: `relations` in the order asked, e.g. ("inside", "left", "right")."""
    phrases = ["inside of" if r == "inside" else f"to the {r} of" for r in relations]
    if len(phrases) == 2:
        listed = f"{phrases[0]} or {phrases[1]}"
    else:
        listed = ", ".join(phrases[:-1]) + f", or {phrases[-1]}"
    return f"Is the {x} {listed} the {y}?"


def both_blanks(relation: str, modality: Modality) -> str:
    """Prompt 6."""
    return f"Fill in both blanks {SOURCE[modality]}: The [blank] is to the {relation} of the [blank]"


def side_blank(side: str, modality: Modality) -> str:
    """Prompt 7."""
    return f"Fill in the blank {SOURCE[modality]}: The [blank] is on the {side} side of the table."


def relation_blank(x: str, y: str, modality: Modality) -> str:
    """Prompt 8."""
    return f"Fill in the blanks {SOURCE[modality]}: The {x} is to the [blank] of the {y}"


def with_context(context: str, question: str) -> str:
    """A text-only query: the vignette, a blank line, then the question."""
    return f"{context}\n\n{question}"
