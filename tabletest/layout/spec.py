"""Scene specs: plain immutable records of everything a worker needs to render one image.

The supervisor builds them from the catalog, the asset manifest, the config and the placement;
the worker only executes them. They travel to workers as JSON.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from tabletest.assets.manifest import AssetEntry
from tabletest.config import Config
from tabletest.layout.instances import kind_of
from tabletest.layout.placement import place
from tabletest.layout.random_scene import RandomScene
from tabletest.layout.selection import Scene


@dataclass(frozen=True)
class SpecObject:
    name: str
    slot: str | None  # the benchmark's slot; None in random scenes
    source: str
    uid: str | None
    asset: str  # absolute path of the GLB
    position_m: tuple[float, float, float]
    yaw_deg: float
    size_m: tuple[float, float, float]


@dataclass(frozen=True)
class SceneSpec:
    id: str
    index: int
    n_objects: int
    objects: tuple[SpecObject, ...]
    seed: int  # Cycles' noise seed for this image: the run seed plus the scene index
    random: RandomScene | None = None  # a random scene's camera, table, lights and world (None: the benchmark's)

    def to_json(self) -> dict:
        return asdict(self)


def scene_spec(scene: Scene, config: Config, entries: dict[str, AssetEntry], assets_dir: Path, resolution: tuple[int, int]) -> SceneSpec:
    chosen = [entries[name] for name in scene.objects]
    placements = place(config, [e.size_m for e in chosen], resolution)
    objects = tuple(
        SpecObject(
            name=e.name,
            slot=p.slot,
            source=e.source,
            uid=e.uid,
            asset=str((assets_dir / e.file).resolve()),
            position_m=tuple(round(v, 6) for v in p.position_m),
            yaw_deg=p.yaw_deg,
            size_m=e.size_m,
        )
        for e, p in zip(chosen, placements)
    )
    return SceneSpec(scene.id, scene.index, scene.n_objects, objects, (config.render.seed + scene.index) % (2**31))


def random_spec(scene: RandomScene, seed: int, entries: dict[str, AssetEntry], assets_dir: Path) -> SceneSpec:
    """The spec of a random scene: its objects left to right as the camera sees them, and the scene itself."""
    objects = tuple(
        SpecObject(
            name=o.name,
            slot=None,
            source=entries[kind_of(o.name)].source,
            uid=entries[kind_of(o.name)].uid,
            asset=str((assets_dir / entries[kind_of(o.name)].file).resolve()),
            position_m=o.position_m,
            yaw_deg=o.yaw_deg,
            size_m=o.size_m,
        )
        for o in scene.objects
    )
    return SceneSpec(scene.id, scene.index, len(objects), objects, (seed + scene.index) % (2**31), scene)
