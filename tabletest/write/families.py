"""The families of scenes a render makes: for each, its whole set of scenes, what refuses them, how each is
rendered, and the record of each image, checked against the family's record model before it is written.

A run asks its family, never which family it is. A family is a class here (or in a module of its own that
`files.family.FAMILIES` names), a sampler (the benchmark's enumeration, `layout.selection`; a random set,
`layout.random_set`) and its entry in `files.family`, which every reader finds its records' facts through.
A family says what its whole set is; `--shard`, `--limit` and resume are applied here (`SceneFamily.pending`),
once for every family, and what a family yields is checked against them.
Imports no NumPy until a record or spec is made, so a benchmark run starts its workers without it.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from tabletest.assets.manifest import AssetEntry
from tabletest.config import Catalog, Config
from tabletest.errors import UserError
from tabletest.files.family import FAMILIES, Family, companion_ids
from tabletest.layout.enumeration import scene_id
from tabletest.layout.selection import Scene, Selection, Shard, chosen, count_chosen, scenes_at, selected_indices

if TYPE_CHECKING:
    from tabletest.files.records import Closed
    from tabletest.layout.random_scene import RandomScene
    from tabletest.layout.random_set import RandomSet
    from tabletest.layout.spec import SceneSpec


@dataclass(frozen=True)
class Asked:
    """What `tabletest render` asks of the family it names with `--scenes`: the selection's flags (`--objects`,
    `--only`, `--sample`, `--shard`, `--limit`), the run's seed, and the flags a random set takes."""

    catalog: Catalog
    selection: Selection
    seed: int
    count: int | None = None
    random_config: Path | None = None
    counterfactuals: str | None = None
    views: int | None = None

    def refuse_set_flags(self) -> None:
        """Refuse the flags only a random set takes, for a family that has no use for them."""
        if any(flag is not None for flag in (self.count, self.random_config, self.counterfactuals, self.views)):
            from tabletest.layout.random_set import random_set_for  # NumPy: only to say which flag is wrong

            random_set_for(self.catalog, "benchmark", self.count, self.random_config, self.seed, self.selection, None, self.counterfactuals, self.views)


def family_class(family: Family) -> type[SceneFamily]:
    """The write side of a family, as its entry in `files.family` names it (`maker`)."""
    module, _, name = family.maker.partition(":")
    return getattr(importlib.import_module(module), name)


def scene_family(name: str, asked: Asked) -> SceneFamily:
    """The family `tabletest render --scenes NAME` renders, made from the flags, with the run's `--shard` and `--limit`."""
    family = next((family for family in FAMILIES if family.name == name), None)
    if family is None:
        raise UserError(f"--scenes {name} is no scene family; give one of {', '.join(f.name for f in FAMILIES)}")
    made = family_class(family).asked(asked)
    made.shard, made.limit = asked.selection.shard, asked.selection.limit
    return made


class SceneFamily(ABC):
    """The scenes one render run renders, and the records of their images. A family says what its whole set is
    (`indices`, `ids`, `scenes`); the run's `--shard` and `--limit` (`selected`) and resume (`pending`) are
    applied here, for every family alike."""

    name: ClassVar[str]  # its entry in `files.family.FAMILIES`
    shard: Shard | None = None
    limit: int | None = None

    @classmethod
    @abstractmethod
    def asked(cls, asked: Asked) -> SceneFamily:
        """The family `tabletest render`'s flags ask for; flags it has no use for refused in one line."""

    @property
    def records(self) -> Family:
        """What every reader knows of its records (`files.family`)."""
        return next(family for family in FAMILIES if family.name == self.name)

    # what a family says of its whole set

    @abstractmethod
    def indices(self) -> Iterable[int]:
        """The indices of its whole set, in order, before `--shard` and `--limit`: a range where they are 0..N-1."""

    @abstractmethod
    def ids(self, index: int) -> list[str]:
        """The ids of the images of scene `index`: the scene's, then its other views' and partners' (at most: a
        scene may allow no view or partner of a kind)."""

    @abstractmethod
    def scenes(self, indices: Iterator[int], done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[Scene | RandomScene]:
        """For each of `indices`, in order, its scene and its other views and partners, but those whose ids are in
        `done`; `on_skip(kind, scene id)` for each view or partner (`kind` "view" or the partner's) a scene cannot have."""

    # what the run renders of it: the same for every family

    def selected(self) -> Iterator[int]:
        """The indices this run renders: `--shard i/n` keeps every index with `index % n == i`, `--limit` the first N."""
        return chosen(self.indices(), self.shard, self.limit)

    def images(self) -> int:
        """How many images it asks for (at most: a scene may allow no view or partner of a kind)."""
        first = next(iter(self.indices()), None)
        return 0 if first is None else count_chosen(self.indices(), self.shard, self.limit) * len(self.ids(first))

    def image_ids(self) -> Iterator[str]:
        """The ids of those images, to count what an earlier run already made."""
        return (sid for index in self.selected() for sid in self.ids(index))

    def pending(self, done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[Scene | RandomScene]:
        """The scenes of the selected indices whose images are not in `done`, each checked to be one the run asked
        for: of this family, of an index its shard keeps, not done, and no more scenes than `--limit`."""
        todo = (index for index in self.selected() if not all(sid in done for sid in self.ids(index)))
        family, counted = self.records, set()
        for scene in self.scenes(todo, done, on_skip):
            if problem := self._unasked(family, scene.id, scene.index, done, counted):
                raise RuntimeError(f"the {self.name} family made {scene.id}, with {problem}: a family yields only what the run asks for")
            yield scene

    def _unasked(self, family: Family, sid: str, index: int, done: set[str], counted: set[int]) -> str | None:
        """What makes a scene one the run did not ask for, else None."""
        named = family.match(sid)
        if named is None:
            return "an id of another family's"
        if int(named["index"]) != index:
            return f"the index {index}, where its id names {named['index']}"
        if self.shard is not None and index % self.shard.count != self.shard.index:
            return f"an index outside --shard {self.shard}"
        if sid in done:
            return "an image made already"
        counted.add(index)
        return f"more scenes than --limit {self.limit}" if self.limit is not None and len(counted) > self.limit else None

    # what a run needs of a family to render and record its scenes

    def check(self, mode: str, engine: str) -> None:
        """Refuse a render mode or engine its scenes cannot be rendered in (before anything is made)."""

    @property
    def hdris(self) -> tuple[str, ...]:
        """The bpy wheel's HDRIs its scenes light with, checked before a run starts."""
        return ()

    def check_models(self, entries: Mapping[str, AssetEntry], assets_dir: Path) -> None:
        """Refuse models its scenes cannot be placed with, before the output folder is made."""

    @abstractmethod
    def settings(self) -> dict:
        """What it adds to the output folder's dataset settings (`tabletest.files.settings`)."""

    @abstractmethod
    def run_info(self) -> dict:
        """What identifies its scenes in run.json."""

    @abstractmethod
    def model_names(self) -> set[str]:
        """The catalog names of the models its scenes may hold."""

    def look_models(self, catalog: Catalog, assets_dir: Path) -> dict[str, AssetEntry]:
        """The models its scenes may show beyond the catalog's (`mug/2`), built as needed, by key."""
        return {}

    @property
    @abstractmethod
    def objects_per_scene(self) -> float:
        """Objects in a scene, on average: what loading all the run's models at once is weighed against."""

    @abstractmethod
    def prepare(self, catalog: Catalog, config: Config, entries: dict[str, AssetEntry], assets_dir: Path) -> None:
        """Take in what its scenes and records are made with, once the run's models are known."""

    @abstractmethod
    def spec(self, scene: Scene | RandomScene, config: Config, entries: dict[str, AssetEntry], assets_dir: Path, resolution: tuple[int, int]) -> SceneSpec:
        """What a worker needs to render the scene."""

    @property
    def model(self) -> type[Closed]:
        """The model every record of the family is checked against, where it is written and where it is read."""
        from tabletest.files.records import models_of

        return models_of(self.records)[0]

    @abstractmethod
    def _record(self, spec: SceneSpec, measured: list[dict], render: dict, mask: bool) -> dict:
        """The metadata record of the image rendered from `spec`, with what the render measured."""

    def record(self, spec: SceneSpec, measured: list[dict], render: dict, mask: bool) -> dict:
        """The record of the image rendered from `spec`, as its model accepts it (a ValueError otherwise: a
        number no record holds was measured)."""
        made = self._record(spec, measured, render, mask)
        self.model.model_validate(made)
        return made

    # what `tabletest merge` needs of a family: a part's whole set, from what its run recorded

    @classmethod
    @abstractmethod
    def recorded_set(cls, scenes: dict, selection: dict, catalog: Catalog) -> tuple[Iterable[int], Callable[[int], str]]:
        """The indices of the whole set a run rendered from, and each scene's id, from its run.json's `scenes` and
        `command.selection` (before `--shard` and `--limit`)."""


class Benchmark(SceneFamily):
    """The study's fixed scenes: `--objects`, `--only` and `--sample` of the enumeration."""

    name = "benchmark"

    def __init__(self, catalog: Catalog, selection: Selection) -> None:
        self.catalog = catalog
        self.selection = selection
        self._camera = None
        self._footprints = None

    @classmethod
    def asked(cls, asked: Asked) -> Benchmark:
        asked.refuse_set_flags()
        return cls(asked.catalog, asked.selection)

    def indices(self) -> Iterable[int]:
        return selected_indices(self.catalog, self.selection)

    def ids(self, index: int) -> list[str]:
        return [scene_id(self.selection.n_objects, index)]

    def scenes(self, indices: Iterator[int], done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[Scene]:
        return scenes_at(self.catalog, self.selection, indices)

    def settings(self) -> dict:
        return {}

    def run_info(self) -> dict:
        return {"scenes": {"family": "benchmark"}}

    def model_names(self) -> set[str]:
        return {name for scene in scenes_at(self.catalog, self.selection, self.selected()) for name in scene.objects}

    @property
    def objects_per_scene(self) -> float:
        return self.selection.n_objects

    def prepare(self, catalog: Catalog, config: Config, entries: dict[str, AssetEntry], assets_dir: Path) -> None:
        from tabletest.assets.footprint import Footprints
        from tabletest.layout.camera import PinholeCamera

        self._camera = PinholeCamera.from_config(config)
        self._footprints = Footprints.of_entries(entries, assets_dir)

    def spec(self, scene: Scene, config: Config, entries: dict[str, AssetEntry], assets_dir: Path, resolution: tuple[int, int]) -> SceneSpec:
        from tabletest.layout.spec import scene_spec

        return scene_spec(scene, config, entries, assets_dir, resolution)

    def _record(self, spec: SceneSpec, measured: list[dict], render: dict, mask: bool) -> dict:
        from tabletest.write.records import image_record

        return image_record(spec, measured, render, mask, self._camera, self._footprints)

    @classmethod
    def recorded_set(cls, scenes: dict, selection: dict, catalog: Catalog) -> tuple[Iterable[int], Callable[[int], str]]:
        only = tuple(selection["only"]) if selection.get("only") else None
        chosen = Selection(selection["objects"], only, selection.get("sample"), selection.get("seed") or 0)
        return selected_indices(catalog, chosen), lambda index: scene_id(chosen.n_objects, index)


class RandomScenes(SceneFamily):
    """A random set (`--scenes random`), each scene with its other views and counterfactual partners, and records
    whose relations leave out what the image showed hidden."""

    name = "random"

    def __init__(self, random_set: RandomSet) -> None:
        self.random_set = random_set
        self._made_with: tuple | None = None  # (truth, config, sizes), once `prepare` has them

    @classmethod
    def asked(cls, asked: Asked) -> RandomScenes:
        from tabletest.layout.random_set import random_set_for  # NumPy: the benchmark's runs start without it

        a = asked
        return cls(random_set_for(a.catalog, "random", a.count, a.random_config, a.seed, a.selection, a.selection.sample, a.counterfactuals, a.views))

    def indices(self) -> Iterable[int]:
        return range(self.random_set.count)

    @staticmethod
    def scene_id(seed: int, index: int) -> str:
        """The id of scene `index` of the set drawn with `seed`."""
        from tabletest.layout.random_scene import random_scene_id

        return random_scene_id(seed, index)

    def ids(self, index: int) -> list[str]:
        scene = self.scene_id(self.random_set.seed, index)
        return [scene, *companion_ids(scene, self.random_set.counterfactuals, self.random_set.views)]

    def scenes(self, indices: Iterator[int], done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[RandomScene]:
        """Each scene followed by its other views and counterfactual partners (`truth.pairs.set_scenes`)."""
        from tabletest.truth.pairs import set_scenes
        from tabletest.truth.records import placed_relations

        truth, config, sizes = self._made_with
        resolution = tuple(config.render.resolution)
        shapes = truth.contact.shapes if truth.contact is not None else None
        relations_of = placed_relations(resolution, self.random_set.config.relations, truth.kinds, truth.contact)
        camera, height = config.camera, config.table.height_m
        return set_scenes(self.random_set, sizes, height, camera.sensor_width_mm, resolution, shapes, relations_of, done, on_skip, indices)

    def check(self, mode: str, engine: str) -> None:
        if mode == "composite":
            raise UserError(f"--mode composite composes the benchmark's fixed slots; render --scenes {self.name} in --mode direct")
        if engine != "cycles":
            raise UserError(
                f"--scenes {self.name} needs --engine cycles, not {engine}: its labels leave out the objects "
                "measured hidden on Cycles' Object Index pass; for a quick draft use --samples 1 and a small --resolution"
            )

    @property
    def hdris(self) -> tuple[str, ...]:
        return self.random_set.config.world.hdris

    def check_models(self, entries: Mapping[str, AssetEntry], assets_dir: Path) -> None:
        self.random_set.shapes(entries, assets_dir)  # a carrier the catalog declares wrongly is refused here

    def settings(self) -> dict:
        return {"scenes": {**self.random_set.settings(), "family": self.name}}

    def run_info(self) -> dict:
        scenes = {**self.random_set.info(), "family": self.name}
        return {"scenes": scenes, "random_config": self.random_set.config.model_dump(mode="json")}

    def model_names(self) -> set[str]:
        return set(self.random_set.pool)

    def look_models(self, catalog: Catalog, assets_dir: Path) -> dict[str, AssetEntry]:
        self.random_set, entries = self.random_set.with_look_models(catalog, assets_dir)
        return entries

    @property
    def objects_per_scene(self) -> float:
        return sum(self.random_set.config.objects.count) / 2

    def prepare(self, catalog: Catalog, config: Config, entries: dict[str, AssetEntry], assets_dir: Path) -> None:
        from tabletest.assets.footprint import Footprints
        from tabletest.truth.nouns import Nouns
        from tabletest.write.records import RandomTruth

        random_set = self.random_set
        truth = RandomTruth(
            random_set.config.relations,
            {o.name: o.kind for o in catalog.objects},
            random_set.config.digest,
            random_set.seed,
            Footprints.of_entries(entries, assets_dir),
            Nouns(frozenset(random_set.pair_nouns)),
            random_set.contact(entries, assets_dir),
        )
        self._made_with = (truth, config, {name: entry.size_m for name, entry in entries.items()})

    def spec(self, scene: RandomScene, config: Config, entries: dict[str, AssetEntry], assets_dir: Path, resolution: tuple[int, int]) -> SceneSpec:
        from tabletest.layout.spec import random_spec

        return random_spec(scene, config.render.seed, entries, assets_dir)

    def _record(self, spec: SceneSpec, measured: list[dict], render: dict, mask: bool) -> dict:
        from tabletest.write.records import random_record

        return random_record(spec, measured, render, mask, self._made_with[0])

    @classmethod
    def recorded_set(cls, scenes: dict, selection: dict, catalog: Catalog) -> tuple[Iterable[int], Callable[[int], str]]:
        return range(scenes["count"]), lambda index: cls.scene_id(scenes["seed"], index)
