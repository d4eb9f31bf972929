"""The farm's pieces that need no scheduler: scripts, argument checks, task ranges, the Kubernetes manifest."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from tabletest.errors import UserError
from tabletest.farm.plan import MAX_TASKS, Farm, layer_groups, part_name
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


@pytest.fixture(scope="module")
def farm_root(tmp_path_factory) -> Path:
    """A farm written as `slurm render --dry-run` writes it (two tasks, never submitted); each test below
    writes its own farm.json from the one written here (`pristine`)."""
    out = tmp_path_factory.mktemp("farm") / "farm"
    result = run_cli("slurm", "render", "--out", str(out), "--tasks", "2", "--dry-run", "--objects", "1")
    assert result.returncode == 0, result.stderr
    (out / "slurm" / "pristine.json").write_bytes((out / "slurm" / "farm.json").read_bytes())
    return out


def write_farm(out: Path, edit) -> Path:
    """farm.json as written, changed by `edit`: in place (it returns None) or into the text it returns."""
    data = json.loads((out / "slurm" / "pristine.json").read_text())
    text = edit(data)
    path = out / "slurm" / "farm.json"
    path.write_text(json.dumps(data) if text is None else text)
    return path


def submitted(*tasks: int, job: str = "5") -> list[dict]:
    return [{"array_job": job, "tasks": list(tasks), "merge_job": None}]


AGAIN = "write the farm again{} with the same flags: tabletest slurm render --out {} … (finished parts are kept)"

# farm.json damaged or hostile in each way a reader must name in one line: (edit, what the line says)
HOSTILE_FARMS = {
    "truncated": (lambda d: json.dumps(d)[:60], "is not whole JSON (EOF while parsing"),
    "a-list": (lambda d: json.dumps([d]), "farm.json: the file [{"),
    "5000-digits": (lambda d: json.dumps(d).replace('"tasks": 2', '"tasks": ' + "9" * 5000), "is not whole JSON (number out of range"),
    "10**12-tasks": (lambda d: d.update(tasks=10**12), "farm.json: tasks 1000000000000: Input should be less than or equal to 10000"),
    "nan": (lambda d: json.dumps(d).replace('"tasks": 2', '"tasks": NaN'), "farm.json: tasks nan: Input should be a valid integer"),
    "missing": (lambda d: d.__delitem__("python"), "farm.json: python is missing"),
    "root-elsewhere": (lambda d: d.update(root="../../etc"), "farm.json: root '../../etc' is not this farm's folder"),
    "task-beyond": (lambda d: d.update(submissions=submitted(0, 10**12)), "submissions.0.tasks.1 1000000000000: Input should be less"),
    "job-option": (lambda d: d.update(submissions=submitted(0, job="--all")), "submissions.0.array_job '--all': a SLURM job id is its digits"),
}


@pytest.mark.parametrize("edit, message", HOSTILE_FARMS.values(), ids=HOSTILE_FARMS.keys())
def test_a_damaged_or_hostile_farm_json_is_one_line_naming_the_file_field_and_fix(farm_root, edit, message):
    """A plan that is not whole, holds another type, a count it made up (a loop over 10**12 tasks) or a root
    elsewhere is refused where it is read, by status and resubmit alike, before any work."""
    path = write_farm(farm_root, edit)
    start = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        results = dict(zip(("status", "resubmit"), pool.map(lambda c: run_cli("slurm", c, str(farm_root), timeout=30), ("status", "resubmit"))))
    assert time.monotonic() - start < 20
    for command, result in results.items():
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and result.stdout == "", (command, result.stderr)
        assert result.stderr.startswith(f"error: {path}") and message in result.stderr, (command, result.stderr)
        assert AGAIN.format("", farm_root) in result.stderr or AGAIN.format(" here", farm_root) in result.stderr


# (edit, the start of what Farm.load says after the file's path)
REFUSED_FIELDS = {
    "unknown": (lambda d: d.update(tasks_=3), "tasks_ is not a field of a farm"),
    "string-count": (lambda d: d.update(tasks="2"), "tasks '2': Input should be a valid integer"),
    "negative-cpus": (lambda d: d["resources"].update(cpus_per_task=-1), "resources.cpus_per_task -1: Input should be greater"),
    "huge-gpus": (lambda d: d["resources"].update(gpus_per_task=10**30), "resources.gpus_per_task 1000000000000000000000000000000: Input should be less"),
    "resources-list": (lambda d: d.update(resources=[]), "resources []: Input should be an object"),
    "relative-workdir": (lambda d: d.update(workdir="../.."), "workdir '../..': should be an absolute path"),
    "task-negative": (lambda d: d.update(submissions=submitted(-1)), "submissions.0.tasks.0 -1: Input should be greater"),
    "task-of-another-array": (lambda d: d.update(submissions=submitted(0, 7)), "submissions [{"),
    "no-tasks": (lambda d: d.update(submissions=submitted()), "submissions.0.tasks []: List should have at least 1 item"),
    "submission-list": (lambda d: d.update(submissions=[["5", [0]]]), "submissions.0 ['5', [0]]: Input should be an object"),
}


@pytest.mark.parametrize("edit, message", REFUSED_FIELDS.values(), ids=REFUSED_FIELDS.keys())
def test_each_field_is_checked_where_farm_json_is_read(farm_root, edit, message):
    path = write_farm(farm_root, edit)
    with pytest.raises(UserError) as refused:
        Farm.load(farm_root)
    assert str(refused.value).startswith(f"{path}: {message}") and AGAIN.format("", farm_root) in str(refused.value)


WRONG_TYPES = [{}, [], "x", 1.5, True, None, [1]]


def test_a_value_of_the_wrong_type_in_every_field_is_named(farm_root):
    """Each field of farm.json, and each of its resources, given every value of another type it cannot hold."""
    written = json.loads((farm_root / "slurm" / "pristine.json").read_text())
    fields = [(key,) for key in written if key != "resources"] + [("resources", key) for key in written["resources"]]
    for where in fields:
        holds = written[where[0]] if len(where) == 1 else written["resources"][where[1]]
        kinds = {type(None), str} if holds is None else {type(holds)}  # unset, the field may hold a string
        for wrong in (value for value in WRONG_TYPES if type(value) not in kinds):
            path = write_farm(farm_root, lambda d: (d if len(where) == 1 else d["resources"]).update({where[-1]: wrong}))
            with pytest.raises(UserError, match=rf"^{path}: {'.'.join(where)}[ .]") as refused:
                Farm.load(farm_root)
            assert "\n" not in str(refused.value), (where, wrong)


def test_a_farm_json_as_written_still_loads_and_its_task_count_is_bounded(farm_root, tmp_path):
    """What `slurm render` writes reads back (a submission of the older, fewer fields too); the largest task
    count it writes is one `status` looks through quickly, and a larger one is refused at submit time."""
    write_farm(farm_root, lambda d: d.update(tasks=MAX_TASKS, submissions=submitted(0, MAX_TASKS - 1)))
    assert Farm.load(farm_root).submissions[0].tasks == [0, MAX_TASKS - 1]
    write_farm(farm_root, lambda d: d.update(tasks=MAX_TASKS))
    start = time.monotonic()
    status = run_cli("slurm", "status", str(farm_root), timeout=60)
    assert status.returncode == 0 and status.stdout.startswith(f"{MAX_TASKS} tasks: {MAX_TASKS} unfinished"), status.stderr
    assert time.monotonic() - start < 30
    more = run_cli("slurm", "render", "--out", str(tmp_path / "big"), "--tasks", str(MAX_TASKS + 1), "--dry-run", "--objects", "1")
    assert more.returncode == 2 and "--tasks" in more.stderr and "10000" in more.stderr, more.stderr
    assert not (tmp_path / "big").exists()
