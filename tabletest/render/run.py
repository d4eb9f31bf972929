"""One render run from start to finish (no bpy): check inputs, resume, render, record, report.

`tabletest render` is a thin layer of flags over `render_run`. Direct mode path-traces every scene
(`render_direct`); composite mode composes them from cached layer renders (`composite.py`).
"""

from __future__ import annotations

import contextlib
import os
import platform
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn

from tabletest import __version__
from tabletest.assets.manifest import manifest_digest
from tabletest.config import Catalog, Config
from tabletest.errors import UserError
from tabletest.layout.selection import Selection, count_selected, select_scenes
from tabletest.layout.spec import SceneSpec
from tabletest.render.assets_for_run import needed_assets
from tabletest.render.composite import ProgressFactory, render_composite
from tabletest.render.context import Recorder, RenderOptions, RunContext, worker_slots
from tabletest.render import early
from tabletest.render.spawn import Spawned
from tabletest.render.supervisor import WorkerSlot, spawn_workers
from tabletest.write.run_output import RunOutput


@dataclass(frozen=True)
class RunSummary:
    rendered: int
    skipped: int
    failed: int
    wall_s: float


def render_run(catalog: Catalog, config: Config, selection: Selection, options: RenderOptions) -> RunSummary:
    started = time.time()
    console = Console(stderr=True)
    if (options.mode == "composite" or options.masks) and config.render.engine != "cycles":
        flag = "--mode composite" if options.mode == "composite" else "--masks"
        raise UserError(
            f"{flag} needs --engine cycles (it reads Cycles' linear light and Object Index pass), "
            f"not {config.render.engine}"
        )
    # Direct mode starts its Blender workers now: they load Blender while this process checks and resumes.
    spawned = _spawn_early(options) if options.mode == "direct" else {}
    try:
        return _render_run(catalog, config, selection, options, console, spawned, started)
    finally:
        early.discard()  # composite mode does not take it
        for worker in spawned.values():  # those the run did not take (a check failed, nothing to render)
            worker.discard()


def _spawn_early(options: RenderOptions) -> dict[WorkerSlot, Spawned]:
    """One worker per slot, started now; the first may already be running since the command was invoked."""
    slots, logs = worker_slots(options), options.out / "logs"
    first = early.take(slots[0].number, slots[0].gpu, logs) if slots else None
    spawned = {slots[0]: first} if first else {}
    try:
        spawned.update(spawn_workers([s for s in slots if s not in spawned], logs, options.verbose))
    except OSError:  # the output folder is not writable: the run's own checks say so in a moment
        pass
    return spawned


def _render_run(
    catalog: Catalog,
    config: Config,
    selection: Selection,
    options: RenderOptions,
    console: Console,
    spawned: dict[WorkerSlot, Spawned],
    started: float,
) -> RunSummary:
    names = {name for scene in select_scenes(catalog, selection) for name in scene.objects}
    entries = needed_assets(catalog, options.assets, names, options.build_missing_assets, options.source)
    output = RunOutput(options.out, masks=options.masks)
    done = output.recover()
    run = RunContext(catalog, config, selection, options, entries, output, done, console, spawned)
    total = count_selected(catalog, selection)
    pending = total - sum(1 for s in select_scenes(catalog, selection) if s.id in done)
    run_info = {
        "tabletest": __version__,
        "status": "running",
        "mode": options.mode,
        "masks": options.masks,
        "command": {"selection": _selection_info(selection), "options": _options_info(options)},
        "config": config.model_dump(mode="json"),
        "assets": {"folder": str(options.assets), "manifest_sha256": manifest_digest(options.assets)},
        "host": {"machine": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version()},
    }
    output.write_run(run_info)
    recorder = Recorder(run)
    progress: ProgressFactory = partial(_progress, console, quiet=options.quiet)
    output.open()
    try:
        if options.mode == "composite":
            run_info.update(render_composite(run, recorder, progress, pending, render_direct))
        else:
            with progress("render", pending) as advance:
                run_info.update(render_direct(run, (run.spec(s) for s in run.pending_scenes()), recorder, advance))
    finally:
        complete = recorder.rendered + recorder.failed == pending
        output.close(sort=complete)
        wall = time.time() - started
        run_info.update(
            status="complete" if complete and not recorder.failed else ("failed" if complete else "interrupted"),
            timings={
                "wall_s": round(wall, 3),
                "images_rendered": recorder.rendered,
                "images_skipped": len(done),
                "images_failed": recorder.failed,
                "images_per_s": round(recorder.rendered / wall, 4) if wall > 0 else None,
                "blender_render_s_total": round(recorder.blender_s, 3),
            },
        )
        output.write_run(run_info)
    return RunSummary(recorder.rendered, len(done), recorder.failed, wall)


def render_direct(run: RunContext, specs: Iterable[SceneSpec], recorder: Recorder, advance: Callable[[], None]) -> dict:
    """Path-trace each scene in Blender workers; return the run facts they reported."""
    supervisor = run.supervisor(run.direct_request)
    render = run.render_info("direct")
    for outcome in supervisor.run(specs):
        if render["device"] is None and supervisor.started:
            render["device"] = supervisor.started[0]["device"]
            run.console.print(
                f"rendering with {run.config.render.engine} on {render['device']}, "
                f"{len(supervisor.slots)} worker(s); {len(run.done)} image(s) already done"
            )
        recorder(outcome, render)
        advance()
    started = supervisor.started[0] if supervisor.started else {}
    return {"device": started.get("device"), "blender": started.get("blender"), "workers": len(supervisor.slots)}


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
        return f"{task.speed:.2f} {task.fields['unit']}/s" if task.speed else f"… {task.fields['unit']}/s"


@contextlib.contextmanager
def _progress(console: Console, label: str, total: int, quiet: bool) -> Iterator[Callable[[], None]]:
    """A progress bar with speed and ETA, or (with --quiet) a log line every 30 s for cluster logs."""
    unit = "img" if label == "render" else label
    if not quiet:
        bar = Progress(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            _SpeedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        task = bar.add_task(label, total=total, unit=unit)
        with bar:
            yield lambda: bar.advance(task)
        return
    count, start, last = 0, time.time(), 0.0

    def advance() -> None:
        nonlocal count, last
        count += 1
        now = time.time()
        if now - last >= 30 or count == total:
            rate = count / max(now - start, 1e-9)
            eta = (total - count) / rate if rate else 0
            console.print(f"{label} {count}/{total}, {rate:.2f} {unit}/s, ETA {eta / 60:.1f} min", highlight=False)
            last = now

    yield advance
