"""`--shard auto`: a task's shard from its scheduler's environment (SLURM arrays, Kubernetes indexed jobs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tabletest.errors import UserError
from tabletest.layout.selection import Shard

from conftest import REPO


def slurm(task: int, low: int, high: int, step: int = 1) -> dict[str, str]:
    count = (high - low) // step + 1
    env = {
        "SLURM_ARRAY_TASK_ID": str(task),
        "SLURM_ARRAY_TASK_MIN": str(low),
        "SLURM_ARRAY_TASK_MAX": str(high),
        "SLURM_ARRAY_TASK_COUNT": str(count),
    }
    if step != 1:
        env["SLURM_ARRAY_TASK_STEP"] = str(step)
    return env


def test_a_slurm_array_3_to_7_is_shards_0_to_4_of_5():
    assert [Shard.parse("auto", slurm(t, 3, 7)) for t in range(3, 8)] == [Shard(i, 5) for i in range(5)]


def test_a_stepped_slurm_array_counts_its_tasks():
    assert [Shard.parse("auto", slurm(t, 0, 10, 5)) for t in (0, 5, 10)] == [Shard(0, 3), Shard(1, 3), Shard(2, 3)]


def test_with_a_count_the_array_task_id_is_the_shard():
    """A resubmission of tasks 3 and 7 of a 64-task array (`--array=3,7`) renders shards 3/64 and 7/64."""
    env = {"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_COUNT": "2"}
    assert Shard.parse("auto/64", env) == Shard(7, 64)
    assert Shard.parse("auto", {**env, "TABLETEST_SHARD_COUNT": "64"}) == Shard(7, 64)


def test_a_kubernetes_indexed_job_needs_its_count():
    assert Shard.parse("auto/8", {"JOB_COMPLETION_INDEX": "5"}) == Shard(5, 8)
    assert Shard.parse("auto", {"JOB_COMPLETION_INDEX": "5", "TABLETEST_SHARD_COUNT": "8"}) == Shard(5, 8)
    with pytest.raises(UserError, match="gives no shard count; write --shard auto/N or set TABLETEST_SHARD_COUNT"):
        Shard.parse("auto", {"JOB_COMPLETION_INDEX": "5"})


@pytest.mark.parametrize(
    "text, env, message",
    [
        ("auto", {}, "no scheduler index in the environment"),
        ("auto/x", {}, "must be a number"),
        ("auto/0", {"JOB_COMPLETION_INDEX": "0"}, "impossible"),
        ("auto/8", {"JOB_COMPLETION_INDEX": "8"}, "JOB_COMPLETION_INDEX=8 is not below the shard count 8"),
        ("auto/4", slurm(5, 0, 9), "SLURM_ARRAY_TASK_ID=5 is not below the shard count 4"),
        ("auto", {**slurm(5, 1, 9), "SLURM_ARRAY_TASK_COUNT": "3"}, "not a plain range"),
        ("auto", {"JOB_COMPLETION_INDEX": "1", "TABLETEST_SHARD_COUNT": "many"}, "is not a number"),
        # a task id outside its array's ids would be a negative shard, or one past the count
        ("auto", slurm(1, 3, 7), "SLURM_ARRAY_TASK_ID=1 is outside this array's ids 3..7"),
        ("auto", {**slurm(9, 3, 7), "SLURM_ARRAY_TASK_COUNT": "5"}, "SLURM_ARRAY_TASK_ID=9 is outside this array's ids 3..7"),
        ("auto", {**slurm(3, 7, 3), "SLURM_ARRAY_TASK_COUNT": "1"}, "outside this array's ids 7..3"),
        # digits that are not decimal digits: '²'.isdigit() is True, int('²') fails
        ("auto", {**slurm(3, 3, 7), "SLURM_ARRAY_TASK_ID": "\u00b2"}, "SLURM_ARRAY_TASK_ID='\u00b2' is not a task number"),
        ("auto", {"JOB_COMPLETION_INDEX": "\u0663"}, "is not a task number"),
        ("auto/\u00b2", {"JOB_COMPLETION_INDEX": "0"}, "must be a number"),
        ("\u00b9/\u00b2", {}, "is not of the form i/n"),
        ("auto", {"JOB_COMPLETION_INDEX": "1", "TABLETEST_SHARD_COUNT": "\u00b2"}, "is not a number"),
    ],
)
def test_bad_environments_get_one_line(text, env, message):
    with pytest.raises(UserError, match=message) as err:
        Shard.parse(text, env)
    assert "\n" not in str(err.value)


def test_a_shard_cannot_be_made_out_of_range_by_any_route():
    for index, count in ((-2, 5), (6, 5), (0, 0), (5, 5)):
        with pytest.raises(UserError, match="out of range"):
            Shard(index, count)


def run_vignettes(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "JOB_COMPLETION", "TABLETEST_SHARD"))}
    return subprocess.run(
        [sys.executable, "-m", "tabletest.cli", "vignettes", "--objects", "1", *args],
        capture_output=True, text=True, cwd=REPO, env={**clean, **env}, timeout=60,
    )


def test_the_cli_reads_the_environment_and_refuses_without_one():
    result = run_vignettes(slurm(5, 3, 7), "--shard", "auto")
    assert result.returncode == 0, result.stderr
    assert [json.loads(line)["index"] % 5 for line in result.stdout.splitlines()] == [2] * 13
    result = run_vignettes({}, "--shard", "auto")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: --shard auto: no scheduler index")
