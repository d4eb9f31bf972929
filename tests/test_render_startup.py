"""What keeps a render's start-up and its images short (issue 13): the worker starts without pydantic, and
its model cache appends a model seen before from a .blend named by its bytes' sha256, with the same pixels
and records as a fresh glTF import."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.assets.manifest import load_manifest
from tabletest.config import load_catalog

from conftest import REPO

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

NAMES = ("mug", "lamp")


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    build_assets(load_catalog(), folder, list(NAMES), jobs=1)
    return folder


def render(out: Path, assets: Path, cache: Path, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "tabletest.cli", "render", "--objects", "2", "--only", ",".join(NAMES), "--limit", "1",
               "--resolution", "32x24", "--samples", "2", "--assets", str(assets), "--out", str(out), "--quiet", *args]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, env={**os.environ, "XDG_CACHE_HOME": str(cache)})


def test_cached_models_render_the_same_and_a_bad_entry_is_remade(tmp_path, assets):
    cache = tmp_path / "cache"
    manifest = load_manifest(assets)
    assert render(tmp_path / "imported", assets, cache).returncode == 0  # empty cache: glTF imports, then kept
    entries = sorted((cache / "tabletest" / "models").iterdir())
    digests = {hashlib.sha256((assets / e.file).read_bytes()).hexdigest() for e in manifest.objects.values()}
    assert {e.name.split("-")[0] for e in entries} == digests and all(e.read_bytes().startswith(b"BLENDER") for e in entries)
    entries[0].write_bytes(b"not a blend file")  # a cut-short entry: imported again, and written again
    assert render(tmp_path / "cached", assets, cache).returncode == 0
    assert entries[0].read_bytes().startswith(b"BLENDER")
    a, b = tmp_path / "imported", tmp_path / "cached"
    assert (a / "metadata.jsonl").read_bytes() == (b / "metadata.jsonl").read_bytes()
    for png in (a / "images").iterdir():
        assert np.array_equal(np.asarray(Image.open(png)), np.asarray(Image.open(b / "images" / png.name)))


def test_an_entry_holding_another_model_or_nothing_is_dropped_and_made_again(tmp_path, assets):
    """The mug's entry replaced by the lamp's (a lamp would render labelled "mug"), then by a readable
    .blend with no objects: each render gives the fresh import's pixels, and the entry is the mug's again."""
    cache = tmp_path / "cache"
    assert render(tmp_path / "fresh", assets, cache).returncode == 0
    models = cache / "tabletest" / "models"
    manifest = load_manifest(assets)
    entry = {name: next(models.glob(hashlib.sha256((assets / manifest.objects[name].file).read_bytes()).hexdigest() + "-*")) for name in NAMES}
    good = entry["mug"].read_bytes()
    empty = tmp_path / "empty.blend"
    written = subprocess.run([sys.executable, "-c", f"import bpy; bpy.data.libraries.write({str(empty)!r}, set())"], capture_output=True, text=True, check=False)
    assert written.returncode == 0 and empty.read_bytes().startswith(b"BLENDER"), written.stderr
    for bad in (entry["lamp"].read_bytes(), empty.read_bytes()):
        entry["mug"].write_bytes(bad)
        out = tmp_path / f"poisoned-{len(bad)}"
        result = render(out, assets, cache)
        assert result.returncode == 0, result.stderr
        assert (out / "metadata.jsonl").read_bytes() == (tmp_path / "fresh" / "metadata.jsonl").read_bytes()
        for png in (out / "images").iterdir():
            assert np.array_equal(np.asarray(Image.open(png)), np.asarray(Image.open(tmp_path / "fresh" / "images" / png.name)))
        assert entry["mug"].read_bytes() != bad and len(entry["mug"].read_bytes()) == len(good)


def test_worker_builds_its_scene_without_pydantic():
    code = """
import sys
from tabletest.config import load_config
setup = {"config": load_config().model_dump(mode="json"), "resolution": [32, 24], "engine": "cycles", "samples": 1, "device": "cpu", "max_models": 8}
for name in [m for m in sys.modules if m.startswith(("pydantic", "yaml", "tabletest"))]:
    del sys.modules[name]
from tabletest.render.worker import Worker
worker = Worker(setup)
assert worker.camera.name == "camera", worker.camera.name
print(sorted(m for m in sys.modules if m.startswith(("pydantic", "yaml"))))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_a_refused_folder_starts_no_worker(tmp_path, assets):
    """Workers start early, but only once every input is checked: the last check (a folder from before the
    settings guard, checked by its records under the lock) still refuses with one line and starts nothing."""
    out = tmp_path / "out"
    assert render(out, assets, tmp_path / "cache").returncode == 0
    (out / "settings.json").unlink()
    for log in (out / "logs").iterdir():
        log.unlink()
    refused = render(out, assets, tmp_path / "cache", "--samples", "3")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert list((out / "logs").iterdir()) == []
    bad_flag = render(tmp_path / "new", assets, tmp_path / "cache", "--count", "3")
    assert bad_flag.returncode == 2 and not (tmp_path / "new").exists()
