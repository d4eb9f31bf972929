"""The query battery: which questions each scene gets, their gold answers, and their stable ids.

Object A is the left object of a pair and B the right one. Two-object scenes have one pair;
three-object scenes ask the prompts that name objects (1-5, 8) about each of their three pairs,
the third object standing by as a recorded distractor, and the prompts that name none (6, 7) once,
about the outer pair with the middle object as the distractor.

Protocols: `full` asks every variation of every scene. `paper` follows the study: prompts 1, 4, 5
four variations each (prompt 5 exactly Table 1's four), prompts 2 and 3 one seeded random option
order, prompts 6, 7, 8 one variation each, split by the parity of the scene index (even: `left`
for 6 and 7, [A, B] for 8; odd: `right`, [B, A]). Text-only queries repeat every question once
per vignette order.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from tabletest.errors import UserError
from tabletest.prompts import templates as t
from tabletest.truth.relations import table_sides

Protocol = Literal["paper", "full"]
PROMPT_TYPES = tuple(range(1, 9))
NAMING_TYPES = frozenset({1, 2, 3, 4, 5, 8})
VIGNETTE_ORDERS = ("left_first", "right_first")  # which object the vignette describes first
RELATION_ORDERS = ("left_first", "right_first")  # which relation a disjunction (prompts 4, 5) offers first
ALL_OPTION_ORDERS = tuple(itertools.permutations(range(4)))
CHOICE_TYPES = (2, 3)
P5_PAPER = (
    ("AB", "first", "left_first"),
    ("AB", "last", "right_first"),
    ("BA", "first", "left_first"),
    ("BA", "last", "right_first"),
)

_QID_CODES = {
    "relation": str,
    "truth": lambda v: "true" if v else "false",
    "object_order": str,
    "relation_order": {"left_first": "LR", "right_first": "RL"}.__getitem__,
    "irrelevant_position": lambda v: f"in-{v}",
    "option_order": lambda v: f"o{v}",
    "vignette_order": {"left_first": "vL", "right_first": "vR"}.__getitem__,
    "gold": lambda v: f"g{v}",
}


@dataclass(frozen=True)
class SceneInput:
    """What the battery needs of a scene, from the enumeration or from a render's metadata."""

    id: str
    index: int
    objects: tuple[str, ...]
    vignettes: dict[str, str]
    image: str | None = None
    left_of: tuple[tuple[str, str], ...] | None = None  # a random scene's unambiguous pairs (None: the benchmark's)
    sides: tuple[tuple[str, str], ...] = ()  # a random scene's (name, table side)
    inside: tuple[tuple[str, str], ...] = ()  # a random scene's (object, container) pairs


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    code: str  # slots of A and B by initial ("LR", "LM", ...); "" in two-object scenes
    distractor: dict | None


@dataclass(frozen=True)
class Question:
    variation: dict
    text: str
    options: list[str] | None
    answer: dict


def pairs(scene: SceneInput, naming: bool) -> list[Pair]:
    if scene.left_of is not None:
        return _random_pairs(scene, naming)
    objects = scene.objects
    if len(objects) < 2:
        raise UserError(
            f"scene {scene.id} has one object and prompts ask how objects relate; use 2- or 3-object scenes"
        )
    if len(objects) == 2:
        return [Pair(objects[0], objects[1], "", None)]
    slots = table_sides(len(objects))
    chosen = [(0, 1), (0, 2), (1, 2)] if naming else [(0, 2)]
    out = []
    for i, j in chosen:
        (k,) = {0, 1, 2} - {i, j}
        code = (slots[i][0] + slots[j][0]).upper()
        out.append(Pair(objects[i], objects[j], code, {"name": objects[k], "slot": slots[k]}))
    return out


def _random_pairs(scene: SceneInput, naming: bool) -> list[Pair]:
    """Every pair of a random scene whose left/right relation holds beyond the margin, A its left one.
    Prompts that name no object (6, 7) have one right answer only in a two-object scene whose objects
    also stand on the left and the right side of the table, so only such scenes get them."""
    position = {name: k for k, name in enumerate(scene.objects)}
    if naming:
        return [Pair(a, b, f"{position[a]}{position[b]}", None) for a, b in scene.left_of]
    sides = dict(scene.sides)
    if len(scene.objects) == 2 and len(scene.left_of) == 1:
        a, b = scene.left_of[0]
        if (sides.get(a), sides.get(b)) == ("left", "right"):
            return [Pair(a, b, "", None)]
    return []


def parse_types(text: str) -> tuple[int, ...]:
    """`--types 1,4,5` -> (1, 4, 5), sorted, without repeats."""
    chosen = set()
    for part in text.split(","):
        part = part.strip()
        if not (part.isdigit() and int(part) in PROMPT_TYPES):
            raise UserError(
                f"--types {text!r}: {part!r} is not a prompt type; give numbers 1-8 separated by commas, e.g. --types 1,4"
            )
        chosen.add(int(part))
    return tuple(sorted(chosen))


def _answer(
    truth: bool | None = None,
    options: list[str] | None = None,
    names: list[str] | None = None,
    relation: str | None = None,
) -> dict:
    """The gold, with the same four keys for every prompt type (None where a key does not apply)."""
    return {"truth": truth, "options": options, "names": names, "relation": relation}


def _ordered(pair: Pair, object_order: str) -> tuple[str, str]:
    return (pair.a, pair.b) if object_order == "AB" else (pair.b, pair.a)


def _relation_of(pair: Pair, x: str) -> str:
    """Where `x`, one of the pair, stands relative to the other."""
    return "left" if x == pair.a else "right"


def _p1(pair: Pair, modality: t.Modality, levels: dict) -> Iterator[Question]:
    for relation in ("left", "right"):
        for truth in (True, False):
            x, y = _ordered(pair, "AB" if (relation == "left") == truth else "BA")
            yield Question(
                {"relation": relation, "truth": truth},
                t.statement(x, relation, y),
                ["true", "false"],
                _answer(truth=truth, names=[x, y], relation=relation),
            )


def _choices(ptype: int):
    head = t.P2_HEAD if ptype == 2 else t.P3_HEAD

    def build(pair: Pair, modality: t.Modality, levels: dict) -> Iterator[Question]:
        canonical = t.canonical_options(pair.a, pair.b)
        for order in levels["option_orders"]:
            shown = [canonical[i] for i in order]
            wanted = [canonical[i] for i in order if (i in t.OPTION_HOLDS) == (ptype == 2)]
            yield Question(
                {"option_order": "".join(map(str, order))}, t.choice_list(head, shown), shown, _answer(options=wanted)
            )

    return build


def _relations(relation_order: str) -> tuple[str, str]:
    return ("left", "right") if relation_order == "left_first" else ("right", "left")


def _p4(pair: Pair, modality: t.Modality, levels: dict) -> Iterator[Question]:
    for object_order in ("AB", "BA"):
        for relation_order in RELATION_ORDERS:
            x, y = _ordered(pair, object_order)
            relations = _relations(relation_order)
            yield Question(
                {"object_order": object_order, "relation_order": relation_order},
                t.disjunction(x, relations, y),
                list(relations),
                _answer(names=[x, y], relation=_relation_of(pair, x)),
            )


def _p5(pair: Pair, modality: t.Modality, levels: dict) -> Iterator[Question]:
    for object_order, position, relation_order in levels["p5"]:
        x, y = _ordered(pair, object_order)
        relations = _relations(relation_order)
        relations = ("inside", *relations) if position == "first" else (*relations, "inside")
        yield Question(
            {"object_order": object_order, "relation_order": relation_order, "irrelevant_position": position},
            t.disjunction(x, relations, y),
            list(relations),
            _answer(names=[x, y], relation=_relation_of(pair, x)),
        )


def _p5_inside(pair: Pair, modality: t.Modality, levels: dict) -> Iterator[Question]:
    """Prompt 5 where "inside of" is the true answer: A is in container B (left and right are withheld for
    such a pair), asked A first with each relation order and each place of "inside of"."""
    for position, relation_order in itertools.product(("first", "last"), RELATION_ORDERS):
        relations = _relations(relation_order)
        relations = ("inside", *relations) if position == "first" else (*relations, "inside")
        yield Question(
            {"object_order": "AB", "relation_order": relation_order, "irrelevant_position": position, "gold": "inside"},
            t.disjunction(pair.a, relations, pair.b),
            list(relations),
            _answer(names=[pair.a, pair.b], relation="inside"),
        )


def _p6(pair: Pair, modality: t.Modality, levels: dict) -> Iterator[Question]:
    for relation in levels["sides"]:
        names = [pair.a, pair.b] if relation == "left" else [pair.b, pair.a]
        yield Question(
            {"relation": relation}, t.both_blanks(relation, modality), None, _answer(names=names, relation=relation)
        )


def _p7(pair: Pair, modality: t.Modality, levels: dict) -> Iterator[Question]:
    for side in levels["sides"]:
        name = pair.a if side == "left" else pair.b
        yield Question({"relation": side}, t.side_blank(side, modality), None, _answer(names=[name], relation=side))


def _p8(pair: Pair, modality: t.Modality, levels: dict) -> Iterator[Question]:
    for object_order in levels["object_orders"]:
        x, y = _ordered(pair, object_order)
        yield Question(
            {"object_order": object_order},
            t.relation_blank(x, y, modality),
            None,
            _answer(names=[x, y], relation=_relation_of(pair, x)),
        )


BUILDERS = {1: _p1, 2: _choices(2), 3: _choices(3), 4: _p4, 5: _p5, 6: _p6, 7: _p7, 8: _p8}


def _levels(protocol: Protocol, scene: SceneInput, pair: Pair, ptype: int, seed: int) -> dict:
    """The variation levels this scene gets under the protocol (see the module docstring)."""
    if protocol == "full":
        return {
            "option_orders": ALL_OPTION_ORDERS,
            "p5": tuple(itertools.product(("AB", "BA"), ("first", "last"), RELATION_ORDERS)),
            "sides": ("left", "right"),
            "object_orders": ("AB", "BA"),
        }
    even = scene.index % 2 == 0
    levels: dict = {
        "p5": P5_PAPER,
        "sides": ("left",) if even else ("right",),
        "object_orders": ("AB",) if even else ("BA",),
    }
    if ptype in CHOICE_TYPES:
        order = list(range(4))
        random.Random(f"{seed}:{scene.id}:{pair.code}:{ptype}").shuffle(order)
        levels["option_orders"] = (tuple(order),)
    return levels


def qid(scene_id: str, ptype: int, pair_code: str, modality: str, variation: dict) -> str:
    parts = [scene_id, f"p{ptype}", *([pair_code] if pair_code else []), "img" if modality == "image" else "txt"]
    parts += [_QID_CODES[key](value) for key, value in variation.items()]
    return "-".join(parts)


def scene_queries(
    scene: SceneInput, types: tuple[int, ...], protocol: Protocol, modality: t.Modality, seed: int, inside_true: bool = False
) -> Iterator[dict]:
    """Every query record of one scene, in a fixed order: prompt type, pair, variation, vignette order.
    `inside_true` adds, after prompt 5's own, prompt 5 of each object in a container (gold "inside")."""
    vignette_orders = VIGNETTE_ORDERS if modality == "text" else (None,)
    position = {name: k for k, name in enumerate(scene.objects)}
    for ptype in types:
        asked = [(pair, BUILDERS[ptype]) for pair in pairs(scene, ptype in NAMING_TYPES)]
        if ptype == 5 and inside_true:
            asked += [(Pair(a, b, f"in{position[a]}{position[b]}", None), _p5_inside) for a, b in scene.inside]
        for pair, build in asked:
            levels = _levels(protocol, scene, pair, ptype, seed)
            for question in build(pair, modality, levels):
                for vignette_order in vignette_orders:
                    variation = dict(question.variation)
                    record = {
                        "qid": "",
                        "scene_id": scene.id,
                        "prompt_type": ptype,
                        "variation": variation,
                        "modality": modality,
                    }
                    if vignette_order is None:
                        record["image"] = scene.image
                        record["text"] = question.text
                    else:
                        variation["vignette_order"] = vignette_order
                        record["context"] = scene.vignettes[vignette_order]
                        record["text"] = t.with_context(record["context"], question.text)
                    record["qid"] = qid(scene.id, ptype, pair.code, modality, variation)
                    record["options"] = question.options
                    record["answer"] = question.answer
                    record["objects"] = {"A": pair.a, "B": pair.b}
                    record["distractor"] = pair.distractor
                    yield record
