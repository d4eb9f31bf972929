"""A render run's options and its Blender workers' settings (no bpy, and light to import: `tabletest
render` starts its workers from these as soon as its inputs are checked, before it imports the rest)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tabletest.cache import default_layer_cache
from tabletest.render.devices import detect_nvidia_gpus, parse_gpus, usable_cores
from tabletest.render.supervisor import WorkerSlot

if TYPE_CHECKING:
    from tabletest.config import Config


@dataclass(frozen=True)
class RenderOptions:
    out: Path
    assets: Path
    build_missing_assets: bool
    source: str | None = None
    device: str = "auto"
    workers: int | None = None
    gpus: str | None = None
    retries: int = 2
    item_timeout: float = 600.0
    quiet: bool = False
    verbose: bool = False
    mode: str = "direct"  # direct | composite
    masks: bool = False
    layer_cache: Path = field(default_factory=default_layer_cache)
    compose_jobs: int | None = None  # composer processes (default: one per core)


def worker_slots(options: RenderOptions) -> list[WorkerSlot]:
    """One worker per GPU on a GPU box (`--gpus`), else `--workers` CPU workers sharing the cores."""
    gpus = parse_gpus(options.gpus, detect_nvidia_gpus()) if options.device != "cpu" else []
    if gpus and options.workers is None:
        return [WorkerSlot(i, gpu, None) for i, gpu in enumerate(gpus)]
    count = options.workers or 1
    cores = usable_cores()
    if gpus:
        return [WorkerSlot(i, gpus[i % len(gpus)], None) for i in range(count)]
    return [WorkerSlot(i, None, max(1, cores // count)) for i in range(count)]


MAX_ASSETS = 192  # models a worker holds at most (three of each of the 64 kinds): the least recently used go beyond


def worker_setup(
    config: Config, options: RenderOptions, resolution: tuple[int, int], preload: list[tuple[str, str]] = ()
) -> dict:
    """The `setup` message every worker of the run starts with; `preload`: (name, model file) of the
    models it imports before it says it is ready."""
    settings = config.render
    return {
        "config": config.model_dump(mode="json"),
        "resolution": list(resolution),
        "engine": settings.engine,
        "samples": settings.samples,
        "device": options.device,
        "preload": [list(model) for model in preload],
        "max_models": MAX_ASSETS,
    }


def models_to_preload(entries: dict, assets: Path, objects_to_place: float) -> list[tuple[str, str]]:
    """The run's models, when it will place at least as many objects as it has models: then a worker
    would import most of them anyway, and importing them all before the first scene keeps every
    scene's time down to its render. A short run imports only what its scenes use, as they come; so does
    a run with more models than a worker holds (many looks of a kind)."""
    if objects_to_place < len(entries) or len(entries) > MAX_ASSETS:
        return []
    return [(name, str(assets / entry.file)) for name, entry in sorted(entries.items())]
