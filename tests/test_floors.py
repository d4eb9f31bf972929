"""The package drawn from its own imports (scripts/import_floors.py): no cycle, not even one that only type
checkers' imports close, nothing running back up, no command importing another."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO


def test_no_import_cycle_nothing_runs_back_up_and_no_command_imports_another():
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "import_floors.py")], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout  # exit 1: a cycle
    counts = dict(re.findall(r"^(imports that run back up|commands that import another command|import cycles|import cycles closed by imports only type checkers read): (\d+)", result.stdout, re.M))
    assert counts == {
        "imports that run back up": "0",
        "commands that import another command": "0",
        "import cycles": "0",
        "import cycles closed by imports only type checkers read": "0",
    }, result.stdout


def test_every_command_lives_on_the_commands_floor():
    """A stage defines no command: every module that declares a typer app, option or argument is in
    tabletest/commands/."""
    package = REPO / "tabletest"
    stages = [p for p in package.rglob("*.py") if p.relative_to(package).parts[0] != "commands"]
    declaring = [str(p.relative_to(REPO)) for p in stages if re.search(r"\btyper\.(Typer|Option|Argument|Context)\b", p.read_text())]
    assert declaring == [], declaring
