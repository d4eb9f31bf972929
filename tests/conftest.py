"""Shared test helpers: run the real `tabletest` command in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tabletest.cli", *args], capture_output=True, text=True, cwd=cwd or REPO, timeout=timeout
    )


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
    """A copy of an assets folder in which `name`'s GLB is garbage that its manifest pins, so the
    pre-flight sha256 check passes and only Blender can refuse it."""
    import hashlib

    from tabletest.assets.manifest import load_manifest, save_manifest

    garbage = b"glTF but not really"
    folder.mkdir()
    manifest = load_manifest(assets)
    for entry in manifest.objects.values():
        (folder / entry.file).write_bytes((assets / entry.file).read_bytes())
    entry = manifest.objects[name]
    (folder / entry.file).write_bytes(garbage)
    manifest.objects[name] = entry.model_copy(update={"sha256": hashlib.sha256(garbage).hexdigest()})
    save_manifest(folder, manifest)
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
