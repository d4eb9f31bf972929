"""A real GRPO run on the CPU (`scripts/grpo_cpu.py`): TRL's GRPOTrainer on TableTest's text-only questions, a tiny
randomly initialised model and a tokenizer trained here, with `tabletest.rewards` as its reward functions; the
rewards TRL logged equal `tabletest score`'s judgments of the very completions it generated."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import REPO

pytest.importorskip("trl", reason="needs TRL and torch: pip install -e '.[dev]' on Python 3.11 installs them")
pytestmark = pytest.mark.rl
GOLDEN = REPO / "tests" / "fixtures" / "random-golden"


def test_trls_logged_rewards_are_tabletest_scores_judgments(cli, tmp_path):
    exported = cli("export", "--dataset", str(GOLDEN), "--format", "trl", "--questions", "hierarchy", "--modality", "text",
                   "--out", str(tmp_path / "trl"))  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    asked = cli("questions", "--dataset", str(GOLDEN), "--text-only", "--out", str(tmp_path / "questions.jsonl"))
    assert asked.returncode == 0, asked.stderr
    command = [sys.executable, str(REPO / "scripts" / "grpo_cpu.py"), str(tmp_path / "trl"),
               "--questions", str(tmp_path / "questions.jsonl"), "--steps", "4", "--work", str(tmp_path / "work")]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    steps = re.findall(r"accuracy_reward logged ([\d.]+), judged ([\d.]+) format_reward logged ([\d.]+), judged ([\d.]+)", run.stdout)
    assert len(steps) == 4 and all(a == b and c == d for a, b, c, d in steps), run.stdout
    assert any(float(a) > 0 for a, *_ in steps), run.stdout  # some completions were right: the rewards were not all 0
    assert "16 completions, 0 difference(s)" in run.stdout
