"""Where each task of a farm stands: its shard's own record first, the scheduler for the rest.

A task is `done` when its part's last run says complete (whatever the scheduler remembers);
`pending` or `running` while SLURM holds its latest submission; `failed` when SLURM says it ended
without finishing the shard; `unfinished` when the part is not complete and SLURM no longer knows
the task (or it was never submitted). Resubmission takes the failed and unfinished ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tabletest.farm.plan import Farm
from tabletest.farm.slurm import ACTIVE, task_states
from tabletest.files.run_output import METADATA, RUN, read_runs

RUNNING = {"RUNNING", "COMPLETING", "CONFIGURING", "SIGNALING", "STAGE_OUT"}


@dataclass(frozen=True)
class TaskStatus:
    task: int
    state: str  # done | pending | running | failed | unfinished
    job: str | None  # `123_7`, the latest submission's task
    scheduler: str | None  # SLURM's word for it, where SLURM still knows it
    images: int  # records in the part so far
    part: Path


def farm_status(farm: Farm) -> list[TaskStatus]:
    latest: dict[int, str] = {}
    for submission in farm.submissions:
        for task in submission.tasks:
            latest[task] = submission.array_job
    states = task_states(sorted(set(latest.values())))
    return [_task_status(farm, task, latest.get(task), states) for task in range(farm.tasks)]


def _task_status(farm: Farm, task: int, job: str | None, states: dict[tuple[str, int], str]) -> TaskStatus:
    part = farm.part(task)
    scheduler = states.get((job, task)) if job else None
    if _complete(part):
        state = "done"
    elif scheduler in RUNNING:
        state = "running"
    elif scheduler in ACTIVE:
        state = "pending"
    elif scheduler is not None:
        state = "failed"
    else:
        state = "unfinished"
    return TaskStatus(task, state, f"{job}_{task}" if job else None, scheduler, _count(part / METADATA), part)


def _complete(part: Path) -> bool:
    if not (part / RUN).is_file():
        return False
    runs = read_runs(part)
    return bool(runs) and runs[-1].get("status") == "complete"


def _count(path: Path) -> int:
    if not path.is_file():
        return 0
    with open(path, "rb") as fh:
        return sum(1 for line in fh if line.endswith(b"\n"))
