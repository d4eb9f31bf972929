"""What a render run writes for the scenes of its source: which are still to render, and each finished
image's record. A random scene's partners are kept by what their change did to the relations, and its
record holds relations measured in the image, so this side of a source stands on the truth stage and
lives here rather than in `tabletest.layout.scene_source`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from tabletest.assets.manifest import AssetEntry
from tabletest.config import Catalog, Config
from tabletest.layout.random_scene import RandomScene, Vec3
from tabletest.layout.random_set import RandomSet
from tabletest.layout.scene_source import BenchmarkScenes, RandomScenes, SceneSource
from tabletest.layout.selection import Scene
from tabletest.layout.spec import SceneSpec
from tabletest.truth.nouns import Nouns
from tabletest.truth.pairs import set_scenes
from tabletest.truth.records import placed_relations
from tabletest.write.records import RandomTruth, image_record, random_record


class SceneRecords(ABC):
    """A run's scenes to render and the records of their images."""

    @abstractmethod
    def pending(self, done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[Scene | RandomScene]:
        """The scenes whose images are not in `done`; `on_skip(kind, scene id)` for each view or
        partner (`kind` "view" or the partner's) that a scene cannot have."""

    @abstractmethod
    def record(self, spec: SceneSpec, measured: list[dict], render: dict, mask: bool) -> dict:
        """The metadata record of the image rendered from `spec`, with what the render measured."""


class BenchmarkRecords(SceneRecords):
    """The selected scenes of the enumeration, and records whose relations follow from the objects' order."""

    def __init__(self, source: BenchmarkScenes) -> None:
        self.source = source

    def pending(self, done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[Scene]:
        return (scene for scene in self.source.scenes() if scene.id not in done)

    def record(self, spec: SceneSpec, measured: list[dict], render: dict, mask: bool) -> dict:
        return image_record(spec, measured, render, mask)


class RandomRecords(SceneRecords):
    """A random set's scenes with their views and partners, and records whose relations leave out what the
    image showed hidden."""

    def __init__(self, random_set: RandomSet, truth: RandomTruth, config: Config, sizes: Mapping[str, Vec3]) -> None:
        self.random_set = random_set
        self.truth = truth
        self.config = config
        self.sizes = sizes

    def pending(self, done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[RandomScene]:
        """Each scene followed by its other views and counterfactual partners (`truth.pairs.set_scenes`)."""
        resolution = tuple(self.config.render.resolution)
        contact = self.truth.contact
        shapes = contact.shapes if contact is not None else None
        relations_of = placed_relations(resolution, self.random_set.config.relations, self.truth.kinds, contact)
        camera, height = self.config.camera, self.config.table.height_m
        return set_scenes(self.random_set, self.sizes, height, camera.sensor_width_mm, resolution, shapes, relations_of, done, on_skip)

    def record(self, spec: SceneSpec, measured: list[dict], render: dict, mask: bool) -> dict:
        return random_record(spec, measured, render, mask, self.truth)


def scene_records(
    scene_source: SceneSource, catalog: Catalog, config: Config, entries: dict[str, AssetEntry], assets_dir: Path
) -> SceneRecords:
    """The records side of a run's scene source: the one place where a run tells the two families apart."""
    if isinstance(scene_source, RandomScenes):
        random_set = scene_source.random_set
        truth = RandomTruth(
            random_set.config.relations,
            {o.name: o.kind for o in catalog.objects},
            random_set.config.digest,
            random_set.seed,
            Nouns(frozenset(random_set.pair_nouns)),
            random_set.contact(entries, assets_dir),
        )
        return RandomRecords(random_set, truth, config, {name: entry.size_m for name, entry in entries.items()})
    assert isinstance(scene_source, BenchmarkScenes)  # the other family
    return BenchmarkRecords(scene_source)
