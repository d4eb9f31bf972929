"""Scene specs: plain immutable records of everything a worker needs to render one image.

The supervisor builds them from the catalog, the asset manifest, the config and the placement;
the worker only executes them. They travel to workers as JSON.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from tabletest.assets.manifest import AssetEntry
from tabletest.config import Config
from tabletest.assets.variants import load_looks
from tabletest.layout.placement import place
from tabletest.layout.instances import kind_of
from tabletest.layout.random_scene import PlacedObject, RandomScene
from tabletest.layout.variants import Variant
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
    tint: tuple[tuple[str, tuple[float, float, float]], ...] = ()  # (material, factor): a look's colour (`render.tint`)
    transform: tuple[float, ...] = ()  # a look's model drawn from its kind's: the 3x4 map, row by row (empty: none)


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
            asset=e.path_in(assets_dir),
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
            source=entries[o.model].source,
            uid=entries[o.model].uid,
            asset=_shown(entries, o).path_in(assets_dir),
            position_m=o.position_m,
            yaw_deg=o.yaw_deg,
            size_m=o.size_m,
            tint=_tint(o.variant),
            transform=entries[o.model].drawn_from or (),
        )
        for o in scene.objects
    )
    return SceneSpec(scene.id, scene.index, len(objects), objects, (seed + scene.index) % (2**31), scene)


def _tint(variant: Variant | None) -> tuple[tuple[str, tuple[float, float, float]], ...]:
    """What the render multiplies each of the object's recoloured materials by for its look's colour."""
    if variant is None or variant.colour is None:
        return ()
    return tuple(load_looks().of(variant.model.kind).tint(variant.colour).items())


def _shown(entries: dict[str, AssetEntry], placed: PlacedObject) -> AssetEntry:
    """The model the render loads for an object: its kind's where its look's model is drawn from it (no mesh
    of its own to hold), else its own."""
    return entries[kind_of(placed.name)] if entries[placed.model].drawn_from else entries[placed.model]
