"""Lenient object matching (the paper's appendix A): which scene object a word in an answer names.

A YAML table lists, per catalog object, the synonyms, superordinates and reasonable
misidentifications a reader accepts; users extend it with `--synonyms`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tabletest.config import CONFIG_DIR, Catalog, _load_yaml, unknown_name_message
from tabletest.errors import UserError

DEFAULT_SYNONYMS = CONFIG_DIR / "synonyms.yaml"
CATEGORY_WORDS = CONFIG_DIR / "categories.yaml"


@dataclass(frozen=True)
class Mention:
    """A stretch of the answer that names one of `names` (more than one when the word is shared)."""

    start: int
    end: int
    names: frozenset[str]


class Lexicon:
    def __init__(self, table: dict[str, tuple[str, ...]]):
        self.table = table
        self.pattern = lru_cache(maxsize=None)(self._pattern)

    def _pattern(self, name: str) -> re.Pattern[str]:
        terms = sorted({name, *self.table.get(name, ())}, key=len, reverse=True)
        words = [r"[\s-]*".join(re.escape(w) for w in re.split(r"[\s-]+", term)) for term in terms]
        return re.compile(r"(?<![a-z])(?:" + "|".join(words) + r")(?:e?s)?(?![a-z])")

    def mentions(self, text: str, names: tuple[str, ...]) -> list[Mention]:
        """Mentions of `names` in lower-case `text`, left to right; a longer match hides one inside it.

        A word that is one object's own name and another's synonym ("teapot" beside a kettle) names
        the object it is the name of.
        """
        found: dict[tuple[int, int], set[str]] = {}
        own: dict[tuple[int, int], set[str]] = {}
        for name in names:
            for match in self.pattern(name).finditer(text):
                found.setdefault(match.span(), set()).add(name)
                if _is_own_name(match.group(), name):
                    own.setdefault(match.span(), set()).add(name)
        out: list[Mention] = []
        for start, end in sorted(found, key=lambda span: (span[0], -span[1])):
            if not out or start >= out[-1].end:
                out.append(Mention(start, end, frozenset(own.get((start, end)) or found[(start, end)])))
        return out


def _is_own_name(matched: str, name: str) -> bool:
    joined, target = re.sub(r"[\s-]+", "", matched), name.replace(" ", "")
    return joined in (target, target + "s", target + "es")


def load_lexicon(catalog: Catalog, extra: Path | None = None) -> Lexicon:
    """The built-in table with each object's category words, plus the entries of `extra` (checked
    against the catalog's names)."""
    table = _read_table(DEFAULT_SYNONYMS, None)
    categories = _read_table(CATEGORY_WORDS, None)
    for entry in catalog.objects:
        table[entry.name] = tuple(dict.fromkeys((*table.get(entry.name, ()), *categories.get(entry.group, ()))))
    if extra is not None:
        for name, words in _read_table(extra, catalog).items():
            table[name] = tuple(dict.fromkeys((*table.get(name, ()), *words)))
    return Lexicon(table)


def _read_table(path: Path, catalog: Catalog | None) -> dict[str, tuple[str, ...]]:
    data = _load_yaml(path, "synonyms") or {}
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a mapping of object name to a list of words, e.g. mug: [cup, coffee cup]")
    table = {}
    for name, words in data.items():
        if catalog is not None and str(name).strip().lower() not in catalog.names:
            raise UserError(f"{path}: {unknown_name_message(str(name), catalog.names)}")
        words = words or []
        if not (isinstance(words, list) and all(isinstance(w, str) and w.strip() for w in words)):
            raise UserError(f"{path}: entry {name!r} must be a list of words, e.g. {name}: [word, other word]")
        table[str(name).strip().lower()] = tuple(w.strip().lower() for w in words)
    return table
