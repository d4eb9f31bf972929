"""What a farm is (plain data in OUT/slurm/farm.json) and the sbatch scripts it writes.

The scripts are meant to be read: one array script whose task i renders shard i, and one merge
script that runs after the array succeeds. Resubmitting some tasks reuses the same array script
with `--array=3,7` on the command line, which is why a task's shard is its array task id.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from dataclasses import asdict, field, replace
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, ConfigDict, Field, TypeAdapter, ValidationError, ValidationInfo, field_validator
from pydantic.dataclasses import dataclass

from tabletest.config import excerpt
from tabletest.errors import UserError
from tabletest.files.jsonl import atomic_output

FARM = "farm.json"
LINE_ENDS = {"\n": "a newline", "\r": "a carriage return", "\0": "a NUL"}
MAX_TASKS = 10_000  # the parts' four-digit names (shard-0000 … shard-9999); `status` looks at each task's folder
MAX_PER_TASK = 65_535  # CPUs or GPUs one task asks for: SLURM counts a task's CPUs in 16 bits
CLOSED = ConfigDict(extra="forbid", strict=True)  # farm.json as `save` writes it: an unknown or mistyped field is an error


def _job_id(text: str) -> str:
    """What `sbatch --parsable` printed, and only that: it goes to squeue and sacct as an argument."""
    if not (text.isascii() and text.isdigit() and len(text) <= 20):
        raise ValueError("a SLURM job id is its digits, as sbatch printed them")
    return text


def _absolute(text: str) -> str:
    """A folder a relative --out was given from: an absolute path, which a NUL cannot be part of."""
    if not text.startswith("/") or "\0" in text:
        raise ValueError("should be an absolute path, the folder `tabletest slurm render` ran in")
    return text


JobId = Annotated[str, AfterValidator(_job_id)]
TaskId = Annotated[int, Field(ge=0, lt=MAX_TASKS)]
PerTask = Annotated[int, Field(le=MAX_PER_TASK)]


@dataclass(frozen=True, config=CLOSED)
class Resources:
    """What one task asks the scheduler for."""

    partition: str | None = None
    time: str | None = None
    gpus_per_task: Annotated[PerTask, Field(ge=0)] = 0
    cpus_per_task: Annotated[PerTask, Field(ge=1)] = 1
    mem: str | None = None
    account: str | None = None
    extra: tuple[str, ...] = ()  # further `#SBATCH` options, as given (e.g. --qos=low)


@dataclass(config=CLOSED)
class Submission:
    """One `sbatch` of the array (some or all of its tasks), with the jobs submitted around it."""

    array_job: JobId
    tasks: Annotated[list[TaskId], Field(min_length=1)]
    layers_job: JobId | None = None
    merge_job: JobId | None = None
    submitted: str | None = None  # when, ISO 8601 UTC


@dataclass(config=CLOSED)
class Farm:
    """A farm's plan: checked where it is made and where `load` reads it, so a damaged or hand-edited
    farm.json is one line naming the field, never a traceback or a loop over a count it made up."""

    root: Path  # the output root: parts/, slurm/, merged/
    tasks: Annotated[int, Field(ge=1, le=MAX_TASKS)]
    render_args: list[str]  # `tabletest render` flags, without --shard and --out
    python: str
    workdir: Annotated[str, AfterValidator(_absolute)]  # a relative root is relative to it
    resources: Resources
    layer_groups: Annotated[list[str], Field(max_length=MAX_TASKS)] = field(default_factory=list)  # task j's objects
    submissions: list[Submission] = field(default_factory=list)

    @field_validator("submissions")
    @classmethod
    def _tasks_of_this_array(cls, submissions: list[Submission], info: ValidationInfo) -> list[Submission]:
        """Every task a submission names is one of the array's (`tasks`, checked before it)."""
        tasks = info.data.get("tasks")
        for number, submission in enumerate(submissions):
            if tasks is not None and (task := max(submission.tasks)) >= tasks:
                raise ValueError(f"submission {number} names task {task}, but the array has tasks 0 to {tasks - 1}")
        return submissions

    @property
    def slurm_dir(self) -> Path:
        return self.root / "slurm"

    @property
    def render_script(self) -> Path:
        return self.slurm_dir / "render.sbatch"

    @property
    def layers_script(self) -> Path:
        return self.slurm_dir / "layers.sbatch"

    @property
    def merge_script(self) -> Path:
        return self.slurm_dir / "merge.sbatch"

    @property
    def merged(self) -> Path:
        return self.root / "merged"

    def part(self, task: int) -> Path:
        return self.root / "parts" / part_name(task, self.tasks)

    def save(self) -> None:
        with atomic_output(self.slurm_dir / FARM) as fh:
            fh.write(json.dumps({**asdict(self), "root": str(self.root)}, indent=2) + "\n")

    @classmethod
    def load(cls, root: Path) -> Farm:
        """The farm whose output root is `root`, from its slurm/farm.json, checked in full."""
        path = Path(root) / "slurm" / FARM
        if not path.is_file():
            raise UserError(f"{root} is not a farm's output root (no slurm/{FARM}); give the --out of `tabletest slurm render`")
        try:
            farm = _FILE.validate_json(path.read_bytes())
        except ValidationError as err:
            raise _damaged(path, root, err.errors()[0]) from None
        _check_root(path, farm, Path(root))
        return replace(farm, root=Path(root))

    def write_scripts(self) -> None:
        check_one_line(self)
        (self.slurm_dir / "logs").mkdir(parents=True, exist_ok=True)
        scripts = [(self.render_script, render_script(self)), (self.merge_script, merge_script(self))]
        if self.layer_groups:
            scripts.append((self.layers_script, layers_script(self)))
        for path, text in scripts:
            with atomic_output(path) as fh:
                fh.write(text)


_FILE = TypeAdapter(Farm)


def _damaged(path: Path, root: Path, problem: dict) -> UserError:
    """`OUT/slurm/farm.json: tasks 1000000000000: Input should be ...; fix`: the field, its value, why, and the fix."""
    redo = f"fix it, or delete it and write the farm again with the same flags: {_again(root)}"
    if problem["type"] == "json_invalid":
        return UserError(f"{path} is not whole JSON ({problem['ctx']['error']}); {redo}")
    where = ".".join(map(str, problem["loc"])) or "the file"
    if problem["type"] in ("missing", "missing_argument"):
        return UserError(f"{path}: {where} is missing; {redo}")
    if problem["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
        return UserError(f"{path}: {where} is not a field of a farm; {redo}")
    return UserError(f"{path}: {where} {excerpt(problem['input'])}: {problem['msg'].removeprefix('Value error, ')}; {redo}")


def _again(root: Path) -> str:
    return f"tabletest slurm render --out {root} … (finished parts are kept)"


def _check_root(path: Path, farm: Farm, root: Path) -> None:
    """The root farm.json names is the folder that holds it: its scripts write into that root, so a plan
    pointing elsewhere would have `resubmit` render into another folder than the one followed."""
    named = Path(farm.workdir) / farm.root  # a root given relative to where `slurm render` ran
    if "\0" in str(named) or named.resolve() != root.resolve():
        raise UserError(
            f"{path}: root {excerpt(str(farm.root))} is not this farm's folder ({root.resolve()}), and its scripts write "
            f"there; follow the farm from that folder, or delete {path} and write the farm again here with the same "
            f"flags: {_again(root)}"
        )


def script_values(farm: Farm) -> Iterator[tuple[str, str]]:
    """Every value the scripts are written from, each with the flag (or source) it came from; lazily, so
    that --out is resolved (as the scripts write it, through its links) only once it passed as given."""
    r = farm.resources
    yield "--out", str(farm.root)
    yield "--out", str(farm.root.resolve())
    for flag, value in (("--partition", r.partition), ("--time", r.time), ("--mem", r.mem), ("--account", r.account)):
        if value is not None:
            yield flag, value
    yield from (("--sbatch-option", option) for option in r.extra)
    yield from _render_flag_values(farm.render_args)
    yield from (("a layer group's object names", group) for group in farm.layer_groups)
    yield "the working directory", farm.workdir
    yield "the Python executable", farm.python


def _render_flag_values(args: list[str]) -> Iterator[tuple[str, str]]:
    """`--only mug` and `--only=mug` -> ("--only", "mug"): a render flag named as the user wrote it."""
    for i, arg in enumerate(args):
        flag, equals, value = arg.partition("=")
        if arg.startswith("--") and equals:
            yield flag, value
        elif arg.startswith("-") or i == 0 or not args[i - 1].startswith("-"):
            yield "a render flag", arg
        else:
            yield args[i - 1], arg


def check_one_line(farm: Farm) -> None:
    """Refuse a value that would end its line of a script: the rest of it would run as a shell command
    (an `#SBATCH` line is a comment to the shell), so the check comes before anything is written."""
    for flag, value in script_values(farm):
        found = next((char for char in value if char in LINE_ENDS), None)
        if found is not None:
            raise UserError(
                f"{flag} {value!r} contains {LINE_ENDS[found]}, which would end its line of the sbatch script and run "
                "the rest as a command; give it on one line"
            )


def part_name(task: int, tasks: int) -> str:
    return f"shard-{task:04d}-of-{tasks:04d}"


def render_script(farm: Farm) -> str:
    n = farm.tasks
    root = farm.root.resolve()
    render = shlex.join([farm.python, "-m", "tabletest.cli", "render", *farm.render_args, "--quiet"])
    gpus = _gpu_lines(farm)
    return f"""#!/bin/bash
# TableTest render farm, written by `tabletest slurm render`: task i of the array renders shard i/{n}
# of the selection into its own folder, {root}/parts/shard-<i>-of-{n:04d}/, and touches no other.
# A task that is preempted or stopped resumes where it stopped when it runs again (finished images
# are kept). Follow it: tabletest slurm status {_quote(root)}
# Run the unfinished tasks again: tabletest slurm resubmit {_quote(root)}
#   (or: sbatch --array=3,7 {_quote(farm.render_script.resolve())})
{_sbatch_lines(farm, "tabletest-render", f"0-{n - 1}", "render-%A_%a.log")}
#SBATCH --requeue
#SBATCH --signal=B:USR1@300

set -uo pipefail
part={_quote(root)}/parts/"$(printf 'shard-%04d-of-%04d' "$SLURM_ARRAY_TASK_ID" {n})"
echo "task $SLURM_ARRAY_TASK_ID of {n} (job $SLURM_JOB_ID, start ${{SLURM_RESTART_COUNT:-0}}) on $(hostname) -> $part"
{gpus}

# Five minutes before the time limit SLURM sends USR1: stop the render (finished images are kept)
# and put this task back in the queue, where it resumes. The task is named as <array>_<task>: the
# array's last task runs under the array's own job id, and requeueing that id requeues every task.
requeue() {{
    kill -TERM "$pid" 2>/dev/null
    wait "$pid"
    scontrol requeue "${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}}"
    exit 0
}}
trap requeue USR1

{render} \\
    --shard auto/{n} --out "$part" "${{gpus[@]}}" &
pid=$!
wait "$pid"
"""


def layers_script(farm: Farm) -> str:
    """Composite mode's first step: task j renders every layer of its group of objects (at every slot,
    plus the empty table) into the shared layer cache, by composing the few scenes made of that group
    alone into a scratch folder; the render array starts when all of them succeeded."""
    root = farm.root.resolve()
    groups = "\n".join(f"    {shlex.quote(group)}" for group in farm.layer_groups)
    args = _without(farm.render_args, ("--only", "--limit", "--sample"))
    render = shlex.join([farm.python, "-m", "tabletest.cli", "render", *args, "--quiet"])
    return f"""#!/bin/bash
# TableTest render farm, composite mode, step 1 of 2 (written by `tabletest slurm render`): task j
# renders the layers of its group of objects, each alone at every slot, into the shared --layer-cache,
# by composing the scenes made only of that group into {root}/layers/group-<j>/ (a scratch folder).
# Step 2, {farm.render_script.resolve()}, composes every scene from the cache once all of these succeeded.
{_sbatch_lines(farm, "tabletest-layers", f"0-{len(farm.layer_groups) - 1}", "layers-%A_%a.log")}
#SBATCH --requeue

set -uo pipefail
groups=(
{groups}
)
out={_quote(root)}/layers/"$(printf 'group-%04d' "$SLURM_ARRAY_TASK_ID")"
{_gpu_lines(farm)}
{render} \\
    --only "${{groups[$SLURM_ARRAY_TASK_ID]}}" --out "$out" "${{gpus[@]}}"
"""


def layer_groups(names: list[str], objects: int, tasks: int) -> list[str]:
    """`names` dealt round-robin into at most `tasks` groups of at least `objects` names each."""
    count = max(1, min(tasks, len(names) // objects))
    return [",".join(names[j::count]) for j in range(count)]


def _without(args: list[str], flags: tuple[str, ...]) -> list[str]:
    """`args` without the given options (as `--flag value` or `--flag=value`)."""
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in flags:
            skip = True
        elif not arg.startswith(tuple(f"{flag}=" for flag in flags)):
            kept.append(arg)
    return kept


def merge_script(farm: Farm) -> str:
    root = farm.root.resolve()
    merge = shlex.join([farm.python, "-m", "tabletest.cli", "merge"])
    parts = f"{_quote(root)}/parts/shard-*-of-{farm.tasks:04d}"  # the glob left unquoted, to expand
    return f"""#!/bin/bash
# TableTest render farm, written by `tabletest slurm render`: after every render task succeeded,
# merge the shard folders into one dataset, {root}/merged (hard links to the parts' images).
{_sbatch_lines(farm, "tabletest-merge", None, "merge-%j.log", merge=True)}

set -euo pipefail
{merge} {parts} --out {_quote(farm.merged.resolve())}
"""


def _quote(path: Path) -> str:
    """A path as one shell word, whatever its characters (`$`, quotes, spaces): a path is data, never code."""
    return shlex.quote(str(path))


def _gpu_lines(farm: Farm) -> str:
    if not farm.resources.gpus_per_task:
        return "gpus=()"
    return '# One render worker per GPU that SLURM gave this task.\ngpus=(${CUDA_VISIBLE_DEVICES:+--gpus "$CUDA_VISIBLE_DEVICES"})'


def _sbatch_lines(farm: Farm, name: str, array: str | None, log: str, merge: bool = False) -> str:
    r = farm.resources
    options = [
        f"--job-name={name}",
        *([f"--array={array}"] if array else []),
        "--ntasks=1",
        f"--cpus-per-task={r.cpus_per_task}",
        *([f"--gpus-per-task={r.gpus_per_task}"] if r.gpus_per_task and not merge else []),
        *([f"--mem={r.mem}"] if r.mem else []),
        *([f"--partition={r.partition}"] if r.partition else []),
        *([f"--time={r.time}"] if r.time else []),
        *([f"--account={r.account}"] if r.account else []),
        *r.extra,
        f"--chdir={farm.workdir}",
        f"--output={farm.slurm_dir.resolve() / 'logs' / log}",
        "--open-mode=append",
    ]
    return "\n".join(f"#SBATCH {option}" for option in options)
