"""Questions answered with a place in the image, and room on the table (RoboSpatial's spatial context and
compatibility, RefCOCO's referring expressions):

- `point-object` and `box-object`: point to (give the 2D box of) an object named by a relation to another
  ("the mug to the left of the bowl"): every other object of its kind stands on the other side (or is decided
  not to stand so), so the words pick out one object. Each object is asked once, by a relation drawn for it
  among those that pick it out. A point is judged by the object's visible mask, a box by its visible extent
  (IoU >= 0.5); a box is asked only of an object nothing hides.
- `point-free`: point to a free spot on the table left of (right of, in front of, behind) an object, judged by
  the free region (`truth.free_space`).
- `fit-yes/no`: is there room for an object between two others, decided from the footprints
  (`truth.free_space.room_between`); each yes beside a no of the same object (else of the same two), as the
  support questions' negatives are drawn, so that neither the object's size nor the gap gives the answer away;
  a yes with no such no is not asked.

Points and boxes need the render's masks (`truth.seen`); free space and fit need the table the record names.
"""

from __future__ import annotations

import itertools

from tabletest.layout.instances import kind_of
from tabletest.prompts.hierarchy.negatives import matched, stream
from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker
from tabletest.prompts.hierarchy.naming import FACT, PHRASE, named
from tabletest.truth.free_space import MIN_CLEAR_SHARE, free_region, image_size, room_between
from tabletest.truth.locations import in_region
from tabletest.truth.scene_facts import SceneGeometry, Thing
from tabletest.truth.seen import Seen

Trio = tuple[Thing, Thing, Thing]


def _key(*parts: object) -> str:
    return "-".join(str(p).replace("#", "") for p in parts)


def referring(g: SceneGeometry, x: Thing) -> list[tuple[Thing, str]]:
    """The (object, relation) pairs that name x alone: x stands `relation` of the object, and every other object
    of x's kind is decided to stand otherwise (x's kind hides none: a hidden one might stand there too)."""
    if x.name in {kind_of(h) for h in g.hidden_names}:
        return []
    same = [t for t in g.things if t.name == x.name and t is not x]
    found = []
    for y in named(g):
        if y.name == x.name:
            continue
        for relate in (g.viewer_lateral, g.viewer_depth):
            word = relate(x, y)
            if word is not None and all(relate(z, y) not in (None, word) for z in same):
                found.append((y, word))
    return found


def objects(ask: Asker, g: SceneGeometry, record: dict, seen: dict[str, Seen]) -> None:
    """Point to, and box, each object the mask shows enough of, named by a relation that picks it out (drawn by
    the scene's own stream, whatever the seed)."""
    size = list(image_size(record) or ())
    for x in g.things:
        shown = seen.get(x.label)
        ways = referring(g, x)
        if shown is None or not shown.pointable or not ways:
            continue
        y, word = stream(ask.scene_id, f"refer:{x.label}").choice(ways)
        words = {"x": x.name, "rel": PHRASE[word], "y": y.name}
        common = {"level": "single", "frame": "viewer", "relation": word, "objects": [x.name, y.name], "skill": "grounding"}
        facts = [[x.label, FACT[word], y.name]]
        ask.ask(
            _key("point", x.label), Wording("point-object", words), answer_type="point",
            answer=[round(v, 2) for v in shown.inner], facts=facts, located={"image_size": size, "mask": shown.rle}, **common,
        )  # fmt: skip
        if g.hidden(x) is False:
            ask.ask(
                _key("box", x.label), Wording("box-object", words), answer_type="box",
                answer=list(shown.box), facts=facts, located={"image_size": size}, **common,
            )  # fmt: skip


def free_spots(ask: Asker, g: SceneGeometry, record: dict) -> None:
    """A free spot on the table beside each object a question may name, where there is one: on one of its sides
    (left or right, drawn by the scene's own stream) and before or behind it (drawn), each where the other has
    none."""
    size = image_size(record)
    if size is None:
        return
    for y in named(g):
        rng = stream(ask.scene_id, f"free:{y.label}")
        for sides in (("left", "right"), ("front", "behind")):
            found = _free(g, record, y, rng.sample(sides, 2), size)
            if found is None:
                continue
            word, spot, stored = found
            ask.ask(
                _key("free", word, y.label), Wording("point-free", {"rel": PHRASE[word], "y": y.name}),
                skill="free space", level="multi", frame="viewer", relation=word, answer_type="point",
                answer=[round(v, 2) for v in spot], objects=[y.name], facts=[["free table", FACT[word], y.name]],
                located={"image_size": list(size), "region": stored},
            )  # fmt: skip


def _free(g: SceneGeometry, record: dict, y: Thing, words: list[str], size: tuple[int, int]) -> tuple[str, tuple[float, float], dict] | None:
    """The first of `words` on whose side of y the table is free enough, its spot and its region as stored."""
    for word in words:
        region = free_region(g, record, y, word)
        if region is None:
            return None
        spot, clearance = region.spot(size)
        stored = region.as_record()
        if clearance >= MIN_CLEAR_SHARE * size[0] and in_region(stored, spot):
            return word, spot, stored
    return None


def room(ask: Asker, g: SceneGeometry, record: dict) -> None:
    """Is there room for x between a and b: each yes beside a no of the same x (else the same a and b)."""
    things = named(g)
    fits: list[Trio] = []
    blocked: list[Trio] = []
    for a, b in itertools.combinations(things, 2):
        for x in things:
            if x is a or x is b:
                continue
            decided = room_between(g, record, x, a, b)
            if decided is not None:
                (fits if decided else blocked).append((x, a, b))
    rng = stream(ask.scene_id, "fit")
    for trio, negative in zip(fits, matched(fits, blocked, _alike, rng)):
        if negative is None:
            continue  # a yes alone would lean the template, and the names (a small thing fits) would tell
        for (x, a, b), answer in ((trio, True), (negative, False)):
            ask.ask(
                _key("fit", x.label, a.label, b.label), Wording("fit-yes/no", {"x": x.name, "y": a.name, "z": b.name}),
                skill="free space", level="reasoning", frame=None, relation="room", answer_type="yes/no", answer=answer,
                objects=[x.name, a.name, b.name], facts=[[x.name, "fits_between" if answer else "not_fits_between", a.name, b.name]],
                pair=_key("fit", *(t.label for t in trio)),
            )  # fmt: skip


def _alike(positive: Trio, candidate: Trio) -> int:
    """The same object to fit counts most, then the same two it goes between."""
    return 3 * (positive[0] is candidate[0]) + sum(p is c for p, c in zip(positive[1:], candidate[1:]))
