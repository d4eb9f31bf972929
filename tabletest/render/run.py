"""One render run from start to finish (no bpy): check inputs, resume, render, record, report.

`tabletest render` is a thin layer of flags over `render_run`.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn

from tabletest import __version__
from tabletest.assets.manifest import manifest_digest
from tabletest.config import Catalog, Config
from tabletest.layout.selection import Selection, count_selected, select_scenes
from tabletest.layout.spec import SceneSpec, scene_spec
from tabletest.render.assets_for_run import needed_assets
from tabletest.render.devices import detect_nvidia_gpus, parse_gpus
from tabletest.render.supervisor import Outcome, Supervisor, WorkerSlot
from tabletest.write.records import image_record
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


@dataclass(frozen=True)
class RunSummary:
    rendered: int
    skipped: int
    failed: int
    wall_s: float


def worker_slots(options: RenderOptions) -> list[WorkerSlot]:
    """One worker per GPU on a GPU box (`--gpus`), else `--workers` CPU workers sharing the cores."""
    gpus = parse_gpus(options.gpus, detect_nvidia_gpus()) if options.device != "cpu" else []
    if gpus and options.workers is None:
        return [WorkerSlot(i, gpu, None) for i, gpu in enumerate(gpus)]
    count = options.workers or 1
    cores = os.cpu_count() or 1
    if gpus:
        return [WorkerSlot(i, gpus[i % len(gpus)], None) for i in range(count)]
    return [WorkerSlot(i, None, max(1, cores // count)) for i in range(count)]


def render_run(catalog: Catalog, config: Config, selection: Selection, options: RenderOptions) -> RunSummary:
    started = time.time()
    console = Console(stderr=True)
    names = {name for scene in select_scenes(catalog, selection) for name in scene.objects}
    entries = needed_assets(catalog, options.assets, names, options.build_missing_assets, options.source)
    output = RunOutput(options.out)
    done = output.recover()
    total = count_selected(catalog, selection)
    pending = total - sum(1 for s in select_scenes(catalog, selection) if s.id in done)
    settings = config.render
    resolution = tuple(settings.resolution)
    render_info = {
        "engine": settings.engine,
        "device": None,
        "samples": settings.samples,
        "resolution": list(resolution),
        "mode": "direct",
    }
    supervisor = Supervisor(
        setup={
            "config": config.model_dump(mode="json"),
            "resolution": list(resolution),
            "engine": settings.engine,
            "samples": settings.samples,
            "device": options.device,
        },
        slots=worker_slots(options),
        log_dir=options.out / "logs",
        tmp_image=output.tmp_image,
        retries=options.retries,
        item_timeout=options.item_timeout,
        verbose=options.verbose,
    )
    run_info = {
        "tabletest": __version__,
        "status": "running",
        "command": {"selection": _selection_info(selection), "options": _options_info(options)},
        "config": config.model_dump(mode="json"),
        "assets": {"folder": str(options.assets), "manifest_sha256": manifest_digest(options.assets)},
        "host": {"machine": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version()},
        "workers": len(supervisor.slots),
    }
    output.write_run(run_info)
    specs: Iterator[SceneSpec] = (
        scene_spec(scene, config, entries, options.assets, resolution)
        for scene in select_scenes(catalog, selection)
        if scene.id not in done
    )
    rendered = failed = 0
    render_seconds = 0.0
    output.open()
    try:
        with _progress(console, pending, options.quiet) as advance:
            for outcome in supervisor.run(specs):
                if render_info["device"] is None and supervisor.started:
                    render_info["device"] = supervisor.started[0]["device"]
                    console.print(f"rendering {pending} image(s) with {settings.engine} on {render_info['device']}, "
                                  f"{len(supervisor.slots)} worker(s); {len(done)} already done")
                if outcome.ok:
                    output.commit(image_record(outcome.spec, outcome.facts["objects"], render_info))
                    rendered += 1
                    render_seconds += outcome.facts["render_s"]
                else:
                    output.fail(_failure(outcome))
                    failed += 1
                    console.print(f"[red]failed[/red] {outcome.spec.id} after {outcome.attempts} attempt(s): {outcome.error}")
                advance()
    finally:
        complete = rendered + failed == pending
        output.close(sort=complete)
        wall = time.time() - started
        run_info.update(
            status="complete" if complete and not failed else ("failed" if complete else "interrupted"),
            device=render_info["device"],
            blender=supervisor.started[0]["blender"] if supervisor.started else None,
            timings={
                "wall_s": round(wall, 3),
                "images_rendered": rendered,
                "images_skipped": len(done),
                "images_failed": failed,
                "images_per_s": round(rendered / wall, 4) if wall > 0 else None,
                "blender_render_s_total": round(render_seconds, 3),
            },
        )
        output.write_run(run_info)
    return RunSummary(rendered, len(done), failed, wall)


def _failure(outcome: Outcome) -> dict:
    return {
        "id": outcome.spec.id,
        "index": outcome.spec.index,
        "objects": [o.name for o in outcome.spec.objects],
        "attempts": outcome.attempts,
        "error": outcome.error,
        "blender_stderr": outcome.stderr,
    }


def _selection_info(selection: Selection) -> dict:
    return {
        "objects": selection.n_objects,
        "only": list(selection.only) if selection.only else None,
        "sample": selection.sample,
        "seed": selection.seed,
        "shard": str(selection.shard) if selection.shard else None,
        "limit": selection.limit,
    }


def _options_info(options: RenderOptions) -> dict:
    return {"device": options.device, "workers": options.workers, "gpus": options.gpus, "retries": options.retries}


class _SpeedColumn(ProgressColumn):
    def render(self, task) -> str:
        return f"{task.speed:.2f} img/s" if task.speed else "… img/s"


class _progress:
    """A progress bar with images/s and ETA, or (with --quiet) a log line every 30 s for cluster logs."""

    def __init__(self, console: Console, total: int, quiet: bool) -> None:
        self.console, self.total, self.quiet = console, total, quiet
        self.count, self.start, self.last = 0, time.time(), 0.0

    def __enter__(self):
        if not self.quiet:
            self.bar = Progress(
                TextColumn("render"), BarColumn(), MofNCompleteColumn(), _SpeedColumn(), TimeRemainingColumn(),
                console=self.console, transient=False,
            )
            self.bar.start()
            self.task = self.bar.add_task("render", total=self.total)
        return self.advance

    def advance(self) -> None:
        self.count += 1
        if not self.quiet:
            self.bar.advance(self.task)
            return
        now = time.time()
        if now - self.last >= 30 or self.count == self.total:
            rate = self.count / max(now - self.start, 1e-9)
            eta = (self.total - self.count) / rate if rate else 0
            self.console.print(f"render {self.count}/{self.total} images, {rate:.2f} img/s, ETA {eta / 60:.1f} min", highlight=False)
            self.last = now

    def __exit__(self, *exc) -> None:
        if not self.quiet:
            self.bar.stop()
