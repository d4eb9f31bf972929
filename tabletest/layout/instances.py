"""Several objects of one kind in a scene (three apples): each is its own object, told apart by an instance label.

An object's label is its catalog name when the scene holds one of its kind, else the name, `#` and its number
among those of its kind from left to right as the scene (its first view) shows them: `apple#1`, `apple#2`.
Relations, `hidden` and `covered_by` name objects by label; a record keeps the catalog name in `name` and the
label, where it differs, in `instance`. Its views and counterfactual partners keep the scene's labels, so a
pair joins on them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

SEPARATOR = "#"  # never in a catalog name (the catalog refuses it)


def kind_of(label: str) -> str:
    """The catalog name of a labelled object: `apple#2` -> `apple`."""
    return label.partition(SEPARATOR)[0]


def label_of(obj: Mapping) -> str:
    """A record object's label: its `instance`, else its name."""
    return obj.get("instance") or obj["name"]


def numbered(kinds: Iterable[str]) -> list[str]:
    """Labels for objects of these kinds, in order: a kind that occurs once keeps its name, the others are numbered."""
    kinds = list(kinds)
    total, seen = Counter(kinds), Counter()
    labels = []
    for kind in kinds:
        seen[kind] += 1
        labels.append(kind if total[kind] == 1 else f"{kind}{SEPARATOR}{seen[kind]}")
    return labels


def repeated(labels: Iterable[str]) -> bool:
    """Whether any kind occurs more than once among these labels."""
    return any(SEPARATOR in label for label in labels)
