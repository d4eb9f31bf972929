"""Joining responses to their queries and judging each one; bad input stops with one clear line."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from tabletest.errors import UserError
from tabletest.files.reading import read_user_records, require
from tabletest.score.judge import Outcome, judge, query_problem
from tabletest.score.lexicon import Lexicon
from tabletest.score.predictions import is_prediction_file, read_predictions

PROMPT_FIELDS = ("qid", "scene_id", "prompt_type", "variation", "modality", "answer", "objects")
RESPONSE_FIX = 'each line must be {"qid": ..., "response": ...}, plus "model" when a file holds several models'


@dataclass(frozen=True)
class Answer:
    model: str
    response: str
    path: Path
    line: int


@dataclass(frozen=True, slots=True)
class Scored:
    model: str
    qid: str
    modality: str
    prompt_type: int
    unit: str  # the scene and pair: every query in a unit is logically equivalent to the others
    object_a: str
    variation: dict
    outcome: Outcome
    response: str


class Scoring(NamedTuple):
    rows: list[Scored]
    unanswered: Counter[tuple[str, str, int]]  # (model, modality, prompt type) -> queries that model left
    queries: int  # in the prompts files


def read_responses(paths: list[Path]) -> dict[str, list[Answer]]:
    """Answers by qid. A line without `model` belongs to the model named by its file's stem.

    A `.xlsx` or `.tsv` file is read as a VLMEvalKit prediction file (`tabletest.score.predictions`).
    """
    answers: dict[str, list[Answer]] = {}
    seen: set[tuple[str, str]] = set()
    for path in paths:
        records = read_predictions(path) if is_prediction_file(path) else read_user_records(path, "responses file")
        for line, record in records:
            require(record, ("qid", "response"), path, line, RESPONSE_FIX)
            response = record["response"]
            if response is not None and not isinstance(response, str):
                raise UserError(f"{path}: line {line}: 'response' must be text or null, not {type(response).__name__}")
            model = str(record.get("model") or path.stem)
            qid = str(record["qid"])
            if (model, qid) in seen:
                raise UserError(
                    f"{path}: line {line} answers {qid!r} again for model {model!r}; keep one answer per query "
                    "(two VLMEvalKit runs? pass the model's output folder, outputs/<model>/, to read the newest)"
                )
            seen.add((model, qid))
            answers.setdefault(qid, []).append(Answer(model, response or "", path, line))
    if not answers:
        raise UserError(f"the responses files ({', '.join(map(str, paths))}) hold no answers; {RESPONSE_FIX}")
    return answers


def score_responses(prompt_paths: list[Path], response_paths: list[Path], lexicon: Lexicon) -> Scoring:
    """Judge every response, and count the queries each model left unanswered.

    The prompts files stream, only the responses are held in memory.
    """
    pending = read_responses(response_paths)
    models = {answer.model for answers in pending.values() for answer in answers}
    unanswered: Counter[tuple[str, str, int]] = Counter()
    queries = 0
    scored: list[Scored] = []
    for path in prompt_paths:
        for record, answers in _join(path, pending):
            queries += 1
            scored += (_scored(record, answer, lexicon) for answer in answers)
            for model in models.difference(answer.model for answer in answers):
                unanswered[(model, record["modality"], record["prompt_type"])] += 1
    if pending:
        qid, (first, *_) = next(iter(pending.items()))
        raise UserError(
            f"{first.path}: line {first.line}: qid {qid!r} is in none of the prompts files given; "
            "pass with --prompts the file these responses answer"
        )
    return Scoring(scored, unanswered, queries)


def _join(path: Path, pending: dict[str, list[Answer]]) -> Iterator[tuple[dict, list[Answer]]]:
    """Each query of a prompts file with its answers (taken out of `pending`; none if no model answered)."""
    for line, record in read_user_records(path, "prompts file"):
        require(record, PROMPT_FIELDS, path, line, "pass a file written by `tabletest prompts`")
        if problem := query_problem(record):
            raise UserError(f"{path}: line {line}: {problem}; pass a file written by `tabletest prompts`")
        yield record, pending.pop(record["qid"], [])


def _scored(record: dict, answer: Answer, lexicon: Lexicon) -> Scored:
    objects = record["objects"]
    return Scored(
        answer.model,
        record["qid"],
        record["modality"],
        record["prompt_type"],
        f"{record['scene_id']}:{objects['A']}:{objects['B']}",
        objects["A"],
        record["variation"],
        judge(record, answer.response, lexicon),
        answer.response,
    )
