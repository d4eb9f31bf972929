"""A small inference engine over stated spatial facts: what follows from them, by which rules, in how many steps.

Facts are (subject, relation, object) with relation `left_of`, `right_of`, `in_front_of`, `behind`,
`above`, `below`, `inside` or `contains`. Rules (SpartQA's): inverse ((x left_of y) gives (y right_of x))
and transitivity ((x left_of y), (y left_of z) give (x left_of z); likewise above and inside), and
containment ((x inside y), (y above z) give (x above z): what is in a container resting on something is
above it); a yes/no question is answered `no` by exclusion when the opposite relation follows. A fact's hop count is the number of rule applications in its shortest derivation
(stated facts: 0). Story questions are checked against this engine, so every gold follows from the
story alone and is never stated in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tabletest.truth.relation_table import BY_KEY

INFERRED = ("left_of", "right_of", "in_front_of", "behind", "above", "below", "inside", "contains")  # what stories reason about
CONVERSE = {key: BY_KEY[key].converse for key in INFERRED}

Fact = tuple[str, str, str]


@dataclass(frozen=True)
class Step:
    fact: Fact
    rule: str | None  # None: stated
    premises: tuple[Fact, ...]
    hops: int


def closure(stated: Iterable[Fact]) -> dict[Fact, Step]:
    """Every fact that follows from `stated`, each with its cheapest derivation."""
    known = {tuple(f): Step(tuple(f), None, (), 0) for f in stated}
    changed = True
    while changed:
        changed = False
        steps = list(known.values())
        candidates = [
            Step((y, CONVERSE[r], x), "inverse", (s.fact,), s.hops + 1) for s in steps for x, r, y in [s.fact]
        ]
        candidates += [
            Step((s.fact[0], s.fact[1], t.fact[2]), "transitivity", (s.fact, t.fact), s.hops + t.hops + 1)
            for s in steps
            for t in steps
            if t.fact[0] == s.fact[2] and t.fact[1] == s.fact[1] and t.fact[2] != s.fact[0]
        ]
        candidates += [
            Step((s.fact[0], "above", t.fact[2]), "containment", (s.fact, t.fact), s.hops + t.hops + 1)
            for s in steps
            for t in steps
            if s.fact[1] == "inside" and t.fact[1] == "above" and t.fact[0] == s.fact[2]
        ]
        for c in candidates:
            if c.fact not in known or c.hops < known[c.fact].hops:
                known[c.fact] = c
                changed = True
    return known


def holds(known: dict[Fact, Step], fact: Fact) -> bool | None:
    """True if the fact follows, False if its opposite does (exclusion), None if the facts do not say."""
    x, r, y = fact
    if fact in known:
        return True
    if (x, CONVERSE[r], y) in known:
        return False
    return None


def derivation(known: dict[Fact, Step], fact: Fact) -> tuple[list[list[str]], list[str]]:
    """The stated facts a derivation rests on, and its rules in the order they apply."""
    step = known[fact]
    if step.rule is None:
        return [list(fact)], []
    facts: list[list[str]] = []
    rules: list[str] = []
    for premise in step.premises:
        f, r = derivation(known, premise)
        facts += [x for x in f if x not in facts]
        rules += r
    return facts, [*rules, step.rule]
