"""The layer cache on a real disk: a full one stops the run with one line (nothing written is lost),
and what killed runs left half-written is cleaned when a run starts, never what a live process owns."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog
from tabletest.files.temp import host

from conftest import run_cli

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

NAMES = "mug,lamp,wine bottle"


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    build_assets(load_catalog(), folder, NAMES.split(","), jobs=1)
    return folder


@pytest.fixture
def small_disk(tmp_path) -> Path:
    """A real 40 MB file system of its own (tmpfs), unmounted afterwards. Mounting needs root, as in CI."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", str(mount)], capture_output=True, text=True)
    if done.returncode:
        pytest.fail(f"this test mounts a 40 MB tmpfs, which needs root: {done.stderr.strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def composite(assets: Path, cache: Path, out: Path, *args: str) -> subprocess.CompletedProcess:
    return run_cli(
        "render", "--objects", "2", "--only", NAMES, "--assets", str(assets), "--resolution", "64x48",
        "--samples", "4", "--mode", "composite", "--layer-cache", str(cache), "--out", str(out), "--quiet", *args,
    )  # fmt: skip


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]


def test_a_full_layer_cache_disk_is_one_line_and_a_stop(assets, small_disk, tmp_path):
    cache, out = small_disk / "layers", tmp_path / "out"
    first = composite(assets, cache, out, "--limit", "2")
    assert first.returncode == 0, first.stderr
    kept = {r["id"]: (out / r["file_name"]).read_bytes() for r in records(out)}
    filler = small_disk / "filler"
    filler.write_bytes(b"\0" * (shutil.disk_usage(small_disk).free - 24 * 1024))  # room for set.json, not a layer
    full = composite(assets, cache, out, "--limit", "4")
    assert full.returncode == 2 and "Traceback" not in full.stderr
    [line] = [line for line in full.stderr.splitlines() if line.startswith("error:")]
    assert line.startswith(f"error: the disk is full at {cache}/") and line.endswith(
        "; free some space and rerun the same command (finished work is kept)"
    )
    assert not (out / "failures.jsonl").exists() or (out / "failures.jsonl").read_text() == ""
    assert {r["id"]: (out / r["file_name"]).read_bytes() for r in records(out)} == kept
    filler.unlink()
    again = composite(assets, cache, out, "--limit", "4")
    assert again.returncode == 0, again.stderr
    assert len(records(out)) == 4 and all((out / r["file_name"]).read_bytes() == kept[r["id"]] for r in records(out)[:2])


def test_a_run_cleans_what_dead_runs_of_this_host_left_and_nothing_else(assets, tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    cache, here = tmp_path / "cache", host()
    other_set = cache / "0123456789abcdef"
    other_set.mkdir(parents=True)
    stale = [
        other_set / f".ocio.{here}.{dead.pid}.tmp",
        other_set / f".mug-0123456789ab.exr.{here}.{dead.pid}.tmp",
        other_set / f".background.npy.{here}.{dead.pid}.tmp",
        cache / f".set.json.{here}.{dead.pid}.tmp",
    ]
    owned = [
        other_set / f".lamp-0123456789ab.exr.{here}.{os.getpid()}.tmp",  # a live process of this host
        other_set / f".lamp-0123456789ab.exr.other-node.{dead.pid}.tmp",  # another host's: its pid means nothing here
        other_set / "lamp-0123456789ab.exr",  # a finished layer
    ]
    stale[0].mkdir()
    (stale[0] / "config.ocio").write_text("half a copy")
    for path in stale[1:] + owned:
        path.write_bytes(b"partial")
    result = run_cli(
        "render", "--objects", "1", "--only", "mug", "--limit", "1", "--assets", str(assets), "--resolution", "16x12",
        "--samples", "1", "--mode", "composite", "--layer-cache", str(cache), "--out", str(tmp_path / "out"), "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert [p for p in stale if p.exists()] == [] and all(p.exists() for p in owned)
    assert [p.name for p in cache.glob("*/.*.tmp") if p not in owned] == []
