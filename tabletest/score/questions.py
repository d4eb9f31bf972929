"""Reading and judging answers to the question hierarchy (`tabletest questions`), for every answer type.

- yes/no: the study's verdict reading (`Yes.`, `true`, `It is not.` ... see `parse`);
- number: the first number, in digits or words (`3`, `three`, `none`, `no objects`: 0);
- choice of relations (`left`/`right`, `in front`/`behind`): the one option the answer says, a
  governed `not` ruling an option out (`not to the left` picks `right`); an echo of both is unread;
- choice of objects and names: the objects the answer names, through the synonym table, an
  object set aside (`the mug, not the lamp`) left out;
- quantity: a length or an angle with its unit (`quantities`), judged against the record's exact value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tabletest.config import excerpt
from tabletest.errors import UserError
from tabletest.prompts.hierarchy.record import QUESTION_FIELDS
from tabletest.files.reading import read_user_records, require
from tabletest.score.collect import read_responses
from tabletest.score.lexicon import Lexicon
from tabletest.score.parse import NEGATOR, SET_ASIDE, Reading, normalize
from tabletest.score.quantities import UNITS, as_asked, closeness, read_quantity

NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}
NUMBER = re.compile(r"\b(\d+|" + "|".join(NUMBER_WORDS) + r")\b")
NONE = re.compile(r"\b(?:none|nothing|no\s+(?:objects?|ones?|things?|items?|[a-z]+s)\b|there\s+(?:are|is)\s+no\b)")
OPTION = {
    "left": r"\bleft\b",
    "right": r"\bright\b",
    "in front": r"\bin\s+front\b|\bfront\b",
    "behind": r"\bbehind\b|\bin\s+back\b|\bback\b",
    # off the table plane: on top of or under, inside or holding, above or below
    "on top of": r"\bon\s+top\b|\b(?:resting|sitting|standing)\s+on\b",
    "under": r"\bunder(?:neath)?\b|\bbeneath\b",
    "inside": r"\binside\b|\bwithin\b",
    "holding": r"\bholding\b|\bholds\b|\bcontain(?:s|ing)?\b",
    "above": r"\babove\b|\bover\b",
    "below": r"\bbelow\b|\bbeneath\b|\bunder(?:neath)?\b",
    # which of two images
    "first": r"\bfirst\b|\b1st\b|\bimage\s+(?:1|one)\b",
    "second": r"\bsecond\b|\b2nd\b|\bimage\s+(?:2|two)\b",
    # what changed between them
    "swapped": r"\bswap(?:ped|s)?\b|\btraded?\s+places\b",
    "moved": r"\bmove[ds]?\b",
    "removed": r"\bremoved?\b|\btaken\s+away\b",
    "replaced": r"\breplaced?\b",
    "taken off": r"\btaken\s+(?:off|out)\b|\blifted\b",
}
NEGATED = re.compile(NEGATOR + r"(?:(?:to|on|at|in)\s+)?(?:(?:the|its)\s+)?$")


@dataclass(frozen=True)
class Judged:
    status: str  # correct | wrong | unparsed
    parsed: str  # what the answer was read as saying
    mra: float | None = None  # quantity questions: mean relative accuracy, 0 for an unread answer
    within_2x: float | None = None  # quantity questions: 1 where the answer is within half to twice the truth


@dataclass(frozen=True, slots=True)
class ScoredQuestion:
    model: str
    question: dict
    judged: Judged
    response: str


def judge_question(question: dict, response: str | None, lexicon: Lexicon) -> Judged:
    kind = question["answer_type"]
    if kind == "quantity":
        return _judge_quantity(question, response or "")
    if not response or not response.strip():
        return Judged("unparsed", "empty answer")
    value = READERS[kind](question, response, lexicon)
    if value is None:
        return Judged("unparsed", "no answer found")
    gold = question["answer"]
    if kind == "names":
        ok = sorted(value) == sorted(gold)
        shown = ", ".join(value) or "none"
    else:
        ok, shown = value == gold, str(value).lower()
    return Judged("correct" if ok else "wrong", shown)


def _judge_quantity(question: dict, response: str) -> Judged:
    """Against the exact value (`exact`), not the rounded one the question states; an unread answer is unparsed,
    with MRA and within-2x 0, as accuracy counts it wrong."""
    value = read_quantity(response, question["unit"])
    if value is None:
        return Judged("unparsed", "no quantity found" if response.strip() else "empty answer", 0.0, 0.0)
    exact = question["exact"]
    near = closeness(value, exact["value"], UNITS[exact["unit"]][0])
    status = "correct" if near.correct else "wrong"
    return Judged(status, as_asked(value, question["unit"]), near.mra, float(near.within_2x))


def _yes_no(question: dict, response: str, lexicon: Lexicon) -> bool | None:
    return Reading(response, lexicon, ()).verdict


def _number(question: dict, response: str, lexicon: Lexicon) -> int | None:
    text = normalize(response)
    match = NUMBER.search(text)
    if match:
        word = match.group(1)
        return int(word) if word.isdigit() else NUMBER_WORDS[word]
    return 0 if NONE.search(text) else None


def _choice(question: dict, response: str, lexicon: Lexicon) -> str | None:
    options = question["options"]
    if all(o in question["scene_objects"] for o in options):
        named = _named(response, lexicon, tuple(options))
        return named[0] if named is not None and len(named) == 1 else None
    text = normalize(response)
    said, denied = set(), set()
    for option in options:
        for match in re.finditer(OPTION[option], text):
            (denied if NEGATED.search(text, max(0, match.start() - 40), match.start()) else said).add(option)
    if not said and len(denied) == 1 and len(options) == 2:
        said = set(options) - denied
    return said.pop() if len(said) == 1 else None


def _names(question: dict, response: str, lexicon: Lexicon) -> list[str] | None:
    named = _named(response, lexicon, tuple(question["scene_objects"]))
    if named == [] and not NONE.search(normalize(response)):
        return None
    return named


def _named(response: str, lexicon: Lexicon, names: tuple[str, ...]) -> list[str] | None:
    """The objects the answer names, each once, in order; None if a shared word leaves one unclear."""
    text = normalize(response)
    set_aside = {m.end() for m in SET_ASIDE.finditer(text)}
    out: list[str] = []
    for mention in lexicon.mentions(text, names):
        if mention.start in set_aside:
            continue
        if len(mention.names) != 1:
            return None
        out.append(next(iter(mention.names)))
    return list(dict.fromkeys(out))


READERS = {"yes/no": _yes_no, "number": _number, "choice": _choice, "names": _names}


def is_question_file(path: Path) -> bool:
    """Whether a prompts file holds `tabletest questions` records (judged by its first record)."""
    for _, record in read_user_records(path, "prompts file"):
        return "skill" in record and "answer_type" in record
    return False


def score_questions(
    question_paths: list[Path], response_paths: list[Path], lexicon: Lexicon
) -> tuple[list[ScoredQuestion], int]:
    """Every answer judged, and how many questions no model answered (they are left out of the numbers)."""
    pending = read_responses(response_paths)
    rows: list[ScoredQuestion] = []
    unanswered = 0
    for path, line, question in _questions(question_paths):
        answers = pending.pop(question["qid"], [])
        unanswered += not answers
        rows += [
            ScoredQuestion(a.model, question, judge_question(question, a.response, lexicon), a.response)
            for a in answers
        ]
    if pending:
        qid, (first, *_) = next(iter(pending.items()))
        raise UserError(
            f"{first.path}: line {first.line}: qid {qid!r} is in none of the questions files given; "
            "pass with --prompts the file these responses answer"
        )
    return rows, unanswered


def _questions(paths: list[Path]) -> Iterator[tuple[Path, int, dict]]:
    for path in paths:
        for line, record in read_user_records(path, "questions file"):
            require(record, QUESTION_FIELDS, path, line, "pass a file written by `tabletest questions`")
            if problem := _shape_problem(record):
                raise UserError(f"{path}: line {line}: {problem}; pass a file written by `tabletest questions`")
            yield path, line, record


ANSWERS = {"yes/no": bool, "number": int, "choice": str, "names": list, "quantity": (int, float)}
ASKED_IN = {"cm": "m", "m": "m", "deg": "deg"}  # the unit a quantity question asks in -> its exact value's unit


def _shape_problem(question: dict) -> str | None:
    """What makes a question record unjudgeable (a field of the wrong kind), or None."""
    kind = question["answer_type"]
    if kind not in ANSWERS:
        return f"answer_type {excerpt(kind)} is none of {', '.join(ANSWERS)}"
    if not isinstance(question["qid"], str):
        return f"qid {excerpt(question['qid'])} is not a string"
    if not _strings(question["scene_objects"]):
        return "scene_objects is not a list of names"
    answer = question["answer"]
    if not isinstance(answer, ANSWERS[kind]) or (kind in ("number", "quantity") and isinstance(answer, bool)):
        return f"the answer {excerpt(answer)} is not a {kind} answer"
    if kind == "quantity":
        return _quantity_problem(question)
    if kind == "names" and not _strings(answer):
        return "the answer is not a list of names"
    if kind == "choice" and not (_strings(question.get("options")) and answer in question["options"]):
        return "a choice question needs options, a list of names that holds its answer"
    return None


def _quantity_problem(question: dict) -> str | None:
    """A quantity question asks in cm, m or deg, holds its exact value in SI (`{"value": 0.23172, "unit": "m"}`,
    a length above 0), and states an answer that the scorer reads as correct against it."""
    unit, exact = question.get("unit"), question.get("exact")
    if unit not in ASKED_IN:
        return f"unit {excerpt(unit)} is none of {', '.join(ASKED_IN)}"
    if not (isinstance(exact, dict) and exact.get("unit") == ASKED_IN[unit] and _number_value(exact.get("value"))):
        return f'exact {excerpt(exact)} is not {{"value": <number>, "unit": "{ASKED_IN[unit]}"}}'
    if exact["unit"] == "m" and exact["value"] <= 0:
        return f"the exact length {excerpt(exact['value'])} m is not above 0"
    stated = question["answer"] * UNITS[unit][1]
    if not math.isfinite(stated) or not closeness(stated, exact["value"], UNITS[unit][0]).correct:
        return (
            f"the answer {excerpt(question['answer'])} {unit} is 10% or more off its exact value "
            f"{exact['value']} {exact['unit']}, so its gold answer would score wrong"
        )
    return None


def _number_value(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)
