"""The package drawn from its own imports (scripts/import_floors.py): no cycle, hardly anything running back up."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO


def test_no_import_cycle_and_at_most_three_imports_run_back_up():
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "import_floors.py")], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout  # exit 1: a cycle
    counts = dict(re.findall(r"^(imports that run back up|commands that import another command|import cycles): (\d+)", result.stdout, re.M))
    assert counts["import cycles"] == "0" and int(counts["imports that run back up"]) <= 3, result.stdout
    assert int(counts["commands that import another command"]) <= 1, result.stdout  # slurm render parses render's flags
