"""The documentation: the site builds with warnings as errors (no broken link or anchor, every page in
the navigation), its reference pages hold every command and config key, and the README stays short
and links only to what exists."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tabletest.cli_examples import EXAMPLES
from tabletest.layout.random_config import Arrangements

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return out


def test_the_site_builds_strictly_with_its_generated_reference(site):
    commands = (site / "reference" / "commands" / "index.html").read_text()
    for path, example in EXAMPLES.items():
        assert f'id="tabletest-{path.replace(" ", "-")}"' in commands, path
        assert example.split("   #")[0] in commands, path
    config = (site / "reference" / "config" / "index.html").read_text()
    for key in Arrangements.model_fields:
        assert f"arrangements.{key}" in config
    records = (site / "reference" / "records" / "index.html").read_text()
    assert "relations.ambiguous" in records and "objects[].visible_fraction" in records


def test_the_readme_fits_on_two_screens_and_links_only_to_files_that_exist():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= 120
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert links and all((REPO / link).exists() for link in links if "://" not in link), links
    assert "pip install tabletest" not in text and "DESIGN.md" not in text


HISTORY = re.compile(r"DESIGN\.md|pip install tabletest\b|until now|\bbranch i\d|\bissue \d+|\bcommit [0-9a-f]{7}", re.IGNORECASE)


def test_the_users_docs_say_how_to_use_the_tool_not_how_it_came_to_be():
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    found = [f"{p.relative_to(REPO)}: {m.group(0)}" for p in pages for m in HISTORY.finditer(p.read_text())]
    assert not found, found


def test_the_questions_guide_s_example_scenes_are_asked_as_it_shows(tmp_path, cli):
    """The guide's example records are read by the command it names, and ask what its table shows."""
    out = tmp_path / "q.jsonl"
    result = cli("questions", "--from", str(REPO / "docs" / "questions"), "--out", str(out))
    assert result.returncode == 0, result.stderr
    asked = {(q["scene_id"], q["relation"], tuple(q["objects"])): q["answer"] for q in map(json.loads, out.read_text().splitlines())}
    assert asked[("rnd0-0000000", "centre_distance", ("teddy bear", "mug"))] == 41
    assert asked[("rnd0-0000000", "clock", ("teddy bear", "mug"))] == 4
    assert asked[("rnd0-0000001", "bigger", ("apple", "mug"))] == "mug"


def test_the_questions_guide_states_the_margins_the_code_withholds_at():
    """Each margin the questions guide states is the number the code decides by, and the front/behind one is the
    records' own (`relations.margin_m`, shipped in configs/random.yaml), read from one place."""
    import yaml

    from tabletest.layout.random_config import RelationMargins
    from tabletest.truth import scene_facts

    guide = (REPO / "docs" / "guide" / "questions.md").read_text()
    shipped = yaml.safe_load((REPO / "configs" / "random.yaml").read_text())["relations"]["margin_m"]
    assert scene_facts.DEPTH_M == RelationMargins.model_fields["margin_m"].default == shipped
    stated = {
        f"**front/behind**: {scene_facts.DEPTH_M * 100:g} cm along the camera's view",
        f"**left/right**: needs {scene_facts.LATERAL_M * 100:g} cm across the camera's view *and* {scene_facts.LATERAL_PX:g} px",
        f"`relations.margin_m` ({shipped * 100:g} cm as\n  shipped)",
        f"objects less than {scene_facts.APART_M * 100:g} cm apart (no direction)",
    }
    assert not [s for s in stated if s not in guide], [s for s in stated if s not in guide]


def test_the_questions_guide_s_report_excerpt_is_what_its_commands_write(tmp_path, cli):
    """The oracle and biased responders' example: its question count, and every row of its excerpt of
    `report.md`, are what the commands it shows write for the guide's example scenes."""
    section = (REPO / "docs" / "guide" / "questions.md").read_text().split("### Example: an oracle and two biased responders")[1]
    count = int(re.search(r"for the example scenes \(([\d,]+) questions\)", section).group(1).replace(",", ""))
    excerpt = [line for line in section.split("```text\n", 1)[1].split("```", 1)[0].splitlines() if line]
    questions, responses, report = tmp_path / "questions.jsonl", tmp_path / "responses", tmp_path / "report"
    assert cli("questions", "--from", str(REPO / "docs" / "questions"), "--out", str(questions)).returncode == 0
    made = subprocess.run([sys.executable, str(REPO / "scripts" / "question_responders.py"), str(questions), "--out", str(responses)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    answers = [arg for name in ("oracle", "always-yes", "always-left") for arg in ("--responses", str(responses / f"{name}.jsonl"))]
    assert cli("score", "--prompts", str(questions), *answers, "--out", str(report)).returncode == 0
    assert count == len(questions.read_text().splitlines())
    written = set((report / "report.md").read_text().splitlines())
    assert len(excerpt) > 20 and not [line for line in excerpt if line not in written]
