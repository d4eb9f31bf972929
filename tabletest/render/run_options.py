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
    config: Config, options: RenderOptions, resolution: tuple[int, int], models: list[tuple[str, str]] = ()
) -> dict:
    """The `setup` message every worker of the run starts with; `models`: (name, model file) of the
    models it loads in one batch once its first scene is rendered (`run_models`)."""
    settings = config.render
    return {
        "config": config.model_dump(mode="json"),
        "resolution": list(resolution),
        "engine": settings.engine,
        "samples": settings.samples,
        "device": options.device,
        "models": [list(model) for model in models],
        "max_models": MAX_ASSETS,
    }


def run_models(entries: dict, assets: Path, objects_to_place: float) -> list[tuple[str, str]]:
    """The run's models, when it will place at least as many objects as it has models: a worker would load
    most of them anyway, and loads them in one batch after its first scene (whose image waits for that
    scene's models only), which costs Blender one dependency-graph rebuild where a model at a time costs one
    each. A short run loads only what its scenes use, as they come; so does a run with more models than a
    worker holds (many looks of a kind). A look drawn from its kind's mesh is shown with its kind's model:
    its own file is never loaded."""
    shown = {name: entry for name, entry in entries.items() if not entry.drawn_from}
    if objects_to_place < len(shown) or len(shown) > MAX_ASSETS:
        return []
    return [(name, entry.path_in(assets)) for name, entry in sorted(shown.items())]
