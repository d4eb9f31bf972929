"""What a row of the template table is (`template_table`), and the few ways a row asks what its decision found:
each question beside its pair, the same relation asked the other way round, so every template's golds balance.

A row's `decide` reads the scene's facts (`truth.scene_facts`) of one item of what it ranges over and returns
what holds (`Holds`), or None to withhold; its `pairing` turns that into the questions it asks (`Asked`), which
`template_asker` records with the row's skill, level, frame and answer type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from tabletest.prompts.hierarchy.naming import WORD
from tabletest.truth.scene_facts import SceneGeometry, Thing

Item = tuple[Thing, ...]


@dataclass(frozen=True)
class Holds:
    """What a row's decision found of an item: its things in the order the relation holds of them (the nearer
    first, or the one between first), the word that holds where the row asks either of two (`left`), and where
    reading it takes a second skill too (a really smaller object that looks bigger), that skill, asked a level up
    (`multi`), and the rules it adds."""

    things: Item
    word: str = ""
    skill: str | None = None
    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class Asked:
    """One question a pairing makes of an item: its id's parts, the words that fill its phrasing, its relation
    word, gold, objects, options, rules beyond the row's, and its pair's id parts."""

    key: tuple[str, ...]
    words: dict[str, str]
    relation: str
    answer: bool | str | list[str]
    objects: list[str]
    options: list[str] | None = None
    rules: tuple[str, ...] = ()
    pair: tuple[str, ...] | None = None


Pairing = Callable[["Template", Holds, Item], Iterable[Asked]]


@dataclass(frozen=True)
class Template:
    """One question template: its name and phrasings (the first the plainest), the kind `generate` asks it
    with (the rows of a kind are asked together, item by item), its report cell (skill, level, frame, answer
    type), what it ranges over, how it decides and asks each item (`pairing`), its ids' first parts (`stem`, its
    pairs' `pair_stem` where they differ), how its facts are written, and how it says each relation word (`say`:
    the first word the one its things hold in, where its pairing reads that)."""

    name: str
    phrasings: tuple[str, ...]
    kind: str
    skill: str
    level: str
    frame: str | None
    answer_type: str
    over: Callable[[SceneGeometry], Iterable[Item]]
    decide: Callable[..., Holds | None]
    pairing: Pairing
    stem: tuple[str, ...]
    facts: Callable[[Holds], list[list[str]]]
    relation: str = ""
    say: Mapping[str, str] = field(default_factory=dict)
    rules: tuple[str, ...] = ()
    pair_stem: tuple[str, ...] | None = None


def _names(things: Iterable[Thing]) -> tuple[str, ...]:
    return tuple(t.name for t in things)


def _other(row: Template, word: str) -> str:
    return next(w for w in row.say if w != word)


def both_ways(row: Template, held: Holds, item: Item) -> Iterator[Asked]:
    """Yes/no: the statement that holds ("is the x nearer than the y?"), then with its first two things swapped
    (no)."""
    true = _names(held.things)
    for asked, gold in ((true, True), ((true[1], true[0], *true[2:]), False)):
        yield Asked((*row.stem, *asked), dict(zip("xyz", asked)), row.relation, gold, list(asked),
                    rules=() if gold else ("exclusion",), pair=(*row.stem, *_names(item)))  # fmt: skip


def converse_too(row: Template, held: Holds, item: Item) -> Iterator[Asked]:
    """Yes/no of two things: the word that holds, asked both ways round, then its converse, both ways round."""
    a, b = _names(item)
    rel = held.word
    for word in (rel, _other(row, rel)):
        first = (a, b) if word == rel else (b, a)
        for x, y in (first, first[::-1]):
            truth = (x, y) == first
            rules = () if word == rel and truth else ("inverse",) if truth else ("exclusion",)
            words = {"x": x, "rel": row.say[word], "y": y}
            yield Asked((*row.stem, word, x, y), words, word, truth, [x, y], rules=rules, pair=(*row.stem, word, a, b))


def either_word(row: Template, held: Holds, item: Item) -> Iterator[Asked]:
    """Yes/no of where the y stands from the x's own front (`of`): the word that holds, then the other (no)."""
    x, y = _names(item)
    for word in (held.word, _other(row, held.word)):
        yield Asked((*row.stem, word, x, y), {"of": x, "y": y, "rel": row.say[word]}, word, word == held.word, [x, y],
                    rules=() if word == held.word else ("exclusion",), pair=(*row.stem, x, y))  # fmt: skip


def either_order(row: Template, held: Holds, item: Item) -> Iterator[Asked]:
    """A choice of the two words ("left or right of"), asked of the two things both ways round."""
    a, b = _names(item)
    rel = held.word
    options = [WORD[w] for w in row.say]
    for x, y, gold in ((a, b, rel), (b, a, _other(row, rel))):
        yield Asked((*row.stem, x, y), {"x": x, "rel": " or ".join(row.say.values()), "y": y}, gold, WORD[gold], [x, y],
                    options, () if gold == rel else ("inverse",), (*row.stem, a, b))  # fmt: skip


def which_of_two(row: Template, held: Holds, item: Item) -> Iterator[Asked]:
    """A choice of the item's last two things (`x`, `y`; of the first, `z`, where it has three), asked in each of
    the two words: each answered by the thing it holds of."""
    *around, a, b = _names(item)
    for (word, phrase), gold in zip(row.say.items(), held.things):
        yield Asked((*row.stem, word, *_names(item)), {"rel": phrase, "x": a, "y": b, **dict(zip("z", around))}, word, gold.name,
                    [a, b, *around], [a, b], pair=(*(row.pair_stem or row.stem), *_names(item)))  # fmt: skip


def which(row: Template, held: Holds, item: Item) -> Iterator[Asked]:
    """Which object the relation holds of, with the others it is said of (`x`, `y`): answered with its name."""
    gold, *of = _names(held.things)
    yield Asked((*row.stem, *of), dict(zip("xy", of)), row.relation, [gold], of)
