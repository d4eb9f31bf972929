"""A set of random scenes: `--count N --seed S`, the object pool, and `--shard` / `--limit` on top.

Scene ids are `rnd{seed}-{i:07d}` for i in 0..N-1; `--shard i/n` keeps `index % n == i` and `--limit`
the first N of what is left, exactly as for the benchmark, so shards are disjoint and cover the set.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from tabletest.config import Catalog
from tabletest.errors import UserError
from tabletest.layout.random_config import RandomConfig, load_random_config
from tabletest.layout.random_scene import RandomScene, Vec3, random_scene_id, sample_scene
from tabletest.layout.selection import Selection, Shard

MAX_COUNT = 1_000_000_000  # scenes per set: far beyond any render, and small enough to count with


@dataclass(frozen=True)
class RandomSet:
    config: RandomConfig
    seed: int
    count: int
    pool: tuple[str, ...]  # the names scenes draw from, in catalog order
    shard: Shard | None = None
    limit: int | None = None
    pair_nouns: tuple[str, ...] = ()  # the pool's names that are plural in form ("scissors"): records' vignettes say "are"

    def indices(self) -> Iterator[int]:
        return set_indices(self.count, self.shard, self.limit)

    def ids(self) -> Iterator[str]:
        return set_ids(self.seed, self.count, self.shard, self.limit)

    def selected(self) -> int:
        total = len(range(self.count)) if self.shard is None else len(range(self.shard.index, self.count, self.shard.count))
        return total if self.limit is None else min(total, self.limit)

    def scenes(
        self, sizes: Mapping[str, Vec3], table_height_m: float, sensor_width_mm: float, resolution: tuple[int, int],
        skip: frozenset[str] | set[str] = frozenset(),
    ) -> Iterator[RandomScene]:
        """The selected scenes, sampled one at a time as they are needed (ids in `skip` are not sampled)."""
        for index in self.indices():
            if random_scene_id(self.seed, index) not in skip:
                yield sample_scene(self.config, self.pool, sizes, self.seed, index, table_height_m, sensor_width_mm, resolution)

    def settings(self) -> dict:
        """What decides the set's scenes, for the output folder's settings guard (count, shard and limit
        only select from the set, so a rerun may widen them)."""
        settings = {"family": "random", "config_sha256": self.config.digest, "seed": self.seed, "pool": list(self.pool), "front": "ground"}
        return {**settings, "pair_nouns": list(self.pair_nouns)} if self.pair_nouns else settings

    def info(self) -> dict:
        """What identifies the set, for run.json and the settings guard."""
        return {
            "family": "random",
            "config_sha256": self.config.digest,
            "seed": self.seed,
            "count": self.count,
            "pool": list(self.pool),
            "held_out": list(self.config.objects.held_out),
            "shard": str(self.shard) if self.shard else None,
            "limit": self.limit,
        }


def set_indices(count: int, shard: Shard | None, limit: int | None) -> Iterator[int]:
    """The indices `--count`, `--shard` and `--limit` select from a random set."""
    chosen = range(count) if shard is None else range(shard.index, count, shard.count)
    return itertools.islice(iter(chosen), None if limit is None else min(limit, count))


def set_ids(seed: int, count: int, shard: Shard | None, limit: int | None) -> Iterator[str]:
    """The scene ids of that selection (what `tabletest merge` checks a part against, without the config)."""
    return (random_scene_id(seed, i) for i in set_indices(count, shard, limit))


def object_pool(catalog: Catalog, config: RandomConfig, only: tuple[str, ...] | None) -> tuple[str, ...]:
    """`--only`'s objects, else the catalog's, less the config's held-out ones; unknown names are refused."""
    held = {catalog.by_name(name).name for name in config.objects.held_out}
    pool = tuple(o.name for o in catalog.select(only) if o.name not in held)
    if not pool:
        raise UserError("no object left to draw: --only names only held-out objects; name others or edit objects.held_out")
    return pool


def make_random_set(
    catalog: Catalog, config: RandomConfig, seed: int, count: int | None, only: tuple[str, ...] | None,
    shard: Shard | None, limit: int | None, sample: int | None,
) -> RandomSet:
    if count is None or count < 1:
        raise UserError("--scenes random needs --count N (how many scenes, at least 1), e.g. --count 1000")
    if count > MAX_COUNT:
        raise UserError(f"--count {count} is more than one set holds ({MAX_COUNT:,}); split it into sets with other --seed values")
    if sample is not None:
        raise UserError("--sample picks from the benchmark's enumeration; with --scenes random use --count, --shard and --limit")
    if limit is not None and limit < 0:
        raise UserError(f"--limit {limit} is negative; give a count of 0 or more")
    pool = object_pool(catalog, config, only)
    pairs = tuple(name for name in pool if catalog.by_name(name).pair)
    return RandomSet(config, seed, count, pool, shard, limit, pairs)


def random_set_for(
    catalog: Catalog, scenes: str, count: int | None, config_path, seed: int, selection: Selection, sample: int | None
) -> RandomSet | None:
    """The random set `--scenes random --count N --random-config FILE` asks for; None for the benchmark."""
    if scenes == "random":
        config = load_random_config(config_path)
        return make_random_set(catalog, config, seed, count, selection.only, selection.shard, selection.limit, sample)
    if count is not None or config_path is not None:
        raise UserError("--count and --random-config go with --scenes random; add it, or drop them")
    return None
