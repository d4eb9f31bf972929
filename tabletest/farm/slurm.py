"""Talking to SLURM through its own commands: sbatch to submit, squeue and sacct to see task states.

`squeue` knows every job the controller still holds (finished ones for MinJobAge, 5 min by default);
`sacct` knows the rest where the cluster keeps accounting (slurmdbd). Without either, the shard's
own records still say what is done (see status.py).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tabletest.errors import UserError

ACTIVE = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "SUSPENDED", "STAGE_OUT", "SIGNALING"}


def sbatch(script: Path, *options: str) -> str:
    """Submit `script`; return the job id."""
    result = _run(["sbatch", "--parsable", *options, str(script)])
    if result.returncode != 0:
        raise UserError(f"sbatch refused {script}: {_one_line(result.stderr)}; fix the option it names and submit again")
    job = result.stdout.strip().split(";")[0]
    if not (job.isascii() and job.isdigit()):
        raise UserError(
            f"sbatch took {script} but printed {_one_line(result.stdout)[:80]!r}, not a job id; look for the job with "
            "squeue --me, cancel it if it is there (scancel ID), and submit again"
        )
    return job


def task_states(job_ids: list[str]) -> dict[tuple[str, int], str]:
    """(array job id, task id) -> the scheduler's state of that task, for the tasks SLURM still knows."""
    states: dict[tuple[str, int], str] = {}
    if not job_ids:
        return states
    ids = ",".join(job_ids)
    if shutil.which("sacct"):
        result = _run(["sacct", "--noheader", "--parsable2", "--allocations", "--jobs", ids, "--format", "JobID,State"])
        if result.returncode == 0:  # without accounting storage sacct says so and fails: squeue is enough then
            for line in result.stdout.splitlines():
                _add(states, *line.split("|")[:2])
    result = _run(["squeue", "--noheader", "--array", "--states", "all", "--jobs", ids, "--format", "%i|%T"])
    if result.returncode != 0 and "Invalid job id" not in result.stderr:  # that one: SLURM has forgotten them all
        raise UserError(f"squeue failed: {_one_line(result.stderr)}; without it running tasks cannot be told from stopped ones")
    for line in result.stdout.splitlines():
        _add(states, *line.split("|")[:2])
    return states


def _add(states: dict[tuple[str, int], str], job: str, state: str) -> None:
    """Record `123_7 RUNNING`; a pending range (`123_[8-63]`) is expanded; `CANCELLED by 0` -> CANCELLED."""
    head, sep, tail = job.strip().partition("_")
    if not sep:
        return
    state = state.split()[0] if state.split() else "UNKNOWN"
    for task in _task_ids(tail):
        states[head, task] = state


def _task_ids(text: str) -> list[int]:
    text = text.strip("[]").split("%")[0]
    ids: list[int] = []
    for piece in text.split(","):
        low, _, high = piece.partition("-")
        if low.isdigit() and (not high or high.isdigit()):
            ids.extend(range(int(low), int(high or low) + 1))
    return ids


def array_range(tasks: list[int]) -> str:
    """[0, 1, 2, 5, 7, 8] -> `0-2,5,7-8` (what sbatch --array takes)."""
    pieces: list[str] = []
    start = prev = None
    for task in sorted(tasks) + [None]:
        if prev is not None and task == prev + 1:
            prev = task
            continue
        if start is not None:
            pieces.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = task
    return ",".join(pieces)


def _run(command: list[str]) -> subprocess.CompletedProcess:
    if not shutil.which(command[0]):
        raise UserError(f"{command[0]} is not on PATH: run this on a SLURM login node (or use --dry-run to write the scripts)")
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "no reason given"
