"""The renderer, tested by rendering: tiny images, few samples, on the CPU."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog, load_config
from tabletest.layout.placement import slot_u
from tabletest.render.devices import detect_nvidia_gpus
from tabletest.files.run_output import read_runs

from conftest import REPO, copy_with_unloadable_model, run_cli, worker_pids

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

NAMES = ("mug", "wine bottle", "lamp")
TINY = ["--resolution", "64x48", "--samples", "4"]


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    build_assets(load_catalog(), folder, list(NAMES), jobs=1)
    return folder


def render(out: Path, assets: Path, *args: str, only=NAMES) -> subprocess.CompletedProcess:
    return run_cli("render", "--out", str(out), "--assets", str(assets), "--only", ",".join(only), "--quiet", *TINY, *args)


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("n", [2, 3])
def test_centres_sit_at_their_slots(tmp_path, assets, n):
    out = tmp_path / "out"
    result = render(out, assets, "--objects", str(n), "--limit", "2")
    assert result.returncode == 0, result.stderr
    config = load_config()
    for record in records(out):
        assert record["render"]["resolution"] == [64, 48] and record["render"]["mode"] == "direct"
        for position, obj in enumerate(record["objects"]):
            assert abs(obj["center_px"][0] - slot_u(config, n, position, 64)) <= 1.0
            x0, y0, x1, y1 = obj["bbox_px"]
            assert x0 < obj["center_px"][0] < x1 and y0 < y1
        with Image.open(out / record["file_name"]) as img:
            assert img.size == (64, 48)
    run = read_runs(out)[-1]
    assert run["status"] == "complete" and run["blender"].startswith("5.") and run["device"].startswith("CPU")
    assert run["denoiser"] == "OPENIMAGEDENOISE on the CPU"  # the one denoiser, where it ran


def test_swapping_objects_changes_the_image(tmp_path, assets):
    out = tmp_path / "out"
    assert render(out, assets, "--objects", "2", only=("mug", "lamp")).returncode == 0
    by_order = {tuple(o["name"] for o in r["objects"]): np.asarray(Image.open(out / r["file_name"]), dtype=float) for r in records(out)}
    assert set(by_order) == {("mug", "lamp"), ("lamp", "mug")}
    assert np.abs(by_order[("mug", "lamp")] - by_order[("lamp", "mug")]).mean() > 1.0


def test_same_seed_same_metadata_and_pixels(tmp_path, assets):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert render(out, assets, "--objects", "3", "--seed", "3").returncode == 0
    assert (a / "metadata.jsonl").read_bytes() == (b / "metadata.jsonl").read_bytes()
    for record in records(a):
        assert np.array_equal(np.asarray(Image.open(a / record["file_name"])), np.asarray(Image.open(b / record["file_name"])))


def test_kill_mid_run_then_resume_renders_each_image_once(tmp_path, assets):
    out = tmp_path / "out"
    # slow enough that the poll lands mid-run: images are written beside the next render, so tiny ones
    # can land together
    args = [sys.executable, "-m", "tabletest.cli", "render", "--out", str(out), "--assets", str(assets),
            "--only", ",".join(NAMES), "--objects", "2", "--quiet", "--resolution", "64x48", "--samples", "256"]
    proc = subprocess.Popen(args, cwd=REPO, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    metadata = out / "metadata.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and not (metadata.exists() and metadata.read_text().count("\n") >= 2):
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = {r["id"] for r in records(out)} if metadata.exists() else set()
    assert 0 < len(before) < 6, "the kill should land mid-run"
    mtimes = {sid: (out / "images" / f"{sid}.png").stat().st_mtime_ns for sid in before if (out / "images" / f"{sid}.png").exists()}
    mine = {"holiday.png": b"my photo", ".thumbs.db": b"my viewer's", "2obj-000001.png.bak": b"my copy"}
    for name, data in mine.items():  # files the user put beside the images: a render removes only its own
        (out / "images" / name).write_bytes(data)

    result = run_cli(*args[3:])
    assert result.returncode == 0, result.stderr
    final = records(out)
    ids = [r["id"] for r in final]
    assert len(ids) == len(set(ids)) == 6
    assert sorted(p.name for p in (out / "images").iterdir()) == sorted([*(f"{sid}.png" for sid in ids), *mine])
    assert all((out / "images" / name).read_bytes() == data for name, data in mine.items())
    for record in final:
        with Image.open(out / record["file_name"]) as img:
            img.load()
    for sid, mtime in mtimes.items():  # what was complete was not rendered again
        assert (out / "images" / f"{sid}.png").stat().st_mtime_ns == mtime
    assert f"{len(before)} already done" in result.stderr


def test_a_full_disk_stops_the_run_and_leaves_no_hidden_file(tmp_path, assets):
    """A render stopped by a full disk keeps what it finished and removes its half-made files, whose space
    the error asks the user to free; a rerun with room goes on where it stopped."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(disk)], capture_output=True).returncode:
        pytest.fail("this test mounts a tmpfs: run it as root (the CI container is)")
    try:
        free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
        (disk / "padding").write_bytes(b"\0" * (free - 28_000))  # room for the folder's files and a few images
        out = disk / "out"
        result = render(out, assets, "--objects", "2", "--resolution", "64x48", "--samples", "1")
        assert result.returncode == 2, result.stderr
        assert result.stderr.splitlines()[-1].startswith("error: the disk is full"), result.stderr
        kept = [path.name for path in (out / "images").iterdir()]
        assert not [name for name in kept if name.startswith(".")], kept
        assert sorted(kept) == sorted(f"{r['id']}.png" for r in records(out)) and len(kept) < 6
        (disk / "padding").unlink()
        assert render(out, assets, "--objects", "2", "--resolution", "64x48", "--samples", "1").returncode == 0
        assert len(records(out)) == 6
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=True)


def test_worker_crash_is_survived(tmp_path, assets):
    out = tmp_path / "out"
    args = ["render", "--out", str(out), "--assets", str(assets), "--only", ",".join(NAMES), "--objects", "3",
            "--quiet", "--resolution", "64x48", "--samples", "64"]
    proc = subprocess.Popen([sys.executable, "-m", "tabletest.cli", *args], cwd=REPO, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    killed = False
    while time.time() < deadline and not killed:
        pids = worker_pids(out)
        if pids and (out / "metadata.jsonl").exists() and (out / "metadata.jsonl").read_text():
            os.kill(pids[0], signal.SIGKILL)
            killed = True
        time.sleep(0.02)
    _, stderr = proc.communicate(timeout=300)
    assert killed and proc.returncode == 0, stderr
    assert len(records(out)) == 6
    assert (out / "failures.jsonl").read_text() == ""


def test_corrupt_model_fails_its_scenes_only(tmp_path, assets):
    broken = copy_with_unloadable_model(assets, tmp_path / "assets", "mug")
    out = tmp_path / "out"
    result = render(out, broken, "--objects", "2", "--retries", "2")
    assert result.returncode == 1
    assert "4 image(s) failed; see" in result.stderr
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    # a model Blender cannot load fails the same way every time: tried once, not 1 + 2 times
    assert len(failures) == 4 and all("mug" in f["objects"] and f["attempts"] == 1 for f in failures)
    assert all("does not load in Blender" in f["error"] for f in failures)
    assert all(f["error"] and "blender_stderr" in f for f in failures)
    assert len(records(out)) == 2


def test_missing_model_file_is_a_clear_error(tmp_path, assets):
    copy = tmp_path / "assets"
    copy.mkdir()
    for path in assets.iterdir():
        if path.name != "lamp.glb":
            (copy / path.name).write_bytes(path.read_bytes())
    result = render(tmp_path / "out", copy, "--objects", "2")
    assert result.returncode == 2
    assert result.stderr.startswith("error: model file for 'lamp' is missing") and "tabletest assets build --only 'lamp'" in result.stderr
    assert "Traceback" not in result.stderr


def test_source_requirement_names_the_models_that_come_from_elsewhere(tmp_path, assets):
    result = render(tmp_path / "out", assets, "--objects", "2", "--source", "objaverse")
    assert result.returncode == 2
    assert result.stderr.startswith("error: --source objaverse: 'mug' (builtin), 'wine bottle' (builtin), 'lamp' (builtin)")
    assert "tabletest assets fetch --only" in result.stderr
    assert render(tmp_path / "ok", assets, "--objects", "1", "--source", "builtin", "--engine", "workbench").returncode == 0


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["workbench", "eevee"])
def test_raster_engines_render(tmp_path, assets, engine):
    out = tmp_path / "out"
    result = render(out, assets, "--objects", "2", "--limit", "1", "--engine", engine, only=("mug", "lamp"))
    assert result.returncode == 0, result.stderr
    (record,) = records(out)
    assert record["render"]["engine"] == engine
    pixels = np.asarray(Image.open(out / record["file_name"]), dtype=float)
    assert pixels.shape == (48, 64, 3) and pixels.std() > 5  # a picture, not a blank frame
    if engine == "eevee" and not detect_nvidia_gpus():  # the device the run reports is the one it ran on
        assert "GPU" not in record["render"]["device"].replace("no GPU found", ""), record["render"]["device"]
