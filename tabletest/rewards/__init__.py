"""Rewards for reinforcement learning on TableTest's exact answers, judged by `tabletest score`'s own judge.

TRL's `GRPOTrainer` calls each of its `reward_funcs` with the prompts, the completions (strings, or chat
messages for a conversational dataset) and every other column of the dataset as a keyword argument, and
takes one float per completion. The rows of `tabletest export --format trl` carry the columns these read:
`ground_truth` (the question's record as JSON: what the judge needs) and `answer_format`.

    from tabletest.rewards import accuracy_reward, format_reward
    trainer = GRPOTrainer(model=..., reward_funcs=[accuracy_reward, format_reward], train_dataset=dataset)

verl calls `compute_score(data_source, solution_str, ground_truth, extra_info)` with the `reward_model`'s
`ground_truth` of a row of `tabletest export --format verl` (`custom_reward_function.path` set to this file).

No torch here: importing this module needs only TableTest's base install.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache

from tabletest.config import excerpt, load_catalog
from tabletest.errors import UserError
from tabletest.score.answer import Judgment, judge_answer
from tabletest.score.lexicon import Lexicon, load_lexicon

PLAIN = "plain"  # the answer alone, as the question's instruction asks
THINK_ANSWER = "think-answer"  # reasoning in <think>...</think>, then the answer in <answer>...</answer>
MAP_ANSWER = "map-answer"  # the scene's map in <map>...</map>, then the answer
THINK_MAP_ANSWER = "think-map-answer"  # reasoning, then the map, then the answer in <answer>...</answer>
ANSWER_FORMATS = (PLAIN, THINK_ANSWER, MAP_ANSWER, THINK_MAP_ANSWER)
THINK = r"\s*<think>(?:(?!</?think>|</?answer>|</?map>).)+</think>"
MAP = r"\s*<map>((?:(?!</?map>|</?answer>).)+)</map>"
ANSWER = r"\s*<answer>((?:(?!</?answer>).)+)</answer>\s*"
# each form: its blocks in order and nothing else; the answer is the last group (a map-answer's: the rest)
SHAPES = {
    THINK_ANSWER: re.compile(THINK + ANSWER, re.S),
    MAP_ANSWER: re.compile(MAP + r"\s*((?:(?!</?map>|</?think>).)+?)\s*", re.S),
    THINK_MAP_ANSWER: re.compile(THINK + MAP + ANSWER, re.S),
}

__all__ = ["ANSWER_FORMATS", "accuracy_reward", "compute_score", "format_reward", "judgment"]


def accuracy_reward(completions: Sequence, ground_truth: Sequence[str], **_: object) -> list[float]:
    """1 for a right answer and 0 for a wrong one (a hedge scores as the worst value it names); for a length or an
    angle its mean relative accuracy, the partial credit `tabletest score` reports."""
    return [judgment(truth, _text(completion)).score for completion, truth in zip(completions, ground_truth)]


def format_reward(
    completions: Sequence, ground_truth: Sequence[str], answer_format: Sequence[str] | None = None, **_: object
) -> list[float]:
    """1 where the completion has the form its prompt asked for, else 0: with `think-answer`, one <think> block then
    one <answer> block and nothing else; with `map-answer`, one <map> block of a map (JSON with an `objects`
    list) then the answer (`think-map-answer`: a <think> block, the map, an <answer> block); and in every form,
    an answer the judge reads as one value (not a hedge, not unreadable), right or wrong."""
    forms = answer_format or [PLAIN] * len(completions)
    return [
        _formatted(_text(completion), truth, form)
        for completion, truth, form in zip(completions, ground_truth, forms)
    ]


def compute_score(data_source: str, solution_str: str, ground_truth: str | dict, extra_info: dict | None = None) -> float:
    """verl's custom reward: `accuracy_reward` of one response, its question's record as `ground_truth`."""
    if isinstance(ground_truth, dict):
        ground_truth = json.dumps(ground_truth, sort_keys=True)
    return judgment(ground_truth, solution_str).score


def judgment(ground_truth: str, response: str) -> Judgment:
    """`response` judged against the question in `ground_truth` (its record as JSON), as `tabletest score` judges it."""
    return judge_answer(_record(ground_truth), response, _lexicon())


def _formatted(response: str, ground_truth: str, form: str) -> float:
    if form in SHAPES:
        shaped = SHAPES[form].fullmatch(response)
        if shaped is None or (form != THINK_ANSWER and not _a_map(shaped[1])):
            return 0.0
        response = shaped.groups()[-1]
    elif form != PLAIN:
        raise ValueError(f"answer_format {form!r} is none of {', '.join(ANSWER_FORMATS)}")
    judged = judgment(ground_truth, response)
    return float(judged.status != "unparsed" and not judged.hedged)


def _a_map(text: str) -> bool:
    """JSON of a map: an object whose `objects` is a list of objects."""
    try:
        made = json.loads(text)
    except ValueError:
        return False
    return isinstance(made, dict) and isinstance(made.get("objects"), list) and all(isinstance(o, dict) for o in made["objects"])


def _text(completion: object) -> str:
    """A completion's text: a string, or the content of its chat messages (a string, or text parts)."""
    if isinstance(completion, str):
        return completion
    parts = []
    for message in completion:  # type: ignore[union-attr]
        content = message.get("content") if isinstance(message, dict) else message
        if isinstance(content, str):
            parts.append(content)
        else:
            parts += (part.get("text") or "" for part in content or () if isinstance(part, dict))
    return "".join(parts)


@lru_cache(maxsize=65536)
def _record(ground_truth: str) -> dict:
    """A row's question, parsed once for all its completions (GRPO samples several per prompt)."""
    try:
        return json.loads(ground_truth)
    except (TypeError, ValueError):
        raise UserError(
            f"ground_truth {excerpt(ground_truth)} is not a question's record as JSON; "
            "train on a dataset of `tabletest export --format trl` (or verl)"
        ) from None


@lru_cache(maxsize=1)
def _lexicon() -> Lexicon:
    return load_lexicon(load_catalog())
