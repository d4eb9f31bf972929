"""What one render run shares between its modes (no bpy): the options, the scenes still to do, the
Blender workers, and the one place where an outcome becomes a committed record or a failure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from rich.console import Console

from tabletest.assets.manifest import AssetEntry
from tabletest.config import Catalog, Config
from tabletest.layout.random_scene import RandomScene
from tabletest.layout.selection import Scene
from tabletest.layout.spec import SceneSpec
from tabletest.render.run_options import RenderOptions, worker_setup, worker_slots
from tabletest.render.supervisor import Outcome, Supervisor, WorkerProcess
from tabletest.write.families import SceneFamily
from tabletest.files.run_output import RunOutput


@dataclass
class RunContext:
    catalog: Catalog
    config: Config
    family: SceneFamily
    options: RenderOptions
    entries: dict[str, AssetEntry]
    output: RunOutput
    done: set[str]  # scene ids complete before this run started
    console: Console
    early: dict[int, WorkerProcess] = field(default_factory=dict)  # workers started once the inputs were checked
    models: list[tuple[str, str]] = field(default_factory=list)  # what every worker loads at once after its first scene
    not_made: Counter = field(default_factory=Counter)  # per partner kind (and "view"): scenes that allow none

    def __post_init__(self) -> None:
        self.family.prepare(self.catalog, self.config, self.entries, self.options.assets)

    @property
    def resolution(self) -> tuple[int, int]:
        return tuple(self.config.render.resolution)

    def pending_scenes(self, on_skip: Callable[[], None] = lambda: None) -> Iterator[Scene | RandomScene]:
        """The scenes still to render (random ones each followed by its other views and counterfactual
        partners); `on_skip` is called for each view or partner a scene cannot have."""

        def skipped(kind: str, _scene_id: str) -> None:
            self.not_made[kind] += 1
            on_skip()

        return self.family.pending(self.done, skipped)

    def spec(self, scene: Scene | RandomScene) -> SceneSpec:
        return self.family.spec(scene, self.config, self.entries, self.options.assets, self.resolution)

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

    def supervisor(self, request: Callable[[SceneSpec], dict], hands_over: bool = True) -> Supervisor:
        early, self.early = self.early, {}
        return Supervisor(
            setup=worker_setup(self.config, self.options, self.resolution, self.models),
            # the slots the early workers were started on (asking nvidia-smi again could answer otherwise)
            slots=[worker.slot for worker in early.values()] or worker_slots(self.options),
            early=early,
            log_dir=self.options.out / "logs",
            request=request,
            retries=self.options.retries,
            item_timeout=self.options.item_timeout,
            verbose=self.options.verbose,
            hands_over=hands_over,
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
                record = self.run.family.record(outcome.spec, outcome.facts["objects"], render, masks)
                self.run.output.commit(record)
            except ValueError as err:  # NaN or infinity measured: not JSON, so never a record
                outcome = replace(outcome, ok=False, error=f"its record holds a number no record may ({' '.join(str(err).split())[:300]})")
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
