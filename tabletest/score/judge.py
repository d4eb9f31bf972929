"""Judging one answer against its query's gold, the way a reader would.

Every judged answer also says which world it is consistent with: the scene as it is (`true`),
the scene with objects A and B swapped (`mirror`: the answer is coherent, only mirrored), or
neither (None: an irrelevant relation, a misnamed object). An answer is correct exactly when its
world is `true`; the consistency measure compares worlds across a scene's equivalent queries.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tabletest.config import excerpt
from tabletest.prompts.templates import OPTION_HOLDS, OPTION_ROLES
from tabletest.score.lexicon import Lexicon
from tabletest.score.parse import FLIP, NOT_HOLDING, Reading, answer_part

SLOT_POSITION = {"left": 0, "middle": 1, "right": 2}


@dataclass(frozen=True)
class Outcome:
    status: str  # correct | wrong | unparsed
    world: str | None  # true | mirror | None (see the module docstring)
    parsed: str  # what the answer was read as saying, for auditing
    choices: tuple[tuple[str, str], ...] = ()  # prompts 2 and 3: each chosen option's relation and order (AB/BA)
    # prompts 6 and 7, unread: (the object the word stood in for, or "" if that is unclear; the word)
    unknown: tuple[tuple[str, str], ...] = ()
    hedged: bool = False  # it said several answers: true and false, or a relation and its opposite


class Scene:
    """The query's objects left to right, as they are and as they would be with A and B swapped."""

    def __init__(self, record: dict):
        self.a, self.b = record["objects"]["A"], record["objects"]["B"]
        order = [self.a, self.b]
        distractor = record.get("distractor")
        if distractor:
            order.insert(SLOT_POSITION[distractor["slot"]], distractor["name"])
        self.names = tuple(order)
        self.position = {n: i for i, n in enumerate(order)}
        swap = {self.a: self.b, self.b: self.a}
        self.mirror_position = {swap.get(n, n): i for i, n in enumerate(order)}

    def world(self, left: str, right: str) -> str | None:
        """Which world has `left` to the left of `right`."""
        if self.position[left] < self.position[right]:
            return "true"
        if self.mirror_position[left] < self.mirror_position[right]:
            return "mirror"
        return None

    def on_side(self, side: str, mirror: bool) -> str:
        position = self.mirror_position if mirror else self.position
        ends = sorted(position, key=position.get)
        return ends[0] if side == "left" else ends[-1]


def judge(record: dict, response: str | None, lexicon: Lexicon) -> Outcome:
    response = answer_part(response or "")
    if not response.strip():
        return _unparsed("empty answer")
    scene = Scene(record)
    return JUDGES[record["prompt_type"]](record, scene, Reading(response, lexicon, scene.names))


def _outcome(world: str | None, parsed: str, choices: tuple[tuple[str, str], ...] = ()) -> Outcome:
    return Outcome("correct" if world == "true" else "wrong", world, parsed, choices)


def _unparsed(reason: str) -> Outcome:
    return Outcome("unparsed", None, reason)


def _unknown(named: list[str], words: list[str], expected: str) -> Outcome:
    """An answer that fills a blank with a word the lookup table lacks: unread, the word shown (and
    counted by the report's table of words to add with `--synonyms`), not silently wrong."""
    shown = ", ".join(repr(w) for w in words)
    known = f"names {' and '.join(named)} and " if named else ""
    plural = "s" if len(words) > 1 else ""
    reason = f"{known}an unknown word{plural} {shown}: add it to --synonyms if it names an object"
    return Outcome("unparsed", None, reason, unknown=tuple((expected, w) for w in words))


def _description(named: list[str]) -> Outcome:
    """Appendix A: a summary of the image is no answer to a fill-in prompt, though it names the objects."""
    return _outcome(None, f"a description naming {len(named)} object(s), not a filled blank")


def _from_worlds(worlds: set[str | None], parsed: str) -> Outcome:
    if not worlds:
        return _unparsed("no answer found")
    if {"true", "mirror"} <= worlds:
        return _unparsed("contradicts itself")
    return _outcome(worlds.pop() if len(worlds) == 1 else None, parsed)


def _resolve(mentioned: list[frozenset[str]]) -> list[str] | None:
    """One object per mention, shared words settled by elimination; None if still ambiguous."""
    chosen = [next(iter(s)) if len(s) == 1 else None for s in mentioned]
    for i, names in enumerate(mentioned):
        if chosen[i] is None:
            rest = names - {c for c in chosen if c}
            if len(rest) != 1:
                return None
            chosen[i] = next(iter(rest))
    return chosen


def _orders(reading: Reading) -> Iterator[tuple[str, str]]:
    """(left, right) for every claim naming two different objects."""
    for claim in reading.claims:
        relation = claim.asserted
        if claim.subject and claim.object and relation in FLIP:
            names = _resolve([claim.subject, claim.object])
            if names and names[0] != names[1]:
                yield (names[0], names[1]) if relation == "left" else (names[1], names[0])


def _sides(reading: Reading) -> Iterator[tuple[str, str]]:
    """(object, side) for every `the X is on the left` claim."""
    for claim in reading.claims:
        relation = claim.asserted
        if claim.side and claim.subject and relation in FLIP:
            names = _resolve([claim.subject])
            if names:
                yield names[0], relation


def _named(reading: Reading) -> list[str] | None:
    """The objects the answer names, in order, each once; None if a shared word stays ambiguous."""
    names = _resolve([m.names for m in reading.mentions])
    return None if names is None else list(dict.fromkeys(names))


def _said(left: str, right: str) -> str:
    return f"{left} left of {right}"


def _true_false(record: dict, scene: Scene, reading: Reading) -> Outcome:
    said = reading.verdicts
    if len(said) > 1:  # a hedge scores as the worse of its verdicts
        return Outcome("wrong", None, "both true and false", hedged=True)
    if said:
        return _outcome("true" if said[0] == record["answer"]["truth"] else "mirror", "true" if said[0] else "false")
    orders = [o for o in _orders(reading) if set(o) == {scene.a, scene.b}]
    return _from_worlds({scene.world(*o) for o in orders}, _said(*orders[0]) if orders else "")


def _choice(record: dict, scene: Scene, reading: Reading) -> Outcome:
    """The question asks for one option of the two acceptable ones: picking both is right too, but a
    pick of two that includes an unacceptable one is wrong (its world is neither the scene nor its mirror)."""
    ptype = record["prompt_type"]
    roles = {scene.a: "A", scene.b: "B"}
    picks = []
    claims = reading.claims
    for i, claim in enumerate(claims):
        if claim.subject and claim.object and claim.relation in FLIP and (ptype == 3 or not claim.negated):
            names = _resolve([claim.subject, claim.object])
            if names and names[0] != names[1] and set(names) <= roles.keys():
                option = OPTION_ROLES.index((roles[names[0]], claim.relation, roles[names[1]]))
                end = claims[i + 1].start if i + 1 < len(claims) else len(reading.text)
                picks.append((claim.start, option, bool(NOT_HOLDING.search(reading.text, claim.start, end))))
    if ptype == 3 and any(said_false for *_, said_false in picks):
        # "A is left of B, so 'A is right of B' does not hold": the statement said not to hold is the pick,
        # the true one is its reason
        picks = [pick for pick in picks if pick[2]]
    picks = [(position, option) for position, option, _ in picks]
    presented = record["variation"]["option_order"]
    picks += [(position, int(presented[number - 1])) for position, number in reading.numbers]
    chosen = list(dict.fromkeys(index for _, index in sorted(picks)))
    if not chosen:
        return _unparsed("names no option")
    if len(chosen) > 2:
        return _unparsed("names three or more options")
    roles_chosen = [OPTION_ROLES[index] for index in chosen]
    choices = tuple((relation, "AB" if subject == "A" else "BA") for subject, relation, _ in roles_chosen)
    worlds = {"true" if (index in OPTION_HOLDS) == (ptype == 2) else "mirror" for index in chosen}
    world = worlds.pop() if len(worlds) == 1 else None
    return _outcome(world, " and ".join(f"option {order} {relation}" for relation, order in choices), choices)


def _relation_word(record: dict, scene: Scene, reading: Reading) -> Outcome:
    """Prompts 4, 5 and 8: the relation of the query's first object to its second."""
    x, y = record["answer"]["names"]
    words = []
    for claim in reading.claims:
        relation = claim.asserted
        named = _resolve([s for s in (claim.subject, claim.object) if s])
        if relation is None or named is None:
            continue
        subject = named[0] if claim.subject else None
        obj = named[-1] if claim.object else None
        if subject and obj:
            if {subject, obj} == {x, y}:
                words.append(relation if subject == x else _reversed(relation))
        elif subject and claim.side:
            if subject in (x, y):
                words.append(relation if subject == x else _reversed(relation))
        elif obj == y or (not subject and not obj):
            words.append(relation)
    distinct = set(words)
    if not distinct:
        return _unparsed("names no relation")
    if len(distinct) > 1:
        return _unparsed("contradicts itself")
    word = distinct.pop()
    gold = record["answer"]["relation"]
    return _outcome("true" if word == gold else "mirror" if word == FLIP.get(gold) else None, word)


def _reversed(relation: str) -> str:
    """The relation of the first object to the second, said of the second: left for right; "the bowl is inside
    the egg" says the first contains the second."""
    return FLIP.get(relation, "contains" if relation == "inside" else relation)


def _both_blanks(record: dict, scene: Scene, reading: Reading) -> Outcome:
    orders = list(_orders(reading))
    sides = list(_sides(reading))
    lefts = {n for n, s in sides if s == "left"}
    rights = {n for n, s in sides if s == "right"} - lefts
    if not orders and len(lefts) == 1 and len(rights) == 1:
        orders = [(lefts.pop(), rights.pop())]
    if orders:
        return _from_worlds({scene.world(*o) for o in orders}, _said(*orders[0]))
    named = _named(reading)
    if named is None:
        return _unparsed("ambiguous object name")
    if named and reading.describes:
        return _description(named)
    if len(named) < 2 and reading.unknown_words:
        other = [n for n in (scene.a, scene.b) if n not in named]
        return _unknown(named, reading.unknown_words, other[0] if len(named) == 1 and len(other) == 1 else "")
    if not named:
        return _unparsed("names no object")
    if len(named) != 2:
        return _outcome(None, f"names {len(named)} object(s)")
    first, second = named
    order = (first, second) if record["answer"]["relation"] == "left" else (second, first)
    return _outcome(scene.world(*order), _said(*order))


def _side_blank(record: dict, scene: Scene, reading: Reading) -> Outcome:
    side = record["answer"]["relation"]
    named = [n for n, s in _sides(reading) if s == side]
    named += [o[0] if side == "left" else o[1] for o in _orders(reading)]
    if not named:
        named = _named(reading)
        if named is None:
            return _unparsed("ambiguous object name")
        if named and reading.describes:
            return _description(named)
        if not named and reading.unknown_words:
            return _unknown([], reading.unknown_words, scene.on_side(side, False))
        if not named:
            return _unparsed("names no object")
    named = list(dict.fromkeys(named))
    if len(named) > 1:
        return _outcome(None, f"names {len(named)} objects")
    name = named[0]
    world = "true" if name == scene.on_side(side, False) else "mirror" if name == scene.on_side(side, True) else None
    return _outcome(world, name)


JUDGES = {
    1: _true_false,
    2: _choice,
    3: _choice,
    4: _relation_word,
    5: _relation_word,
    6: _both_blanks,
    7: _side_blank,
    8: _relation_word,
}


def query_problem(query: dict) -> str | None:
    """What makes one of the study's queries unjudgeable, or None."""
    if query.get("prompt_type") not in JUDGES or isinstance(query.get("prompt_type"), bool):
        return f"prompt_type {excerpt(query.get('prompt_type'))} is none of 1-8"
    objects, answer = query.get("objects"), query.get("answer")
    if not (isinstance(objects, dict) and all(isinstance(objects.get(role), str) for role in "AB")):
        return 'objects is not {"A": <name>, "B": <name>}'
    if not isinstance(answer, dict):
        return f"answer {excerpt(answer)} is not a JSON object"
    kind = query["prompt_type"]
    if kind == 1 and not isinstance(answer.get("truth"), bool):
        return f"the answer's truth {excerpt(answer.get('truth'))} is not true or false"
    order = (query.get("variation") or {}).get("option_order") if isinstance(query.get("variation"), dict) else None
    if kind in (2, 3) and not (isinstance(order, str) and sorted(order) == list("0123")):
        return f"variation.option_order {excerpt(order)} is not an order of the options 0-3, e.g. \"2031\""
    if kind >= 4 and answer.get("relation") not in ("left", "right"):
        return f"the answer's relation {excerpt(answer.get('relation'))} is neither left nor right"
    names = answer.get("names")
    two_names = isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) for n in names)
    if kind in (4, 5, 8) and not two_names:
        return f"the answer's names {excerpt(names)} are not the two objects asked about"
    return None
