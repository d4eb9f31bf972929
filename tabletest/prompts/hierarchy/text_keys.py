"""What a question's words give away, as `--balance` evens it out: its text keys (each object named, in its place,
with the relation the words state) and, per key, how many questions of each answer it holds.

Questions are weighed in units: a question with its pair (its inverse, or the "no" asked beside its "yes"),
kept or dropped together, since the two share their words and a unit cut in half would give its other half
away. A unit's net answer on a key is the answer its members give more often under that key ("Is the egg
inside the bowl?" yes beside "Is the egg inside the mug?" no is even on the egg's key). A key leans where
its answers differ by more than `SPREADS` times its families' own spread (the root of the summed squares of
each family's lean: one scene that asks ten questions of its mug is one family, not ten); `KeyBalance`
scales down the units that lean it until the difference is that, over `ROUNDS` rounds. A key of one family
leans exactly its spread and is left alone: no reader fitted on other scenes sees it. One spread of a lean is
left: evening a key out exactly would make a held-out scene's answer the one its key lacks elsewhere, which
drops a great many questions to make the words mislead a reader instead.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from tabletest.truth.nouns import regular_plural
from tabletest.truth.top_down import CELLS

SPREADS = 1.0  # a key's answers may lean this many times its families' own spread: the units leaning it further weigh less
ROUNDS = 2  # rounds over the keys (each caps every key; the second evens out what the first left)
# which is bigger in real life, and how tall, long or wide an object is: the names tell, as the template intends
KNOWN_BY_NAME = ("size-choice", "metric-height", "metric-length", "metric-width")
LOCATED = ("point", "box")  # answers that are a place in the image
Key = tuple[str, str, int, str]  # template, relation stated (or ""), place, name


def answer_key(answer: bool | int | str | list[str]) -> Hashable:
    """A gold answer as a counting key: `yes`/`no` for booleans (which would otherwise count as 1 and 0), a
    sorted tuple for a list of names."""
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if isinstance(answer, list):
        return tuple(sorted(answer))
    return answer


def answer_of(question: dict) -> Hashable:
    """The answer a question is counted and balanced by: its gold answer's key, or for a point or a box the third
    of the image across and down its point (its box's centre) lies in (`image top left`), so that evening the
    answers out spreads them over the picture."""
    if question["answer_type"] in LOCATED:
        return f"image {image_cell(question)}"
    return answer_key(question["answer"])


def image_cell(question: dict) -> str:
    """The cell of the image's 3x3 grid holding a point answer, or a box answer's centre."""
    answer, (width, height) = question["answer"], question["image_size"]
    x, y = (answer[0], answer[1]) if len(answer) == 2 else ((answer[0] + answer[2]) / 2, (answer[1] + answer[3]) / 2)
    column, row = min(2, max(0, int(3 * x / width))), min(2, max(0, int(3 * y / height)))
    return CELLS[row * 3 + column]


def answer_label(key: Hashable) -> str:
    """An answer key as the report writes it: names joined by `, `, `none` for no names."""
    if isinstance(key, tuple):
        return ", ".join(key) or "none"
    return str(key)


def asked(question: dict) -> str:
    """The question without a text question's context (a story, a vignette: the scene, not the question)."""
    return question["text"].rsplit("\n\n", 1)[-1]


def named(question: dict) -> list[tuple[int, str]]:
    """Each object the question's words name (`mug`, `mugs`, `strawberries`), with its place among its objects: what a reader of
    the words sees of them (a question of two images may concern objects it does not name)."""
    said = asked(question).lower()
    return [(place, name) for place, name in enumerate(question["objects"]) if re.search(name_pattern(name), said)]


def wording(question: dict) -> str:
    """The question's words with each object it names as its place (`<0>`, `<1>`): what its phrasing, the relation
    its words state and the order of its options say, whatever the objects."""
    said = asked(question).lower()
    for place, name in sorted(named(question), key=lambda item: -len(item[1])):  # "tennis ball" before "ball"
        said = re.sub(name_pattern(name), f"<{place}>", said)
    return said


def name_pattern(name: str) -> str:
    """A name, or many of it ("apples", "strawberries", "avocados")."""
    said = name.lower()
    return rf"\b(?:{re.escape(said)}(?:e?s)?|{re.escape(regular_plural(said))})\b"


def read_as(question: dict) -> str:
    """The answer as a reader of the words picks it: a choice's option by its place, else the gold answer."""
    if question["answer_type"] == "choice":
        return f"option{question['options'].index(question['answer'])}"
    return answer_label(answer_of(question))


def text_keys(question: dict) -> list[Key]:
    """Each object the words name, in its place, with the relation where the words state it and it is no option ("Is
    the egg on top of the book?"; not the "left" of "left or right?"). None for a quantity (its answer is a bin of
    its template's range, fixed only once the first pass is over), nor for a template that asks what the names
    tell by design, nor for a point or a box (its answer is a place in the picture)."""
    template = question["template"]
    if question["answer_type"] in ("quantity", *LOCATED) or template in KNOWN_BY_NAME:
        return []
    relation, options = question["relation"], question.get("options") or ()
    said = asked(question).lower()
    words = {relation.replace("_", " "), relation.removesuffix("_of").replace("_", " ")}  # "left_of": "to the left of"
    stated = any(re.search(rf"\b{re.escape(w)}\b", said) for w in words) and not any(relation in o for o in options)
    return [(template, relation if stated else "", place, name) for place, name in named(question)]


def unit_of(question: dict) -> str:
    """The unit a question is kept or dropped with: its pair, else itself."""
    return question.get("pair") or question["qid"]


Net = tuple[Key, tuple[tuple[str, int], ...], str | None, int]  # a key, its answers with their counts, the net answer, its excess


def nets(members: Iterable[dict], interned: dict[Key, Key] | None = None) -> tuple[Net, ...]:
    """Per text key of a unit's questions: how many of them give each answer, the answer given most (None where
    two tie) and by how many more than the next; `interned` shares one copy of each key across units."""
    counts: dict[Key, Counter] = defaultdict(Counter)
    for question in members:
        read = read_as(question)
        for key in text_keys(question):
            counts[key if interned is None else interned.setdefault(key, key)][read] += 1
    made = []
    for key, count in counts.items():
        ranked = count.most_common()
        excess = ranked[0][1] - (ranked[1][1] if len(ranked) > 1 else 0)
        made.append((key, tuple(ranked), ranked[0][0] if excess else None, excess))
    return tuple(made)


def weight(factors: dict[Key, dict[str, float]], unit: tuple[Net, ...]) -> float:
    """A unit's weight: the product of its keys' factors for its net answers."""
    made = 1.0
    for key, _, net, _ in unit:
        if net is not None:
            made *= factors.get(key, {}).get(net, 1.0)
    return made


@dataclass
class KeyBalance:
    """The units of a stream (each with its family: a scene with its views and partners) by their nets, and the
    answers each template's keys are evened over."""

    units: list[tuple[str, tuple[Net, ...]]]
    reads: dict[str, list[str]]  # per template, the answers its keys are evened over

    def factors(self) -> dict[Key, dict[str, float]]:
        """Each key's factor per net answer, after ROUNDS rounds over the keys (see the module docstring)."""
        members: dict[Key, list[tuple[int, Net]]] = defaultdict(list)
        for i, (_, unit) in enumerate(self.units):
            for net in unit:
                members[net[0]].append((i, net))
        weights = [1.0] * len(self.units)
        factors: dict[Key, dict[str, float]] = {}
        for _ in range(ROUNDS):
            for key in sorted(members):
                reads = self.reads.get(key[0], [])
                if len(reads) < 2:
                    continue
                sums: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(reads, 0.0))  # family -> answer -> weight
                for i, (_, counts, _, _) in members[key]:
                    for read, n in counts:
                        if read in reads:
                            sums[self.units[i][0]][read] += weights[i] * n
                totals = {read: sum(s[read] for s in sums.values()) for read in reads}
                rarest = min(reads, key=lambda read: (totals[read], read))
                for read in reads:
                    lean = totals[read] - totals[rarest]
                    spread = math.sqrt(sum((s[read] - s[rarest]) ** 2 for s in sums.values()))  # the families' own leanings
                    over = [(i, excess) for i, (_, _, net, excess) in members[key] if net == read]
                    paid = sum(weights[i] * excess for i, excess in over)
                    if lean <= SPREADS * spread or paid <= 0:
                        continue
                    f = max(0.0, 1 - (lean - SPREADS * spread) / paid)
                    factors.setdefault(key, {})[read] = factors.get(key, {}).get(read, 1.0) * f
                    for i, _ in over:
                        weights[i] *= f
        return factors
