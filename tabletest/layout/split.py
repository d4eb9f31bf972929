"""Held-out splits, decided per scene so that all of a scene's questions land in the same split.

`scene`: each scene goes to validation with probability `val_fraction` (seeded by the scene id, so
the choice streams and never depends on the order or on the other scenes). `object`: that fraction
of the dataset's objects is held out; validation gets every scene showing one of them, training
the rest, so a model trained on it has never seen a validation object. `appearance` (random
scenes): that fraction of the dataset's table surfaces and of its HDRIs is held out; validation gets
every scene on a held-out table or under a held-out sky, training only scenes with neither. `look` (random
scenes with looks): that fraction of the dataset's object looks (`mug/2/red`) is held out; validation gets
every scene showing one of them, so no training image shows a held-out look.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from tabletest.errors import UserError
from tabletest.files.family import BENCHMARK, family_of

SplitBy = Literal["object", "scene", "appearance", "look"]
BY_LABEL = ("appearance", "look")  # the splits that hold out labels of a record (`labels`), not objects
TRAIN, VALIDATION, TEST = "train", "validation", "test"


@dataclass(frozen=True)
class Split:
    by: SplitBy | None = None
    val_fraction: float = 0.0
    seed: int = 0
    held_out: tuple[str, ...] = ()
    whole: str = TRAIN  # the one split's name when nothing is held out (`test` for evaluation sets)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.whole,) if self.by is None else (TRAIN, VALIDATION)

    def of(self, scene_id: str, shown: Iterable[str] = ()) -> str:
        """`shown`: what the scene (with its views and partners) shows of what the split holds out: its objects, or
        its `labels(by, record)` for the appearance and look splits."""
        if self.by is None:
            return self.whole
        if self.by in ("object", *BY_LABEL):
            return VALIDATION if set(shown) & set(self.held_out) else TRAIN
        return VALIDATION if random.Random(f"{self.seed}:{scene_id}").random() < self.val_fraction else TRAIN

    def describe(self) -> dict:
        return {
            "by": self.by,
            "val_fraction": self.val_fraction,
            "seed": self.seed,
            {"appearance": "held_out_looks", "look": "held_out_object_looks"}.get(self.by or "", "held_out_objects"): list(self.held_out),
        }


def check_fraction(val_fraction: float | None, by: SplitBy | None) -> float:
    if val_fraction is None:
        return 0.1 if by else 0.0
    if by is None:
        raise UserError("--val-fraction needs --split-by object|scene; add one, or drop --val-fraction")
    if not 0 < val_fraction < 1:
        raise UserError(f"--val-fraction {val_fraction} is outside (0, 1); give e.g. --val-fraction 0.1")
    return val_fraction


def looks(record: dict) -> tuple[str, ...]:
    """A random scene's appearance as labels: `table:<surface>`, `hdri:<world>`."""
    scene = record.get("scene")
    if not isinstance(scene, dict) or "table" not in scene:
        raise UserError(
            f"--split-by appearance needs random scenes (`tabletest render --scenes random`); {record.get('id')} has no table or HDRI to hold out"
        )
    return (f"table:{scene['table']['surface']}", f"hdri:{scene['world']['hdri']}")


def labels(by: SplitBy | None, record: dict) -> tuple[str, ...]:
    """What the appearance or look split holds out of a record: its table and sky, or its objects' looks."""
    if by == "appearance":
        return looks(record)
    if by != "look":
        return ()
    shown = tuple(o["variant"]["look"] for o in record.get("objects", ()) if o.get("variant"))
    family = family_of(record) or BENCHMARK
    if not shown and family.placement == "slots":  # the benchmark's models are the catalog's, in their own colours
        raise UserError(
            f"--split-by look needs random scenes rendered with looks (random config `looks`); {record.get('id')} is the {family.name}'s"
        )
    return shown


def make_split(by: SplitBy | None, val_fraction: float, seed: int, objects: Iterable[str], whole: str = TRAIN) -> Split:
    """`objects`: every object name of the dataset, or for `appearance` every look label (needed only to hold some out)."""
    if by == "appearance":
        rng, labels = random.Random(seed), set(objects)
        held: list[str] = []
        for kind in ("table", "hdri"):
            pool = sorted(label for label in labels if label.startswith(f"{kind}:"))
            if len(pool) < 2:
                raise UserError(f"--split-by appearance needs at least two {kind} looks in the dataset, and it shows {len(pool)}")
            held += rng.sample(pool, min(max(1, round(val_fraction * len(pool))), len(pool) - 1))
        return Split(by, val_fraction, seed, tuple(sorted(held)))
    if by == "look":
        pool = sorted(set(objects))
        if len(pool) < 2:
            raise UserError(
                f"--split-by look needs at least two object looks in the dataset, and it shows {len(pool)}; render random "
                "scenes with `looks` on in the random config (models above 1, or colours: true)"
            )
        count = min(max(1, round(val_fraction * len(pool))), len(pool) - 1)
        return Split(by, val_fraction, seed, tuple(sorted(random.Random(seed).sample(pool, count))))
    if by != "object":
        return Split(by, val_fraction, seed, whole=whole)
    pool = sorted(set(objects))
    if len(pool) < 2:
        raise UserError(f"--split-by object needs at least two different objects, and the dataset shows {len(pool)}")
    count = min(max(1, round(val_fraction * len(pool))), len(pool) - 1)
    return Split(by, val_fraction, seed, tuple(sorted(random.Random(seed).sample(pool, count))))
