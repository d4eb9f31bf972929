"""The families of scenes a render makes: for each, which scenes, what refuses them, how each is rendered, and
the record of each image, checked against the family's record model before it is written.

A run asks its family, never which family it is. A family is one class here, one sampler (the benchmark's
enumeration, `layout.selection`; a random set, `layout.random_set`) and one record model
(`files.records`); a new family adds those and its name where `tabletest render` picks one.
Imports no NumPy until a record or spec is made, so a benchmark run starts its workers without it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tabletest.assets.manifest import AssetEntry
from tabletest.config import Catalog, Config
from tabletest.errors import UserError
from tabletest.files.family import companion_ids
from tabletest.layout.selection import Scene, Selection, count_selected, select_scenes

if TYPE_CHECKING:
    from tabletest.files.records import Closed
    from tabletest.layout.random_scene import RandomScene
    from tabletest.layout.random_set import RandomSet
    from tabletest.layout.spec import SceneSpec


class SceneFamily(ABC):
    """The scenes one render run renders, and the records of their images."""

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

    @abstractmethod
    def images(self) -> int:
        """How many images it asks for (at most: a random scene may allow no view or partner of a kind)."""

    @abstractmethod
    def image_ids(self) -> Iterator[str]:
        """The ids of those images, to count what an earlier run already made."""

    @property
    @abstractmethod
    def objects_per_scene(self) -> float:
        """Objects in a scene, on average: what loading all the run's models at once is weighed against."""

    @abstractmethod
    def prepare(self, catalog: Catalog, config: Config, entries: dict[str, AssetEntry], assets_dir: Path) -> None:
        """Take in what its scenes and records are made with, once the run's models are known."""

    @abstractmethod
    def pending(self, done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[Scene | RandomScene]:
        """The scenes whose images are not in `done`; `on_skip(kind, scene id)` for each view or partner
        (`kind` "view" or the partner's) that a scene cannot have."""

    @abstractmethod
    def spec(self, scene: Scene | RandomScene, config: Config, entries: dict[str, AssetEntry], assets_dir: Path, resolution: tuple[int, int]) -> SceneSpec:
        """What a worker needs to render the scene."""

    @property
    @abstractmethod
    def model(self) -> type[Closed]:
        """The model every record of the family is checked against, where it is written and where it is read."""

    @abstractmethod
    def _record(self, spec: SceneSpec, measured: list[dict], render: dict, mask: bool) -> dict:
        """The metadata record of the image rendered from `spec`, with what the render measured."""

    def record(self, spec: SceneSpec, measured: list[dict], render: dict, mask: bool) -> dict:
        """The record of the image rendered from `spec`, as its model accepts it (a ValueError otherwise: a
        number no record holds was measured)."""
        made = self._record(spec, measured, render, mask)
        self.model.model_validate(made)
        return made


class Benchmark(SceneFamily):
    """The study's fixed scenes: `--objects`, `--only`, `--sample`, `--shard`, `--limit` of the enumeration."""

    def __init__(self, catalog: Catalog, selection: Selection) -> None:
        self.catalog = catalog
        self.selection = selection
        self._camera = None

    def scenes(self) -> Iterator[Scene]:
        return select_scenes(self.catalog, self.selection)

    def settings(self) -> dict:
        return {}

    def run_info(self) -> dict:
        return {"scenes": {"family": "benchmark"}}

    def model_names(self) -> set[str]:
        return {name for scene in self.scenes() for name in scene.objects}

    def images(self) -> int:
        return count_selected(self.catalog, self.selection)

    def image_ids(self) -> Iterator[str]:
        return (scene.id for scene in self.scenes())

    @property
    def objects_per_scene(self) -> float:
        return self.selection.n_objects

    def prepare(self, catalog: Catalog, config: Config, entries: dict[str, AssetEntry], assets_dir: Path) -> None:
        from tabletest.layout.camera import PinholeCamera

        self._camera = PinholeCamera.from_config(config)

    def pending(self, done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[Scene]:
        return (scene for scene in self.scenes() if scene.id not in done)

    def spec(self, scene: Scene, config: Config, entries: dict[str, AssetEntry], assets_dir: Path, resolution: tuple[int, int]) -> SceneSpec:
        from tabletest.layout.spec import scene_spec

        return scene_spec(scene, config, entries, assets_dir, resolution)

    @property
    def model(self) -> type[Closed]:
        from tabletest.files.records import BenchmarkRecord

        return BenchmarkRecord

    def _record(self, spec: SceneSpec, measured: list[dict], render: dict, mask: bool) -> dict:
        from tabletest.write.records import image_record

        return image_record(spec, measured, render, mask, self._camera)


class RandomScenes(SceneFamily):
    """A random set (`--scenes random`), each scene with its other views and counterfactual partners, and records
    whose relations leave out what the image showed hidden."""

    def __init__(self, random_set: RandomSet) -> None:
        self.random_set = random_set
        self._made_with: tuple | None = None  # (truth, config, sizes), once `prepare` has them

    def check(self, mode: str, engine: str) -> None:
        if mode == "composite":
            raise UserError("--mode composite composes the benchmark's fixed slots; render --scenes random in --mode direct")
        if engine != "cycles":
            raise UserError(
                f"--scenes random needs --engine cycles, not {engine}: its labels leave out the objects "
                "measured hidden on Cycles' Object Index pass; for a quick draft use --samples 1 and a small --resolution"
            )

    @property
    def hdris(self) -> tuple[str, ...]:
        return self.random_set.config.world.hdris

    def check_models(self, entries: Mapping[str, AssetEntry], assets_dir: Path) -> None:
        self.random_set.shapes(entries, assets_dir)  # a carrier the catalog declares wrongly is refused here

    def settings(self) -> dict:
        return {"scenes": self.random_set.settings()}

    def run_info(self) -> dict:
        return {"scenes": self.random_set.info(), "random_config": self.random_set.config.model_dump(mode="json")}

    def model_names(self) -> set[str]:
        return set(self.random_set.pool)

    def look_models(self, catalog: Catalog, assets_dir: Path) -> dict[str, AssetEntry]:
        self.random_set, entries = self.random_set.with_look_models(catalog, assets_dir)
        return entries

    def images(self) -> int:
        return self.random_set.selected() * self.random_set.per_scene

    def image_ids(self) -> Iterator[str]:
        for scene_id in self.random_set.ids():
            yield scene_id
            yield from companion_ids(scene_id, self.random_set.counterfactuals, self.random_set.views)

    @property
    def objects_per_scene(self) -> float:
        return sum(self.random_set.config.objects.count) / 2

    def prepare(self, catalog: Catalog, config: Config, entries: dict[str, AssetEntry], assets_dir: Path) -> None:
        from tabletest.truth.nouns import Nouns
        from tabletest.write.records import RandomTruth

        random_set = self.random_set
        truth = RandomTruth(
            random_set.config.relations,
            {o.name: o.kind for o in catalog.objects},
            random_set.config.digest,
            random_set.seed,
            Nouns(frozenset(random_set.pair_nouns)),
            random_set.contact(entries, assets_dir),
        )
        self._made_with = (truth, config, {name: entry.size_m for name, entry in entries.items()})

    def pending(self, done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[RandomScene]:
        """Each scene followed by its other views and counterfactual partners (`truth.pairs.set_scenes`)."""
        from tabletest.truth.pairs import set_scenes
        from tabletest.truth.records import placed_relations

        truth, config, sizes = self._made_with
        resolution = tuple(config.render.resolution)
        shapes = truth.contact.shapes if truth.contact is not None else None
        relations_of = placed_relations(resolution, self.random_set.config.relations, truth.kinds, truth.contact)
        camera, height = config.camera, config.table.height_m
        return set_scenes(self.random_set, sizes, height, camera.sensor_width_mm, resolution, shapes, relations_of, done, on_skip)

    def spec(self, scene: RandomScene, config: Config, entries: dict[str, AssetEntry], assets_dir: Path, resolution: tuple[int, int]) -> SceneSpec:
        from tabletest.layout.spec import random_spec

        return random_spec(scene, config.render.seed, entries, assets_dir)

    @property
    def model(self) -> type[Closed]:
        from tabletest.files.records import RandomRecord

        return RandomRecord

    def _record(self, spec: SceneSpec, measured: list[dict], render: dict, mask: bool) -> dict:
        from tabletest.write.records import random_record

        return random_record(spec, measured, render, mask, self._made_with[0])
