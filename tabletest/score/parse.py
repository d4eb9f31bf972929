"""Reading a free-text answer: which objects it names, what it says of left and right, its verdict.

The reading is prompt-neutral; `judge` decides what it means for a given query. A relation word
becomes a claim with the object named just before it in the same sentence (its subject) and the
object named right after `of the`, or before it in `the mug's left` (its object). A `not` flips
left and right only where it governs the relation phrase (`not to the left`, `isn't on the mug's
left`), never from an aside (`the bottle, which is not tall, is ...`). Alternatives set aside
(`..., not the right`, `rather than to the right`, `the bottle, not the mug, ...`) are no claims and
no subjects. Relation phrases joined only by `or` (`to the left of or to the right of`, an echo of
the question) assert none of them, unless a `not` governs them all (`not to the right or inside`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property

from tabletest.score.lexicon import Lexicon, Mention

RELATION = re.compile(r"\b(left|right|inside)\b")
# a verdict word: true or false, yes or no, correct or wrong; `no` not as in "no doubt", `correct` not as in
# "the correct answer is ..."
NOUNS = r"(?!\s+(?:answer|option|statement|choice|response|one|relationship|relation)\b)"
VERDICT = re.compile(
    rf"\b(true|false|yes|no(?!\s+(?!(?:it|that|this|the|i)\b)[a-z])|(?<!the )correct|correct{NOUNS}"
    rf"|(?<!the )incorrect|incorrect{NOUNS}|wrong)\b"
)
VERDICT_ECHO = re.compile(r"\b(?:neither\s+)?(?:true\s+n?or\s+false|false\s+n?or\s+true)\b|\byes\s+or\s+no\b")
# a relation phrase as the questions word it: "to the left of", "inside of", "left"
PHRASE = r"(?:(?:to|on|at|in)\s+)?(?:the\s+)?(?:left|right|inside)\b(?:\s*-?\s*hand\b)?(?:\s+side\b)?(?:\s+of\b)?"
NEGATOR = (
    r"(?:\b(?:not|never|neither|nor)|n't)\s+(?:(?:at\s+all|really|actually|quite|exactly|necessarily|be|been)\s+)*"
)
NEGATED_VERDICT = re.compile(NEGATOR + "$")
# `not` governing an option or a number: right before it, or before the verb of its clause ("it did not go to the
# left", "isn't on the left", "there aren't 4"), never across a comma or a `but`
NEGATED = re.compile(
    NEGATOR + r"(?:(?!but\b|and\b|or\b)[a-z]+\s+){0,2}?(?:(?:to|on|at|in|towards?)\s+)?(?:(?:the|its|their)\s+)?$"
)
# `not` right before the relation phrase, or before a disjunction it is part of ("not to the right or inside")
NEGATED_RELATION = re.compile(
    NEGATOR + r"(?:(?:located|positioned|placed|situated|standing|sitting|found)\s+)?"
    rf"(?:{PHRASE}\s*,?\s*n?or\s+)*(?:(?:to|on|at|in|towards?)\s+)?(?:(?:the|its|their)\s+)?(?:(?:far|immediate)\s+)?$"
)
ECHO = re.compile(rf"{PHRASE}(?:\s*,\s*{PHRASE})*\s*,?\s*\bor\s+{PHRASE}")  # the question's alternatives, offered back
REJECTED = re.compile(
    r",\s*(?:but\s+)?(?:not|rather\s+than|instead\s+of)\b[^,.!?;:\n]*"  # "..., not the right": the rest of the clause
    rf"|\b(?:rather\s+than|instead\s+of)\s+{PHRASE}(?:\s*,?\s*(?:or|and|nor)\s+{PHRASE})*"
)
SET_ASIDE = re.compile(r"\b(?:not|rather\s+than|instead\s+of)\s+(?:(?:the|a|an)\s+)?")  # "not the mug"
BREAK = re.compile(r"[.!?;:\n]")
OBJECT_GAP = re.compile(r"\s*(?:-?\s*hand\s*)?(?:side\s+)?(?:of|from)\s+(?:the\s+|a\s+|an\s+)?$")
POSSESSIVE_GAP = re.compile(r"'s?\s+(?:(?:far|immediate)\s+)?(?:-?\s*hand\s+)?$")  # "the mug's left"
OF_NEXT = re.compile(r"\s*(?:-?\s*hand\s*)?of\b")
LIST_JOIN = r"\s*(?:,|&|and|or)\s*(?:the\s+)?"
NUMBER_LIST = rf"[1-4](?:{LIST_JOIN}#?\s*[1-4])*"
ORDINAL = r"(?:first|second|third|fourth)"
NUMBERED = re.compile(
    rf"\b(?:options?|choices?|numbers?|statements?|answers?)\s*(?:is\s+|are\s+)?(?:#|no\.?\s*)?({NUMBER_LIST})\b"
    rf"|\b({ORDINAL}(?:{LIST_JOIN}{ORDINAL})*)\s+(?:options?|ones?|choices?|statements?|relationships?)\b"
)
ALONE_NUMBERS = re.compile(rf"^\s*#?({NUMBER_LIST})[.):]?\s*$")
NUMBER = re.compile(rf"[1-4]|{ORDINAL}")
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
CLEAN = str.maketrans({c: " " for c in '*_`"“”[]()'} | {"’": "'", "‘": "'"})
FLIP = {"left": "right", "right": "left"}
# "right" as an intensifier, not the relation: "that's right", "right now", "it is right next to the mug"
IDIOMS = re.compile(
    r"\b(?:that's|that is|you're|you are|all) right\b|\bright (?:away|now|here|there|next to|beside|behind|"
    r"in front of|by|near|against|above|below|under|underneath|on top of|up against|alongside)\b"
)
# prompt 3: an option the answer says does not hold ("'The mug is to the right of the bottle' does not hold")
NOT_HOLDING = re.compile(
    r"\b(?:does\s*n[o']t\s+hold|is\s*n[o']t\s+(?:true|correct|the\s+case|accurate)"
    r"|is\s+(?:false|incorrect|wrong|untrue))\b"
)
# words of an answer to a fill-in prompt (6, 7) that say it describes the image instead of filling the blanks
DESCRIPTION = re.compile(
    r"\b(?:image|picture|photo|photograph|scene|shows?|showing|depicts?|depicting|contains?|containing|features?"
    r"|there (?:is|are)|placed|sitting|standing|lying)\b"
)
# what is left of a fill-in answer once its object names are taken out: the pieces between separators;
# a piece of a few words that are not fillers is a word the lookup table lacks ("pastry")
PIECE_BREAK = re.compile(r"[,;/&+.!?:\n|]|\b(?:and|or|then)\b|\b\d+[.)]")
FILLERS = frozenset(
    "a an the it its this that these those there which is are be was were of to on in at with by from for as "
    "left right side table inside top middle blank blanks fill filled both first second third answer answers "
    "option object objects one ones".split()
)
NO_NAME = frozenset(
    "not no cannot can't unable sorry unsure sure know tell see determine unclear impossible none nothing "
    "i you we they".split()
)
MAX_NAME_WORDS = 3


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
    def verdicts(self) -> tuple[bool, ...]:
        """Each verdict the answer says (true or false, yes or no), once, in order: a hedge says both."""
        return _verdicts(self.text)

    @cached_property
    def describes(self) -> bool:
        """Words of a description of the image ("the image shows ..."), not of a filled blank."""
        return bool(DESCRIPTION.search(self.text))

    @cached_property
    def unknown_words(self) -> list[str]:
        """Short pieces of the answer, between separators and object names, that name no known object."""
        text = self.text
        for mention in reversed(self.mentions):
            text = f"{text[: mention.start]},{text[mention.end :]}"
        pieces = []
        for piece in PIECE_BREAK.split(text):
            words = re.findall(r"[a-z][a-z'-]*", piece)
            if any(w in NO_NAME for w in words) or DESCRIPTION.search(piece) or _verdicts(piece):
                continue  # a refusal, a description of the picture, a true or false: no name an object goes by
            words = [w for w in words if w not in FILLERS]
            if 0 < len(words) <= MAX_NAME_WORDS:
                pieces.append(" ".join(words))
        return list(dict.fromkeys(pieces))

    @cached_property
    def numbers(self) -> list[tuple[int, int]]:
        """(position in the text, option number 1-4) for every option named by its number."""
        return _numbers(self.text)


ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
THINKING = re.compile(r"<(think|map)>.*?(?:</\1>|$)", re.IGNORECASE | re.DOTALL)


def answer_part(response: str) -> str:
    """What a response answers with: the last `<answer>...</answer>` where it has one, else the response
    without its `<think>...</think>` reasoning and its `<map>...</map>` (an unclosed one runs to the end), as
    reasoning models and map-then-answer models write."""
    if "<" not in response:
        return response
    tagged = ANSWER_TAG.findall(response)
    if tagged:
        return tagged[-1]
    lowered = response.lower()
    return THINKING.sub(" ", response) if "<think>" in lowered or "<map>" in lowered else response


def normalize(response: str) -> str:
    """Lower case without markup; idioms like "that's right" lose their `right`."""
    return IDIOMS.sub(lambda m: m.group(0).replace("right", "     "), response.lower().translate(CLEAN))


def _claims(text: str, mentions: list[Mention]) -> list[Claim]:
    skipped: list[tuple[int, int]] = []
    set_aside: set[int] = set()
    # each scan needs a word most answers lack: looking for the word first saves the scan
    if "or" in text:
        skipped += [
            m.span()
            for m in ECHO.finditer(text)
            if not NEGATED_RELATION.search(text, max(0, m.start() - 60), m.start())
        ]
    if "not" in text or "rather" in text or "instead" in text:
        skipped += [m.span() for m in REJECTED.finditer(text)]
        set_aside = {m.end() for m in SET_ASIDE.finditer(text)}
    subjects = [m for m in mentions if m.start not in set_aside and not _inside(m.start, skipped)]
    starts = _sentence_starts(text)
    claims = []
    previous_end = 0
    for match in RELATION.finditer(text):
        start, end = match.span()
        sentence = starts[bisect_right(starts, start) - 1]
        floor = max(previous_end, sentence)
        previous_end = end
        if _inside(start, skipped):
            continue
        obj = next((m for m in reversed(mentions) if floor <= m.start and m.end <= start), None)
        if obj is not None and POSSESSIVE_GAP.match(text, obj.end, start):
            phrase = obj.start  # "the mug's left": the phrase begins at the possessor
        else:
            phrase = start
            obj = next((m for m in mentions if m.start >= end), None)
            if obj is not None and not OBJECT_GAP.match(text[end : obj.start]):
                obj = None
        subject = next((m for m in reversed(subjects) if floor <= m.start and m.end <= phrase), None)
        window_start = max(subject.end if subject else sentence, phrase - 60)
        claims.append(
            Claim(
                start=start,
                subject=subject.names if subject else None,
                relation=match.group(1),
                object=obj.names if obj else None,
                negated=bool(NEGATED_RELATION.search(text, window_start, phrase)),
                side=obj is None and not OF_NEXT.match(text, end),
            )
        )
    return claims


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= position < b for a, b in spans)


def _sentence_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in BREAK.finditer(text))]


def _verdicts(text: str) -> tuple[bool, ...]:
    """Every true/false and yes/no/correct/wrong said, each flipped by a governing `not`; distinct, in order."""
    text = VERDICT_ECHO.sub(" ", text)
    starts = _sentence_starts(text)
    said = []
    for match in VERDICT.finditer(text):
        floor = starts[bisect_right(starts, match.start()) - 1]
        negated = bool(NEGATED_VERDICT.search(text, max(floor, match.start() - 40), match.start()))
        said.append((match.group(1) in {"true", "yes", "correct"}) != negated)
    return tuple(dict.fromkeys(said))


def _numbers(text: str) -> list[tuple[int, int]]:
    alone = ALONE_NUMBERS.match(text)
    matches = [alone] if alone else list(NUMBERED.finditer(text))
    out = []
    for match in matches:
        group = 1 if match.group(1) else 2
        for number in NUMBER.finditer(text, match.start(group), match.end(group)):
            word = number.group()
            out.append((number.start(), int(word) if word.isdigit() else ORDINALS[word]))
    return out
