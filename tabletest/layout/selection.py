"""Selections of the canonical enumeration: `--only`, `--sample K --seed S`, `--shard i/n`, `--limit N`.

They compose in that order: `--only` narrows the objects (ids stay canonical), the seeded sample
is drawn from the whole narrowed set (so every shard agrees on it), the shard keeps
`index % n == i`, and the limit keeps the first N. Everything streams in canonical index order.
"""

from __future__ import annotations

import itertools
import os
import random
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeVar

from tabletest.config import Catalog
from tabletest.errors import UserError
from tabletest.layout.enumeration import MAX_OBJECTS, index_to_tuple, scene_count, scene_id, tuple_to_index


@dataclass(frozen=True)
class Scene:
    """Which objects stand on the table, left to right as the camera sees them."""

    n_objects: int
    index: int
    objects: tuple[str, ...]

    @property
    def id(self) -> str:
        return scene_id(self.n_objects, self.index)


@dataclass(frozen=True)
class Shard:
    index: int
    count: int

    def __post_init__(self) -> None:
        """Whatever made it (flag, environment, a record read back), a shard is one of its count."""
        if not 0 <= self.index < self.count:
            raise UserError(f"shard {self.index}/{self.count} is out of range: shards count from 0, so i/n needs 0 <= i < n")

    @classmethod
    def parse(cls, text: str, env: Mapping[str, str] | None = None) -> Shard:
        """`i/n` with 0 <= i < n (shards count from 0, like `index % n == i`), or `auto[/n]` (`from_scheduler`)."""
        head, sep, tail = text.partition("/")
        if head.strip().lower() == "auto":
            if sep and not _decimal(tail):
                raise UserError(f"--shard {text!r}: the count after auto/ must be a number; write e.g. --shard auto/64")
            return cls.from_scheduler(int(tail) if sep else None, os.environ if env is None else env)
        if not (sep and _decimal(head) and _decimal(tail)):
            raise UserError(f"--shard {text!r} is not of the form i/n; write e.g. --shard 0/4")
        i, n = int(head), int(tail)
        if n < 1 or i >= n:
            raise UserError(
                f"--shard {text!r} is out of range: shards count from 0, so i/n needs 0 <= i < n (e.g. 0/{max(n, 1)})"
            )
        return cls(i, n)

    @classmethod
    def from_scheduler(cls, count: int | None, env: Mapping[str, str]) -> Shard:
        """This task's shard from its scheduler's environment, so one script serves every task.

        A SLURM array task is shard `(id - min) / step` of the array's size (`--array=3-7` -> 0/5 ... 4/5);
        with a count given (`auto/n`), the task id is the shard itself, so a resubmission of some of the
        tasks (`--array=3,7`) keeps their shards. A Kubernetes indexed job gives only the index
        (`JOB_COMPLETION_INDEX`); its count comes from `auto/n` or TABLETEST_SHARD_COUNT.
        """
        if count is None and env.get(SHARD_COUNT_ENV, "").strip():
            text = env[SHARD_COUNT_ENV].strip()
            if not _decimal(text):
                raise UserError(f"{SHARD_COUNT_ENV}={text!r} is not a number; set it to the shard count, e.g. 64")
            count = int(text)
        if count is not None and count < 1:
            raise UserError(f"--shard auto: a shard count of {count} is impossible; give 1 or more")
        if "SLURM_ARRAY_TASK_ID" in env:
            task = _env_int(env, "SLURM_ARRAY_TASK_ID")
            if count is not None:
                return cls._checked(task, count, f"SLURM_ARRAY_TASK_ID={task}")
            low, high = _env_int(env, "SLURM_ARRAY_TASK_MIN"), _env_int(env, "SLURM_ARRAY_TASK_MAX")
            step = _env_int(env, "SLURM_ARRAY_TASK_STEP") if env.get("SLURM_ARRAY_TASK_STEP") else 1
            size = _env_int(env, "SLURM_ARRAY_TASK_COUNT") if env.get("SLURM_ARRAY_TASK_COUNT") else None
            span = (high - low) // step + 1 if step > 0 else 0
            if not low <= task <= high:
                raise UserError(
                    f"--shard auto: SLURM_ARRAY_TASK_ID={task} is outside this array's ids {low}..{high} "
                    "(SLURM_ARRAY_TASK_MIN/MAX); run it as a task of that array, or write --shard i/n"
                )
            if step < 1 or span < 1 or (size is not None and size != span) or (task - low) % step:
                raise UserError(
                    f"--shard auto: this SLURM array ({size or '?'} tasks, ids {low}..{high}) is not a plain "
                    "range a-b[:s]; give the shard count with --shard auto/N (the task id is then the shard)"
                )
            return cls((task - low) // step, span)
        if "JOB_COMPLETION_INDEX" in env:
            index = _env_int(env, "JOB_COMPLETION_INDEX")
            if count is None:
                raise UserError(
                    f"--shard auto: JOB_COMPLETION_INDEX={index} (a Kubernetes indexed job) gives no shard count; "
                    f"write --shard auto/N or set {SHARD_COUNT_ENV}=N, with N the job's completions"
                )
            return cls._checked(index, count, f"JOB_COMPLETION_INDEX={index}")
        raise UserError(
            "--shard auto: no scheduler index in the environment (neither SLURM_ARRAY_TASK_ID nor "
            "JOB_COMPLETION_INDEX is set); run it as a SLURM array task or Kubernetes indexed job, or write --shard i/n"
        )

    @classmethod
    def _checked(cls, index: int, count: int, source: str) -> Shard:
        if index >= count:
            raise UserError(f"--shard auto: {source} is not below the shard count {count}; shards count from 0 to {count - 1}")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


SHARD_COUNT_ENV = "TABLETEST_SHARD_COUNT"


def _decimal(text: str) -> bool:
    """Plain ASCII digits, as a task number or count is written (`str.isdigit` also takes '²')."""
    text = text.strip()
    return text.isascii() and text.isdigit() and len(text) <= 18


def _env_int(env: Mapping[str, str], name: str) -> int:
    text = env.get(name, "").strip()
    if not _decimal(text):
        raise UserError(f"--shard auto: {name}={text!r} is not a task number; is this a SLURM array task?")
    return int(text)


@dataclass(frozen=True)
class Selection:
    n_objects: int
    only: tuple[str, ...] | None = None
    sample: int | None = None
    seed: int = 0
    shard: Shard | None = None
    limit: int | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.n_objects <= MAX_OBJECTS:
            raise UserError(f"--objects {self.n_objects} is not supported; use 1, 2 or 3")
        if self.limit is not None and self.limit < 0:
            raise UserError(f"--limit {self.limit} is negative; give a count of 0 or more")
        if self.sample is not None and self.sample < 0:
            raise UserError(f"--sample {self.sample} is negative; give a count of 0 or more")


def parse_only(text: str | None) -> tuple[str, ...] | None:
    """`--only "mug, wine bottle"` -> ("mug", "wine bottle")."""
    if text is None:
        return None
    names = tuple(n.strip().lower() for n in text.split(",") if n.strip())
    if not names:
        raise UserError("--only is empty; give comma-separated object names, e.g. --only mug,banana")
    return names


def select_scenes(catalog: Catalog, selection: Selection) -> Iterator[Scene]:
    """Stream the selected scenes in canonical index order."""
    n, names = selection.n_objects, catalog.names
    pairs = _candidates(catalog, _pool(catalog, selection), selection)
    for index, objects in chosen(pairs, selection.shard, selection.limit, index=lambda pair: pair[0]):
        yield Scene(n, index, tuple(names[o] for o in objects))


def count_selected(catalog: Catalog, selection: Selection) -> int:
    """How many scenes `select_scenes` yields, without decoding them all when it can be avoided."""
    return count_chosen(selected_indices(catalog, selection), selection.shard, selection.limit)


def selected_indices(catalog: Catalog, selection: Selection) -> Iterable[int]:
    """The canonical indices `--only` and `--sample` select, in order, before `--shard` and `--limit` (`chosen`):
    a range where they are all the scenes of `--objects`."""
    pool = _pool(catalog, selection)
    if selection.only is None and selection.sample is None:
        return range(scene_count(len(pool), selection.n_objects))
    return (index for index, _ in _candidates(catalog, pool, selection))


def scenes_at(catalog: Catalog, selection: Selection, indices: Iterable[int]) -> Iterator[Scene]:
    """The scenes of `indices` (in order, among those `--only` and `--sample` select), decoded as the enumeration
    streams past them."""
    n, names = selection.n_objects, catalog.names
    pairs = _candidates(catalog, _pool(catalog, selection), selection)
    for wanted in indices:
        for index, objects in pairs:
            if index == wanted:
                yield Scene(n, index, tuple(names[o] for o in objects))
                break


T = TypeVar("T")


def chosen(items: Iterable[T], shard: Shard | None, limit: int | None, index: Callable[[T], int] = lambda item: item) -> Iterator[T]:
    """`--shard i/n` keeps every item whose index has `index % n == i`, then `--limit N` the first N of those: the one
    rule every scene family's run, merge and vignettes take."""
    items = iter(items)
    if shard is not None:
        i, k = shard.index, shard.count
        items = (item for item in items if index(item) % k == i)
    if limit is not None:
        items = itertools.islice(items, min(limit, sys.maxsize))  # a limit past every scene is no limit
    return items


def count_chosen(indices: Iterable[int], shard: Shard | None, limit: int | None) -> int:
    """How many of `indices` `chosen` keeps: counted without iterating where they are a range."""
    if isinstance(indices, range):
        total = len(indices if shard is None else indices[shard.index :: shard.count])
        return total if limit is None else min(total, limit)
    return sum(1 for _ in chosen(indices, shard, limit))


def _pool(catalog: Catalog, selection: Selection) -> list[int]:
    if selection.only is None:
        return list(range(len(catalog)))
    return sorted({catalog.index_of(name) for name in selection.only})


def _candidates(catalog: Catalog, pool: list[int], selection: Selection) -> Iterator[tuple[int, tuple[int, ...]]]:
    """(canonical index, catalog tuple) pairs, in canonical order, after --only and --sample."""
    n, n_catalog = selection.n_objects, len(catalog)
    if len(pool) < n:
        raise UserError(f"--only names {len(pool)} object(s) but --objects {n} needs at least {n}")
    total = scene_count(len(pool), n)
    full = len(pool) == n_catalog
    if selection.sample is None:
        if full:
            yield from enumerate(itertools.permutations(range(n_catalog), n))
        else:
            for objects in itertools.permutations(pool, n):
                yield tuple_to_index(objects, n_catalog), objects
        return
    if selection.sample > total:
        raise UserError(f"--sample {selection.sample} is more than the {total} scenes selected; use at most {total}")
    for position in sorted(random.Random(selection.seed).sample(range(total), selection.sample)):
        objects = tuple(pool[p] for p in index_to_tuple(position, len(pool), n))
        yield (position if full else tuple_to_index(objects, n_catalog)), objects
