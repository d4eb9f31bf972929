"""What one render run shares between its modes (no bpy): the options, the scenes still to do, the
Blender workers, and the one place where an outcome becomes a committed record or a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console

from tabletest.assets.manifest import AssetEntry
from tabletest.compose.layers import default_cache
from tabletest.config import Catalog, Config
from tabletest.layout.selection import Scene, Selection, select_scenes
from tabletest.layout.random_scene import RandomScene
from tabletest.layout.random_set import RandomSet
from tabletest.layout.spec import SceneSpec, random_spec, scene_spec
from tabletest.render.devices import detect_nvidia_gpus, parse_gpus, usable_cores
from tabletest.render.supervisor import Outcome, Supervisor, WorkerSlot
from tabletest.write.records import RandomTruth, image_record, random_record
from tabletest.write.run_output import RunOutput


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
    layer_cache: Path = field(default_factory=default_cache)
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


@dataclass
class RunContext:
    catalog: Catalog
    config: Config
    selection: Selection
    options: RenderOptions
    entries: dict[str, AssetEntry]
    output: RunOutput
    done: set[str]  # scene ids complete before this run started
    console: Console
    random: RandomSet | None = None  # `--scenes random`: the set to render instead of the benchmark's selection

    def __post_init__(self) -> None:
        self.truth = None if self.random is None else RandomTruth(
            self.random.config.relations,
            {o.name: o.kind for o in self.catalog.objects},
            self.random.config.digest,
            self.random.seed,
        )

    @property
    def resolution(self) -> tuple[int, int]:
        return tuple(self.config.render.resolution)

    def pending_scenes(self) -> Iterator[Scene | RandomScene]:
        if self.random is not None:
            sizes = {name: entry.size_m for name, entry in self.entries.items()}
            camera = self.config.camera
            return self.random.scenes(sizes, self.config.table.height_m, camera.sensor_width_mm, self.resolution, self.done)
        return (scene for scene in select_scenes(self.catalog, self.selection) if scene.id not in self.done)

    def spec(self, scene: Scene | RandomScene) -> SceneSpec:
        if isinstance(scene, RandomScene):
            return random_spec(scene, self.config.render.seed, self.entries, self.options.assets)
        return scene_spec(scene, self.config, self.entries, self.options.assets, self.resolution)

    def render_info(self, mode: str, device: str | None = None) -> dict:
        """The `render` field of this run's records (the seed is added per record)."""
        settings = self.config.render
        return {
            "engine": settings.engine,
            "device": device,
            "samples": settings.samples,
            "resolution": list(self.resolution),
            "mode": mode,
        }

    def supervisor(self, request: Callable[[SceneSpec], dict]) -> Supervisor:
        settings = self.config.render
        return Supervisor(
            setup={
                "config": self.config.model_dump(mode="json"),
                "resolution": list(self.resolution),
                "engine": settings.engine,
                "samples": settings.samples,
                "device": self.options.device,
            },
            slots=worker_slots(self.options),
            log_dir=self.options.out / "logs",
            request=request,
            retries=self.options.retries,
            item_timeout=self.options.item_timeout,
            verbose=self.options.verbose,
        )

    def direct_request(self, spec: SceneSpec) -> dict:
        """A worker message that renders a scene straight into the output's temporary names."""
        message = {"op": "render", "spec": spec.to_json(), "out": str(self.output.tmp_image(spec.id))}
        if self.options.masks:
            message["mask"] = str(self.output.tmp_mask(spec.id))
            message["depth"] = str(self.output.tmp_depth(spec.id))
        return message


class Recorder:
    """Commits outcomes through the writer and counts them."""

    def __init__(self, run: RunContext) -> None:
        self.run = run
        self.rendered = self.failed = 0
        self.blender_s = 0.0
        self.setup_s: list[float] = []  # per image: the worker's time from the spec to the render call
        self.setup_cpu_s: list[float] = []  # the same in CPU time: what it costs on a machine others load
        self.device: str | None = None  # as the records say, for run.json even when the run is cut short

    def __call__(self, outcome: Outcome, render: dict) -> None:
        self.device = render["device"]
        if outcome.ok:
            masks = self.run.options.masks
            try:
                if outcome.spec.random is None:
                    record = image_record(outcome.spec, outcome.facts["objects"], render, masks)
                else:
                    record = random_record(outcome.spec, outcome.facts["objects"], render, masks, self.run.truth)
                self.run.output.commit(record)
            except ValueError as err:  # NaN or infinity measured: not JSON, so never a record
                outcome = replace(outcome, ok=False, error=f"its record holds a number that is not finite ({err})")
        if outcome.ok:
            self.rendered += 1
            self.blender_s += outcome.facts.get("render_s", 0.0)
            self.setup_s.append(outcome.facts.get("setup_s", 0.0))
            self.setup_cpu_s.append(outcome.facts.get("setup_cpu_s", 0.0))
        else:
            self.run.output.fail(_failure(outcome))
            self.failed += 1
            self.run.console.print(
                f"[red]failed[/red] {outcome.spec.id} after {outcome.attempts} attempt(s): {outcome.error}"
            )


def _failure(outcome: Outcome) -> dict:
    return {
        "id": outcome.spec.id,
        "index": outcome.spec.index,
        "objects": [o.name for o in outcome.spec.objects],
        "attempts": outcome.attempts,
        "error": outcome.error,
        "blender_stderr": outcome.stderr,
    }
