"""VSR-style captions to judge true or false ("The mug is behind the lamp."), balanced: each true caption
comes with a false one, the same words about other objects or the other way round. Every relation of the
relation table (`truth.relation_table`) is captioned, each caption in one of its relation's words (VSR's
own names among them), drawn by the seed and the pair, so a true caption and its false one say the same.

VSR's categories covered: projective (left of, right of, in front of, behind; the viewer's frame,
VSR's "relative"), orientation (facing, facing away from, facing the same or the opposite way; the object's
own front, "intrinsic"), and for scenes with objects off the table plane topological (on, in, touching) and
proximity (next to): each false from a pair of the same scene that reads like the true one (`negatives`: "the
egg is in the mug" beside "the egg is in the bowl", never "the bowl is in the egg"; "the kettle is facing the
mug" beside "the kettle is facing the lamp").
A projective caption names no frame, so one whose viewer's "no" the relatum's own front could make
"yes" is not asked.
"""

from __future__ import annotations

import itertools

from tabletest.truth.scene_facts import SceneGeometry, Thing
from tabletest.prompts.hierarchy.negatives import alike, apart, could, matched, sharing, similar_size, stream
from tabletest.prompts.hierarchy.phrasings import CAPTION_SKILL, Wording, drawn
from tabletest.prompts.hierarchy.record import Asker
from tabletest.prompts.hierarchy.naming import FACT, OTHER, named
from tabletest.truth.relation_table import BY_KEY, RELATIONS, RESTING, Relation


def _may_hold_in_its_own_frame(g: SceneGeometry, relatum: Thing, subject: Thing, word: str) -> bool:
    """Whether "the <subject> is <word> the <relatum>" may be true from the relatum's own front. A caption
    names no frame, and VSR counts one true if it holds in either frame ("the globe is in front of the
    radio" with the radio facing the globe), so such a caption cannot be asked with the viewer's "no"."""
    if not relatum.has_front:
        return False
    side, ahead = g.intrinsic(relatum, subject)
    found = side if word in ("left", "right") else ahead
    return found is None or found == word


def captions(ask: Asker, g: SceneGeometry) -> None:
    things = named(g)
    _off_plane(ask, g, things)
    for a, b in itertools.combinations(things, 2):
        for relate in (g.viewer_lateral, g.viewer_depth):
            rel = relate(a, b)
            if rel is None:
                continue
            for word in (rel, OTHER[rel]):
                first, second = (a, b) if word == rel else (b, a)
                if _may_hold_in_its_own_frame(g, first, second, word):
                    continue  # its false caption would be true from the relatum's own front
                words = _words(ask, FACT[word], f"cap-{word}-{a.name}-{b.name}")
                for x, y in ((first, second), (second, first)):
                    caption = f"The {x.name} is {words} the {y.name}."
                    ask.ask(
                        f"cap-{word}-{x.name}-{y.name}",
                        Wording("caption-position", {"caption": caption}),
                        skill="position",
                        level="single",
                        frame="viewer",
                        relation=word,
                        answer_type="yes/no",
                        answer=(x, y) == (first, second),
                        objects=[x.name, y.name],
                        facts=[[a.name, FACT[rel], b.name]],
                        form="caption",
                        pair=f"cap-{word}-{a.name}-{b.name}",
                    )


SYMMETRIC = {"touching": "support", "next_to": "distance"}
OWN_CAPTIONS = {"left_of", "right_of", "in_front_of", "behind", *RESTING, *SYMMETRIC}
ALONE_AXES = ("vertical", "containment", "contact")  # off the table plane: a "yes" with no "no" in its scene is asked alone


def _words(ask: Asker, key: str, pair: str) -> str:
    """One of the relation's words, drawn by the seed and the pair: a true caption and its false one say the same."""
    words = BY_KEY[key].words
    return words[drawn(ask.seed, f"{pair}:words", len(words))]


def _off_plane(ask: Asker, g: SceneGeometry, things: list[Thing]) -> None:
    """On and in: each true caption beside a false one that reads like it (`negatives`); touching and next to:
    each beside a pair of the scene that is not and shares an object with it."""
    for key in RESTING:
        held = [(a, b) for a, b in itertools.permutations(things, 2) if g.off_plane(key, a, b)]
        unheld = [(x, y) for x, y in itertools.permutations(things, 2) if could(key, x, y) and apart(g, x, y)]
        for (a, b), negative in zip(held, matched(held, unheld, alike, stream(ask.scene_id, f"caption-{key}"))):
            pair = f"cap-{key}-{a.name}-{b.name}"
            for x, y, gold in ((a, b, True), *([(*negative, False)] if negative else [])):
                _contact_caption(ask, key, _words(ask, key, pair), "support", x, y, gold, pair)
    for key, skill in SYMMETRIC.items():
        held = [p for p in itertools.combinations(things, 2) if g.off_plane(key, *p)]
        unheld = [p for p in itertools.permutations(things, 2) if g.off_plane(key, *p) is False]
        for (a, b), negative in sharing(held, unheld, stream(ask.scene_id, f"caption-{key}")):
            pair = f"cap-{key}-{a.name}-{b.name}"
            for x, y, gold in ((a, b, True), (*negative, False)):
                _contact_caption(ask, key, _words(ask, key, pair), skill, x, y, gold, pair)


def table_captions(ask: Asker, g: SceneGeometry) -> None:
    """Captions of every other relation of the table: each pair (or object, for a relation to the table) the
    relation holds of beside one it does not, alike where the relation allows (the same object first)."""
    things = named(g)
    for relation in (r for r in RELATIONS if r.key not in OWN_CAPTIONS):
        rng = stream(ask.scene_id, f"caption-{relation.key}")
        if relation.table:
            held = [t for t in things if relation.decide(g, t, None)]
            unheld = [t for t in things if relation.decide(g, t, None) is False]
            asked = [((a,), (n,) if n else None) for a, n in zip(held, matched(held, unheld, similar_size, rng))]
        elif relation.symmetric:
            held = [p for p in itertools.combinations(things, 2) if relation.decide(g, *p)]
            unheld = [p for p in itertools.permutations(things, 2) if relation.decide(g, *p) is False]
            asked = sharing(held, unheld, rng)
        else:
            held = [p for p in itertools.permutations(things, 2) if relation.decide(g, *p)]
            unheld = [p for p in itertools.permutations(things, 2) if relation.decide(g, *p) is False]
            asked = list(zip(held, matched(held, unheld, alike, rng)))
        for positive, negative in asked:
            _relation_captions(ask, relation, positive, negative)


def _relation_captions(ask: Asker, relation: Relation, positive: tuple[Thing, ...], negative: tuple[Thing, ...] | None) -> None:
    """A true caption of `relation` and the false caption beside it, in the same words; a true one off the table
    plane with no false one in its scene is asked alone (as on and in are), any other is not asked."""
    if negative is None and relation.axis not in ALONE_AXES:
        return
    pair = "-".join(["cap", relation.key, *(t.name for t in positive)])
    words = _words(ask, relation.key, pair)
    for things, gold in ((positive, True), *([(negative, False)] if negative else [])):
        names = [t.name for t in things]
        said = f"The {names[0]} is {words} the {names[1] if len(names) > 1 else 'table'}."
        ask.ask(
            "-".join(["cap", relation.key, *names]),
            Wording(f"caption-{CAPTION_SKILL[relation.axis]}", {"caption": said}),
            skill=CAPTION_SKILL[relation.axis],
            level="single",
            frame=relation.frame,
            relation=relation.key,
            answer_type="yes/no",
            answer=gold,
            objects=names,
            facts=[[names[0], relation.key if gold else f"not_{relation.key}", names[1] if len(names) > 1 else "table"]],
            form="caption",
            pair=pair,
        )


def _contact_caption(ask: Asker, key: str, word: str, skill: str, x: Thing, y: Thing, gold: bool, pair: str) -> None:
    """"The X is <word> the Y." of a relation off the table plane, true or (a pair that reads alike) false."""
    ask.ask(
        f"cap-{key}-{x.name}-{y.name}",
        Wording(f"caption-{skill}", {"caption": f"The {x.name} is {word} the {y.name}."}),
        skill=skill,
        level="single",
        frame=None,
        relation=key,
        answer_type="yes/no",
        answer=gold,
        objects=[x.name, y.name],
        facts=[[x.name, key if gold else f"not_{key}", y.name]],
        form="caption",
        pair=pair,
    )
