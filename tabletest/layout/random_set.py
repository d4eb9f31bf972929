"""A set of random scenes: `--count N --seed S`, the object pool, and `--shard` / `--limit` on top.

Scene ids are `rnd{seed}-{i:07d}` for i in 0..N-1; `--shard i/n` keeps `index % n == i` and `--limit`
the first N of what is left, exactly as for the benchmark, so shards are disjoint and cover the set.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from tabletest.assets.manifest import AssetEntry, load_manifest
from tabletest.assets.variants import ModelLook, model_of_key
from tabletest.config import MIN_REGION_M, Catalog, Region
from tabletest.errors import UserError
from tabletest.layout.arrangements import Contact, Shape, region_m, support_heights, within
from tabletest.layout.counterfactuals import Candidates, check_kinds
from tabletest.layout.random_config import RandomConfig, load_random_config
from tabletest.layout.random_scene import RandomScene, Vec3, random_scene_id, sample_scene
from tabletest.layout.selection import Selection, Shard, chosen
from tabletest.layout.variants import Variant, kind_variants

FLAT_M = 0.002  # a support's top may vary this much across its region (a book's cover does not at all)
MAX_VIEWS = 99  # views of one scene (ids end -view2 ... -view99)
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
    carriers: tuple[tuple[str, Region | None, Region | None], ...] = ()  # (name, support, container) with arrangements on
    catalog_sizes: tuple[tuple[str, float], ...] = ()  # (name, size_m) of every object a container could be meant for
    counterfactuals: tuple[str, ...] = ()  # the kinds of partner each scene gets (`--counterfactuals`)
    views: int = 1  # the views each scene is rendered from (`--views`): 1 is the scene alone
    variants: tuple[tuple[str, tuple[Variant, ...]], ...] = ()  # (kind, the looks it may take) with the config's `looks` on
    fronts: tuple[tuple[str, float], ...] = ()  # (kind, front_deg) of the pool's kinds with a front, with rotate partners

    def with_look_models(self, catalog: Catalog, assets_dir: Path) -> tuple[RandomSet, dict[str, AssetEntry]]:
        """The set as the assets folder lets it draw (a kind whose model is a file draws among its files, `assets
        fetch --per-object`), and the models of its looks beyond the catalog's, built from recipes as needed."""
        from tabletest.assets.manifest import file_model_counts
        from tabletest.assets.needed import needed_looks

        chosen = self
        files = file_model_counts(assets_dir, self.pool) if self.config.looks.enabled else {}
        if files:
            chosen = replace(self, variants=tuple(kind_variants(self.pool, self.config.looks, files).items()))
        looks = chosen.model_looks()
        return chosen, (needed_looks(catalog, assets_dir, looks) if looks else {})

    def model_looks(self) -> list[ModelLook]:
        """The models other than the catalog's the set's looks draw (`mug/2`), in pool order."""
        seen = {v.model.key: v.model for _, variants in self.variants for v in variants if v.model.number}
        return list(seen.values())

    @property
    def per_scene(self) -> int:
        """Images per scene of the set at most: its views and its partners."""
        return self.views + len(self.counterfactuals)

    def candidates(self, sizes: Mapping[str, Vec3], table_height_m: float, resolution: tuple[int, int]) -> Candidates:
        """What the scenes' counterfactual partners are drawn from (`resolution`: the images', whose frame they keep)."""
        return Candidates(self.config, self.seed, self.pool, sizes, table_height_m, resolution, dict(self.variants), dict(self.fronts))

    def contact(self, entries: Mapping[str, AssetEntry], assets_dir: Path) -> Contact | None:
        """The shapes and arrangements the set's scenes are placed and labelled with; None without arrangements."""
        shapes = self.shapes(entries, assets_dir)
        return None if shapes is None else Contact(shapes, self.config.arrangements)

    def shapes(self, entries: Mapping[str, AssetEntry], assets_dir: Path) -> dict[str, Shape] | None:
        """The pool's models as placement sees them (None when the config arranges nothing: boxes suffice). A
        region too small on its model to hold anything, a support that is not flat, or a container whose
        opening no other object of the catalog fits in, is refused here, before anything starts."""
        if not self.config.arrangements.enabled:
            return None
        models = {**load_manifest(assets_dir).objects, **entries}
        roles = {name: (support, container) for name, support, container in self.carriers}
        keys = [*self.pool, *(look.key for look in self.model_looks())]
        shapes = {
            key: Shape(entries[key].size_m, str(assets_dir / entries[key].file), entries[key].sha256, *roles.get(model_of_key(key)[0], (None, None)))
            for key in keys
        }
        for name, shape in shapes.items():
            _refuse_unusable_regions(name, shape)
            if shape.support is not None:
                low, high = support_heights(shape)
                if high - low > FLAT_M:
                    raise UserError(
                        f"the {name}'s support region is not flat: its top runs from {low * 1000:.1f} to {high * 1000:.1f} mm; "
                        "narrow its `support` region in the catalog to a flat part, or drop it"
                    )
            if shape.container is not None and not self._anything_fits(name, shape, models):
                w, d = _opening(shape)
                raise UserError(
                    f"the {name}'s container opening ({w * 100:.1f} x {d * 100:.1f} cm) is smaller than every other object "
                    "of the catalog; widen its `container` region in the catalog, or drop it"
                )
        return shapes

    def _anything_fits(self, name: str, container: Shape, models: Mapping[str, AssetEntry]) -> bool:
        """Whether another object of the catalog fits the container's opening: by its model where the assets
        folder holds one, else by its catalog size as a square footprint (the most it can need), so an entry
        without a model neither skips the judgement nor condemns the container."""
        return any(
            _fits_opening(container, models[other].size_m if other in models else (largest, largest, largest))
            for other, largest in self.catalog_sizes
            if other != name
        )

    def indices(self) -> Iterator[int]:
        return set_indices(self.count, self.shard, self.limit)

    def ids(self) -> Iterator[str]:
        return set_ids(self.seed, self.count, self.shard, self.limit)

    def scenes(
        self, sizes: Mapping[str, Vec3], table_height_m: float, sensor_width_mm: float, resolution: tuple[int, int],
        skip: frozenset[str] | set[str] = frozenset(), shapes: Mapping[str, Shape] | None = None, indices: Iterable[int] | None = None,
    ) -> Iterator[RandomScene]:
        """The selected scenes (or those of `indices`), sampled one at a time as they are needed (ids in `skip` are not sampled)."""
        for index in self.indices() if indices is None else indices:
            if random_scene_id(self.seed, index) not in skip:
                yield sample_scene(
                    self.config, self.pool, sizes, self.seed, index, table_height_m, sensor_width_mm, resolution, shapes,
                    variants=dict(self.variants) or None,
                )

    def settings(self) -> dict:
        """What decides the set's scenes, for the output folder's settings guard (count, shard and limit
        only select from the set, so a rerun may widen them)."""
        settings = {"family": "random", "config_sha256": self.config.digest, "seed": self.seed, "pool": list(self.pool), "front": "ground"}
        if self.pair_nouns:
            settings["pair_nouns"] = list(self.pair_nouns)
        if self.carriers:
            settings["carriers"] = {
                name: {"support": list(support) if support else None, "container": list(container) if container else None}
                for name, support, container in self.carriers
            }
        if self.fronts:  # which objects a rotate may turn, and its difference's facing relations
            settings["fronts"] = dict(self.fronts)
        return settings

    def info(self) -> dict:
        """What identifies the set, for run.json and the settings guard."""
        return {
            "family": "random",
            "config_sha256": self.config.digest,
            "seed": self.seed,
            "count": self.count,
            "pool": list(self.pool),
            "held_out": list(self.config.objects.held_out),
            **({"looks": self.config.looks.model_dump(mode="json")} if self.config.looks.enabled else {}),
            "shard": str(self.shard) if self.shard else None,
            "limit": self.limit,
            **({"counterfactuals": list(self.counterfactuals)} if self.counterfactuals else {}),
            **({"views": self.views} if self.views > 1 else {}),
        }


def set_indices(count: int, shard: Shard | None, limit: int | None) -> Iterator[int]:
    """The indices `--count`, `--shard` and `--limit` select from a random set."""
    return chosen(range(count), shard, limit)


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
    shard: Shard | None, limit: int | None, sample: int | None, counterfactuals: str | None = None, views: int | None = None,
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
    objects = [catalog.by_name(name) for name in pool] if config.arrangements.enabled else []
    carriers = tuple((o.name, o.support, o.container) for o in objects if o.support or o.container)
    kinds = check_kinds(counterfactuals) if counterfactuals is not None else ()
    if views is not None and views < 1:
        raise UserError(f"--views {views}: give how many cameras see each scene, 1 or more (1: the scene alone), e.g. --views 2")
    if views is not None and views > MAX_VIEWS:
        raise UserError(f"--views {views} is more than {MAX_VIEWS} views of one scene; render more scenes instead")
    sizes = tuple((o.name, o.size_m) for o in catalog.objects) if carriers else ()
    variants = tuple(kind_variants(pool, config.looks).items()) if config.looks.enabled else ()
    if config.looks.enabled:
        pool = tuple(kind for kind, _ in variants)
        if not pool and config.looks.split == "validation":
            raise UserError("looks.split validation: no object has a held-out look; name some in looks.held_out")
        if not pool:
            raise UserError(
                f"looks.held_out {list(config.looks.held_out)} holds out every look of the objects drawn, so training has "
                "none left to draw; hold out fewer (a model such as mug/2, or a colour), or raise looks.models"
            )
    fronted = (catalog.by_name(name) for name in pool)
    fronts = tuple((o.name, o.front_deg) for o in fronted if o.has_front) if "rotate" in kinds else ()
    if "rotate" in kinds and not fronts:
        raise UserError(
            "--counterfactuals rotate turns an object with a front (has_front in the catalog), and none of the objects "
            "drawn has one; draw some (e.g. --only kettle,laptop,mug), or drop rotate"
        )
    return RandomSet(config, seed, count, pool, shard, limit, pairs, carriers, sizes, kinds, views or 1, variants, fronts)


def random_set_for(
    catalog: Catalog, scenes: str, count: int | None, config_path, seed: int, selection: Selection, sample: int | None,
    counterfactuals: str | None = None, views: int | None = None,
) -> RandomSet | None:
    """The random set `--scenes random --count N --random-config FILE` asks for; None for the benchmark."""
    if scenes == "random":
        config = load_random_config(config_path)
        return make_random_set(
            catalog, config, seed, count, selection.only, selection.shard, selection.limit, sample, counterfactuals, views
        )
    if count is not None or config_path is not None:
        raise UserError("--count and --random-config go with --scenes random; add it, or drop them")
    for flag, value in (("--counterfactuals", counterfactuals), ("--views", views)):
        if value is not None:
            raise UserError(f"{flag} goes with random scenes (the study's benchmark has its fixed camera); add --scenes random --count N, or drop it")
    return None


def _refuse_unusable_regions(name: str, shape: Shape) -> None:
    """A region under MIN_REGION_M a side on the model itself (the catalog judged it at the object's full
    size), or a support over none of the model's columns (its top would be the height of nothing), refused
    in one line naming the object and the field rather than failing in placement."""
    for field in ("support", "container"):
        region = getattr(shape, field)
        if region is None:
            continue
        bounds = left, front, right, back = region_m(shape, region)
        size = f"{(right - left) * 1000:.1f} x {(back - front) * 1000:.1f} mm"
        if min(right - left, back - front) < MIN_REGION_M:
            raise UserError(
                f"the {name}'s {field} region {list(region)} is {size} on its model, too small to hold anything; widen "
                f"its `{field}` region in the catalog to at least {MIN_REGION_M * 1000:g} mm a side, or drop it"
            )
        if field == "support" and not within(*shape.columns.cell_centers()[:2], bounds).any():
            raise UserError(
                f"the {name}'s support region {list(region)} ({size}) lies beside its model, over none of its top; "
                "move its `support` region in the catalog over the model's top, or drop it"
            )


def _opening(container: Shape) -> tuple[float, float]:
    """The container's opening: width and depth in metres."""
    left, front, right, back = region_m(container, container.container)
    return right - left, back - front


def _fits_opening(container: Shape, size: Vec3) -> bool:
    """Whether a footprint of `size` fits the opening, turned either way."""
    w, d = _opening(container)
    a, b = size[0], size[1]
    return (a <= w and b <= d) or (a <= d and b <= w)
