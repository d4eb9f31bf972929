"""A text-only reader of the questions: a logistic regression on the question's words and the objects it names,
per template, fitted on some scene families and scored on the others, so that a shortcut in the wording
(small things go on big things, a trick kind is never on the table) shows as accuracy above chance.

The words are the question's own (a story's text is its scene, not part of the question): each word, each
object named and option offered with its place ("the first object is the egg"), and each of those with each
other word ("the first object is the egg" with "inside"). A choice is read as which of its options is right.
Families (a scene with its views and counterfactual partners, which repeat most of its answers) go to one of
`FOLDS` folds by a hash of the seed and the scene's id; each fold is scored by a model fitted on the others,
so every question sampled is scored once and no family is both learnt and scored. scikit-learn is imported
only when a report is made.

A point or a box is read as where in the picture it lies (the third of the image across and down, `text_keys.answer_of`),
and the reader's answer is that cell's centre (for a box: a box of the other folds' median size centred there),
judged as `tabletest score` judges it (on the object's visible mask, in the free region, IoU >= 0.5): its
accuracy is how often a reader of the words alone lands, beside how often the other folds' most common cell does.

A quantity (a length, an angle) is read by a ridge regression on the same features (its penalty chosen by
leave-one-out within the other folds), predicting the log of its exact value, and scored by its mean relative accuracy (MRA, as `tabletest score` scores it) beside the MRA of
the median of the other folds' values, the best constant a reader of the other scenes could give.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import re
import warnings
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace

from tabletest.prompts.hierarchy.balance import draw
from tabletest.prompts.hierarchy.closeness import closeness
from tabletest.prompts.hierarchy.text_keys import LOCATED, asked, name_pattern, named, read_as
from tabletest.truth.locations import box_hits, point_hits
from tabletest.truth.top_down import CELLS

FOLDS = 5
SAMPLE = 1000  # questions per template the reader learns from and is scored on (the same ones for the same stream)
PENALTIES = (0.1, 1.0, 10.0, 100.0, 1000.0)  # the ridge penalties a quantity's regression chooses from
WORD = re.compile(r"[a-z]+")
Said = tuple[str, tuple[str, ...], tuple[str, ...]]  # the question's words, the objects it names, its options


def said(question: dict) -> Said:
    """What a reader of the question alone sees: its words, the objects they name and the options it offers."""
    names = dict(named(question))
    return asked(question), tuple(names.get(place, "") for place in range(len(question["objects"]))), tuple(question.get("options") or ())


def features(text: str, objects: tuple[str, ...], options: tuple[str, ...]) -> list[str]:
    """The words, each object named (`objects`: "" where the words do not name it) and option offered with its
    place, and each of those with each other word (so "bigger" can turn what a name says round)."""
    words = WORD.findall(text.lower())
    places = [*(f"object{i}={n}" for i, n in enumerate(objects) if n), *(f"option{i}={o}" for i, o in enumerate(options))]
    names = {w for n in (*objects, *options) for w in WORD.findall(n.lower())}
    return [*words, *places, *(f"{p}&{w}" for p in places for w in dict.fromkeys(words) if w not in names)]


def ordered_features(text: str, objects: tuple[str, ...], options: tuple[str, ...]) -> list[str]:
    """A stronger reader's: `features`, and the words' order besides: each pair of neighbouring words (the
    question with each name as its place, so "the first photo to the second" differs from "the second photo to
    the first"), and the whole question, so written and as it is, which a reader of the majority answer per question
    string reads."""
    lowered = text.lower()
    places = [*((f"object{i}", n) for i, n in enumerate(objects) if n), *((f"option{i}", o) for i, o in enumerate(options))]
    for place, name in sorted(places, key=lambda item: -len(item[1])):  # "tennis ball" before "ball"
        lowered = re.sub(name_pattern(name), f" {place} ", lowered)
    words = re.findall(r"[a-z]+\d*", lowered)
    whole = ["question=" + " ".join(words), "text=" + " ".join(WORD.findall(text.lower()))]
    return [*features(text, objects, options), *(f"{a}_{b}" for a, b in itertools.pairwise(words)), *whole]


def fold(seed: int, family: str) -> int:
    """The fold a scene family is scored in, by a hash of the seed and its id (the same on any machine)."""
    digest = hashlib.blake2b(f"{seed}:fold:{family}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % FOLDS


@dataclass(order=True)
class Read:
    """One sampled question as the reader sees it, and the groups its score counts in."""

    rank: tuple[float, str]  # its draw and id: the sample keeps the smallest, in a fixed order
    fold: int = field(compare=False)
    said: Said = field(compare=False)
    label: str = field(compare=False)
    options: int = field(compare=False)  # a choice's options; 0 for other questions
    groups: tuple[Hashable, ...] = field(compare=False)
    value: float | None = field(compare=False, default=None)  # a quantity's exact value (metres or degrees)
    kind: str = field(compare=False, default="length")  # a quantity's: length or angle, as `closeness` scores it
    located: dict | None = field(compare=False, default=None)  # a point's or a box's: what the judge reads of it


class TextReader:
    """The sample of each template, fed one question at a time; `scores()` fits and scores the reader, on the
    `features` of each question (the balance report's), or on others (`ordered_features`: a stronger reader's)."""

    def __init__(self, seed: int, reads: Callable[[str, tuple[str, ...], tuple[str, ...]], list[str]] = features) -> None:
        self.seed, self.reads = seed, reads
        self.sampled: dict[str, list[tuple[float, Read]]] = {}  # per template, a max-heap of the smallest draws

    def add(self, question: dict, family: str, groups: tuple[Hashable, ...]) -> None:
        rank = (draw(self.seed, f"sample:{question['qid']}"), question["qid"])  # not balance's draw, which decides what stays
        heap = self.sampled.setdefault(question["template"], [])
        if len(heap) == SAMPLE and heap[0][1].rank < rank:
            return
        choice, exact = question["answer_type"] == "choice", question.get("exact")
        options = len(question["options"]) if choice else 0
        read = Read(rank, fold(self.seed, family), said(question), read_as(question), options, groups)
        if exact is not None:
            read = replace(read, value=exact["value"], kind="angle" if exact["unit"] == "deg" else "length")
        if question["answer_type"] in LOCATED:
            read = replace(read, located={k: question[k] for k in ("answer_type", "answer", "image_size", "mask", "region") if k in question})
        (heapq.heapreplace if len(heap) == SAMPLE else heapq.heappush)(heap, (-rank[0], read))

    def scores(self) -> dict[Hashable, list[float]]:
        """Per group: [questions scored, right, what guessing scores summed (`_guess`)]; a quantity's right is
        the regression's MRA, its guess the median's."""
        scored: dict[Hashable, list[float]] = {}
        for template in sorted(self.sampled):
            reads = sorted(item[1] for item in self.sampled[template])
            if reads[0].located is not None:
                pairs = land_out_of_fold(reads, self.reads)
            elif reads[0].value is None:
                guess = _guess(reads)
                pairs = [(float(hit), guess(read)) for read, hit in zip(reads, predict_out_of_fold(reads, self.reads))]
            else:
                pairs = regress_out_of_fold(reads, self.reads)
            for read, (hit, guessed) in zip(reads, pairs):
                for group in read.groups:
                    tally = scored.setdefault(group, [0, 0, 0.0])
                    tally[0] += 1
                    tally[1] += hit
                    tally[2] += guessed
        return scored


def _guess(reads: list[Read]) -> Callable[[Read], float]:
    """What guessing scores on a question of the template: one half for yes/no; for a choice the better of one
    over its options and always its most common option's place (where an option is never the answer, as
    "opposite" of two views that never stand opposite, always naming another scores more than a random pick);
    else the share of the template's most common answer."""
    labels = [read.label for read in reads]
    share = max(labels.count(x) for x in set(labels)) / len(labels)
    if reads[0].options:
        return lambda read: max(1 / read.options, share)
    if set(labels) <= {"yes", "no"}:
        return lambda read: 0.5
    return lambda read: share


def predict_out_of_fold(reads: list[Read], featured: Callable = features) -> list[bool]:
    """Whether the reader, fitted on the other folds, answers each question right (a choice: its option's place)."""
    return [predicted == read.label for read, predicted in zip(reads, predicted_out_of_fold(reads, featured))]


def land_out_of_fold(reads: list[Read], featured: Callable = features) -> list[tuple[float, float]]:
    """Per point or box question, whether the reader's answer (the centre of the image cell it reads from the
    words, fitted on the other folds) lands, and whether the other folds' most common cell's does."""
    import numpy as np

    predicted, folds = predicted_out_of_fold(reads, featured), np.array([r.fold for r in reads])
    scored = [(0.0, 0.0)] * len(reads)
    for k in range(FOLDS):
        train, test = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
        if not len(test) or not len(train):
            continue
        labels = [reads[i].label for i in train]
        constant = max(sorted(set(labels)), key=labels.count)
        sizes = [_extent(reads[i].located) for i in train]
        extent = (float(np.median([w for w, _ in sizes])), float(np.median([h for _, h in sizes])))
        for i in test:
            located = reads[i].located
            scored[i] = (float(_lands(located, predicted[i], extent)), float(_lands(located, constant, extent)))
    return scored


def _extent(located: dict) -> tuple[float, float]:
    answer = located["answer"]
    return (answer[2] - answer[0], answer[3] - answer[1]) if len(answer) == 4 else (0.0, 0.0)


def _lands(located: dict, label: str | None, extent: tuple[float, float]) -> bool:
    """Whether the centre of the image cell `label` (`image top left`), or a box of `extent` centred there, is judged right."""
    if label is None:
        return False
    index = CELLS.index(label.removeprefix("image "))
    width, height = located["image_size"]
    x, y = (index % 3 + 0.5) * width / 3, (index // 3 + 0.5) * height / 3
    if located["answer_type"] == "point":
        return point_hits(located, (x, y))
    w, h = extent
    return box_hits(located, (x - w / 2, y - h / 2, x + w / 2, y + h / 2))


def predicted_out_of_fold(reads: list[Read], featured: Callable = features) -> list[str | None]:
    """The answer the reader, fitted on the other folds, reads from each question's words (None where the other
    folds hold no question). A feature no training question has gets no weight, so one vocabulary serves every
    fold."""
    import numpy as np
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    x, labels, folds = matrix(reads, featured), np.array([r.label for r in reads]), np.array([r.fold for r in reads])
    predicted: list[str | None] = [None] * len(reads)
    for k in range(FOLDS):
        train, test = folds != k, folds == k
        seen = sorted(set(labels[train].tolist()))
        if not test.any() or not seen:
            continue
        if len(seen) == 1:
            for i in np.flatnonzero(test):
                predicted[i] = seen[0]
            continue
        model = LogisticRegression(solver="liblinear", dual=True, tol=0.01, max_iter=1000, random_state=0)  # dual: fast with more features than questions
        model = model if len(seen) == 2 else OneVsRestClassifier(model)  # one against the rest where there are more answers
        with warnings.catch_warnings():  # a fit a little short of its optimum still measures what the words tell
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(x[train], labels[train])
        for i, label in zip(np.flatnonzero(test), model.predict(x[test])):
            predicted[i] = str(label)
    return predicted


def regress_out_of_fold(reads: list[Read], featured: Callable = features) -> list[tuple[float, float]]:
    """Per quantity, the MRA of a ridge regression of its log value on its features, fitted on the other folds,
    and the MRA of the other folds' median value; 0 and 0 where the other folds hold none. Fewer than `FOLDS`
    questions there leave the regression nothing to choose its penalty by: it gives the median."""
    import numpy as np
    from sklearn.linear_model import RidgeCV

    x, folds = matrix(reads, featured), np.array([r.fold for r in reads])
    logs = np.log([r.value for r in reads])
    scored = [(0.0, 0.0)] * len(reads)
    for k in range(FOLDS):
        train, test = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
        if not len(test) or not len(train):
            continue
        median = float(np.exp(np.median(logs[train])))
        fitted = len(train) >= FOLDS and RidgeCV(alphas=PENALTIES).fit(x[train], logs[train])
        predicted = np.exp(fitted.predict(x[test])) if fitted else np.full(len(test), median)
        for i, guess in zip(test, predicted):
            truth, kind = reads[i].value, reads[i].kind
            scored[i] = (closeness(float(guess), truth, kind).mra, closeness(median, truth, kind).mra)
    return scored


def matrix(reads: list[Read], featured: Callable = features):
    """The reads' features (`featured`) as a sparse 0/1 matrix, columns in sorted order of the features."""
    import numpy as np
    from scipy.sparse import csr_matrix

    seen = [featured(*r.said) for r in reads]
    vocabulary = {f: j for j, f in enumerate(sorted({f for row in seen for f in row}))}
    columns = [sorted({vocabulary[f] for f in row}) for row in seen]
    indptr = np.cumsum([0, *map(len, columns)], dtype=np.int32)
    indices = np.fromiter((j for row in columns for j in row), dtype=np.int32, count=int(indptr[-1]))
    return csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(reads), len(vocabulary)))
