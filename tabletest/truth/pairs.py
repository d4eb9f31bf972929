"""Counterfactual pairs: which candidate partner is kept, and the exact difference its change made; and
the stream of a random set's scenes, each followed by the frames of its sequence, its other views and its partners.

A candidate (`tabletest.layout.counterfactuals`) is kept only if its change changed the relation it aims
at: a swap must turn around every directional relation the two objects had, a move must carry the
object to the other side of the one it crossed, a replacement must stand where the old object stood
(the same left and right), an unstacked object must no longer be on or in its carrier; a rotate turns its
object by the angle it records, which every candidate does. The difference is computed on the scenes'
geometry, every object included (as text records are): a render may yet measure an object hidden in one
image, and its record leaves it out as always. A rotate's difference holds the facing relations too
(`facing_relations`), which only it changes while every object stays where it stands.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace

import numpy as np

from tabletest.layout.arrangements import Shape
from tabletest.layout.counterfactuals import Candidates
from tabletest.files.family import companion_ids, frame_id, partner_id, view_id
from tabletest.layout.instances import kind_of
from tabletest.layout.random_scene import Change, PlacedObject, RandomScene, Vec3
from tabletest.layout.random_set import RandomSet
from tabletest.layout.sequences import Carriers
from tabletest.truth.facing import bearing, between_fronts, front_vector, within
from tabletest.truth.relation_table import RESTING, stacked_pairs
from tabletest.truth.relations import CONVERSE
from tabletest.truth.scene_facts import APART_M

DIRECTIONS = ("left_of", "right_of", "in_front_of", "behind")
FACING = ("facing", "facing_away", "same_way", "opposite_way")  # the relation table's facing relations, as pairs
NOT_COMPARED = ("hidden",)  # measured by the render, not placed: no change aims at it


def relation_difference(before: Mapping, after: Mapping) -> dict[str, dict[str, list]]:
    """`became_true`, `became_false` and `unchanged`, each per relation key (a key only where it has items).
    Dict-valued keys (`table_side`, `counts`) compare as [key, value] items, `ambiguous` pairs in name order."""
    difference: dict[str, dict[str, list]] = {"became_true": {}, "became_false": {}, "unchanged": {}}
    for key in dict.fromkeys([*before, *after]):
        if key in NOT_COMPARED:
            continue
        old, new = _items(key, before.get(key)), _items(key, after.get(key))
        for side, items in (
            ("became_true", [item for item in new if item not in old]),
            ("became_false", [item for item in old if item not in new]),
            ("unchanged", [item for item in old if item in new]),
        ):
            if items:
                difference[side][key] = items
    return difference


def change_record(change: Change) -> dict:
    """A partner record's `counterfactual` field."""
    turn = {} if change.turn_deg is None else {"turn_deg": change.turn_deg}
    return {"of": change.of, "kind": change.kind, "objects": list(change.objects), **turn, **change.difference}


def aimed_change_happened(change: Change, before: Mapping, after: Mapping) -> bool:
    """Whether the partner's change changed the relation its kind aims at (see the module's docstring)."""
    names = change.objects
    if change.kind == "swap":
        a, b = names
        held = [key for key in DIRECTIONS if [a, b] in before[key]]
        return bool(held) and all([b, a] in after[key] for key in held)
    if change.kind == "move":
        moved, crossed = names
        held = [key for key in ("left_of", "right_of") if [moved, crossed] in before[key]]
        return bool(held) and all([moved, crossed] in after[CONVERSE[key]] for key in held)
    if change.kind == "remove":  # what it aims at, the object gone, every candidate does
        return True
    if change.kind == "replace":
        old, new = names
        renamed = sorted([new if n == old else n for n in pair] for pair in before["left_of"])
        return renamed == sorted(after["left_of"])
    if change.kind == "unstack":
        pair = list(names)
        return any(pair in before.get(key, []) for key in RESTING) and not any(pair in after.get(key, []) for key in RESTING)
    if change.kind == "rotate":  # what it aims at, its object turned by the angle it records, every candidate does
        return True
    raise ValueError(f"unknown counterfactual kind {change.kind!r}")


def carriers_of(relations: Mapping) -> dict[str, str]:
    """Each object resting on or held by another, mapped to that one."""
    return {a: b for key in RESTING for a, b in relations.get(key, [])}


def partner(
    scene: RandomScene, kind: str, candidates: Candidates, relations_of: Callable[[RandomScene], dict], before: dict | None = None
) -> RandomScene | None:
    """The scene's partner of `kind` with its difference recorded, or None when no candidate changes what
    the kind aims at (or the scene allows none: a remove from a one-object scene)."""
    before = relations_of(scene) if before is None else before
    for candidate in candidates.of(scene, kind, carriers_of(before)):
        after = relations_of(candidate)
        if aimed_change_happened(candidate.change, before, after):
            if kind == "rotate":
                before, after = (with_facing(s.objects, r, candidates.fronts) for s, r in ((scene, before), (candidate, after)))
            return replace(candidate, change=replace(candidate.change, difference=relation_difference(before, after)))
    return None


def with_facing(objects: Sequence[PlacedObject], relations: Mapping, fronts: Mapping[str, float]) -> dict:
    """A scene's relations and its facing relations (`facing_relations`): what a rotate's difference compares."""
    return {**relations, **facing_relations(objects, fronts, stacked_pairs(relations))}


def facing_relations(objects: Sequence[PlacedObject], fronts: Mapping[str, float], stacked: Iterable[frozenset[str]] = ()) -> dict[str, list]:
    """The facing relations that hold between placed objects, as pairs of labels (`same_way` and `opposite_way`
    in both orders), decided as the questions decide them (`truth.facing`, where they stand on the table): an
    object faces (faces away from) another within 45° of its front (back), two face the same (opposite) way
    within 45° of each other (of opposite), each withheld within 15° of 45°; `fronts`: each kind with a front,
    its `front_deg`. A pair one of which is on, in or above the other, or too near for a direction, faces neither."""
    stacked = set(stacked)
    front = {o.name: front_vector(o.yaw_deg, fronts[kind_of(o.name)]) for o in objects if kind_of(o.name) in fronts}
    made: dict[str, list] = {key: [] for key in FACING}
    for a, b in itertools.permutations(objects, 2):
        if a.name not in front:
            continue
        if frozenset((a.name, b.name)) not in stacked and np.hypot(*np.subtract(a.position_m[:2], b.position_m[:2])) >= APART_M:
            angle = bearing(front[a.name], np.asarray(a.position_m), np.asarray(b.position_m))
            for key, near in (("facing", 0.0), ("facing_away", 180.0)):
                if within(angle, near):
                    made[key].append([a.name, b.name])
        if b.name in front:
            apart = between_fronts(front[a.name], front[b.name])
            for key, near in (("same_way", 0.0), ("opposite_way", 180.0)):
                if within(apart, near):
                    made[key].append([a.name, b.name])
    return made


def with_companions(
    scenes: Iterable[RandomScene], kinds: Sequence[str], candidates: Candidates, relations_of: Callable[[RandomScene], dict],
    done: frozenset[str] | set[str] = frozenset(), on_skip: Callable[[str, str], None] = lambda kind, scene_id: None,
    views: int = 1, view_of: Callable[[RandomScene, int], RandomScene | None] = lambda scene, number: None,
    frames: int = 1, frames_of: Callable[[RandomScene, Carriers], list[RandomScene] | None] = lambda scene, carriers: None,
) -> Iterator[RandomScene]:
    """Each scene not in `done` (as frame 0 of its sequence, where it has one), followed by its later frames (1 to
    `frames` - 1, from `frames_of`), its other views (2 to `views`, from `view_of`) and its partners of `kinds`, those
    not in `done`; each frame, view or partner the scene cannot have is reported to `on_skip("frame", "view" or the
    kind, scene id)` instead."""
    for scene in scenes:
        before = None
        sequence = None
        if frames > 1:
            before = relations_of(scene)
            sequence = frames_of(scene, carriers_of(before))
            for number in range(1, frames) if sequence is None else ():
                if frame_id(scene.id, number) not in done:
                    on_skip("frame", scene.id)
        for frame in sequence or [scene]:
            if frame.id not in done:
                yield frame
        for number in range(2, views + 1):
            if view_id(scene.id, number) not in done:
                view = view_of(scene, number)
                if view is None:
                    on_skip("view", scene.id)
                else:
                    yield view
        todo = [kind for kind in kinds if partner_id(scene.id, kind) not in done]
        before = relations_of(scene) if todo and before is None else before
        for kind in todo:
            made = partner(scene, kind, candidates, relations_of, before)
            if made is None:
                on_skip(kind, scene.id)
            else:
                yield made


def skip_on_resume(done: Iterable[str], kinds: Sequence[str], views: int = 1, frames: int = 1) -> frozenset[str]:
    """The done scenes that need not be sampled again on resume: those whose every view, partner and frame is done too."""
    done = set(done)
    return frozenset(sid for sid in done if all(c in done for c in companion_ids(sid, kinds, views, frames)))


def set_scenes(
    random_set: RandomSet, sizes: Mapping[str, Vec3], table_height_m: float, sensor_width_mm: float, resolution: tuple[int, int],
    shapes: Mapping[str, Shape] | None, relations_of: Callable[[RandomScene], dict], done: frozenset[str] | set[str] = frozenset(),
    on_skip: Callable[[str, str], None] = lambda kind, scene_id: None, indices: Iterable[int] | None = None,
    meshes: Mapping[str, Shape] | None = None,
) -> Iterator[RandomScene]:
    """Every scene of the set (or of `indices`) not in `done`, each followed by the frames of its sequence, its other
    views and its counterfactual partners (`--sequence`, `--views`, `--counterfactuals`; `meshes`: the models a slide
    needs, `RandomSet.meshes`); resumed, a scene is sampled again only for a frame, view or partner still to do."""
    kinds, views, frames = random_set.counterfactuals, random_set.views, random_set.frames
    skip = skip_on_resume(done, kinds, views, frames)
    scenes = random_set.scenes(sizes, table_height_m, sensor_width_mm, resolution, skip, shapes, indices)

    def view_of(scene: RandomScene, number: int) -> RandomScene | None:
        return random_set.view(scene, number, sensor_width_mm, resolution)

    candidates = random_set.candidates(sizes, table_height_m, resolution)
    motion = random_set.motion(table_height_m, resolution, meshes)
    frames_of = motion.frames_of if motion is not None else lambda scene, carriers: None
    return with_companions(scenes, kinds, candidates, relations_of, done, on_skip, views, view_of, frames, frames_of)


def _items(key: str, value) -> list:
    if value is None:
        return []
    if isinstance(value, Mapping):
        return [[name, item] for name, item in value.items()]
    if key == "ambiguous":  # a withheld pair is listed left object first: a change of places is no change of what is withheld
        return [[*sorted(item[:2]), item[2]] for item in value]
    return list(value)
