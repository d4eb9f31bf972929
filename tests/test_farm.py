"""The farm's pieces that need no scheduler: scripts, argument checks, task ranges, the Kubernetes manifest."""

from __future__ import annotations

import subprocess
import sys

import yaml

from tabletest.farm.plan import layer_groups, part_name
from tabletest.farm.slurm import _task_ids, array_range

from conftest import REPO, run_cli


def test_dry_run_writes_a_readable_array_script_and_submits_nothing(tmp_path):
    out = tmp_path / "farm"
    result = run_cli("slurm", "render", "--out", str(out), "--tasks", "64", "--gpus-per-task", "2", "--partition", "gpu",
                     "--time", "2:00:00", "--sbatch-option=--qos=low", "--dry-run", "--objects", "3", "--samples", "64")
    assert result.returncode == 0, result.stderr
    assert f"would run: sbatch --array=0-63 {out}/slurm/render.sbatch" in result.stderr
    script = (out / "slurm" / "render.sbatch").read_text()
    for line in ("#SBATCH --array=0-63", "#SBATCH --gpus-per-task=2", "#SBATCH --partition=gpu", "#SBATCH --time=2:00:00",
                 "#SBATCH --qos=low", "#SBATCH --requeue", "#SBATCH --signal=B:USR1@300", "--shard auto/64",
                 "--objects 3 --samples 64", 'gpus=(${CUDA_VISIBLE_DEVICES:+--gpus "$CUDA_VISIBLE_DEVICES"})'):
        assert line in script, line
    merge = (out / "slurm" / "merge.sbatch").read_text()
    assert f"merge {out}/parts/shard-*-of-0064 --out {out}/merged" in merge and "gpus-per-task" not in merge
    syntax = subprocess.run(["bash", "-n", str(out / "slurm" / "render.sbatch")], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr
    status = run_cli("slurm", "status", str(out))
    assert status.returncode == 0 and status.stdout.startswith("64 tasks: 64 unfinished")


def test_a_random_set_farm_writes_its_array_and_checks_the_set(tmp_path):
    out = tmp_path / "farm"
    result = run_cli("slurm", "render", "--out", str(out), "--tasks", "4", "--dry-run", "--scenes", "random", "--count", "40",
                     "--seed", "7", "--masks", "--counterfactuals", "swap", "--views", "2")
    assert result.returncode == 0, result.stderr
    script = (out / "slurm" / "render.sbatch").read_text()
    assert "#SBATCH --array=0-3" in script
    assert "render --scenes random --count 40 --seed 7 --masks --counterfactuals swap --views 2 --quiet" in script
    assert "--shard auto/4" in script and f"merge {out}/parts/shard-*-of-0004" in (out / "slurm" / "merge.sbatch").read_text()
    for args, message in (
        (("--count", "3"), "--tasks 4 is more than the random set's 3 scenes"),
        (("--count", "8", "--random-config", str(tmp_path / "none.yaml")), "random-config file"),
        (("--count", "8", "--counterfactuals", "teleport"), "--counterfactuals 'teleport' is not one of"),
        (("--count", "8", "--views", "0"), "--views 0: give how many cameras"),
    ):
        refused = run_cli("slurm", "render", "--out", str(tmp_path / "bad"), "--tasks", "4", "--dry-run", "--scenes", "random", *args)
        assert refused.returncode == 2 and refused.stderr.startswith("error: ") and message in refused.stderr, refused.stderr
    assert not (tmp_path / "bad").exists()


def test_render_flags_are_checked_at_submit_time(tmp_path):
    typo = run_cli("slurm", "render", "--out", str(tmp_path / "a"), "--tasks", "2", "--dry-run", "--objectz", "2")
    assert typo.returncode == 2 and "error: the render flags are not right: No such option: --objectz" in typo.stderr
    shard = run_cli("slurm", "render", "--out", str(tmp_path / "b"), "--tasks", "2", "--dry-run", "--shard", "0/2")
    assert shard.returncode == 2 and "--shard is set per task by the farm" in shard.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    missing = run_cli("slurm", "status", str(tmp_path))
    assert missing.returncode == 2 and "is not a farm's output root" in missing.stderr


def test_composite_layer_groups_cover_every_object_once():
    names = [f"o{i}" for i in range(64)]
    groups = layer_groups(names, 3, 16)
    assert len(groups) == 16 and sorted(n for g in groups for n in g.split(",")) == sorted(names)
    assert layer_groups(names[:5], 3, 16) == ["o0,o1,o2,o3,o4"]  # a group needs 3 objects for 3-object scenes


def test_task_ranges_round_trip():
    assert array_range([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"
    assert _task_ids("[0-2,5,7-8%4]") == [0, 1, 2, 5, 7, 8]
    assert part_name(7, 64) == "shard-0007-of-0064"


def test_the_kubernetes_manifest_names_the_shard_count_and_folders_the_farm_uses():
    job = yaml.safe_load((REPO / "scripts" / "k8s" / "tabletest-indexed-job.yaml").read_text())
    spec = job["spec"]
    container = spec["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert spec["completionMode"] == "Indexed" and int(env["TABLETEST_SHARD_COUNT"]) == spec["completions"] == 16
    command = container["args"][0]
    assert "--shard auto" in command and "shard-$(printf %04d $JOB_COMPLETION_INDEX)-of-0016" in command
    folder = subprocess.run(["sh", "-c", "echo shard-$(printf %04d $JOB_COMPLETION_INDEX)-of-0016"],
                            env={"JOB_COMPLETION_INDEX": "7", "PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    assert folder.stdout.strip() == part_name(7, 16)


def test_workers_use_the_cores_they_are_given_not_the_whole_node():
    """Under a CPU set (SLURM's, a container's) a CPU worker gets that many threads."""
    code = ("from pathlib import Path; from tabletest.render.run_options import RenderOptions, worker_slots; "
            "print(worker_slots(RenderOptions(Path('o'), Path('a'), False, device='cpu'))[0].threads)")
    one = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert one.returncode == 0, one.stderr
    assert one.stdout.strip() == "1"


def test_the_farm_and_merge_commands_show_their_help():
    for command in (["merge"], ["slurm"], ["slurm", "render"], ["slurm", "status"], ["slurm", "resubmit"], ["render"]):
        result = run_cli(*command, "--help")
        assert result.returncode == 0 and "Usage:" in result.stdout, (command, result.stderr)
