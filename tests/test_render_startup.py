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
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog

from conftest import REPO

NAMES = ("mug", "lamp")


def render(out: Path, assets: Path, cache: Path) -> None:
    command = [sys.executable, "-m", "tabletest.cli", "render", "--objects", "2", "--only", ",".join(NAMES), "--limit", "1",
               "--resolution", "32x24", "--samples", "2", "--assets", str(assets), "--out", str(out), "--quiet"]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO, env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    assert result.returncode == 0, result.stderr


def test_cached_models_render_the_same_and_a_bad_entry_is_remade(tmp_path):
    assets, cache = tmp_path / "assets", tmp_path / "cache"
    manifest = build_assets(load_catalog(), assets, list(NAMES), jobs=1)
    render(tmp_path / "imported", assets, cache)  # empty cache: glTF imports, then kept
    entries = sorted((cache / "tabletest" / "models").iterdir())
    digests = {hashlib.sha256((assets / e.file).read_bytes()).hexdigest() for e in manifest.objects.values()}
    assert {e.name.split("-")[0] for e in entries} == digests and all(e.read_bytes().startswith(b"BLENDER") for e in entries)
    entries[0].write_bytes(b"not a blend file")  # a cut-short entry: imported again, and written again
    render(tmp_path / "cached", assets, cache)
    assert entries[0].read_bytes().startswith(b"BLENDER")
    a, b = tmp_path / "imported", tmp_path / "cached"
    assert (a / "metadata.jsonl").read_bytes() == (b / "metadata.jsonl").read_bytes()
    for png in (a / "images").iterdir():
        assert np.array_equal(np.asarray(Image.open(png)), np.asarray(Image.open(b / "images" / png.name)))


def test_worker_builds_its_scene_without_pydantic():
    code = """
import sys
from tabletest.config import load_config
setup = {"config": load_config().model_dump(mode="json"), "resolution": [32, 24], "engine": "cycles", "samples": 1, "device": "cpu"}
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
