"""One render run from start to finish (no bpy): check inputs, resume, render, record, report.

`tabletest render` is a thin layer of flags over `render_run`. Direct mode path-traces every scene
(`render_direct`); composite mode composes them from cached layer renders (`composite.py`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import shlex
import signal
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import TYPE_CHECKING

from tabletest import __version__
from tabletest.assets.manifest import manifest_digest
from tabletest.config import Catalog, Config
from tabletest.errors import Interrupted, UserError
from tabletest.layout.selection import Selection
from tabletest.assets.needed import needed_assets
from tabletest.render.devices import check_denoiser, check_device, device_class, parse_gpus
from tabletest.render.hdris import check_hdris
from tabletest.render.run_options import RenderOptions, run_models, worker_setup, worker_slots
from tabletest.render.supervisor import WorkerProcess, close_unused, start_workers
from tabletest.files.lock import output_lock
from tabletest.files.run_output import RunOutput, check_render_folder, set_aside_note
from tabletest.files.settings import OUTPUT_VERSION, check_records_agree, check_settings, read_settings, write_settings

if TYPE_CHECKING:  # the rest of a run is imported once its workers are started (`_locked_run`)
    from tabletest.write.families import SceneFamily
    from tabletest.layout.spec import SceneSpec
    from tabletest.render.context import Recorder, RunContext


@dataclass(frozen=True)
class RunSummary:
    rendered: int
    skipped: int
    failed: int
    wall_s: float
    not_made: dict[str, int] = field(default_factory=dict)  # per partner kind (and "view"): scenes that allow none


def render_run(
    catalog: Catalog, config: Config, selection: Selection, options: RenderOptions, family: SceneFamily
) -> RunSummary:
    """Check everything, then render `family`'s scenes into `options.out` under its lock; Ctrl-C or
    SIGTERM stop it cleanly (an `Interrupted` saying what is kept). `selection` is what the command
    selected, for run.json."""
    check_options(config, options, family)
    _say_missing_kernels(config, options)
    settings = dataset_settings(catalog, config, options, family)
    check_settings(options.out, settings)  # a different dataset is refused before any work
    entries = needed_assets(catalog, options.assets, family.model_names(), options.build_missing_assets, options.source)
    entries.update(family.look_models(catalog, options.assets))
    settings["models"] = {name: entries[name].sha256 for name in sorted(entries)}
    family.check_models(entries, options.assets)
    options.out.mkdir(parents=True, exist_ok=True)
    early: dict[int, WorkerProcess] = {}  # started once every input is checked; any never used are stopped here
    with output_lock(options.out), _sigterm_as_interrupt():
        try:
            return _locked_run(catalog, config, selection, options, entries, settings, family, early)
        finally:
            close_unused(early)


def check_options(config: Config, options: RenderOptions, family: SceneFamily) -> None:
    """Flag combinations and the output path, checked before anything is made or started."""
    if (options.mode == "composite" or options.masks) and config.render.engine != "cycles":
        flag = "--mode composite" if options.mode == "composite" else "--masks"
        raise UserError(
            f"{flag} needs --engine cycles (it reads Cycles' linear light and Object Index pass), "
            f"not {config.render.engine}"
        )
    family.check(options.mode, config.render.engine)
    if family.hdris:
        check_hdris(family.hdris)
    check_device(options.device)
    if config.render.engine == "cycles":
        check_denoiser(config.render.denoiser, options.device)
    check_render_folder(options.out)


def _say_missing_kernels(config: Config, options: RenderOptions) -> None:
    """On NVIDIA GPUs, say at start which of them the installed Blender has no compiled kernel for (their first
    render waits minutes for the driver), and refuse a kernel compiled from another build of Cycles."""
    if config.render.engine != "cycles" or options.device not in ("auto", "cuda", "optix"):
        return
    from tabletest.render.devices import nvidia_architectures
    from tabletest.render.kernels import CyclesKernels, missing_kernel_notes

    archs = nvidia_architectures()
    if options.gpus is not None:
        chosen = set(parse_gpus(options.gpus, list(archs)))
        archs = {gpu: arch for gpu, arch in archs.items() if gpu in chosen}
    notes, refusals = missing_kernel_notes(CyclesKernels.installed(), archs)
    if refusals:
        raise UserError(refusals[0])
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


def dataset_settings(catalog: Catalog, config: Config, options: RenderOptions, family: SceneFamily) -> dict:
    """What decides this run's pixels and records (see `tabletest.files.settings`); `models` is added
    once the models are known. Random scenes add `scenes`: their family, config digest, seed and pool."""
    # how prompts word a name, and which way an object faces, decide no pixel or record; what an object carries only
    # random arrangements use, and its front only rotate partners: their sets' settings name them (`RandomSet.settings`)
    excluded = {"objects": {"__all__": {"pair", "plural", "support", "container", "has_front", "front_deg"}}}
    catalog_json = json.dumps(catalog.model_dump(mode="json", exclude=excluded), sort_keys=True).encode()
    config_json = config.model_dump(mode="json", exclude={"render": {"denoise_prefilter", "denoiser"}})
    config_json["render"].update(config.render.pinned_denoising())
    return {
        "output_version": OUTPUT_VERSION,
        "config": config_json,
        "catalog_sha256": hashlib.sha256(catalog_json).hexdigest(),
        "mode": options.mode,
        "masks": options.masks,
        "device_class": device_class(options.device),
        **family.settings(),
    }


def _recovered(output: RunOutput) -> set[str]:
    """`output.recover()`, saying which files it set aside."""
    done = output.recover()
    if note := set_aside_note(output.root, output.set_aside):
        print(note, file=sys.stderr)
        output.set_aside.clear()
    return done


def _locked_run(
    catalog: Catalog,
    config: Config,
    selection: Selection,
    options: RenderOptions,
    entries: dict,
    settings: dict,
    family: SceneFamily,
    early: dict[int, WorkerProcess],
) -> RunSummary:
    started = time.time()
    output = RunOutput(options.out, masks=options.masks)
    made_before_the_guard = read_settings(options.out) is None
    pinned = check_settings(options.out, settings)
    check_records_agree(output.metadata_path, settings, None if made_before_the_guard else 1)
    done = _recovered(output)
    if pinned is not None:
        write_settings(options.out, pinned)
    pending = family.images() - sum(1 for image in family.image_ids() if image in done)
    models = run_models(entries, options.assets, pending * family.objects_per_scene)
    if options.mode == "direct" and pending:  # every input is checked: Blender loads while the rest is imported
        setup = worker_setup(config, options, tuple(config.render.resolution), models)
        early.update(start_workers(setup, worker_slots(options), options.out / "logs", options.verbose))
    from rich.console import Console

    from tabletest.render.context import Recorder, RunContext
    from tabletest.render.progress import progress_bar

    console = Console(stderr=True)
    run = RunContext(catalog, config, family, options, entries, output, done, console, early, models)
    run_info = {
        "tabletest": __version__,
        "command_line": shlex.join(["tabletest", *sys.argv[1:]]),
        "started": _utc(started),
        "ended": None,
        "status": "running",
        "mode": options.mode,
        "masks": options.masks,
        "command": {"selection": _selection_info(selection), "options": _options_info(options)},
        **family.run_info(),
        "config": config.model_dump(mode="json"),
        "assets": {"folder": str(options.assets), "manifest_sha256": manifest_digest(options.assets)},
        "host": {"machine": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version()},
    }
    output.start_run(run_info)
    recorder = Recorder(run)
    progress = partial(progress_bar, console, quiet=options.quiet)
    output.open()
    try:
        if options.mode == "composite":
            from tabletest.render.composite import render_composite  # its composer: nothing a direct run needs

            run_info.update(render_composite(run, recorder, progress, pending, render_direct))
        else:
            with progress("render", pending) as advance:
                scenes = run.pending_scenes(lambda: advance(made=False))
                run_info.update(render_direct(run, (run.spec(s) for s in scenes), recorder, advance))
    except KeyboardInterrupt as stop:
        signal_number = getattr(stop, "signal_number", signal.SIGINT)
        raise Interrupted(
            f"interrupted by {signal.Signals(signal_number).name}: {output.committed()} image(s) kept in {options.out}; "
            "run the same command again to resume",
            signal_number,
        ) from None
    except UserError as cause:  # a cause the first scenes shared: the run stopped rather than fail every scene
        run_info["stopped_by"] = str(cause)
        raise
    finally:
        complete = recorder.rendered + recorder.failed + sum(run.not_made.values()) == pending  # a view or partner not made is done
        try:
            output.close(sort=complete)
        finally:  # a stopped run's half-made images go, so a full disk gets its space back; a signal that landed
            # between a record and its images' renames leaves them to be moved into place, never discarded
            if complete:
                output.discard_temporaries()
            else:
                _recovered(output)
        rendered = output.committed() - len(done)  # exact even when a signal lands mid-commit
        ended = time.time()
        wall = ended - started
        run_info.setdefault("device", recorder.device)
        if run.not_made:
            run_info["not_made"] = dict(sorted(run.not_made.items()))
        run_info.update(
            ended=_utc(ended),
            status=_status(complete, recorder.failed, "stopped_by" in run_info),
            timings={
                "wall_s": round(wall, 3),
                "images_rendered": rendered,
                "images_skipped": len(done),
                "images_failed": recorder.failed,
                "images_per_s": round(rendered / wall, 4) if wall > 0 else None,
                "blender_render_s_total": round(recorder.blender_s, 3),
                "scene_setup_s_median": round(statistics.median(recorder.setup_s), 4) if recorder.setup_s else None,
                "scene_setup_cpu_s_median": round(statistics.median(recorder.setup_cpu_s), 4) if recorder.setup_cpu_s else None,
            },
        )
        output.update_run(run_info)
    return RunSummary(rendered, len(done), recorder.failed, wall, dict(run.not_made))


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (what SLURM and Kubernetes send) stops a run exactly as Ctrl-C does."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    stopping = False

    def interrupt(signal_number: int, _frame: object) -> None:
        nonlocal stopping
        if stopping:  # one that was already on its way when the first arrived
            return
        # `timeout` and `scancel` signal the run and then its whole process group, operators signal again: once
        # stopping, further SIGTERMs are ignored, or one would break off the stop (or kill the run) half-way
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stopping = True
        stop = KeyboardInterrupt()
        stop.signal_number = signal_number
        raise stop

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        if not stopping:
            signal.signal(signal.SIGTERM, previous)


def _status(complete: bool, failed: int, stopped: bool) -> str:
    if stopped:
        return "stopped"
    if complete:
        return "failed" if failed else "complete"
    return "interrupted"


def _utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


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
    return {
        "device": started.get("device"), "denoiser": started.get("denoiser"), "blender": started.get("blender"),
        "workers": len(supervisor.slots),
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
