"""The single-image question templates that ask a relation of named objects, as rows of one table (as CLEVR's
templates are JSON rows): a template of a kind the table holds is one row here, read by one asker
(`template_asker`), its phrasings with it (`phrasings.PHRASINGS` takes them from here).

What a row ranges over: `pairs` of named objects, `pairs_by_side` (with the leftmost and rightmost of a kind),
`fronted` ordered pairs (the first with a clear front), `triples` in every order, and `around` (an object and
two others). Its `decide` reads `truth.scene_facts` and returns what holds (`template_shapes.Holds`) or None,
where the scene leaves it open; its `pairing` says how that is asked beside its pair (`template_shapes`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

from tabletest.layout.instances import kind_of
from tabletest.prompts.hierarchy.naming import (
    AXIS,
    FACT,
    OWN,
    OWN_WHERE,
    PHRASE,
    named,
    placed_by_side,
    viewer_phrasings,
)
from tabletest.prompts.hierarchy.template_shapes import (
    Holds,
    Item,
    Template,
    both_ways,
    converse_too,
    either_order,
    either_word,
    which,
    which_of_two,
)  # fmt: skip
from tabletest.truth.relations import bigger_reads_both_ways
from tabletest.truth.scene_facts import SceneGeometry, Thing

Decide = Callable[..., Holds | None]


def pairs(g: SceneGeometry) -> Iterator[Item]:
    return itertools.combinations(named(g), 2)


def pairs_by_side(g: SceneGeometry) -> Iterator[Item]:
    return itertools.combinations(placed_by_side(g), 2)


def fronted(g: SceneGeometry) -> Iterator[Item]:
    things = named(g)
    return ((x, y) for x in things if x.has_front for y in things if y is not x)


def triples(g: SceneGeometry) -> Iterator[Item]:
    return itertools.permutations(named(g), 3)


def around(g: SceneGeometry) -> Iterator[Item]:
    things = named(g)
    return ((to, a, b) for to in things for a, b in itertools.combinations([t for t in things if t is not to], 2))


def _lateral(g: SceneGeometry, a: Thing, b: Thing) -> Holds | None:
    """Left or right as the viewer sees it; not of the leftmost and rightmost of one kind (which says it)."""
    rel = g.viewer_lateral(a, b)
    same = kind_of(a.label) == kind_of(b.label) and a.colour is None
    return None if rel is None or same else Holds((a, b), rel)


def _depth(g: SceneGeometry, a: Thing, b: Thing) -> Holds | None:
    return None if (rel := g.viewer_depth(a, b)) is None else Holds((a, b), rel)


def _own(axis: int) -> Decide:
    """Where the y stands from the x's own front: its side (`axis` 0) or ahead and behind (1)."""
    return lambda g, x, y: None if (rel := g.intrinsic(x, y)[axis]) is None else Holds((x, y), rel)


def _between(g: SceneGeometry, a: Thing, m: Thing, b: Thing) -> Holds | None:
    """The m between the a (left of it) and the b, and the a not between the m and the b."""
    if g.viewer_lateral(a, b) != "left" or not g.between(m, a, b) or g.between(a, m, b) is not False:
        return None
    return Holds((m, a, b))


def _only_between(g: SceneGeometry, a: Thing, m: Thing, b: Thing) -> Holds | None:
    """`_between`, the m the only object between: every other object, hidden ones too, decided not between (one
    that may be leaves the answer open: a sliver of it shows, or its name cannot be said)."""
    if (held := _between(g, a, m, b)) is None:
        return None
    verdicts = {t.label: g.between(t, a, b) for t in (*g.things, *g.hidden_things) if t is not a and t is not b}
    return held if None not in verdicts.values() and [n for n, v in verdicts.items() if v] == [m.label] else None


def _nearer_viewer(g: SceneGeometry, a: Thing, b: Thing) -> Holds | None:
    rel = g.nearer_viewer(a, b)
    return None if rel is None else Holds((a, b) if rel == "nearer" else (b, a))


def _nearer_object(g: SceneGeometry, to: Thing, a: Thing, b: Thing) -> Holds | None:
    rel = g.nearer_object(a, b, to)
    return None if rel is None else Holds(((a, b) if rel == "nearer" else (b, a)) + (to,))


def _measured(measure: str) -> Decide:
    """Really bigger (taller) than the other, not where the size rule reads both ways, and only where the image
    decides how they look: a pair whose really smaller object looks bigger (it is nearer) is distance+size."""

    def decide(g: SceneGeometry, a: Thing, b: Thing) -> Holds | None:
        rel = g.bigger(a, b) if measure == "bigger" else g.taller(a, b)
        if rel is None:
            return None
        big, small = (a, b) if rel == measure else (b, a)
        if measure == "bigger" and bigger_reads_both_ways(big.size, small.size):
            return None
        if (seen := g.looks(big, small, measure)) is None:
            return None
        return Holds((big, small), skill="distance+size", rules=("size constancy",)) if seen == "reversed" else Holds((big, small))

    return decide


def _said(h: Holds, relation: str) -> list[list[str]]:
    """The fact that the first thing stands in `relation` to the second."""
    return [[h.things[0].name, relation, h.things[1].name]]


POSITION = viewer_phrasings("is the {x} {rel} the {y}?")
SIZE = (
    "Which is {rel} in real life, the {x} or the {y}?",
    "In reality, which is {rel}, the {x} or the {y}?",
    "Which object is {rel} in real life: the {x} or the {y}?",
    "Of the {x} and the {y}, which is {rel} in real life?",
    "However they look in the picture, which is {rel} in reality, the {x} or the {y}?",
)


def _position(axis: str, decide: Decide) -> tuple[Template, ...]:
    """The viewer's left and right (`axis` lr) or front and behind (fb) of every decided pair: yes/no both ways,
    and a choice."""
    say = {w: PHRASE[w] for w in AXIS[axis]}
    asked = (("position-yes/no", "yes/no", converse_too, "yn"), ("position-choice", "choice", either_order, "ch"))
    return tuple(
        Template(name, POSITION, f"position-{axis}", "position", "single", "viewer", answer_type, pairs_by_side, decide, pairing,
                 ("pos", axis, code), lambda h: _said(h, FACT[h.word]), say=say)
        for name, answer_type, pairing, code in asked
    )  # fmt: skip


def _own_position(axis: str, index: int) -> Template:
    """Where another object stands from an object's own front (only objects with a clear front)."""
    return Template(
        "own-position-yes/no", tuple(f"{own}, is the {{y}} {{rel}}?" for own in OWN), "own-position", "position", "single",
        "intrinsic", "yes/no", fronted, _own(index), either_word, ("own", axis),
        lambda h: [[h.things[1].name, f"own_{FACT[h.word]}", h.things[0].name]], say={w: OWN_WHERE[w] for w in AXIS[axis]},
    )  # fmt: skip


def _size(measure: str, words: tuple[str, str]) -> Template:
    """Which of two is really bigger (smaller), taller (shorter)."""
    return Template("size-choice", SIZE, "size", "size", "single", None, "choice", pairs, _measured(measure), which_of_two, ("size",),
                    lambda h: _said(h, f"{measure}_than"), say=dict(zip(words, words)), pair_stem=("size", measure))  # fmt: skip


def _in_a_row(h: Holds) -> list[list[str]]:
    """The a left of the m, the m left of the b (the m between them)."""
    m, a, b = (t.name for t in h.things)
    return [[a, "left_of", m], [m, "left_of", b]]


TEMPLATES: tuple[Template, ...] = (
    *_position("lr", _lateral),
    *_position("fb", _depth),
    _own_position("lr", 0),
    _own_position("fb", 1),
    Template("between-yes/no", viewer_phrasings("is the {x} between the {y} and the {z}?"), "between", "position", "single", "viewer",
             "yes/no", triples, _between, both_ways, ("between",), _in_a_row, relation="between", rules=("combination",)),
    Template("between-which", viewer_phrasings("which object is between the {x} and the {y}?"), "between", "position", "single",
             "viewer", "names", triples, _only_between, which, ("between", "which"), _in_a_row, relation="between", rules=("combination",)),
    Template(
        "distance-choice",
        (
            "Which is {rel} the viewer, the {x} or the {y}?",
            "Which is {rel} the person viewing the scene, the {x} or the {y}?",
            "Of the {x} and the {y}, which is {rel} the viewer?",
            "Which object is {rel} the viewer: the {x} or the {y}?",
            "Between the {x} and the {y}, which one is {rel} the viewer's position?",
        ),
        "distance", "distance", "single", "viewer", "choice", pairs, _nearer_viewer, which_of_two, ("dist", "ch"),
        lambda h: _said(h, "nearer_to_viewer_than"), say={"nearer": "nearer to", "farther": "farther from"},
    ),
    Template(
        "distance-yes/no",
        (
            "Is the {x} nearer to the viewer than the {y}?",
            "Is the {x} closer to the viewer than the {y}?",
            "Is the {x} nearer to the viewer's position than the {y}?",
            "Compared with the {y}, is the {x} nearer to the viewer?",
            "Is the {x} at a shorter distance from the viewer than the {y}?",
        ),
        "distance", "distance", "single", "viewer", "yes/no", pairs, _nearer_viewer, both_ways, ("dist", "yn"),
        lambda h: _said(h, "nearer_to_viewer_than"), relation="nearer",
    ),
    Template(
        "distance-object-choice",
        (
            "Which is {rel} the {z}, the {x} or the {y}?",
            "Of the {x} and the {y}, which is {rel} the {z}?",
            "Which object is {rel} the {z}: the {x} or the {y}?",
            "Between the {x} and the {y}, which one is {rel} the {z}?",
            "Which stands {rel} the {z}, the {x} or the {y}?",
        ),
        "distance", "distance", "single", None, "choice", around, _nearer_object, which_of_two, ("dist", "obj"),
        lambda h: _said(h, f"nearer_to_{h.things[2].name}_than"), say={"nearer": "nearer to", "farther": "farther from"},
    ),
    _size("bigger", ("bigger", "smaller")),
    _size("taller", ("taller", "shorter")),
)  # fmt: skip
