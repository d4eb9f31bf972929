"""Reading a free-text answer: which objects it names, what it says of left and right, its verdicts.

The reading is prompt-neutral; `judge` decides what it means for a given query. A relation word
becomes a claim with the object named just before it in the same sentence (its subject) and the
object named right after `of the` (its object); `not`/`n't` just before it flips left and right;
a sentence that offers relations joined by `or` (an echo of the question) asserts none of them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property

from tabletest.score.lexicon import Lexicon, Mention

RELATION = re.compile(r"\b(left|right|inside)\b")
VERDICT = re.compile(r"\b(true|false|yes|no|correct|incorrect|wrong)\b")
NEGATION = re.compile(r"\b(?:not|never|neither|nor)\b|n't\b")
BREAK = re.compile(r"[.!?;:\n]")
DISJUNCTION = re.compile(r"\b(?:left|right|inside)\b[^.!?;:\n]*\bor\b[^.!?;:\n]*\b(?:left|right|inside)\b")
OBJECT_GAP = re.compile(r"\s*(?:-?\s*hand\s*)?(?:side\s+)?(?:of|from)\s+(?:the\s+|a\s+|an\s+)?$")
OF_NEXT = re.compile(r"\s*(?:-?\s*hand\s*)?of\b")
NUMBERED = re.compile(
    r"\b(?:option|choice|number|statement|answer)\s*(?:#|no\.?\s*)?([1-4])\b"
    r"|\b(first|second|third|fourth)\s+(?:option|one|choice|statement|relationship)\b"
)
ALONE_NUMBER = re.compile(r"^\s*#?([1-4])[.):]?\s*$")
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
CLEAN = str.maketrans({c: " " for c in '*_`"“”[]()'} | {"’": "'", "‘": "'"})
FLIP = {"left": "right", "right": "left"}
IDIOMS = re.compile(r"\b(?:that's|that is|you're|you are|all) right\b|\bright (?:away|now)\b")


@dataclass(frozen=True)
class Claim:
    """`subject is to the relation of object` as written; either side may be unnamed (None)."""

    start: int
    subject: frozenset[str] | None
    relation: str
    object: frozenset[str] | None
    negated: bool
    side: bool  # no object and no `of`: "the mug is on the left (side of the table)"

    @property
    def asserted(self) -> str | None:
        """The relation the claim asserts: a negated left/right is the other one; `not inside` says nothing."""
        if not self.negated:
            return self.relation
        return FLIP.get(self.relation)


class Reading:
    """One answer, read on demand: each judge asks only for the parts its prompt type needs."""

    def __init__(self, response: str, lexicon: Lexicon, names: tuple[str, ...]):
        self.text = normalize(response)
        self._lexicon = lexicon
        self._names = names

    @cached_property
    def mentions(self) -> list[Mention]:
        return self._lexicon.mentions(self.text, self._names)

    @cached_property
    def claims(self) -> list[Claim]:
        return _claims(self.text, self.mentions) if RELATION.search(self.text) else []

    @cached_property
    def verdicts(self) -> list[bool]:
        return _verdicts(self.text)

    @cached_property
    def numbers(self) -> list[tuple[int, int]]:
        """(position in the text, option number 1-4) for every option named by its number."""
        return _numbers(self.text)


def normalize(response: str) -> str:
    """Lower case without markup; idioms like "that's right" lose their `right`."""
    return IDIOMS.sub(lambda m: m.group(0).replace("right", "     "), response.lower().translate(CLEAN))


def _claims(text: str, mentions: list[Mention]) -> list[Claim]:
    echoes = [m.span() for m in DISJUNCTION.finditer(text)]
    starts = _sentence_starts(text)
    claims = []
    previous_end = 0
    for match in RELATION.finditer(text):
        start, end = match.span()
        floor = max(previous_end, starts[bisect_right(starts, start) - 1])
        previous_end = end
        if any(a <= start < b for a, b in echoes):
            continue
        subject = next((m for m in reversed(mentions) if floor <= m.start and m.end <= start), None)
        window = text[max(subject.end if subject else floor, start - 30) : start]
        obj = next((m for m in mentions if m.start >= end), None)
        if obj is not None and not OBJECT_GAP.match(text[end : obj.start]):
            obj = None
        claims.append(
            Claim(
                start=start,
                subject=subject.names if subject else None,
                relation=match.group(1),
                object=obj.names if obj else None,
                negated=bool(NEGATION.search(window)),
                side=obj is None and not OF_NEXT.match(text, end),
            )
        )
    return claims


def _sentence_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in BREAK.finditer(text))]


def _verdicts(text: str) -> list[bool]:
    text = text.replace("true or false", " ")
    starts = _sentence_starts(text)
    out = []
    for match in VERDICT.finditer(text):
        floor = starts[bisect_right(starts, match.start()) - 1]
        window = text[max(floor, match.start() - 20) : match.start()]
        value = match.group(1) in {"true", "yes", "correct"}
        out.append(value != bool(NEGATION.search(window)))
    return out


def _numbers(text: str) -> list[tuple[int, int]]:
    alone = ALONE_NUMBER.match(text)
    if alone:
        return [(0, int(alone.group(1)))]
    return [(m.start(), int(m.group(1)) if m.group(1) else ORDINALS[m.group(2)]) for m in NUMBERED.finditer(text)]
