"""One output folder is one dataset: the settings guard, the run history, the lock and clean stops,
tested with real renders (tiny images, few samples) and real signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog
from tabletest.files.lock import output_lock
from tabletest.files.run_output import read_runs
from tabletest.files.settings import read_settings, settings_differences, widened

from conftest import REPO, run_cli, worker_pids

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

NAMES = ("mug", "wine bottle", "lamp")
TINY = ["--resolution", "64x48", "--samples", "2", "--quiet"]


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    build_assets(load_catalog(), folder, list(NAMES), jobs=1)
    return folder


def render_args(out: Path, assets: Path, *args: str) -> list[str]:
    return ["render", "--out", str(out), "--assets", str(assets), "--only", ",".join(NAMES), *TINY, *args]


def lines(out: Path) -> list[str]:
    return (out / "metadata.jsonl").read_text().splitlines()


def test_other_settings_are_refused_and_a_wider_selection_continues(tmp_path, assets):
    out = tmp_path / "out"
    first = run_cli(*render_args(out, assets, "--limit", "2"))
    assert first.returncode == 0, first.stderr
    settings = read_settings(out)
    assert settings["config"]["render"]["engine"] == "cycles" and settings["mode"] == "direct"
    assert set(settings["models"]) <= set(NAMES) and settings["device_class"] == "cpu"

    refused = run_cli(*render_args(out, assets, "--limit", "3", "--engine", "workbench", "--resolution", "32x24"))
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert "config.render.engine: cycles → workbench" in refused.stderr
    assert "config.render.resolution: [64, 48] → [32, 24]" in refused.stderr
    assert "give a new --out" in refused.stderr
    for flag in (["--mode", "composite"], ["--masks"], ["--seed", "7"]):
        assert run_cli(*render_args(out, assets, "--limit", "3", *flag)).returncode == 2
    mixed = run_cli(*render_args(out, assets, "--scenes", "random", "--count", "1"))  # another family: said in a few words
    assert mixed.returncode == 2 and mixed.stderr.count("\n") == 1 and len(mixed.stderr) < 200, mixed.stderr
    assert f"--out {out} holds the study's benchmark scenes, and this run renders random scenes" in mixed.stderr
    assert len(lines(out)) == 2 and len(read_runs(out)) == 1  # nothing was started

    wider = run_cli(*render_args(out, assets, "--limit", "4"))
    assert wider.returncode == 0, wider.stderr
    assert len(lines(out)) == 4 and "2 already done" in wider.stderr

    again = run_cli(*render_args(out, assets, "--limit", "4"))
    assert again.returncode == 0, again.stderr
    runs = read_runs(out)
    assert [r["timings"]["images_rendered"] for r in runs] == [2, 2, 0]
    assert [r["status"] for r in runs] == ["complete"] * 3
    assert runs[0]["command_line"].startswith("tabletest render --out") and "--limit 2" in runs[0]["command_line"]
    assert all(r["started"] <= r["ended"] and r["device"].startswith("CPU") for r in runs[:2])
    assert runs[0]["timings"]["blender_render_s_total"] > 0


def test_a_folder_from_before_the_guard_is_checked_by_its_records(tmp_path, assets):
    out = tmp_path / "out"
    assert run_cli(*render_args(out, assets, "--limit", "1")).returncode == 0
    (out / "settings.json").unlink()  # as made by an older tabletest
    refused = run_cli(*render_args(out, assets, "--limit", "2", "--samples", "3"))
    assert refused.returncode == 2 and "metadata.jsonl line 1: config.render.samples: 2 → 3" in refused.stderr
    assert not (out / "settings.json").exists()


def test_a_folder_an_older_tabletest_rendered_is_refused_in_one_line(tmp_path, assets):
    """Its objects stood as their models were made and its lights were drawn unscaled: new images would differ."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "settings.json").write_text(json.dumps({"output_version": 1, "mode": "direct", "models": {}}))
    refused = run_cli(*render_args(out, assets, "--limit", "1"))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert f"--out {out} was rendered by an older tabletest (output version 1, this one writes 3: objects rest in stable poses" in refused.stderr
    assert "give a new --out" in refused.stderr and sorted(p.name for p in out.iterdir()) == ["settings.json"]


def test_settings_differences_name_each_key_and_let_models_grow():
    old = {"config": {"render": {"seed": 0}}, "mode": "direct", "models": {"mug": "a" * 64}}
    new = {"config": {"render": {"seed": 5}}, "mode": "direct", "models": {"mug": "b" * 64, "lamp": "c" * 64}}
    assert settings_differences(old, new) == [
        "config.render.seed: 0 → 5",
        f"models.mug: {'a' * 12}… → {'b' * 12}…",
    ]
    same_mug = {**new, "config": old["config"], "models": {"mug": "a" * 64, "lamp": "c" * 64}}
    assert settings_differences(old, same_mug) == []
    assert widened(old, same_mug)["models"] == {"mug": "a" * 64, "lamp": "c" * 64}
    assert settings_differences(old, {**old, "scene_family": "random"}) == ["scene_family: (none) → random"]


HOLD = """
import sys, time
from pathlib import Path
from tabletest.files.lock import output_lock
with output_lock(Path(sys.argv[1]), beside=sys.argv[2] == "beside"):
    print("held", flush=True)
    time.sleep(120)
"""


def hold_lock(folder: Path, beside: bool = False) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder), "beside" if beside else "inside"],
        cwd=REPO, stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout.readline() == "held\n"
    return proc


def test_a_second_run_is_refused_at_once_and_a_killed_holder_blocks_nothing(tmp_path, assets):
    out = tmp_path / "out"
    holder = hold_lock(out)
    try:
        start = time.time()
        refused = run_cli(*render_args(out, assets, "--limit", "1"))
        assert time.time() - start < 30
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
        assert f"is in use by another tabletest run (pid {holder.pid} on {os.uname().nodename})" in refused.stderr
        assert not (out / "metadata.jsonl").exists()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with output_lock(out):  # the kernel dropped the dead holder's lock
        pass


def test_an_export_into_a_folder_being_written_is_refused(tmp_path):
    dataset = tmp_path / "render"
    dataset.mkdir()
    out = tmp_path / "export"
    holder = hold_lock(out, beside=True)
    try:
        (dataset / "metadata.jsonl").write_text(json.dumps(_record()) + "\n")
        refused = run_cli("export", "--dataset", str(dataset), "--format", "imagefolder", "--out", str(out))
        assert refused.returncode == 2 and f"--out {out} is in use by another tabletest run (pid {holder.pid}" in refused.stderr
    finally:
        holder.kill()
        holder.wait()


def _record() -> dict:
    """A whole benchmark record (the render test's golden one): the reader checks its shape before the lock."""
    return json.loads((REPO / "tests" / "fixtures" / "benchmark-main" / "metadata.jsonl").read_text().splitlines()[0])


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_sigterm_and_ctrl_c_stop_cleanly_and_the_same_command_resumes(tmp_path, assets, stop):
    out = tmp_path / "out"
    args = render_args(out, assets, "--objects", "2", "--samples", "256")  # slow enough that a busy machine's poll lands mid-run
    proc = subprocess.Popen(  # SIGINT as a terminal leaves it, even when the suite runs as a background job (which ignores it)
        [sys.executable, "-m", "tabletest.cli", *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    metadata = out / "metadata.jsonl"
    deadline = time.time() + 180
    while time.time() < deadline and not (metadata.exists() and metadata.read_text().count("\n") >= 1):
        time.sleep(0.05)
    proc.send_signal(stop)  # to the main process only, as SLURM's scancel and Kubernetes do
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 128 + stop, stderr
    kept = len(lines(out))
    assert 1 <= kept < 6, "the signal should land mid-run"
    assert stderr.splitlines()[-1] == (
        f"interrupted by {stop.name}: {kept} image(s) kept in {out}; run the same command again to resume"
    )
    stopped = read_runs(out)[-1]
    assert stopped["status"] == "interrupted" and stopped["ended"] and stopped["device"].startswith("CPU")
    assert stopped["timings"]["images_rendered"] == kept
    time.sleep(0.5)
    assert worker_pids(out) == [], "no Blender worker outlives the run"
    if stop == signal.SIGTERM:
        resumed = run_cli(*args)
        assert resumed.returncode == 0, resumed.stderr
        assert len(lines(out)) == 6 and f"{kept} already done" in resumed.stderr
        assert [r["status"] for r in read_runs(out)] == ["interrupted", "complete"]


# A render whose signal lands inside a commit: after the second image's record is written, before its PNG
# is moved into place (`RunOutput.commit`), as a Ctrl-C on a busy machine can.
CUT_SHORT = """
import os, sys
from pathlib import Path
from tabletest.commands.main import main
images, moved, real = Path(sys.argv[1]) / "images", [], os.replace
def replace(source, target):
    if Path(target).parent == images and Path(target).suffix == ".png" and len(moved) == 1:
        moved.append(target)
        raise KeyboardInterrupt
    if Path(target).parent == images:
        moved.append(target)
    real(source, target)
os.replace = replace
sys.argv = ["tabletest", *sys.argv[2:]]
main()
"""


def test_a_stop_between_a_record_and_its_image_keeps_the_image(tmp_path, assets):
    out = tmp_path / "out"
    args = render_args(out, assets, "--objects", "2", "--limit", "4")
    stopped = subprocess.run([sys.executable, "-c", CUT_SHORT, str(out), *args], cwd=REPO, capture_output=True, text=True)
    assert stopped.returncode == 130 and "interrupted by SIGINT: 2 image(s) kept" in stopped.stderr, stopped.stderr
    kept = [json.loads(line)["file_name"] for line in lines(out)]
    assert len(kept) == 2 and all((out / name).is_file() for name in kept)  # moved into place, not thrown away
    resumed = run_cli(*args)
    assert resumed.returncode == 0 and "2 already done" in resumed.stderr, resumed.stderr
    assert len(lines(out)) == 4


def test_a_signal_to_the_whole_process_group_stops_cleanly(tmp_path, assets):
    """`timeout` and `scancel` signal the run's process and then its whole process group, and an impatient
    operator signals again: the run gets SIGTERM several times while it stops, its workers once; it still
    stops with its one line, and no process outlives it."""
    out = tmp_path / "out"
    args = render_args(out, assets, "--objects", "2", "--samples", "256")
    proc = subprocess.Popen([sys.executable, "-m", "tabletest.cli", *args], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    metadata = out / "metadata.jsonl"
    deadline = time.time() + 180
    while time.time() < deadline and not (metadata.exists() and metadata.read_text().count("\n") >= 1):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGTERM)
    for _ in range(20):
        time.sleep(0.002)
        proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    kept = len(lines(out))
    assert "Traceback" not in stderr and stderr.splitlines()[-1] == (
        f"interrupted by SIGTERM: {kept} image(s) kept in {out}; run the same command again to resume"
    )
    time.sleep(0.5)
    assert worker_pids(out) == [], "no Blender worker outlives the run"
    resumed = run_cli(*args)
    assert resumed.returncode == 0 and len(lines(out)) == 6, resumed.stderr


def test_a_line_no_render_wrote_stops_a_resume_in_one_line_and_keeps_the_folder(tmp_path, assets):
    """A record holding NaN or a huge integer, or naming an id no render gives (its files would be moved and
    removed by that name), is refused where a resume reads the folder; nothing in it is touched."""
    out = tmp_path / "out"
    assert run_cli(*render_args(out, assets, "--limit", "1")).returncode == 0
    first = lines(out)[0]
    record = json.loads(first)
    index, sid = f'"index": {record["index"]},', f'"id": "{record["id"]}"'
    assert index in first and sid in first
    for bad, said in (
        (first.replace(index, '"index": NaN,'), "metadata.jsonl: line 2: index is NaN"),
        (first.replace(index, '"index": 1' + "0" * 5000 + ","), "metadata.jsonl: line 2: index is an integer of 5001 digits"),
        (first.replace(sid, '"id": "../../etc/x"'), "metadata.jsonl: line 2 names '../../etc/x', which is not an image id"),
    ):
        (out / "metadata.jsonl").write_text(first + "\n" + bad + "\n")
        before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and "logs" not in p.parts and p.name != ".tabletest.lock"}
        refused = run_cli(*render_args(out, assets, "--limit", "2"))
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and said in refused.stderr, refused.stderr
        assert {p: p.read_bytes() for p in before} == before
