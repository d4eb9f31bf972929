"""Questions answered with a place in the image, and room on the table (RoboSpatial's spatial context and
compatibility, RefCOCO's referring expressions):

- `point-object` and `box-object`: point to (give the 2D box of) an object named by a relation to another
  ("the mug to the left of the bowl"): every other object of its kind stands on the other side (or is decided
  not to stand so), so the words pick out one object. Each object is asked once, by a relation drawn for it
  among those that pick it out. A point is judged by the object's visible mask, a box by its visible extent
  (IoU >= 0.5); a box is asked only of an object nothing hides.
- `point-free`: point to a free spot on the table right next to an object, on its side towards another ("on
  its side towards the bowl": the bowl stands clearly on one side of it, within `truth.free_space.SIDE_CONE_DEG`
  of that side's axis), judged by the free region (`truth.free_space`). The words name no side of the picture.
- `fit-yes/no`: is there room for an object between two others, decided from the footprints
  (`truth.free_space.room_between`); each yes beside a no of the same object (else of the same two), as the
  support questions' negatives are drawn, so that neither the object's size nor the gap gives the answer away;
  a yes with no such no is not asked.

Points and boxes need the render's masks (`truth.seen`); free space and fit need the table the record names.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from tabletest.layout.instances import kind_of
from tabletest.prompts.hierarchy.negatives import matched, stream
from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker
from tabletest.prompts.hierarchy.naming import FACT, PHRASE, named
from tabletest.truth.free_space import MIN_CLEAR_SHARE, free_region, image_size, room_between, side_towards
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
    """A free spot on the table right next to each object a question may name, on its side towards another
    named object: for each object, one such side across the view (left or right) and one along it (in front
    or behind), where one can be asked.

    For an axis, the other objects that name a side are those the record decides stand that way of it and
    whose direction from it on the table lies within `SIDE_CONE_DEG` of the axis (`side_towards`); their order
    is drawn by the scene's own stream, and the first whose side holds a spot is asked. The words name no side
    of the picture, only the other object, so a reader of the words alone cannot tell which third of the image
    to point at; the region is the one `free_region` bounds on the viewer's axes, cut where the other object's
    footprint begins (a spot towards the bowl never lies past it), and `relation` holds its
    side as stored, `facts` the free table there and the other object's side of the first.

    `frame` is None: "its side towards the bowl" is the same side from anywhere, as a size or a distance is.
    Balance evens the point questions' image cells per template and cell (skill, answer type, frame) with
    `relation` in no text key (a point has none), so point-free is evened alone either way; the report and
    the scores per frame would count it among the viewer's questions, whose words name the viewer's sides."""
    size = image_size(record)
    if size is None or g.view is None or g.table_top is None:
        return
    names = named(g)
    for y in names:
        rng = stream(ask.scene_id, f"free:{y.label}")
        for decide in (g.viewer_lateral, g.viewer_depth):
            towards = [(z, word) for z in names if z is not y and (word := _side(g, decide, y, z)) is not None]
            found = _free(g, record, y, rng.sample(towards, len(towards)), size)
            if found is None:
                continue
            z, word, spot, stored = found
            ask.ask(
                _key("free", word, y.label), Wording("point-free", {"y": y.name, "z": z.name}),
                skill="free space", level="multi", frame=None, relation=word, answer_type="point",
                answer=[round(v, 2) for v in spot], objects=[y.name, z.name],
                facts=[["free table", FACT[word], y.name], [z.name, FACT[word], y.name]],
                located={"image_size": list(size), "region": stored},
            )  # fmt: skip


def _side(g: SceneGeometry, decide: Callable[[Thing, Thing], str | None], y: Thing, z: Thing) -> str | None:
    """The side of y that z names on the axis `decide` decides (`viewer_lateral` or `viewer_depth`): the side
    the record decides z stands on, where its direction from y lies within the cone of that side's axis."""
    word = decide(z, y)
    return word if word is not None and side_towards(g.view, g.table_top, y, z) == word else None


def _free(
    g: SceneGeometry, record: dict, y: Thing, towards: list[tuple[Thing, str]], size: tuple[int, int]
) -> tuple[Thing, str, tuple[float, float], dict] | None:
    """The first (z, side) of `towards` on whose side of y the table is free enough up to z, with its spot and its
    region as stored; None where none is, or the record names no table."""
    for z, word in towards:
        region = free_region(g, record, y, word, z)
        if region is None:
            return None
        spot, clearance = region.spot(size)
        stored = region.as_record()
        if clearance >= MIN_CLEAR_SHARE * size[0] and in_region(stored, spot):
            return z, word, spot, stored
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
