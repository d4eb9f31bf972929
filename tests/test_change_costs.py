"""What each kind of change costs, measured by making it (scripts/change_costs.py), is what docs/architecture.md says."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO


def stated() -> dict[str, tuple[int, int]]:
    """The architecture page's table: change -> (code files, generated files)."""
    text = (REPO / "docs" / "architecture.md").read_text()
    return {kind: (int(code), int(made)) for kind, code, made in re.findall(r"^\| (a[n]? [a-z ]+) \| (\d+) \| (\d+) \|", text, re.M)}


def test_each_change_is_made_checked_and_costs_what_the_architecture_page_says():
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "change_costs.py")], capture_output=True, text=True, cwd=REPO, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    measured = {
        kind: (int(code), int(made or 0))
        for kind, code, made in re.findall(r"^(.+?): (\d+) code files: [^(\n]*(?:\(\+(\d+) generated)?", result.stdout, re.M)
    }
    assert measured == stated(), result.stdout
    assert measured["a scene family"] == (2, 1)  # one module and its entry in the registry
    assert measured["a stored relation"][0] <= 3  # its entry in the relation table and at most two more
    assert measured["a question template"] == (1, 0)  # one row of the template table
