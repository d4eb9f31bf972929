"""Shared test helpers: run the real `tabletest` command in a subprocess."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO / "scripts"))  # the physics check (scripts/physics.py) the benchmark scripts and these tests share
RENDER_EXTRA = all(importlib.util.find_spec(module) for module in ("bpy", "OpenEXR"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Without the render extra, the tests that render are skipped, saying so (the rest still run)."""
    if RENDER_EXTRA:
        return
    skip = pytest.mark.skip(reason="needs the render extra (bpy, OpenEXR): pip install -e '.[render,dev]'")
    for item in items:
        if item.get_closest_marker("render"):
            item.add_marker(skip)


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tabletest.cli", *args], capture_output=True, text=True, cwd=cwd or REPO, timeout=timeout
    )


@pytest.fixture(scope="session", autouse=True)
def private_user_cache(tmp_path_factory) -> Path:
    """The tests' own user cache (model verdicts, default layer cache), inherited by every subprocess:
    never the machine user's ~/.cache."""
    folder = tmp_path_factory.mktemp("user-cache")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    return folder


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(scope="session")
def builtin_assets(tmp_path_factory) -> Path:
    """All 64 built-in models, built once per test session."""
    from tabletest.assets.builtin.build import build_assets
    from tabletest.config import load_catalog

    folder = tmp_path_factory.mktemp("builtin-assets")
    build_assets(load_catalog(), folder)
    return folder


def copy_with_unloadable_model(assets: Path, folder: Path, name: str) -> Path:
    """A copy of an assets folder in which `name`'s GLB is garbage that its manifest pins and that the
    checks' verdicts accept (as they would a model only Blender chokes on), so only Blender refuses it."""
    import hashlib

    from tabletest.assets import verdicts
    from tabletest.assets.manifest import load_manifest, save_manifest
    from tabletest.config import load_catalog

    garbage = b"glTF but not really"
    folder.mkdir()
    manifest = load_manifest(assets)
    for entry in manifest.objects.values():
        (folder / entry.file).write_bytes((assets / entry.file).read_bytes())
    entry = manifest.objects[name]
    (folder / entry.file).write_bytes(garbage)
    manifest.objects[name] = entry.model_copy(update={"sha256": hashlib.sha256(garbage).hexdigest()})
    save_manifest(folder, manifest)
    verdicts.record(load_catalog().by_name(name), manifest.objects[name].sha256, 0)
    return folder


def worker_pids(out: Path) -> list[int]:
    """Pids of the Blender worker processes rendering into `out`."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if "tabletest.render.worker" in cmd and str(out) in cmd:
                pids.append(int(proc.name))
    return pids
