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
