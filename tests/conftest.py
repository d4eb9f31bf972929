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
