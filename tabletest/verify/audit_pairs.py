"""`tabletest verify` for counterfactual pairs: a partner against the scene it was made from.

The records: the partner keeps the camera, the scene's look, the render seed and every object its
change does not name; the named objects changed as its kind says (a rotate's object stands where it stood,
turned by the angle it records); and its recorded difference is the one the two records' geometry gives
(a rotate's with the facing relations, from the fronts its settings pin). The pixels: an object the change left alone has the same mask in
both images wherever no changed object covers it (the same geometry seen through the same samples),
and an object the change moved has a mask that moved (whether the named ones vanished or appeared is
what each image's own checks see). How far the change reaches into the other pixels (shadows,
reflections, the denoiser's neighbourhood) is measured, not judged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage

from tabletest.config import excerpt
from tabletest.layout.instances import label_of
from tabletest.layout.counterfactuals import TURN_DEG, turn_between
from tabletest.layout.random_scene import Change
from tabletest.truth.pairs import aimed_change_happened, relation_difference, with_facing
from tabletest.verify.rederive import MARGIN_SLACK, POSE_TOLERANCE, Derivation, placed_objects, placed_relations_of

SIDES = ("became_true", "became_false", "unchanged")
IMAGE_CHANGED = 2  # a pixel counts as changed where a channel differs by more than this (of 255)
MIN_SHIFT_PX = 1.0  # a moved object's mask centre moves at least this, unless it is hidden in either image


@dataclass
class PairFacts:
    """What the pairs showed beyond agreement: how far each change reached outside the changed objects."""

    checked: int = 0
    reach_px: list[float] = field(default_factory=list)  # per pair: the farthest changed pixel from a changed object
    share_outside: list[float] = field(default_factory=list)  # per pair: changed pixels outside the changed objects / image


Check = Callable[[str, str, str, bool, str], None]  # (kind, the partner or view checked, the scene it was made from, ok, what)
Load = Callable[[dict, str], np.ndarray | None]  # (record, file field) -> pixels, or None if unreadable


def check_pairs(check: Check, load: Load, records: Mapping[str, dict], derivation: Derivation, facts: PairFacts) -> None:
    """Every partner in `records` (by id) against its original, every view against its scene."""
    for scene_id, record in records.items():
        if isinstance(record.get("view"), dict):
            _check_view(check, scene_id, record, records)
        change = record.get("counterfactual")
        if not isinstance(change, dict):
            continue
        original = records.get(change.get("of"))
        if original is None:
            check("pair", scene_id, str(change.get("of")), False, f"a partner of {excerpt(change.get('of'))}, which the folder does not hold")
            continue
        facts.checked += 1
        try:
            _check_records(check, scene_id, original, record, change, derivation)
            if "mask_file_name" in record and "mask_file_name" in original:
                _check_pixels(check, load, scene_id, original, record, change, facts)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            check("pair", scene_id, original["id"], False, f"its counterfactual field is malformed: {type(err).__name__}: {excerpt(str(err))}")


def _check_view(check: Check, vid: str, view: dict, records: Mapping[str, dict]) -> None:
    """A view shows its scene's objects where they stand, under the same lights, from a camera of its own."""
    of = view["view"].get("of")
    scene = records.get(of)
    if scene is None:
        check("view", vid, str(of), False, f"a view of {excerpt(of)}, which the folder does not hold")
        return
    check("view", vid, of, vid == f"{of}-view{view['view'].get('number')}", f"id {vid} is not {of}-view{view['view'].get('number')}")
    check("view", vid, of, _objects(view) == _objects(scene), f"its objects or their poses differ from {of}'s")
    check("view", vid, of, view.get("scene") == scene.get("scene"), f"its table, lights or backdrop differ from {of}'s")
    check("view", vid, of, _camera(view) != _camera(scene), f"its camera is {of}'s")


def _check_records(check: Check, pid: str, original: dict, partner: dict, change: dict, derivation: Derivation) -> None:
    kind, named, of = change["kind"], list(change["objects"]), original["id"]
    check("pair", pid, of, pid == f"{of}-{kind}", f"id {pid} is not {of}-{kind}")
    for what, a, b in (
        ("camera", _camera(original), _camera(partner)),
        ("scene", original.get("scene"), partner.get("scene")),
        ("render seed", original["render"].get("seed"), partner["render"].get("seed")),
        ("index", original.get("index"), partner.get("index")),
    ):
        check("pair", pid, of, a == b, f"its {what} differs from {of}'s: {excerpt(b)} against {excerpt(a)}")
    before, after = _objects(original), _objects(partner)
    expected = _expected_names(kind, named, list(before))
    check("pair", pid, of, set(after) == set(expected), f"holds {sorted(after)}; a {kind} of {named} on {of} leaves {sorted(expected)}")
    for name in set(before) & set(after) - set(named):
        moved = f"{name} changed though the {kind} does not name it: {excerpt(after[name])} against {excerpt(before[name])}"
        check("pair", pid, of, before[name] == after[name], moved)
    if kind == "swap" and set(named) <= set(before) & set(after):
        a, b = named
        swapped = after[a][0] == before[b][0] and after[b][0] == before[a][0]
        check("pair", pid, of, swapped, f"{a} and {b} did not trade places from {of}")
    elif kind in ("move", "unstack") and named[0] in before and named[0] in after:
        check("pair", pid, of, after[named[0]][0] != before[named[0]][0], f"{named[0]} did not move from where {of} has it")
    elif kind == "rotate" and named[0] in before and named[0] in after:
        _check_turn(check, pid, of, named[0], before[named[0]], after[named[0]], change.get("turn_deg"))
    _check_difference(check, pid, original, partner, change, derivation)


def _check_turn(check: Check, pid: str, of: str, name: str, before: tuple, after: tuple, turn_deg: object) -> None:
    """A rotate's object stands where it stood with its size, turned by the angle it records (one within the
    turns a rotate makes) from its yaw in the scene."""
    check("pair", pid, of, (after[0], after[2]) == (before[0], before[2]), f"{name} moved or changed size though a rotate only turns it")
    if not isinstance(turn_deg, (int, float)) or isinstance(turn_deg, bool):
        check("pair", pid, of, False, f"it records no turn_deg for {name}: {excerpt(turn_deg)}")
        return
    turned = turn_between(before[1], after[1])
    check("pair", pid, of, abs(turned - turn_deg) <= POSE_TOLERANCE["deg"],
          f"{name} turned {turned:+.3f} deg from {of}, but the record says {turn_deg:+.3f}")  # fmt: skip
    check("pair", pid, of, TURN_DEG[0] <= abs(turn_deg) <= TURN_DEG[1], f"its turn {turn_deg:+.3f} deg is not {TURN_DEG[0]} to {TURN_DEG[1]} deg either way")


def _check_difference(check: Check, pid: str, original: dict, partner: dict, change: dict, derivation: Derivation) -> None:
    """The recorded difference is the one the two records' geometry gives (either way within the margins' slack)."""
    recorded = {side: change.get(side) or {} for side in SIDES}
    derived = None
    for slack in (0.0, -MARGIN_SLACK, MARGIN_SLACK):
        before, after = placed_relations_of(original, derivation, slack), placed_relations_of(partner, derivation, slack)
        if before is None or after is None or (change["kind"] == "rotate" and derivation.fronts is None):
            return  # not derivable here: said by the record checks' "not checked"
        if change["kind"] == "rotate":
            before, after = (with_facing(placed_objects(r), rel, derivation.fronts) for r, rel in ((original, before), (partner, after)))
        derived = relation_difference(before, after)
        if derived == recorded:
            aimed = aimed_change_happened(Change(original["id"], change["kind"], tuple(change["objects"])), before, after)
            check("pair", pid, original["id"], aimed, f"the {change['kind']} of {change['objects']} on {original['id']} does not change what it aims at")
            return
    wrong = [f"{side}.{key}" for side in SIDES for key in {*recorded[side], *derived[side]} if recorded[side].get(key) != derived[side].get(key)]
    check("pair", pid, original["id"], False, f"recorded difference is not the two records' one at {', '.join(sorted(wrong)[:6])} (its and {original['id']}'s)")


def _check_pixels(check: Check, load: Load, pid: str, original: dict, partner: dict, change: dict, facts: PairFacts) -> None:
    masks = [load(r, "mask_file_name") for r in (original, partner)]
    if any(m is None for m in masks) or masks[0].shape != masks[1].shape:
        return  # unreadable or mis-sized files are the record checks' disagreements
    named = set(change["objects"])
    labels = [{label_of(o): i + 1 for i, o in enumerate(r["objects"])} for r in (original, partner)]
    changed = np.zeros(masks[0].shape, bool)
    for mask, label in zip(masks, labels):
        for name in named & set(label):
            changed |= mask == label[name]
    near = ndimage.binary_dilation(changed, iterations=1)  # the pixel filter's reach around a changed object's edge
    for name in (set(labels[0]) & set(labels[1])) - named:
        differ = ((masks[0] == labels[0][name]) != (masks[1] == labels[1][name])) & ~near
        what = f"{name}'s mask differs from {original['id']}'s at {int(differ.sum())} px away from the changed objects"
        check("pair_pixels", pid, original["id"], not differ.any(), what)
    for name in _moved(change["kind"], list(change["objects"])):
        shown = [bool((mask == label[name]).any()) if name in label else False for mask, label in zip(masks, labels)]
        if all(shown):
            centres = [ndimage.center_of_mass(mask == label[name]) for mask, label in zip(masks, labels)]
            moved = float(np.hypot(*np.subtract(centres[0], centres[1])))
            what = f"{name}'s mask moved {moved:.2f} px from {original['id']}'s, under {MIN_SHIFT_PX} px"
            check("pair_pixels", pid, original["id"], moved >= MIN_SHIFT_PX, what)
    _measure_reach(load, original, partner, changed, facts)


def _measure_reach(load: Load, original: dict, partner: dict, changed: np.ndarray, facts: PairFacts) -> None:
    images = [load(r, "file_name") for r in (original, partner)]
    if any(i is None for i in images) or images[0].shape != images[1].shape or not changed.any():
        return
    diff = np.abs(images[0].astype(np.int16) - images[1].astype(np.int16))
    outside = (diff.max(axis=-1) if diff.ndim == 3 else diff) > IMAGE_CHANGED
    outside &= ~changed
    distance = ndimage.distance_transform_edt(~changed)
    facts.reach_px.append(float(distance[outside].max()) if outside.any() else 0.0)
    facts.share_outside.append(float(outside.mean()))


def _camera(record: dict) -> dict:
    return {k: record["camera"][k] for k in ("K", "world_to_camera", "resolution")}


def _objects(record: dict) -> dict[str, tuple]:
    """Each object's pose: where it stands, how it is turned, its size."""
    return {label_of(o): (tuple(o["position_m"]), o["yaw_deg"], tuple(o["size_m"])) for o in record["objects"]}


def _moved(kind: str, named: list[str]) -> list[str]:
    """The objects a change moves: both of a swap, the first of a move or an unstack (not the one crossed, nor the carrier)."""
    return named if kind == "swap" else named[:1] if kind in ("move", "unstack") else []


def _expected_names(kind: str, named: list[str], before: list[str]) -> list[str]:
    if kind == "remove":
        return [n for n in before if n != named[0]]
    if kind == "replace":
        return [n for n in before if n != named[0]] + [named[1]]
    return before
