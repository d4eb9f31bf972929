"""Multi-hop text stories in the manner of SpartQA: a few of a scene's true relations stated, questions whose
answers follow only by inverse, transitivity or their combination, with the number of hops recorded.
SpartQA's question types: yes/no, find relation (a choice of two relations) and choose object.

The story states the relation of each pair of neighbours (left to right, and front to back where
the scene has depth), each in a seeded direction (`the mug is to the left of the lamp` or `the lamp
is to the right of the mug`), in a seeded order; in a scene with objects off the table plane also
what is in what (`the egg is inside the bowl` or `the bowl contains the egg`) and what rests on and
above what (`the bowl is above the book`), so "is the egg above the book?" takes containment. Questions ask only what the engine in `infer`
derives and the story does not give away: neither a stated sentence nor its converse, so each takes at
least one step of transitivity or combination. The gold is the engine's, and the tests check it
against the scene's geometry.
"""

from __future__ import annotations

import itertools
import random

from tabletest.layout.instances import SEPARATOR
from tabletest.truth.scene_facts import SceneGeometry
from tabletest.prompts.hierarchy.infer import CONVERSE, Fact, closure, derivation, holds
from tabletest.prompts.hierarchy.phrasings import about_story
from tabletest.prompts.hierarchy.record import Asker, Phrasings
from tabletest.prompts.hierarchy.naming import CHOICE, FACT, PHRASE, VIEWER, named
from tabletest.prompts.hierarchy.naming import WORD as CHOICE_WORD
from tabletest.truth.nouns import Nouns
from tabletest.truth.vignettes import neighbour_facts

SENTENCE = {FACT[w]: PHRASE[w] for w in PHRASE} | {"above": "above", "below": "below", "inside": "inside"}
WORD = {FACT[w]: CHOICE_WORD[w] for w in PHRASE} | {"above": "above", "below": "below", "inside": "inside", "contains": "contains"}
OPTIONS = {FACT[w]: CHOICE[w] for w in PHRASE} | {"above": ["above", "below"], "below": ["above", "below"]}
VERTICAL = ("above", "below", "inside", "contains")  # asked without a frame: they hold from any viewpoint
INTRO = "Some objects stand on a table. As the viewer sees them:"


def stated_facts(g: SceneGeometry, rng: random.Random) -> list[Fact]:
    """Each pair of neighbours along the viewer's left-right axis (and front-back axis), in a random direction."""
    things = named(g)
    chains = [(sorted(things, key=g.lateral_key), g.viewer_lateral, "left_of")]
    if g.has_geometry:
        chains.append((sorted(things, key=g.depth_key), g.viewer_depth, "in_front_of"))
    facts = []
    for ordered, relate, relation in chains:
        for a, b in itertools.pairwise(ordered):
            if relate(a, b) in ("left", "front"):
                facts.append((a.name, relation, b.name) if rng.random() < 0.5 else (b.name, CONVERSE[relation], a.name))
    for a, b in itertools.permutations(things, 2):
        if g.off_plane("inside", a, b):
            facts.append((a.name, "inside", b.name) if rng.random() < 0.5 else (b.name, "contains", a.name))
        elif g.off_plane("on", a, b) and g.off_plane("above", a, b):
            facts.append((a.name, "above", b.name) if rng.random() < 0.5 else (b.name, "below", a.name))
    rng.shuffle(facts)
    return facts


def sentence(x: str, relation: str, y: str) -> str:
    return f"The {x} contains the {y}." if relation == "contains" else f"The {x} is {SENTENCE[relation]} the {y}."


def question(x: str, relation: str, y: str) -> str:
    if relation == "contains":
        return f"Does the {x} contain the {y}?"
    return _framed(relation, f"is the {x} {SENTENCE[relation]} the {y}?")


def _framed(relation: str, asked: str) -> str:
    """A question about left/right or front/behind names the viewer's frame; one about above or inside needs none."""
    return asked[0].upper() + asked[1:] if relation in VERTICAL else f"{VIEWER}, {asked}"


def story(
    scene_id: str, g: SceneGeometry, scene_objects: list[str], seed: int, nouns: Nouns = Nouns(), phrasings: Phrasings = "one"
) -> list[dict]:
    """A story told of the scene's geometry, and its questions."""
    rng = random.Random(f"{seed}:{scene_id}:story")
    stated = stated_facts(g, rng)
    context = nouns.agree(" ".join([INTRO, *(sentence(x, r, y) for x, r, y in stated)]))
    return told(scene_id, stated, context, scene_objects, nouns, seed, phrasings)


def vignette_story(record: dict, nouns: Nouns = Nouns(), seed: int = 0, phrasings: Phrasings = "one") -> list[dict]:
    """The questions a random scene's vignette (its text record) answers: what its sentences entail. Its
    order of mention is no fact (a pair it calls "next to" may stand either way), so nothing else is asked, and
    nothing of an object whose kind the scene holds several of."""
    labels = tuple(record.get("instances") or record["objects"])
    facts = neighbour_facts(labels, record["relations"])
    stated = [(a, r, b) for a, r, b in facts if r is not None and SEPARATOR not in a + b]  # one of several apples: not named
    return told(record["id"], stated, record["vignettes"]["left_first"], list(dict.fromkeys(record["objects"])), nouns, seed, phrasings)


def told(
    scene_id: str, stated: list[Fact], context: str, scene_objects: list[str], nouns: Nouns, seed: int = 0, phrasings: Phrasings = "one"
) -> list[dict]:
    """The questions whose answers follow from `stated` (told in `context`) by at least one inference."""
    if not stated:
        return []
    ask = Asker(scene_id, "text", scene_objects, context=context, nouns=nouns, seed=seed, phrasings=phrasings)
    known = closure(stated)
    said = set(stated)
    common = {"skill": "multi-hop", "level": "reasoning", "frame": "viewer", "form": "story"}
    common["stated"] = [list(f) for f in stated]
    derived = sorted(f for f in known if not _given(f, said))
    for fact in derived:
        x, r, y = fact
        facts, rules = derivation(known, fact)
        hops = known[fact].hops
        for relation, truth in ((r, True), (CONVERSE[r], False)):
            ask.ask(
                f"story-yn-{x}-{relation}-{y}",
                about_story("story-yes/no", question(x, relation, y)),
                relation=WORD[relation],
                answer_type="yes/no",
                answer=truth,
                objects=[x, y],
                facts=facts,
                rules=rules if truth else [*rules, "exclusion"],
                hops=hops,
                pair=f"story-yn-{x}-{r}-{y}",
                **{**common, "frame": None if r in VERTICAL else "viewer"},
            )
        inverse = (y, CONVERSE[r], x)
        if r in OPTIONS and inverse not in said and known[inverse].hops == hops and x < y:
            for a, rel, b in (fact, inverse):
                f, ru = derivation(known, (a, rel, b))
                ask.ask(
                    f"story-ch-{r[:4]}-{a}-{b}",
                    about_story("story-choice", _framed(rel, f"is the {a} {' or '.join(SENTENCE[o] for o in _pair(rel))} the {b}?")),
                    relation=WORD[rel],
                    answer_type="choice",
                    options=OPTIONS[rel],
                    answer=WORD[rel],
                    objects=[a, b],
                    facts=f,
                    rules=ru,
                    hops=hops,
                    pair=f"story-ch-{r[:4]}-{x}-{y}",
                    **{**common, "frame": None if rel in VERTICAL else "viewer"},
                )
    _combinations(ask, known, said, common)
    _choose_object(ask, known, said, common)
    return ask.made


def _given(fact: Fact, said: set) -> bool:
    """Stated, or the converse of a stated sentence ("the lamp is to the right of the mug" gives away "is the
    mug to the left of the lamp?"): a question about it takes no inference, so none is asked (as in SpartQA)."""
    x, r, y = fact
    return fact in said or (y, CONVERSE[r], x) in said


def _pair(relation: str) -> tuple[str, str]:
    if relation in ("above", "below"):
        return ("above", "below")
    return ("left_of", "right_of") if relation in ("left_of", "right_of") else ("in_front_of", "behind")


def _combinations(ask: Asker, known: dict, said: set, common: dict) -> None:
    """`Is the x both to the left of and in front of the y?`: two derived relations combined (hops: both + 1)."""
    lateral = {(f[0], f[2]): f for f in known if f[1] in ("left_of", "right_of")}
    depth = {(f[0], f[2]): f for f in known if f[1] in ("in_front_of", "behind")}
    for (x, y), side in sorted(lateral.items()):
        ahead = depth.get((x, y))
        if ahead is None or x > y or (_given(side, said) and _given(ahead, said)):
            continue
        hops = known[side].hops + known[ahead].hops + 1
        side_facts, side_rules = derivation(known, side)
        ahead_facts, ahead_rules = derivation(known, ahead)
        facts = side_facts + ahead_facts
        rules = [*side_rules, *ahead_rules, "combination"]
        for depth_relation, truth in ((ahead[1], True), (CONVERSE[ahead[1]], False)):
            ask.ask(
                f"story-both-{x}-{depth_relation}-{y}",
                about_story("story-both", f"{VIEWER}, is the {x} both {SENTENCE[side[1]]} and {SENTENCE[depth_relation]} the {y}?"),
                relation=f"{WORD[side[1]]}+{WORD[depth_relation]}",
                answer_type="yes/no",
                answer=truth,
                objects=[x, y],
                facts=facts,
                rules=rules if truth else [*rules, "exclusion"],
                hops=hops,
                pair=f"story-both-{x}-{y}",
                **common,
            )


def _choose_object(ask: Asker, known: dict, said: set, common: dict) -> None:
    """SpartQA's "choose object": which of two objects stands in a relation to a third (hops: both derivations)."""
    names = sorted({f[0] for f in known})
    for z, relation in itertools.product(names, ("left_of", "in_front_of")):
        for x, y in itertools.combinations([n for n in names if n != z], 2):
            fx, fy = holds(known, (x, relation, z)), holds(known, (y, relation, z))
            if fx is None or fy is None or fx == fy:
                continue
            yes, no = (x, y) if fx else (y, x)
            used = [(yes, relation, z), (no, CONVERSE[relation], z)]
            if all(_given(f, said) for f in used):
                continue
            facts = [f for u in used for f in derivation(known, u)[0]]
            rules = [r for u in used for r in derivation(known, u)[1]]
            for asked, gold in ((relation, yes), (CONVERSE[relation], no)):
                ask.ask(
                    f"story-co-{asked}-{z}-{x}-{y}",
                    about_story("story-which", f"{VIEWER}, which is {SENTENCE[asked]} the {z}, the {x} or the {y}?"),
                    relation=WORD[asked],
                    answer_type="choice",
                    options=[x, y],
                    answer=gold,
                    objects=[x, y, z],
                    facts=facts,
                    rules=rules,
                    hops=sum(known[u].hops for u in used),
                    pair=f"story-co-{relation}-{z}-{x}-{y}",
                    **common,
                )
