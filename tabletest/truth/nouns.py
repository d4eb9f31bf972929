"""How a sentence names an object: its number and plural, from the catalog.

A pair noun ("scissors", "headphones") is plural in form, so its verb is "are" and one of them is
counted as a pair ("How many pairs of scissors ..."); a name whose plural is not regular says so
(`plural` in the catalog: "avocados", "heads of broccoli"). The templates are written for a singular
name; `agree` brings a finished sentence into agreement, so no template has to spell both numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from tabletest.config import Catalog


@dataclass(frozen=True)
class Nouns:
    pairs: frozenset[str] = frozenset()
    plurals: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, catalog: Catalog) -> Nouns:
        return cls(frozenset(o.name for o in catalog.objects if o.pair), {o.name: o.plural for o in catalog.objects if o.plural})

    def plural(self, name: str) -> str:
        """What many of them are called: "apples", "pairs of scissors", the catalog's "heads of broccoli"."""
        if name in self.pairs:
            return f"pairs of {name}"
        return self.plurals.get(name) or regular_plural(name)

    def agree(self, text: str) -> str:
        """`the scissors is` / `is the scissors` become `are`, and `the scissors's` becomes `the scissors'`."""
        for name in self.pairs:
            noun = re.escape(name)
            text = re.sub(rf"\b([Tt]he {noun}) is\b", r"\1 are", text)
            text = re.sub(rf"\b(I|i)s (the {noun})\b", lambda m: ("Are " if m.group(1) == "I" else "are ") + m.group(2), text)
            text = text.replace(f"the {name}'s ", f"the {name}' ")
        return text


def regular_plural(name: str) -> str:
    if name.endswith(("s", "sh", "ch", "x")):
        return name if name.endswith("s") and not name.endswith("ss") else name + "es"
    if name.endswith("y") and name[-2] not in "aeiou":
        return name[:-1] + "ies"
    if name.endswith("o") and name[-2] not in "aeiou":
        return name + "es"
    return name + "s"
