"""`tabletest slurm render|status|resubmit`: a render as a SLURM job array, followed and finished."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from typer.exceptions import TyperException

from tabletest.commands.options import DEFAULT_OBJECTS
from tabletest.errors import UserError
from tabletest.farm.plan import FARM, MAX_PER_TASK, MAX_TASKS, Farm, Resources, Submission, layer_groups

if TYPE_CHECKING:
    from tabletest.farm.status import TaskStatus

slurm_app = typer.Typer(
    help="Render on a SLURM cluster: one job array (a shard per task), status, resubmission, merge.",
    no_args_is_help=True,
)

OutOpt = Annotated[Path, typer.Argument(metavar="OUT", help="The farm's output root (the --out of `tabletest slurm render`).")]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Write the scripts and print the sbatch commands; submit nothing.")]
MergeOpt = Annotated[bool, typer.Option("--merge/--no-merge", help="Also submit the merge job, to run after every task succeeded.")]


@slurm_app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def render(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output root: parts/<shard>/ per task, slurm/ (scripts, logs), merged/.")],
    tasks: Annotated[int, typer.Option(min=1, max=MAX_TASKS, help="Array tasks: task i renders shard i/TASKS.")],
    gpus_per_task: Annotated[
        int, typer.Option(min=0, max=MAX_PER_TASK, help="GPUs per task; the task starts one render worker per GPU.")
    ] = 0,
    cpus_per_task: Annotated[int, typer.Option(min=1, max=MAX_PER_TASK, help="CPU cores per task.")] = 1,
    mem: Annotated[Optional[str], typer.Option(help="Memory per task, e.g. 16G (default: the partition's).")] = None,
    partition: Annotated[Optional[str], typer.Option(help="SLURM partition (default: the cluster's default).")] = None,
    time: Annotated[Optional[str], typer.Option(help="Time limit per task, e.g. 2:00:00; 5 min before it a task requeues itself.")] = None,
    account: Annotated[Optional[str], typer.Option(help="SLURM account to charge.")] = None,
    sbatch_option: Annotated[
        Optional[list[str]], typer.Option("--sbatch-option", help="A further sbatch option for every job (repeatable); one that starts with - is given as --sbatch-option=X, X being e.g. --qos=low.")
    ] = None,
    layer_tasks: Annotated[
        Optional[int],
        typer.Option(min=1, max=MAX_TASKS, help="Composite mode: tasks of the layer step that runs first (default: --tasks)."),
    ] = None,
    merge: MergeOpt = True,
    dry_run: DryRunOpt = False,
) -> None:
    """Write OUT/slurm/render.sbatch (a job array, one shard per task) and submit it, then the merge job.
    Every other flag goes to `tabletest render` as given (e.g. --objects 3 --samples 64 --assets DIR)."""
    from tabletest.config import load_catalog
    from tabletest.layout.selection import parse_only

    render_args = list(ctx.args)
    params = check_render_args(ctx, render_args)
    check_scene_set(params, tasks)
    old = out / "slurm" / FARM
    if old.is_file() and Farm.load(out).submissions:
        raise UserError(
            f"{out} already has a submitted farm ({old}); follow it with `tabletest slurm status {out}`, "
            f"finish it with `tabletest slurm resubmit {out}`, or give a new --out"
        )
    resources = Resources(partition, time, gpus_per_task, cpus_per_task, mem, account, tuple(sbatch_option or ()))
    groups = []
    if params["mode"] == "composite":
        names = parse_only(params["only"]) or load_catalog(params["catalog"]).names
        groups = layer_groups(list(names), DEFAULT_OBJECTS if params["objects"] is None else params["objects"], layer_tasks or tasks)
    farm = Farm(out, tasks, render_args, sys.executable, os.getcwd(), resources, groups)
    farm.write_scripts()
    farm.save()
    layers = f"{farm.layers_script} ({len(groups)} tasks), " if groups else ""
    typer.echo(f"wrote {layers}{farm.render_script} ({tasks} tasks) and {farm.merge_script}", err=True)
    _submit(farm, list(range(tasks)), [], merge, dry_run, layers=bool(groups))


@slurm_app.command()
def status(
    out: OutOpt,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per task instead of the summary.")] = False,
) -> None:
    """Done / running / pending / failed / unfinished per task, from the shards' records and SLURM."""
    from tabletest.farm.status import farm_status

    farm = Farm.load(out)
    tasks = farm_status(farm)
    if as_json:
        for task in tasks:
            typer.echo(json.dumps({**asdict(task), "part": str(task.part)}))
        return
    counts = {state: sum(t.state == state for t in tasks) for state in ("done", "running", "pending", "failed", "unfinished")}
    typer.echo(f"{farm.tasks} tasks: " + ", ".join(f"{n} {state}" for state, n in counts.items() if n))
    for task in tasks:
        if task.state != "done":
            typer.echo(_task_line(task))
    if counts["failed"] or counts["unfinished"]:
        typer.echo(f"logs: {farm.slurm_dir / 'logs'}; run the unfinished tasks again: tabletest slurm resubmit {out}")
    merged = farm.merged / "run.json"
    if merged.is_file():
        typer.echo(f"merged: {farm.merged}")
    elif counts["done"] == farm.tasks:
        typer.echo(f"every task is done; merge: tabletest merge {farm.root}/parts/* --out {farm.merged}")


@slurm_app.command()
def resubmit(out: OutOpt, merge: MergeOpt = True, dry_run: DryRunOpt = False) -> None:
    """Submit again only the tasks that are failed or unfinished (each resumes its own shard), then the merge."""
    from tabletest.farm.status import farm_status

    farm = Farm.load(out)
    tasks = farm_status(farm)
    again = [t.task for t in tasks if t.state in ("failed", "unfinished")]
    active = [t.job for t in tasks if t.state in ("running", "pending") and t.job]
    if not again:
        busy = f"; {len(active)} still queued or running" if active else ""
        typer.echo(f"nothing to resubmit: {sum(t.state == 'done' for t in tasks)} of {farm.tasks} tasks done{busy}", err=True)
        return
    _submit(farm, again, active, merge, dry_run)


def _submit(farm: Farm, tasks: list[int], after: list[str], merge: bool, dry_run: bool, layers: bool = False) -> None:
    """Submit the array's `tasks` (after the layer step, with `layers`) and (with `merge`) the merge job
    after them and the `after` tasks."""
    from tabletest.farm.slurm import array_range, sbatch

    array = f"--array={array_range(tasks)}"
    if dry_run:
        if layers:
            typer.echo(f"would run: sbatch {farm.layers_script}", err=True)
        typer.echo(f"would run: sbatch {array}{' --dependency=afterok:<layers job>' if layers else ''} {farm.render_script}", err=True)
        if merge:
            typer.echo(f"would run: sbatch --dependency=afterok:<array job>{''.join(':' + a for a in after)} {farm.merge_script}", err=True)
        return
    layers_job = sbatch(farm.layers_script) if layers else None
    wait = [f"--dependency=afterok:{layers_job}", "--kill-on-invalid-dep=yes"] if layers_job else []
    job = sbatch(farm.render_script, array, *wait)
    merge_job = None
    if merge:
        dependency = ":".join([job, *after])
        merge_job = sbatch(farm.merge_script, f"--dependency=afterok:{dependency}", "--kill-on-invalid-dep=yes")
    submitted = datetime.now(timezone.utc).isoformat(timespec="seconds")
    farm.submissions.append(Submission(job, tasks, layers_job, merge_job, submitted))
    farm.save()
    merged = f" and merge job {merge_job} (runs when they all succeed)" if merge_job else ""
    if layers_job:
        typer.echo(f"submitted layer job {layers_job} ({len(farm.layer_groups)} task(s)); the array waits for it")
    typer.echo(f"submitted array job {job} ({len(tasks)} task(s): {array_range(tasks)}){merged}")
    typer.echo(f"follow it: tabletest slurm status {farm.root}   (or: squeue -j {job}{',' + merge_job if merge_job else ''})")
    typer.echo(f"logs: {farm.slurm_dir / 'logs'}")


def _task_line(task: TaskStatus) -> str:
    scheduler = f"{task.job} {task.scheduler}" if task.scheduler else (task.job or "never submitted")
    return f"  task {task.task:>4} {task.state:<10} {task.images:>6} image(s)  {scheduler}  {task.part}"


def check_render_args(ctx: typer.Context, args: list[str]) -> dict:
    """The flags for `tabletest render`, parsed by that command itself (as the root finds it for `tabletest
    render`: its parameters by name), so a typo fails here, in one line, not on the cluster."""
    root = ctx.find_root()
    command = root.command.get_command(root, "render")
    try:
        params = command.make_context("tabletest render", list(args)).params
    except TyperException as err:  # typer's own click: a usage error
        message = err.format_message() if hasattr(err, "format_message") else str(err)
        raise UserError(f"the render flags are not right: {message} (see tabletest render --help)") from None
    given = {arg.split("=")[0] for arg in args}
    if params.get("shard") is not None or "--shard" in given:
        raise UserError("--shard is set per task by the farm (task i renders shard i/--tasks); leave it out")
    return params


def check_scene_set(params: dict, tasks: int) -> None:
    """The family's set checked as each task will check it (a random set's --count, its --random-config), and refused
    when some tasks would have no scene to render."""
    from tabletest.commands.options import make_selection
    from tabletest.config import load_catalog
    from tabletest.layout.selection import count_chosen
    from tabletest.write.families import Asked, scene_family

    selection = make_selection(params["objects"], None, params["limit"], params["sample"], params["seed"], params["only"])
    asked = Asked(
        load_catalog(params["catalog"]), selection, selection.seed, params["count"], params["random_config"], params["counterfactuals"],
        params["views"], params["view_layout"], params["sequence"], params["frames"],
    )
    family = scene_family(params["scenes"], asked)
    if tasks > (scenes := count_chosen(family.indices(), None, None)):
        raise UserError(f"--tasks {tasks} is more than the {family.name} set's {scenes} scenes; give --tasks {scenes} or fewer")
