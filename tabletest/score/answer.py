"""One judge for every answer: `tabletest score`, the rewards (`tabletest.rewards`) and the harness hooks
(lmms-eval's `process_results`, VLMEvalKit's prediction files) all judge through `judge_answer`, so a model
earns the same score for the same answer wherever it is judged.

A record is either one of the study's queries (`tabletest prompts`) or a question of the hierarchy
(`tabletest questions`, with `answer_type`); a record that cannot be judged (a field missing or of the wrong
kind, a length of 0) is refused in one line, never judged by accident.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletest.config import excerpt
from tabletest.errors import UserError
from tabletest.score.judge import judge, query_problem
from tabletest.score.lexicon import Lexicon
from tabletest.score.questions import judge_question, question_problem


@dataclass(frozen=True, slots=True)
class Judgment:
    """What an answer earns: `score` is 1 or 0, and a length's or an angle's mean relative accuracy (partial
    credit, as `tabletest score` reports it)."""

    status: str  # correct | wrong | unparsed
    parsed: str  # what the answer was read as saying
    score: float
    mra: float | None = None  # lengths and angles
    within_2x: float | None = None  # lengths and angles
    hedged: bool = False  # it named several values (and scores as the worst of them)

    @property
    def correct(self) -> bool:
        return self.status == "correct"


QUESTION_JUDGED = (
    "qid", "scene_id", "skill", "level", "frame", "answer_type", "answer", "scene_objects", "options", "unit", "exact",
    "coordinates", "image_size", "mask", "region",  # points and boxes: where the answer must land, and in what units
)  # fmt: skip
QUERY_JUDGED = ("qid", "scene_id", "prompt_type", "variation", "answer", "objects", "distractor")


def judged_fields(record: dict) -> dict:
    """What the judge reads of a record (not its words or images): a row's ground truth for the rewards."""
    fields = QUESTION_JUDGED if is_question(record) else QUERY_JUDGED
    return {name: record[name] for name in fields if name in record}


def is_question(record: dict) -> bool:
    """A question of the hierarchy (`tabletest questions`), not one of the study's queries."""
    return "answer_type" in record


def judge_answer(record: dict, response: str | None, lexicon: Lexicon) -> Judgment:
    """`response` judged against `record`'s gold; a record that cannot be judged raises `UserError`."""
    if problem := record_problem(record):
        qid = record.get("qid") if isinstance(record, dict) else None
        raise UserError(f"record {excerpt(qid)}: {problem}; judge records written by tabletest")
    if is_question(record):
        judged = judge_question(record, response, lexicon)
        quantity = record["answer_type"] == "quantity"
        score = judged.mra if quantity and judged.mra is not None else float(judged.status == "correct")
        return Judgment(judged.status, judged.parsed, score, judged.mra, judged.within_2x, judged.values > 1)
    outcome = judge(record, response, lexicon)
    return Judgment(outcome.status, outcome.parsed, float(outcome.status == "correct"), hedged=outcome.hedged)


def record_problem(record: object) -> str | None:
    """What makes a record unjudgeable, or None."""
    if not isinstance(record, dict):
        return f"is {type(record).__name__}, not a JSON object"
    if is_question(record):
        return question_problem(record)
    return query_problem(record)
