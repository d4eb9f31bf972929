"""Where a render's scenes come from: a selection of the benchmark's enumeration, or a set of random scenes.

A run asks its source, never which family it is, what to refuse, what pins its output folder, which
models it needs, how many images it makes and each scene's spec. What a source's scenes need of the
truth stage (a random scene's partners, each image's record) is `tabletest.write.scene_records`.
Imports no NumPy until a spec is made, so a benchmark run starts its workers without it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tabletest.assets.manifest import AssetEntry
from tabletest.config import Catalog, Config
from tabletest.errors import UserError
from tabletest.files.family import companion_ids
from tabletest.layout.selection import Scene, Selection, count_selected, select_scenes

if TYPE_CHECKING:
    from tabletest.layout.random_scene import RandomScene
    from tabletest.layout.random_set import RandomSet
    from tabletest.layout.spec import SceneSpec


class SceneSource(ABC):
    """The scenes one render run renders."""

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

    @abstractmethod
    def images(self) -> int:
        """How many images it asks for (at most: a random scene may allow no view or partner of a kind)."""

    @abstractmethod
    def image_ids(self) -> Iterator[str]:
        """The ids of those images, to count what an earlier run already made."""

    @property
    @abstractmethod
    def objects_per_scene(self) -> float:
        """Objects in a scene, on average: what preloading the models is weighed against."""

    @abstractmethod
    def spec(
        self, scene: Scene | RandomScene, config: Config, entries: dict[str, AssetEntry], assets_dir: Path, resolution: tuple[int, int]
    ) -> SceneSpec:
        """What a worker needs to render the scene."""


class BenchmarkScenes(SceneSource):
    """The study's fixed scenes: `--objects`, `--only`, `--sample`, `--shard`, `--limit` of the enumeration."""

    def __init__(self, catalog: Catalog, selection: Selection) -> None:
        self.catalog = catalog
        self.selection = selection

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

    def spec(
        self, scene: Scene, config: Config, entries: dict[str, AssetEntry], assets_dir: Path, resolution: tuple[int, int]
    ) -> SceneSpec:
        from tabletest.layout.spec import scene_spec

        return scene_spec(scene, config, entries, assets_dir, resolution)


class RandomScenes(SceneSource):
    """A random set (`--scenes random`), each scene with its other views and counterfactual partners."""

    def __init__(self, random_set: RandomSet) -> None:
        self.random_set = random_set

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

    def images(self) -> int:
        return self.random_set.selected() * self.random_set.per_scene

    def image_ids(self) -> Iterator[str]:
        for scene_id in self.random_set.ids():
            yield scene_id
            yield from companion_ids(scene_id, self.random_set.counterfactuals, self.random_set.views)

    @property
    def objects_per_scene(self) -> float:
        return sum(self.random_set.config.objects.count) / 2

    def spec(
        self, scene: RandomScene, config: Config, entries: dict[str, AssetEntry], assets_dir: Path, resolution: tuple[int, int]
    ) -> SceneSpec:
        from tabletest.layout.spec import random_spec

        return random_spec(scene, config.render.seed, entries, assets_dir)
