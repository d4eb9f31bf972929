"""The text-only descriptions of a scene, word for word as DESIGN.md fixes them."""

from __future__ import annotations

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
