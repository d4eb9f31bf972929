"""Rejection balancing of a question stream, as CLEVR does it, and on what each question's words give away: a
question whose gold answer is over-represented in its template, in its wording, or among the questions that
name the same object in the same place with the same relation ("Is the egg inside the ...?"), is dropped, so
that neither the template, nor its phrasing and the order of its words, nor the names it is filled with give
the answer away.

The rule, per template (one wording pattern, whatever objects it names and whatever its answer):

1. every unit (a question with its pair, kept or dropped together) gets a weight from its text keys
   (`text_keys`: each name the words say, in its place, with the relation they state): a key whose answers
   lean one way further than its scenes' own spread would lean them has the units that lean it scaled down,
   to that spread. Quantities, and templates that ask what the names tell by design (which is bigger in real
   life), have no keys;
2. a unit's rank is its draw (a hash of the seed and its pair's id, in [0, 1)) over its weight; a rank above
   1 drops it;
3. of what is left, count the template's questions per gold answer and keep its k most frequent answers, at
   most c questions each, with k and c chosen to keep the most questions while no kept answer's share exceeds
   1/k + TOLERANCE; every answer given to at least MIN_SHARE of its questions is kept (dropping the rare
   answers, "three apples", would keep more questions and teach less), and k is at least 2 where two answers
   exist, since one answer would meet the bound only by making the template a constant. A template with one
   answer only is dropped: its answer would be given away;
4. of what is left, the same per cell (`group_of`: skill, answer type and frame) of the template, and a yes/no's
   or a choice's exactly even (each answer at the rarest's count) per wording, with each name as its place and
   a choice's answer read as its option's place: no phrasing, no relation its words state ("to the left of"
   beside "in front of"), no order of its words ("from the first photo to the second") and no cell leans to an
   answer, and a wording or a cell with one answer goes;
5. a template then kept in fewer than MIN_FAMILIES scene families (a scene with its views and partners) is
   dropped: too few to even out against each other, where a reader fitted on some of them reads the others;
6. of an answer over its cap, the c questions of smallest rank are kept (a second pass, a scene at a time).

A quantity's stated answers ("23" cm) are near-unique, so its answer is its bin (`QuantityBins`): its exact
value's place among `BINS` bins of equal width in log value between its template's `TAILS` and 1 - `TAILS`
quantiles in the first pass (the values beyond go to the end bins). Evening the bins out spreads what is kept
across the template's range, so that no typical value is a good constant guess. A quantity has no text keys.

The decision depends only on the counts, the seed, the questions' ids and their words: the same stream and
seed keep the same questions, another seed keeps others. The first pass holds a few numbers per question
(its answer, wording, unit's keys, weight and draw), not the questions.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import math
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass

from tabletest.prompts.hierarchy.text_keys import (
    KeyBalance,
    answer_label,
    answer_of,
    nets,
    read_as,
    unit_of,
    weight,
    wording,
)

TOLERANCE = 0.02  # how far above 1/k a kept answer's share may be
CAP_ROUNDS = 3  # rounds of a template's caps and its wordings' (evening one out leans the other a little)
MIN_FAMILIES = 20  # a template kept in fewer scene families than this is dropped: too few to even out against each other
MIN_SHARE = 0.01  # an answer given to this share of a template's questions stays: a rarer one may be dropped
CELL = 1.01  # a quantity's exact value is counted in log-spaced cells this ratio wide (finer than its stated digits) ...
BINS = 6  # ... and balanced in this many bins of equal width in log value ...
TAILS = 0.05  # ... between these quantiles of its template's values


def draw(seed: int, qid: str) -> float:
    """The question's (or unit's) place in its answer's queue, in [0, 1): the same for the same seed and id on any machine."""
    digest = hashlib.blake2b(f"{seed}:{qid}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def choose_caps(counts: dict[Hashable, int], tolerance: float = TOLERANCE) -> dict[Hashable, int]:
    """How many questions of each answer a template keeps (answers left out keep none): see the module docstring."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], answer_label(item[0])))
    if len(ranked) == 1:
        return {}
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


def cell_of(question: dict) -> int:
    """A quantity's exact value as its log-spaced cell (values are lengths or angles, all positive)."""
    return math.floor(math.log(question["exact"]["value"]) / math.log(CELL))


@dataclass(frozen=True)
class QuantityBins:
    """A quantity template's bins: `BINS` of equal width in log value from its `TAILS` quantile to its 1 - `TAILS`
    quantile, fixed from the cells of the first pass; a value beyond goes to the end bin on its side."""

    low: int  # the first cell of the first bin
    width: float  # cells per bin

    @classmethod
    def of(cls, cells: Counter) -> QuantityBins:
        low, high = quantile(cells, TAILS), quantile(cells, 1 - TAILS)
        return cls(low, (high - low + 1) / BINS)

    def __call__(self, cell: int) -> int:
        return min(BINS - 1, max(0, math.floor((cell - self.low) / self.width)))

    def span(self, b: int) -> tuple[float, float]:
        """The values bin `b` holds between its edges (the end bins hold the values beyond too)."""
        return CELL ** (self.low + b * self.width), CELL ** (self.low + (b + 1) * self.width)


def quantile(cells: Counter, q: float) -> int:
    """The cell below which a share `q` of the counted values lie."""
    ranked, total, seen = sorted(cells.items()), sum(cells.values()), 0
    for cell, n in ranked:
        seen += n
        if seen >= q * total:
            return cell
    return ranked[-1][0]


@dataclass(frozen=True)
class BalancePlan:
    """Per text key and net answer, its factor; per template and answer (a quantity's: its bin), and per wording
    (`group_of`) and answer as its words read it (`read_in`), the largest rank kept (none: dropped)."""

    seed: int
    factors: dict[tuple, dict[str, float]]
    thresholds: dict[str, dict[Hashable, float]]
    worded: dict[tuple, dict[Hashable, float]]  # per wording
    questions: int  # how many the first pass saw
    bins: dict[str, QuantityBins]  # per quantity template

    @classmethod
    def of(cls, questions: Iterable[dict], seed: int) -> BalancePlan:
        """The plan for a stream of questions (the first pass)."""
        units, draws, rows = [], [], []  # rows: per question, its template, answer (a quantity's cell), wording, read, unit
        cells: dict[str, Counter] = defaultdict(Counter)  # per quantity template, its values' cells
        places: dict[str, set[str]] = defaultdict(set)  # a choice template's options, by place
        interned: dict[tuple, tuple] = {}
        for unit, members in _units(questions):
            for q in members:
                template = q["template"]
                if q["answer_type"] == "quantity":
                    cells[template][cell_of(q)] += 1
                answer = cell_of(q) if q["answer_type"] == "quantity" else answer_of(q)
                group = group_of(q)
                rows.append((template, answer, interned.setdefault(group, group), read_as(q) if q["answer_type"] == "choice" else None, len(units)))
                if q["answer_type"] == "choice":
                    places[template].add(read_as(q))
            units.append((members[0].get("scene_of") or members[0]["scene_id"], nets(members, interned)))
            draws.append(draw(seed, unit))
        bins = {template: QuantityBins.of(counted) for template, counted in cells.items()}
        rows = [(t, bins[t](answer) if t in bins else answer, *rest) for t, answer, *rest in rows]
        answers: dict[str, Counter] = defaultdict(Counter)
        for template, answer, *_ in rows:
            answers[template][answer] += 1
        reads = {t: sorted(places[t]) if t in places else [answer_label(a) for a in choose_caps(n)] for t, n in answers.items()}
        factors = KeyBalance(units, reads).factors()
        weights = [weight(factors, unit) for _, unit in units]
        rank = [draws[i] / weights[i] if 0 < weights[i] and draws[i] <= weights[i] else None for i in range(len(units))]
        kept = [(template, answer, group, answer if read is None else read, i) for template, answer, group, read, i in rows if rank[i] is not None]
        for _ in range(CAP_ROUNDS):  # each round's caps lie within the last's: the last round's keep what all kept
            thresholds = capped(((template, answer), rank[i]) for template, answer, _, _, i in kept)
            kept = [row for row in kept if _within(thresholds, row[0], row[1], rank[row[4]])]
            worded = capped([((group, read), rank[i]) for _, _, group, read, i in kept], exact=lambda group: group[4] is not None)
            kept = [row for row in kept if _within(worded, row[2], row[3], rank[row[4]])]
        families: dict[str, set[str]] = defaultdict(set)  # per template, the scene families it keeps questions of
        for template, *_, i in kept:
            families[template].add(units[i][0])
        few = {template for template in answers if len(families[template]) < MIN_FAMILIES}
        thresholds = {template: {} if template in few else thresholds.get(template, {}) for template in answers}
        return cls(seed, factors, thresholds, worded, len(rows), bins)

    def answer(self, question: dict) -> Hashable:
        """The answer a question is balanced by in its template: its gold answer's key, or a quantity's bin."""
        if question["answer_type"] == "quantity":
            return self.bins[question["template"]](cell_of(question))
        return answer_of(question)

    def read_in(self, question: dict) -> Hashable:
        """The answer a question is balanced by in its wording: a choice's by its option's place, as its words read it."""
        return read_as(question) if question["answer_type"] == "choice" else self.answer(question)

    def kept(self, questions: Iterable[dict]) -> Iterator[dict]:
        """The questions that stay, in their order (the second pass)."""
        for _, scene in itertools.groupby(questions, key=lambda q: q["scene_id"]):
            asked = list(scene)
            staying = set()
            for unit, members in _units(asked):
                weighed = weight(self.factors, nets(members))
                rank = draw(self.seed, unit) / weighed if weighed > 0 and draw(self.seed, unit) <= weighed else None
                for question in members:
                    in_template = _within(self.thresholds, question["template"], self.answer(question), rank)
                    if in_template and _within(self.worded, group_of(question), self.read_in(question), rank):
                        staying.add(id(question))
            yield from (q for q in asked if id(q) in staying)


def group_of(question: dict) -> tuple:
    """The questions whose answers are evened out together beside their template's: one cell (skill, answer type,
    frame) of the template, and for a yes/no or a choice one wording (`wording`), so that neither its phrasing,
    nor the relation its words state, nor the order of its options gives its answer away, and no cell is left with
    one answer (a count's, a name's or a quantity's answers are many: evened per wording, each wording would keep
    other answers, and the template would lean to those most wordings kept)."""
    kind = question["answer_type"]
    return question["template"], question["skill"], kind, question["frame"], wording(question) if kind in ("yes/no", "choice") else None


def capped(
    ranked: Iterable[tuple[tuple[Hashable, Hashable], float | None]], exact: Callable[[Hashable], bool] = lambda group: False
) -> dict[Hashable, dict[Hashable, float]]:
    """Per group, the largest rank each answer keeps (`choose_caps`; with no tolerance in an `exact` group), from
    each question's group, answer and rank (None: dropped by its weight); a group with one answer keeps none."""
    ranks: dict[Hashable, dict[Hashable, list[float]]] = defaultdict(lambda: defaultdict(list))
    for (group, answer), rank in ranked:
        if rank is not None:
            ranks[group][answer].append(rank)
    thresholds = {}
    for group, by_answer in ranks.items():
        caps = choose_caps({a: len(r) for a, r in by_answer.items()}, 0.0 if exact(group) else TOLERANCE)
        thresholds[group] = {a: sorted(by_answer[a])[c - 1] for a, c in caps.items()}
    return thresholds


def _within(thresholds: dict[Hashable, dict[Hashable, float]], group: Hashable, answer: Hashable, rank: float | None) -> bool:
    threshold = thresholds.get(group, {}).get(answer)
    return rank is not None and threshold is not None and rank <= threshold


def _units(questions: Iterable[dict]) -> Iterator[tuple[str, list[dict]]]:
    """Each scene's questions (they come together) by unit, units in the order of their first question."""
    for _, scene in itertools.groupby(questions, key=lambda q: q["scene_id"]):
        units: dict[str, list[dict]] = {}
        for question in scene:
            units.setdefault(unit_of(question), []).append(question)
        yield from units.items()


def balanced(items: list[tuple], seed: str) -> list[tuple]:
    """Of one scene's or pair's candidate yes/no questions, as many answered yes as no (the last field), drawn from the larger side with a seeded stream,
    in their order: a constant answer scores chance."""
    yes, no = [i for i in items if i[-1]], [i for i in items if not i[-1]]
    keep = min(len(yes), len(no))
    rng = random.Random(f"{seed}:balanced")
    chosen = {*rng.sample(range(len(yes)), keep)}, {*rng.sample(range(len(no)), keep)}
    return [i for k, i in enumerate(yes) if k in chosen[0]] + [i for k, i in enumerate(no) if k in chosen[1]]
