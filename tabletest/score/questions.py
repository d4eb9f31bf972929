"""Reading and judging answers to the question hierarchy (`tabletest questions`), for every answer type.

An answer is read as every value it names, and scores as the worst of them, so a hedge never pays: "yes and
no", "left or right", "5 or 11", "1, 2, 3", "the mug or the lamp", "20-25 cm" (a range as its two ends) are
each as wrong as their wrongest value. A value the answer rules out (`not to the right`, `the mug, not the
lamp`) is not named.

- yes/no: the study's verdict reading (`Yes.`, `true`, `It is not.` ... see `parse`);
- number: every number, in digits or words, signed and with decimals as written (`3`, `three`, `-5`, `5.5`;
  `none`, `no objects`: 0);
- choice of relations (`left`/`right`, `in front`/`behind`, `clockwise`/`anticlockwise`): every option the
  answer says; a governed `not` rules an option out (`not to the left`, `it did not go to the left`), and of two
  options, ruling one out picks the other; which way an object faces (`directions`): every direction named, a
  side and a depth word together one diagonal (`towards the viewer and to the left`);
- choice of objects and names: the objects the answer names, through the synonym table, an object set
  aside (`the mug, not the lamp`) left out;
- quantity: every length or angle of the asked kind (`quantities`), judged against the record's exact value;
- point and box: every point or box in the syntaxes models write them (`locations`), in the question's
  coordinates, a point judged by the object's visible mask (or the free region it asks for), a box by IoU >= 0.5;
- cell: every cell of a map's grid the answer names (`bottom left`, `centre`).
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
from tabletest.files.reading import read_user_records
from tabletest.score.collect import read_responses
from tabletest.score.directions import is_facing_choice, read_directions
from tabletest.score.lexicon import Lexicon
from tabletest.score.locations import read_boxes, read_cells, read_points
from tabletest.score.parse import NEGATED, SET_ASIDE, Reading, answer_part, normalize
from tabletest.prompts.hierarchy.closeness import closeness
from tabletest.prompts.hierarchy.correspondence import ORDINALS
from tabletest.score.quantities import UNITS, as_asked, read_numbers, read_quantities, worst
from tabletest.truth.locations import COORDINATES, box_hits, point_hits, to_pixels
from tabletest.truth.top_down import CELLS

NONE = re.compile(r"\b(?:none|nothing|no\s+(?:objects?|ones?|things?|items?|[a-z]+s)\b|there\s+(?:are|is)\s+no\b)")
OPTION = {  # each option's words, as a pattern
    option: re.compile(pattern)
    for option, pattern in {
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
        # where a second camera stands: beside the first, or across the table from it
        "opposite": r"\bopposite\b|\bacross\b|\b(?:other|far)\s+side\b",
        # which of two images (of several photos: `ORDINAL_OPTIONS`)
        "first": r"\bfirst\b|\b1st\b|\b(?:image|photo|picture)\s+(?:1|one)\b",
        "second": r"\bsecond\b|\b2nd\b|\b(?:image|photo|picture)\s+(?:2|two)\b",
        # what changed between them
        "swapped": r"\bswap(?:ped|s)?\b|\btraded?\s+places\b",
        "moved": r"\bmove[ds]?\b",
        "removed": r"\bremoved?\b|\btaken\s+away\b",
        "replaced": r"\breplaced?\b",
        "taken off": r"\btaken\s+(?:off|out)\b|\blifted\b",
        "turned": r"\bturn(?:ed|s)?\b|\brotated?\b",
        # which way an object turned, seen from above
        "clockwise": r"(?<!counter-)(?<!counter )\bclockwise\b",
        "anticlockwise": r"\banti-?\s?clockwise\b|\bcounter-?\s?clockwise\b",
        # which way an object slid, as the viewer sees it (beside left and right)
        "towards the viewer": r"\btowards?\s+(?:the\s+)?(?:viewer|camera|me|us)\b|\bcloser\b|\bnearer\b",
        "away from the viewer": r"\baway\b|\bfarther\b|\bfurther\b",
    }.items()
}
# which of several photos: the third, 3rd, photo 3 (image 3, picture 3), ...
NUMBER_WORDS = ("three", "four", "five", "six", "seven", "eight", "nine", "ten")
ORDINAL_OPTIONS = {
    word: re.compile(rf"\b{word}\b|\b{n}{'rd' if n == 3 else 'th'}\b|\b(?:image|photo|picture)\s+(?:{n}|{said})\b")
    for n, (word, said) in enumerate(zip(ORDINALS[2:], NUMBER_WORDS), start=3)
}
OPTION |= ORDINAL_OPTIONS


@dataclass(frozen=True)
class Judged:
    status: str  # correct | wrong | unparsed
    parsed: str  # what the answer was read as saying
    mra: float | None = None  # quantity questions: mean relative accuracy, 0 for an unread answer
    within_2x: float | None = None  # quantity questions: 1 where the answer is within half to twice the truth
    values: int = 0  # how many values the answer named: more than one is a hedge


@dataclass(frozen=True, slots=True)
class ScoredQuestion:
    model: str
    question: dict
    judged: Judged
    response: str


def judge_question(question: dict, response: str | None, lexicon: Lexicon) -> Judged:
    """One answer against its question's gold: every value it names is read, and it scores as the worst."""
    kind = question["answer_type"]
    response = answer_part(response or "")
    if kind == "quantity":
        return _judge_quantity(question, response)
    if kind in LOCATED:
        return _judge_location(question, response)
    if not response or not response.strip():
        return Judged("unparsed", "empty answer")
    values = READERS[kind](question, response, lexicon)
    if not values:
        return Judged("unparsed", "no answer found")
    gold = question["answer"]
    ok = all(_agrees(value, gold, kind) for value in values)
    shown = " or ".join(_shown(value, kind) for value in values)
    return Judged("correct" if ok else "wrong", shown, values=len(values))


def _agrees(value: object, gold: object, kind: str) -> bool:
    return sorted(value) == sorted(gold) if kind == "names" else value == gold  # type: ignore[type-var]


def _shown(value: object, kind: str) -> str:
    if kind == "names":
        return ", ".join(value) or "none"  # type: ignore[arg-type]
    return f"{value:g}" if kind == "number" else str(value).lower()


def _judge_quantity(question: dict, response: str) -> Judged:
    """Against the exact value (`exact`), not the rounded one the question states, and the worst of the values the
    answer names; an unread answer is unparsed, with MRA and within-2x 0, as accuracy counts it wrong."""
    values = read_quantities(response, question["unit"])
    if not values:
        return Judged("unparsed", "no quantity found" if response.strip() else "empty answer", 0.0, 0.0)
    exact = question["exact"]
    _, near = worst(values, exact["value"], UNITS[exact["unit"]][0])
    status = "correct" if near.correct else "wrong"
    shown = " or ".join(as_asked(v, question["unit"]) for v in values)
    return Judged(status, shown, near.mra, float(near.within_2x), len(values))


def _judge_location(question: dict, response: str) -> Judged:
    """Every point (box) the answer names, read in the question's coordinates and judged in pixels: a point on the
    object's visible mask or in its free region, a box at IoU >= 0.5 with the gold box; the worst decides."""
    kind, coordinates, size = question["answer_type"], question["coordinates"], question["image_size"]
    found = read_points(response) if kind == "point" else read_boxes(response)
    if not found:
        return Judged("unparsed", f"no {kind} found" if response.strip() else "empty answer")
    hits = point_hits if kind == "point" else box_hits
    ok = all(hits(question, to_pixels(value, coordinates, size)) for value in found)  # type: ignore[arg-type]
    shown = " or ".join(_located(value) for value in found)
    return Judged("correct" if ok else "wrong", shown, values=len(found))


def _located(value: tuple[float, ...]) -> str:
    return f"({', '.join(f'{v:g}' for v in value)})" if len(value) == 2 else f"[{', '.join(f'{v:g}' for v in value)}]"


def _yes_no(question: dict, response: str, lexicon: Lexicon) -> tuple[bool, ...]:
    return Reading(response, lexicon, ()).verdicts


def _number(question: dict, response: str, lexicon: Lexicon) -> tuple[float, ...]:
    values = read_numbers(normalize(response))
    if values:
        return values
    return (0,) if NONE.search(normalize(response)) else ()


def _choice(question: dict, response: str, lexicon: Lexicon) -> tuple[str, ...]:
    options = question["options"]
    if all(o in question["scene_objects"] for o in options):
        return tuple(_named(response, lexicon, tuple(options)) or ())
    text = normalize(response)
    if is_facing_choice(options):
        return read_directions(text)
    said, denied = [], set()
    for option in options:
        for match in OPTION[option].finditer(text):
            if NEGATED.search(text, max(0, match.start() - 40), match.start()):
                denied.add(option)
            else:
                said.append((match.start(), option))
    if not said and len(denied) == 1 and len(options) == 2:
        return tuple(set(options) - denied)
    return tuple(dict.fromkeys(option for _, option in sorted(said)))


def _names(question: dict, response: str, lexicon: Lexicon) -> tuple[list[str], ...]:
    named = _named(response, lexicon, tuple(question["scene_objects"]))
    if named is None or named == [] and not NONE.search(normalize(response)):
        return ()
    return (named,)


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


def _cell(question: dict, response: str, lexicon: Lexicon) -> tuple[str, ...]:
    return tuple(read_cells(normalize(response)))


READERS = {"yes/no": _yes_no, "number": _number, "choice": _choice, "names": _names, "cell": _cell}
LOCATED = ("point", "box")


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
            if problem := question_problem(record):
                raise UserError(f"{path}: line {line}: {problem}; pass a file written by `tabletest questions`")
            yield path, line, record


ANSWERS = {"yes/no": bool, "number": int, "choice": str, "names": list, "quantity": (int, float), "point": list, "box": list, "cell": str}
ASKED_IN = {"cm": "m", "m": "m", "deg": "deg"}  # the unit a quantity question asks in -> its exact value's unit


def question_problem(question: dict) -> str | None:
    """What makes a question record unjudgeable (a field missing or of the wrong kind), or None."""
    if missing := [name for name in QUESTION_FIELDS if name not in question]:
        return f"no field {', '.join(map(repr, missing))}"
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
    if kind in LOCATED:
        return _location_problem(question)
    if kind == "cell" and answer not in CELLS:
        return f"the cell {excerpt(answer)} is none of {', '.join(CELLS)}"
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


def _location_problem(question: dict) -> str | None:
    """A point or box question states its answer in pixels (`answer`: x, y or x0, y0, x1, y1), the coordinates its
    text asks for, the image's size, and what a point is judged against: the object's visible `mask` (COCO RLE) or
    a free `region`; its own answer must score right (which reads every number of the region, so one that is no
    number is found here, not while judging)."""
    kind, answer, size = question["answer_type"], question["answer"], question.get("image_size")
    if not (len(answer) == (2 if kind == "point" else 4) and all(_number_value(v) for v in answer)):
        return f"the answer {excerpt(answer)} is not a {kind} ({'x, y' if kind == 'point' else 'x0, y0, x1, y1'} in pixels)"
    if question.get("coordinates") not in COORDINATES:
        return f"coordinates {excerpt(question.get('coordinates'))} is none of {', '.join(COORDINATES)}"
    if not (isinstance(size, list) and len(size) == 2 and all(type(v) is int and v > 0 for v in size)):
        return f"image_size {excerpt(size)} is not [width, height] in pixels"
    mask, region = question.get("mask"), question.get("region")
    rle = isinstance(mask, dict) and mask.get("size") == size[::-1] and isinstance(mask.get("counts"), str)
    free = isinstance(region, dict) and all(isinstance(region.get(k), list) for k in ("table", "sides", "objects"))
    if kind == "point" and not (rle or free):
        return "a point question needs the object's mask (COCO RLE of the image's size) or a free region (table, sides, objects)"
    try:
        right = point_hits(question, tuple(answer)) if kind == "point" else box_hits(question, tuple(answer))
    except (TypeError, ValueError, IndexError, KeyError):
        return f"its {'region' if free else 'mask'} {excerpt(region if free else mask)} is not one the judge can read"
    if not right:
        return f"its own answer {_located(tuple(answer))} would score wrong against what it is judged by"
    return None


def _number_value(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(type(item) is str for item in value)
