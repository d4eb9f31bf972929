"""Rejection balancing of a question stream, as CLEVR does it: questions whose gold answer is over-represented
in their template are dropped, so that a question's wording alone does not give its answer away.

The rule, per template (one wording pattern, whatever objects it names and whatever its answer):

1. count its questions per gold answer (a first pass over the stream);
2. keep its k most frequent answers, at most c questions each, with k and c chosen to keep the most questions
   while no kept answer's share exceeds 1/k + TOLERANCE; every answer given to at least MIN_SHARE of its
   questions is kept (dropping the rare answers, "three apples", would keep more questions and teach less),
   and k is at least 2 where two answers exist, since one answer would meet the bound only by making the
   template a constant. A yes/no template with one answer only is dropped (its chance is one half); any other
   template with one answer is kept whole (chance 1);
3. of an answer over its cap, the c questions with the smallest hash of (seed, qid) are kept (a second pass).

The decision depends only on the counts, the seed and the question's id: the same stream and seed keep the same
questions, another seed keeps others, and a template already within the bound (a yes/no question asked with its
inverse) loses nothing. The first pass holds one float per question (8 bytes), not the questions.
"""

from __future__ import annotations

import bisect
import hashlib
import heapq
import itertools
from array import array
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

TOLERANCE = 0.02  # how far above 1/k a kept answer's share may be
MIN_SHARE = 0.01  # an answer given to this share of a template's questions stays: a rarer one may be dropped


def answer_key(answer: bool | int | str | list[str]) -> Hashable:
    """A gold answer as a counting key: `yes`/`no` for booleans (which would otherwise count as 1 and 0), a
    sorted tuple for a list of names."""
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if isinstance(answer, list):
        return tuple(sorted(answer))
    return answer


def answer_label(key: Hashable) -> str:
    """An answer key as the report writes it: names joined by `, `, `none` for no names."""
    if isinstance(key, tuple):
        return ", ".join(key) or "none"
    return str(key)


def draw(seed: int, qid: str) -> float:
    """The question's place in its answer's queue, in [0, 1): the same for the same seed and id on any machine."""
    digest = hashlib.blake2b(f"{seed}:{qid}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def choose_caps(counts: dict[Hashable, int], yes_no: bool, tolerance: float = TOLERANCE) -> dict[Hashable, int]:
    """How many questions of each answer a template keeps (answers left out keep none): see the module docstring."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], answer_label(item[0])))
    if len(ranked) == 1:
        return {} if yes_no else dict(ranked)
    sizes = Ranked([n for _, n in ranked])
    common = max(2, sum(n >= MIN_SHARE * sum(counts.values()) for _, n in ranked))  # never balanced away
    caps = {k: sizes.largest_cap(k, 1 / k + tolerance) for k in range(common, len(ranked) + 1)}
    k = max(caps, key=lambda k: (sizes.kept(k, caps[k]), -k))  # the most questions; of equals, the fewest answers
    return {answer: min(n, caps[k]) for answer, n in ranked[:k]}


class Ranked:
    """A template's answer counts, most first: what a cap keeps of the first k, by bisection (a template may
    have thousands of answers, as lists of names)."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes, self.negated, self.prefix = sizes, [-n for n in sizes], [0, *itertools.accumulate(sizes)]

    def kept(self, k: int, cap: int) -> int:
        """The sum of min(n, cap) over the first k counts."""
        over = min(bisect.bisect_left(self.negated, -cap), k)  # the counts above the cap come first
        return cap * over + self.prefix[k] - self.prefix[over]

    def largest_cap(self, k: int, bound: float) -> int:
        """The largest cap at which no answer of the first k holds more than `bound` of what they keep: the k-th
        count keeps them all equal and always fits, and the top answer's share only grows with the cap."""
        low, high = self.sizes[k - 1], self.sizes[0]
        while low < high:
            mid = (low + high + 1) // 2
            if mid <= bound * self.kept(k, mid):
                low = mid
            else:
                high = mid - 1
        return low


@dataclass(frozen=True)
class BalancePlan:
    """Per template and answer, the largest draw kept (none: the answer is dropped)."""

    seed: int
    thresholds: dict[str, dict[Hashable, float]]
    questions: int  # how many the first pass saw

    @classmethod
    def of(cls, questions: Iterable[dict], seed: int) -> BalancePlan:
        """The plan for a stream of questions (the first pass)."""
        draws: dict[str, dict[Hashable, array]] = {}
        yes_no: dict[str, bool] = {}
        seen = 0
        for seen, q in enumerate(questions, start=1):
            template = q["template"]
            by_answer = draws.setdefault(template, {})
            by_answer.setdefault(answer_key(q["answer"]), array("d")).append(draw(seed, q["qid"]))
            yes_no[template] = q["answer_type"] == "yes/no"
        thresholds = {}
        for template, by_answer in draws.items():
            caps = choose_caps({a: len(d) for a, d in by_answer.items()}, yes_no[template])
            thresholds[template] = {a: heapq.nsmallest(c, by_answer[a])[-1] for a, c in caps.items()}
        return cls(seed, thresholds, seen)

    def keeps(self, question: dict) -> bool:
        """Whether the question stays (the second pass)."""
        kept = self.thresholds.get(question["template"], {})
        threshold = kept.get(answer_key(question["answer"]))
        return threshold is not None and draw(self.seed, question["qid"]) <= threshold
