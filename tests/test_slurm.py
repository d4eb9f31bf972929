"""The render farm on a real SLURM: a single-node cluster (slurmctld, slurmd, munge) started for the
session by scripts/ci/slurm-single-node.sh and stopped afterwards, unless it was up already.

With 2 CPUs and one CPU per task, two array tasks run at a time; the waits allow for that.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog

from conftest import REPO, run_cli

pytestmark = [pytest.mark.slurm, pytest.mark.render]  # a real scheduler running real renders

SCRIPT = REPO / "scripts" / "ci" / "slurm-single-node.sh"
NAMES = ("tomato", "banana", "apple", "lemon", "orange")  # 20 two-object scenes, 5 per shard of 4
SCENES = ["--objects", "2", "--only", ",".join(NAMES), "--device", "cpu"]
TINY = ["--resolution", "32x24", "--samples", "1"]
# Slow enough (about 0.5 s an image, with the model cache) that a task is caught, and signalled, mid-run
MID_RUN = ["--resolution", "64x48", "--samples", "256"]


@pytest.fixture(scope="session")
def slurm():
    """A running single-node SLURM; SLURM_CONF points the clients (and the jobs) at it."""
    up = subprocess.run([str(SCRIPT), "up"], capture_output=True, text=True, timeout=900)
    assert up.returncode == 0, up.stdout + up.stderr
    started_here = "already up" not in up.stdout
    conf = subprocess.run([str(SCRIPT), "env"], capture_output=True, text=True, check=True).stdout.split("=", 1)[1].strip()
    before = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = conf
    yield conf
    if before is None:
        os.environ.pop("SLURM_CONF")
    else:
        os.environ["SLURM_CONF"] = before
    if started_here:
        down = subprocess.run([str(SCRIPT), "down"], capture_output=True, text=True, timeout=120)
        assert down.returncode == 0, down.stderr


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    build_assets(load_catalog(), folder, list(NAMES), jobs=1)
    return folder


def run(*command: str) -> str:
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"{command}: {result.stderr}"
    return result.stdout


def wait_for(what: str, probe, timeout: float = 300, every: float = 0.25, state=lambda: ""):
    """Poll `probe` until it returns something true; return that. On a timeout, say `state()`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if found := probe():
            return found
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}; {state()}")


@pytest.mark.slow
def test_shard_auto_in_a_real_array_3_to_7(tmp_path, slurm):
    """`--array=3-7` is five tasks, shards 0/5 ... 4/5."""
    command = "python -c 'from tabletest.layout.selection import Shard; print(Shard.parse(\"auto\"))'"
    run("sbatch", "--wait", "--array=3-7", f"--chdir={REPO}", f"--output={tmp_path}/%a.log", "--wrap", command)
    assert [(tmp_path / f"{task}.log").read_text() for task in range(3, 8)] == [f"{i}/5\n" for i in range(5)]


def statuses(out: Path) -> dict[int, dict]:
    result = run_cli("slurm", "status", str(out), "--json")
    assert result.returncode == 0, result.stderr
    return {task["task"]: task for task in map(json.loads, result.stdout.splitlines())}


def mid_run(out: Path, tasks: set[int]) -> int | None:
    """One of `tasks` that has finished one or two of its 5 images: a task no one has stopped is then
    running, and the three left give a signal time to land before it ends. Read from the parts' own
    metadata alone (flushed per image), with no call to the scheduler in the loop: a squeue answered
    slowly on a busy machine would let a task pass its window between two looks."""
    for task in sorted(tasks):
        metadata = out / "parts" / f"shard-{task:04d}-of-0004" / "metadata.jsonl"
        if metadata.is_file() and 1 <= len(metadata.read_text().splitlines()) <= 2:
            return task
    return None


def farm_state(out: Path, array: str) -> str:
    """The queue and each part's images, to read when a wait on the farm times out."""
    queue = subprocess.run(["squeue", "-h", "-r", "-t", "all", "-j", array, "-o", "%K %T %r"], capture_output=True, text=True)
    parts = {p.name: len((p / "metadata.jsonl").read_text().splitlines()) for p in sorted((out / "parts").glob("shard-*")) if (p / "metadata.jsonl").is_file()}
    return f"queue: {queue.stdout.strip() or queue.stderr.strip()!r}; images per part: {parts}"


def farm_logs(out: Path) -> str:
    """Every task's log, to read when a farm test fails."""
    return "\n".join(f"== {log.name}\n{log.read_text()}" for log in sorted((out / "slurm" / "logs").glob("*.log")))


def last_run(part: Path) -> dict:
    data = json.loads((part / "run.json").read_text())
    return data["runs"][-1] if isinstance(data, dict) and "runs" in data else data


@pytest.mark.slow
def test_array_killed_preempted_resubmitted_and_merged_equals_one_machine(tmp_path, slurm, assets):
    out = tmp_path / "farm"
    submitted = run_cli("slurm", "render", "--out", str(out), "--tasks", "4", "--assets", str(assets), *SCENES, *MID_RUN)
    assert submitted.returncode == 0, submitted.stderr
    job = re.search(r"submitted array job (\d+) \(4 task\(s\): 0-3\) and merge job (\d+)", submitted.stdout)
    assert job, submitted.stdout
    array, first_merge = job.groups()
    script = (out / "slurm" / "render.sbatch").read_text()
    assert "#SBATCH --array=0-3" in script and "#SBATCH --requeue" in script and "--shard auto/4" in script

    # Kill one task mid-run (as a user's scancel would); warn another of its time limit (the USR1 that
    # `--signal=B:USR1@300` asks for): its script stops the render and requeues the task, as a preemption would.
    # The preempted one is the last task: it runs under the array's own job id, which a script that
    # requeued "$SLURM_JOB_ID" would requeue whole, every task with it.
    preempted = 3
    explain = partial(farm_state, out, array)
    killed = wait_for("a task with some of its images", lambda: mid_run(out, {0, 1, 2}), every=0.02, state=explain)
    run("scancel", f"{array}_{killed}")
    wait_for("the last task with some of its images", lambda: mid_run(out, {preempted}), every=0.02, state=explain)
    run("scancel", "--batch", "--signal=USR1", f"{array}_{preempted}")
    # SLURM holds a requeued job back 2 min (BeginTime): once it is pending again, let it start sooner,
    # but not within the second of its requeue: slurmd refuses a job whose credential is no newer than
    # the revocation of its last run ("Job credential revoked"), timed in whole seconds.
    state = ("squeue", "-h", "-j", f"{array}_{preempted}", "-o", "%T %r")
    wait_for("the preempted task back in the queue", lambda: run(*state).split() == ["PENDING", "BeginTime"], 60, state=explain)
    run("scontrol", "update", f"JobId={array}_{preempted}", "StartTime=now+3")

    # The other three finish (the preempted one after its restart); the killed one is failed, and
    # the first merge job never runs, its dependency broken.
    final = wait_for(
        "the tasks to settle",
        lambda: (s := statuses(out)) and all(t["state"] in ("done", "failed") for t in s.values()) and s,
        state=explain,
    )
    states = {t: s["state"] for t, s in final.items()}
    assert states == {t: "failed" if t == killed else "done" for t in range(4)}, (final, farm_logs(out))
    assert final[killed]["scheduler"] == "CANCELLED" and 1 <= final[killed]["images"] < 5
    text = run_cli("slurm", "status", str(out)).stdout
    assert text.startswith("4 tasks: 3 done, 1 failed") and f"tabletest slurm resubmit {out}" in text
    # Its second run comes even when the first had rendered every image before the warning reached it
    # (its part is then complete already): wait for that run to end before reading the logs.
    log = out / "slurm" / "logs" / f"render-{array}_{preempted}.log"
    wait_for("the preempted task's second run to end", lambda: "start 1" in log.read_text() and not run(*state).strip(), 60)
    restarted = [t for t in range(4) if "start 1" in (out / "slurm" / "logs" / f"render-{array}_{t}.log").read_text()]
    assert restarted == [preempted], farm_logs(out)  # requeued alone
    wait_for("the first merge job to be cancelled", lambda: "CANCELLED" in run("squeue", "-h", "-t", "all", "-j", first_merge, "-o", "%T"), 60)
    assert not (out / "merged").exists()

    resubmitted = run_cli("slurm", "resubmit", str(out))
    assert resubmitted.returncode == 0, resubmitted.stderr
    assert f"(1 task(s): {killed})" in resubmitted.stdout
    wait_for("the merged dataset", lambda: (out / "merged" / "run.json").is_file(), 300, every=1)
    assert all(t["state"] == "done" for t in statuses(out).values())
    for task in (killed, preempted):  # both resumed: the images they had were kept, not rendered again
        timings = last_run(out / "parts" / f"shard-{task:04d}-of-0004")["timings"]
        assert timings["images_skipped"] >= 1 and timings["images_skipped"] + timings["images_rendered"] == 5

    single = tmp_path / "single"
    result = run_cli("render", "--out", str(single), "--assets", str(assets), "--quiet", *SCENES, *MID_RUN)
    assert result.returncode == 0, result.stderr
    merged_lines = (out / "merged" / "metadata.jsonl").read_text().splitlines()
    assert len(merged_lines) == 20 and merged_lines == (single / "metadata.jsonl").read_text().splitlines()
    for line in merged_lines:
        name = json.loads(line)["file_name"]
        with Image.open(out / "merged" / name) as a, Image.open(single / name) as b:
            assert np.array_equal(np.asarray(a), np.asarray(b)), name
    history = json.loads((out / "merged" / "run.json").read_text())["runs"]
    assert history[-1]["command"] == "merge" and {r.get("part") for r in history[:-1]} == {f"shard-{t:04d}-of-0004" for t in range(4)}


def test_composite_layers_once_then_the_composing_array(tmp_path, slurm, assets):
    """The layer step renders each layer once (the empty table once per layer task); the composing
    tasks, started after it, render none and only compose."""
    out, cache = tmp_path / "farm", tmp_path / "layers"
    names = ",".join(NAMES[:4])  # 12 scenes, layer groups of 2 objects
    scenes = [*SCENES, *TINY, "--only", names, "--mode", "composite", "--layer-cache", str(cache), "--assets", str(assets)]
    submitted = run_cli("slurm", "render", "--out", str(out), "--tasks", "2", "--layer-tasks", "2", *scenes)
    assert submitted.returncode == 0, submitted.stderr
    assert re.search(r"submitted layer job \d+ \(2 task\(s\)\); the array waits for it", submitted.stdout)
    wait_for("the merged dataset", lambda: (out / "merged" / "run.json").is_file(), 300, every=1)
    layer_runs = [last_run(out / "layers" / f"group-{j:04d}")["layers"] for j in range(2)]
    # 4 objects x 2 slots, each once; the empty table once per layer task, or once if one found it cached
    assert sum(run["rendered"] for run in layer_runs) in (4 * 2 + 1, 4 * 2 + 2)
    for task in range(2):
        run = last_run(out / "parts" / f"shard-{task:04d}-of-0002")
        assert run["layers"]["rendered"] == 0 and run["layers"]["cached"] == run["layers"]["needed"]
        assert run["images_composed"] == 6
    records = [json.loads(line) for line in (out / "merged" / "metadata.jsonl").read_text().splitlines()]
    assert len(records) == 12 and {r["render"]["mode"] for r in records} == {"composite"}


def test_status_refuses_to_guess_when_squeue_fails(tmp_path, slurm):
    """Were a broken squeue read as "no job", running tasks would look stopped and be submitted twice."""
    out = tmp_path / "farm"
    assert run_cli("slurm", "render", "--out", str(out), "--tasks", "2", "--dry-run", "--objects", "1").returncode == 0
    farm = json.loads((out / "slurm" / "farm.json").read_text())
    farm["submissions"] = [{"array_job": "5", "tasks": [0, 1], "merge_job": None}]
    (out / "slurm" / "farm.json").write_text(json.dumps(farm))
    (tmp_path / "broken.conf").write_text("")
    result = subprocess.run(
        [sys.executable, "-m", "tabletest.cli", "slurm", "resubmit", str(out)], capture_output=True, text=True,
        cwd=REPO, env={**os.environ, "SLURM_CONF": str(tmp_path / "broken.conf")}, timeout=60,
    )
    assert result.returncode == 2 and result.stderr.startswith("error: squeue failed: ") and result.stderr.count("\n") == 1
