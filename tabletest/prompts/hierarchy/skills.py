"""The questions of each skill, in SPHERE's levels, that the template table (`template_table`) does not hold:
counts, occlusion and support, whose pairing or withholding is their own.

Every yes/no and choice question comes with its pair (`pair`): the same relation asked the other
way round, whose gold is the other answer, or off the table plane a "no" that reads like the "yes"
(`negatives`: the same names, where the relation could hold and does not; occlusion pairs a hidden
object with the visible one nearest in size, and each count of a kind present has a trick count of a
kind absent). So each cell of the report (a level, a skill, a frame, an answer type) holds as many
`yes` as `no` golds and as many `left` as `right` (support as nearly as its scenes allow), and a
responder that always says one of them scores chance. Only objects whose name is
unique in the scene are named, and where a scene holds several of a kind, the leftmost and rightmost of
them in questions of position and support ("the leftmost apple") when the scene decides which they are;
the others are counted, never singled out. Each question is worded one of its template's phrasings
(`phrasings.PHRASINGS`).
"""

from __future__ import annotations

import itertools
import random

from tabletest.layout.instances import kind_of
from tabletest.truth.scene_facts import SceneGeometry, Thing
from tabletest.prompts.hierarchy.naming import AXIS, FACT, PHRASE, id_key, named, placed_by_side
from tabletest.prompts.hierarchy.negatives import alike, apart, could, matched, sharing, similar_size, stream, under_its_load
from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker
from tabletest.truth.relation_table import BY_KEY, STACKED


def counting(ask: Asker, g: SceneGeometry, pool: tuple[str, ...], seed: int) -> None:
    """How many objects, how many of each kind (one, or several where the scene holds several), and as many
    trick questions whose answer is zero, of kinds from `pool` (what the scenes were drawn from: a kind no scene
    could hold would give its zero away).

    A hidden object is on the table though the image hides it: a count it would change is not asked
    (the total, its kind), and a trick kind comes from outside everything on the table."""
    names = [t.name for t in g.things]
    if not g.hidden_names:
        ask.ask(
            "count-all",
            Wording("count-all"),
            skill="counting",
            level="single",
            frame=None,
            relation="all",
            answer_type="number",
            answer=len(names),
            objects=[],
            facts=[[t.label, "on", "table"] for t in g.things],
            rules=["count"],
        )
    on_table = g.kinds()
    hidden = {kind_of(h) for h in g.hidden_names}
    absent = [n for n in pool if n not in on_table]
    rng = random.Random(f"{seed}:{ask.scene_id}:count")
    present = [n for n in dict.fromkeys(names) if n not in hidden]
    tricks = rng.sample(absent, min(len(absent), len(present)))
    for kind, trick in zip(present, tricks):
        for name, relation in ((kind, "kind"), (trick, "absent")):
            ask.ask(
                id_key("count", relation, name),
                Wording("count-kind", {"xs": ask.nouns.plural(name)}),
                skill="counting",
                level="single",
                frame=None,
                relation=relation,
                answer_type="number",
                answer=names.count(name),
                objects=[name],
                facts=[[t.label, "on", "table"] for t in g.things if t.name == name],
                rules=["count"],
            )


def position_counting(ask: Asker, g: SceneGeometry) -> None:
    """How many objects stand to one side of an object, in either frame, and how many of a kind the scene holds
    several of; asked only when every object counted is decided and none is hidden (a hidden one may stand on
    that side too)."""
    if g.hidden_names:
        return
    several = [k for k, n in g.kinds().items() if n > 1]
    for x in named(g):
        others = [t for t in g.things if t is not x]
        if not others:
            continue
        for kind, relate in [("lr", g.viewer_lateral)] + ([("fb", g.viewer_depth)] if g.has_geometry else []):
            _count_sides(ask, x, others, [relate(t, x) for t in others], "viewer", kind, "count-position", "objects")
            for plural in several:
                same = [t for t in others if t.name == plural]
                _count_sides(ask, x, same, [relate(t, x) for t in same], "viewer", kind, "count-kind-position", plural)
        if x.has_front and g.has_geometry:
            sides = [g.intrinsic(x, t) for t in others]
            for kind, rels in (("lr", [s for s, _ in sides]), ("fb", [f for _, f in sides])):
                _count_sides(ask, x, others, rels, "intrinsic", kind, "count-own-position", "objects")


def _count_sides(
    ask: Asker, x: Thing, counted: list[Thing], rels: list[str | None], frame: str, kind: str, template: str, what: str
) -> None:
    """How many of `counted` stand on each side of x along one axis (`what`: `objects`, or the kind counted)."""
    if None in rels:
        return
    for word in AXIS[kind]:
        if frame == "viewer":
            phrase, relation = PHRASE[word], FACT[word]
        else:
            phrase, relation = {"left": "on the left of", "right": "on the right of"}.get(word, PHRASE[word]), f"own_{FACT[word]}"
        chosen = [t.label for t, r in zip(counted, rels) if r == word]
        words = {"x": x.name, "of": x.name, "rel": phrase, "ys": what if what == "objects" else ask.nouns.plural(what)}
        ask.ask(
            id_key("poscount", frame[0], word, x.name) if what == "objects" else id_key("poscount", frame[0], word, what, x.name),
            Wording(template, words),
            skill="position+counting",
            level="multi",
            frame=frame,
            relation=word,
            answer_type="number",
            answer=len(chosen),
            objects=[x.name] if what == "objects" else [what, x.name],
            facts=[[n, relation, x.name] for n in chosen],
            rules=["count"],
        )


def distance_counting(ask: Asker, g: SceneGeometry) -> None:
    """How many objects are nearer to (farther from) the viewer than an object; not asked while one is hidden."""
    if g.hidden_names:
        return
    for x in named(g):
        others = [t for t in g.things if t is not x]
        rels = [g.nearer_viewer(t, x) for t in others]
        if not others or None in rels:
            continue
        for word, phrase in (("nearer", "nearer to"), ("farther", "farther from")):
            chosen = [t.label for t, r in zip(others, rels) if r == word]
            ask.ask(
                id_key("distcount", word, x.name),
                Wording("count-distance", {"rel": phrase, "x": x.name}),
                skill="distance+counting",
                level="multi",
                frame="viewer",
                relation=word,
                answer_type="number",
                answer=len(chosen),
                objects=[x.name],
                facts=[[n, f"{word}_to_viewer_than", x.name] for n in chosen],
                rules=["count"],
            )


def occlusion(ask: Asker, g: SceneGeometry) -> None:
    """Is an object partly hidden (paired with one that is not, the nearest to it in size: small things are
    hidden more often, and the names would tell; not a carrier hidden only by its load, which its name
    tells), and by what."""
    things = named(g)
    hidden = [t for t in things if g.hidden(t) is True]
    clear = [t for t in things if g.hidden(t) is False]
    asked = [t for t in hidden if not under_its_load(g, t)]
    for h, c in zip(asked, matched(asked, clear, similar_size, stream(ask.scene_id, "occlusion"))):
        if c is None:
            continue
        for x in (h, c):
            ask.ask(
                id_key("occl", x.name),
                Wording("occlusion-yes/no", {"x": x.name}),
                skill="occlusion",
                level="reasoning",
                frame="viewer",
                relation="hidden",
                answer_type="yes/no",
                answer=x is h,
                objects=[x.name],
                facts=[
                    [x.name, "visible_fraction", str(x.visible_fraction if x.visible_fraction is not None else 1.0)]
                ],
                pair=id_key("occl", h.name, c.name),
            )
    for h in hidden:
        if occluders := g.occluders(h):
            ask.ask(
                id_key("occl", "by", h.name),
                Wording("occlusion-which", {"x": h.name}),
                skill="occlusion",
                level="reasoning",
                frame="viewer",
                relation="hidden_by",
                answer_type="names",
                answer=[o.name for o in occluders],
                objects=[h.name],
                facts=[[o.name, "hides_part_of", h.name] for o in occluders],
            )


# SPHERE's "on top of" and "below", VSR's and SpartQA's "inside" and "touching": the relation, the words
# asking it, and the words of its converse (asked of the same pair the other way round)
SUPPORT = {key: (BY_KEY[key].words[0], BY_KEY[BY_KEY[key].converse].words[0]) for key in STACKED}


def support(ask: Asker, g: SceneGeometry) -> None:
    """Objects off the table plane: is one on top of, inside or above another (each yes beside a no that reads
    like it: `negatives`), which of two objects is (or which of two is under, holding or below an object: the
    other option could be and is not), and are two touching (each touching pair beside a pair that is not and
    shares an object with it)."""
    things = placed_by_side(g)
    for key, (word, converse) in SUPPORT.items():
        held = [(a, b) for a, b in itertools.permutations(things, 2) if g.off_plane(key, a, b) and not (key == "above" and g.off_plane("on", a, b))]
        unheld = [(x, y) for x, y in itertools.permutations(things, 2) if could(key, x, y) and apart(g, x, y)]
        rng = stream(ask.scene_id, f"support-{key}")
        for (a, b), negative in zip(held, matched(held, unheld, alike, rng)):
            for x, y, gold in ((a, b, True), *([(*negative, False)] if negative else [])):
                ask.ask(
                    id_key("sup", key, "yn", x.name, y.name),
                    Wording("support-yes/no", {"x": x.name, "rel": word, "y": y.name}),
                    skill="support",
                    level="single",
                    frame=None,
                    relation=key,
                    answer_type="yes/no",
                    answer=gold,
                    objects=[x.name, y.name],
                    facts=[[x.name, key if gold else f"not_{key}", y.name]],
                    pair=id_key("sup", key, "yn", a.name, b.name),
                )
        plain = {t.name for t in named(g)}  # a choice's options name objects the scene holds once
        for a, b in held:
            subjects = [x for x, y in unheld if y is b and x is not a and x.name in plain]  # which is on the b: the a, or one that could be
            carriers = [y for x, y in unheld if x is a and y is not b and y.name in plain]  # which is under the a: the b, or one that could be
            for asked, of, gold, others, words in ((word, b, a, subjects, key), (converse, a, b, carriers, converse)):
                if not others or gold.name not in plain:
                    continue
                other = rng.choice(others)
                facts = [[a.name, key, b.name], [other.name, f"not_{key}", b.name] if of is b else [a.name, f"not_{key}", other.name]]
                for first, second in ((gold, other), (other, gold)):
                    ask.ask(
                        id_key("sup", key, "ch", asked, of.name, first.name, second.name),
                        Wording("support-choice", {"rel": asked, "z": of.name, "x": first.name, "y": second.name}),
                        skill="support",
                        level="single",
                        frame=None,
                        relation=words,
                        answer_type="choice",
                        options=[first.name, second.name],
                        answer=gold.name,
                        objects=[first.name, second.name, of.name],
                        facts=facts,
                        pair=id_key("sup", key, "ch", asked, of.name, gold.name, other.name),
                    )
    touching = [(a, b) for a, b in itertools.combinations(things, 2) if g.off_plane("touching", a, b)]
    apart_ = [(a, b) for a, b in itertools.permutations(things, 2) if g.off_plane("touching", a, b) is False]
    for (a, b), negative in sharing(touching, apart_, stream(ask.scene_id, "touching")):
        for x, y, gold in ((a, b, True), (*negative, False)):
            ask.ask(
                id_key("sup", "touch", x.name, y.name),
                Wording("touching-yes/no", {"x": x.name, "y": y.name}),
                skill="support",
                level="single",
                frame=None,
                relation="touching",
                answer_type="yes/no",
                answer=gold,
                objects=[x.name, y.name],
                facts=[[x.name, "touching" if gold else "not_touching", y.name]],
                pair=id_key("sup", "touch", a.name, b.name),
            )
