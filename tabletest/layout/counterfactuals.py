"""Counterfactual partners of a random scene: the same scene with one thing changed.

A partner keeps the camera, the lights, the table, the backdrop, the render seed and every object the
change does not name, so its image differs from the original's only where the change is (and in the
shadows and reflections that change casts). Candidates come from the scene's own stream for each kind
(`digest:seed:i:kind`), so a partner is a pure function of (config, seed, i, kind); which candidate is
kept is decided by the truth stage (`tabletest.truth.pairs`), which checks that the change changed the
relation it aims at.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from tabletest.errors import not_one_of
from tabletest.files.family import KINDS, partner_id
from tabletest.layout.instances import kind_of
from tabletest.layout.random_config import RandomConfig
from tabletest.layout.variants import Variant, model_key
from tabletest.layout.random_scene import (
    Change,
    PlacedObject,
    RandomScene,
    Vec3,
    framed,
    left_to_right,
    placement_bounds,
    rects_apart,
)

Drawn = tuple[tuple[PlacedObject, ...], tuple[str, ...]] | None  # the changed scene's objects and the names the change names
CANDIDATES = 12  # tries per kind and scene: a scene with no candidate that works gets no partner of that kind
SIMILAR_SIZE = 1.3  # replace: the larger of the two objects' longest sides at most this times the smaller
# rotate: a turn of a whole number of degrees this far either way: enough to see, and short of half a turn,
# whose way round no picture tells
TURN_DEG = (30, 150)


def check_kinds(text: str) -> tuple[str, ...]:
    """`--counterfactuals swap,remove` -> ("swap", "remove"): each kind once, in the order given."""
    kinds = tuple(dict.fromkeys(k.strip().lower() for k in text.split(",") if k.strip()))
    if not kinds:
        raise not_one_of("--counterfactuals", text, KINDS, "swap,move")
    for kind in kinds:
        if kind not in KINDS:
            raise not_one_of("--counterfactuals", kind, KINDS, "swap,move")
    return kinds


@dataclass(frozen=True)
class Candidates:
    """What a scene's candidates are drawn from besides the scene itself."""

    config: RandomConfig
    seed: int
    pool: Sequence[str]
    sizes: Mapping[str, Vec3]
    table_top_m: float
    resolution: tuple[int, int]  # the images': what a changed object must stay inside, as the scene's camera framed it
    variants: Mapping[str, tuple[Variant, ...]] = field(default_factory=dict)  # the looks each kind may take (config `looks`)
    fronts: Mapping[str, float] = field(default_factory=dict)  # rotate: the kinds with a front (and its `front_deg`)

    def of(self, scene: RandomScene, kind: str, carriers: Mapping[str, str]) -> Iterator[RandomScene]:
        """Up to CANDIDATES partners of `kind`, in the order the scene's stream draws them; `carriers` maps
        each object resting on or held by another to that one (from the scene's relations)."""
        rng = random.Random(f"{self.config.digest}:{self.seed}:{scene.index}:{kind}")
        carrying = set(carriers.values())
        free = [o for o in scene.objects if o.position_m[2] == self.table_top_m and o.name not in carrying]
        draw = getattr(self, f"_{kind}")
        for _ in range(CANDIDATES):
            drawn = draw(rng, scene, free, carriers, carrying)
            if drawn is not None:
                yield _partner(scene, kind, *drawn)

    def _swap(
        self, rng: random.Random, scene: RandomScene, free: list[PlacedObject], _carriers: Mapping[str, str], _carrying: set[str]
    ) -> Drawn:
        if len(free) < 2:
            return None
        a, b = rng.sample(free, 2)
        if kind_of(a.name) == kind_of(b.name):  # two apples swapped: the same picture
            return None
        a2 = replace(a, position_m=b.position_m)
        b2 = replace(b, position_m=a.position_m)
        if not self._clear([a2, b2], scene, {a.name, b.name}):
            return None
        return _with(scene, {a.name: a2, b.name: b2}), (a.name, b.name)

    def _move(
        self, rng: random.Random, scene: RandomScene, free: list[PlacedObject], _carriers: Mapping[str, str], _carrying: set[str]
    ) -> Drawn:
        if len(scene.objects) < 2 or not free:
            return None
        moved = rng.choice(free)
        reference = rng.choice([o for o in scene.objects if o is not moved])
        if kind_of(reference.name) == kind_of(moved.name):  # an apple past an apple: no change words could name
            return None
        right = scene.camera.right_axis[:2]
        offset = float(np.dot(np.subtract(moved.position_m[:2], reference.position_m[:2]), right))
        x, y = np.subtract(moved.position_m[:2], 2 * offset * right)
        moved2 = replace(moved, position_m=(round(float(x), 5), round(float(y), 5), moved.position_m[2]))
        if not self._clear([moved2], scene, {moved.name}):
            return None
        return _with(scene, {moved.name: moved2}), (moved.name, reference.name)

    def _remove(
        self, rng: random.Random, scene: RandomScene, _free: list[PlacedObject], _carriers: Mapping[str, str], carrying: set[str]
    ) -> Drawn:
        removable = [o for o in scene.objects if o.name not in carrying]
        if len(scene.objects) < 2 or not removable:
            return None
        gone = rng.choice(removable)
        return tuple(o for o in scene.objects if o is not gone), (gone.name,)

    def _replace(
        self, rng: random.Random, scene: RandomScene, free: list[PlacedObject], _carriers: Mapping[str, str], _carrying: set[str]
    ) -> Drawn:
        if not free:
            return None
        old = rng.choice(free)
        present = {kind_of(o.name) for o in scene.objects}
        longest = max(old.size_m)
        looks = {n: self._looks_like(n, longest) for n in self.pool if n not in present}
        similar = [n for n, fitting in looks.items() if fitting]
        if not similar:
            return None
        new_name = rng.choice(similar)
        variant = rng.choice(looks[new_name]) if self.variants else None  # drawn as any object of a scene draws its look
        new = PlacedObject(new_name, old.position_m, old.yaw_deg, tuple(self.sizes[model_key(new_name, variant)]), variant)
        if not self._clear([new], scene, {old.name}):
            return None
        return _with(scene, {old.name: new}), (old.name, new_name)

    def _rotate(
        self, rng: random.Random, scene: RandomScene, free: list[PlacedObject], _carriers: Mapping[str, str], _carrying: set[str]
    ) -> Drawn:
        """One object with a front, standing on the table with nothing on or in it, turned where it stands by
        `TURN_DEG` either way; one whose kind the scene holds again is never drawn (no question could name it)."""
        kinds = [kind_of(o.name) for o in scene.objects]
        turnable = [o for o in free if kind_of(o.name) in self.fronts and kinds.count(kind_of(o.name)) == 1]
        if not turnable:
            return None
        turned = rng.choice(turnable)
        turn = rng.randint(*TURN_DEG) * rng.choice((-1, 1))
        moved = replace(turned, yaw_deg=round((turned.yaw_deg + turn) % 360, 3))
        if not self._clear([moved], scene, {turned.name}):
            return None
        return _with(scene, {turned.name: moved}), (turned.name,)

    def _looks_like(self, kind: str, longest: float) -> list[Variant | None]:
        """The looks of `kind` a replace may draw in place of an object whose longest side is `longest`: those the
        set draws (its held-out ones left out while training, only they for validation) whose model is of similar
        size; without looks, its catalog model alone."""
        looks: list[Variant | None] = list(self.variants.get(kind, ())) if self.variants else [None]
        return [v for v in looks if _similar(longest, max(self.sizes[model_key(kind, v)]))]

    def _unstack(
        self, rng: random.Random, scene: RandomScene, _free: list[PlacedObject], carriers: Mapping[str, str], carrying: set[str]
    ) -> Drawn:
        liftable = [o for o in scene.objects if o.name in carriers and o.name not in carrying]
        if not liftable:
            return None
        lifted = rng.choice(liftable)
        table = scene.table
        area_w, area_d = placement_bounds(self.config, table.width_m, table.depth_m)
        foot = lifted.footprint() - np.asarray(lifted.position_m[:2])
        ex, ey = np.abs(foot).max(axis=0)
        if ex > area_w or ey > area_d:
            return None
        for _ in range(self.config.placement.attempts):  # a free spot, drawn as placement draws them
            x, y = round(rng.uniform(-area_w + ex, area_w - ex), 5), round(rng.uniform(-area_d + ey, area_d - ey), 5)
            down = replace(lifted, position_m=(x, y, self.table_top_m))
            if self._clear([down], scene, {lifted.name}):
                return _with(scene, {lifted.name: down}), (lifted.name, carriers[lifted.name])
        return None

    def _clear(self, placed: Sequence[PlacedObject], scene: RandomScene, changed: set[str]) -> bool:
        """Whether the objects a change put on the table stay inside the placement area, `min_gap_m` from each
        other and from every object on the table it left alone, and inside the picture as the scene's camera
        frames its own objects (a partner never carries an object out of sight)."""
        margin = self.config.camera.frame_margin * self.resolution[0]
        if not framed(scene.camera, placed, self.resolution, margin):
            return False
        area_w, area_d = placement_bounds(self.config, scene.table.width_m, scene.table.depth_m)
        gap = self.config.placement.min_gap_m
        others = [o for o in scene.objects if o.name not in changed and o.position_m[2] == self.table_top_m]
        feet = [o.footprint() for o in placed]
        if any(np.any(np.abs(f[:, 0]) > area_w) or np.any(np.abs(f[:, 1]) > area_d) for f in feet):
            return False
        pairs = [(f, o.footprint()) for f in feet for o in others]
        pairs += [(feet[i], feet[j]) for i in range(len(feet)) for j in range(i + 1, len(feet))]
        return all(rects_apart(a.tolist(), b.tolist(), gap) for a, b in pairs)


def _similar(a: float, b: float) -> bool:
    return max(a, b) <= SIMILAR_SIZE * min(a, b)


def _with(scene: RandomScene, new: Mapping[str, PlacedObject]) -> tuple[PlacedObject, ...]:
    """The scene's objects, those named in `new` put where `new` has them."""
    return tuple(new.get(o.name, o) for o in scene.objects)


def _partner(scene: RandomScene, kind: str, objects: tuple[PlacedObject, ...], names: tuple[str, ...]) -> RandomScene:
    """The changed scene, its objects left to right as the camera sees them (as every scene keeps them); a rotate
    records its turn."""
    change = Change(scene.id, kind, names, turn_deg=turn_of(scene.objects, objects, names[0]) if kind == "rotate" else None)
    return replace(scene, id=partner_id(scene.id, kind), objects=left_to_right(objects, scene.camera), change=change)


def turn_of(before: Sequence[PlacedObject], after: Sequence[PlacedObject], name: str) -> float:
    """How far the object `name` turned from one placement to the other: degrees from −180 to 180, positive
    anticlockwise seen from above."""
    return turn_between({o.name: o.yaw_deg for o in before}[name], {o.name: o.yaw_deg for o in after}[name])


def turn_between(yaw_from_deg: float, yaw_to_deg: float) -> float:
    """The turn from one yaw to another, −180 to 180 degrees: positive anticlockwise seen from above."""
    return round((yaw_to_deg - yaw_from_deg + 180.0) % 360.0 - 180.0, 3)
