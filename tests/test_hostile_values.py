"""Values made to break out of where they are written: a model's answer that becomes a spreadsheet formula
on a row of its own, a SLURM flag that becomes a shell command in the sbatch scripts, and the seed and
resolution that `tabletest vignettes` took where `tabletest render` refused them."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tabletest.errors import UserError
from tabletest.farm.plan import Farm, Resources

from conftest import run_cli

FORMULA = ("=", "+", "-", "@", "\t", "\r")
HOSTILE = {  # model name -> its answer to every query
    "cr": "True\r=HYPERLINK(A1)",
    "lf": "True\n=HYPERLINK(A1)",
    "crlf": "True\r\n=HYPERLINK(A1)",
    "plus": "True\n+HYPERLINK(A1)",
    "at": "True\r@SUM(A1)",
    "minus": "True\r\n-2+3+cmd|' /C calc'!A0",
    "lead-plus": "+HYPERLINK(A1)",
    "lead-at": "@SUM(A1)",
    "lead-cr": "\r=1+1",
    "x\r=HYPERLINK(A1)": "Yes.",  # the model's name is a cell too
    "dash-sum": "-1+1",
    "dash-call": "- see =HYPERLINK(A1)",
    "dash-dde": "-cmd|' /C calc'!A0",
    "dash-cell": "-A1",
    # what the model said, kept: a negative number, a sentence after a dash (a list item)
    "negative": "-3",
    "dash-sentence": "- The mug is on the left of the lamp.",
    "dash-word": "-left",
}
SENTENCE = re.compile(r"-\s*[A-Za-z][A-Za-z]*(?:[ ,.;:?]+[A-Za-z]*)*")  # words, spaces and punctuation only


def _runs_as_formula(cell: str) -> bool:
    """What a spreadsheet would run: a cell that starts with a formula character and is not a number, nor
    words after a dash (no brackets, no references, no operators)."""
    if not cell.startswith(FORMULA) or (cell.startswith("-") and SENTENCE.fullmatch(cell) and not re.match(r"-[A-Za-z]{1,3}\d", cell)):
        return False
    try:
        float(cell)
    except ValueError:
        return True
    return False


def _first_cells(text: str) -> list[str]:
    """The first cell of every line of `text`, split at CR and at LF as a line-by-line reader splits it."""
    return [re.split(r'[",]', line.removeprefix('"'), maxsplit=1)[0] for line in re.split(r"\r|\n", text)]


@pytest.fixture(scope="module")
def hostile_reports(tmp_path_factory) -> dict[str, Path]:
    """`tabletest score` on the hostile answers, for the study's prompts and for the question hierarchy."""
    tmp = tmp_path_factory.mktemp("hostile")
    prompts, vignettes, questions = tmp / "p.jsonl", tmp / "v.jsonl", tmp / "q.jsonl"
    for args in (
        ("prompts", "--text-only", "--limit", "2", "--types", "1", "--out", str(prompts)),
        ("vignettes", "--limit", "2", "--out", str(vignettes)),
        ("questions", "--from", str(vignettes), "--text-only", "--out", str(questions)),
    ):
        made = run_cli(*args)
        assert made.returncode == 0, made.stderr
    reports = {}
    for kind, asked in (("prompts", prompts), ("questions", questions)):
        qids = [json.loads(line)["qid"] for line in asked.read_text().splitlines()]
        responses = tmp / f"{kind}-responses.jsonl"
        answers = ({"qid": q, "model": model, "response": said} for model, said in HOSTILE.items() for q in qids)
        lines = (json.dumps(answer) for answer in answers)
        responses.write_text("".join(line + "\n" for line in lines))
        reports[kind] = tmp / f"{kind}-report"
        result = run_cli("score", "--prompts", str(asked), "--responses", str(responses), "--out", str(reports[kind]))
        assert result.returncode == 0, result.stderr
    return reports


@pytest.mark.parametrize("kind", ["prompts", "questions"])
def test_no_csv_of_the_score_report_has_a_row_or_cell_that_runs_as_a_formula(hostile_reports, kind):
    tables = sorted(hostile_reports[kind].glob("*.csv"))
    assert len(tables) >= 3
    for path in tables:
        text = path.read_bytes().decode("utf-8")
        for line_start in _first_cells(text):  # a reader splitting at every CR and LF, as a spreadsheet may
            assert not _runs_as_formula(line_start), (path.name, line_start)
        rows = list(csv.reader(io.StringIO(text, newline="")))  # as a spreadsheet that honours quotes reads it
        assert len({len(row) for row in rows}) <= 1, path.name  # no row split in two (an empty table has none)
        for row in rows:
            assert not [cell for cell in row if _runs_as_formula(cell)], (path.name, row)
    with open(hostile_reports[kind] / "scored.csv", newline="", encoding="utf-8") as fh:
        scored = list(csv.DictReader(fh))
    answers = {row["model"]: row["response"] for row in scored}
    assert answers == {
        "cr": "True\r'=HYPERLINK(A1)",  # the answer kept, its second line made text
        "lf": "True\n'=HYPERLINK(A1)",
        "crlf": "True\r\n'=HYPERLINK(A1)",
        "plus": "True\n'+HYPERLINK(A1)",
        "at": "True\r'@SUM(A1)",
        "minus": "True\r\n'-2+3+cmd|' /C calc'!A0",
        "lead-plus": "'+HYPERLINK(A1)",
        "lead-at": "'@SUM(A1)",
        "lead-cr": "'\r'=1+1",
        "x\r'=HYPERLINK(A1)": "Yes.",
        "dash-sum": "'-1+1",
        "dash-call": "'- see =HYPERLINK(A1)",
        "dash-dde": "'-cmd|' /C calc'!A0",
        "dash-cell": "'-A1",
        "negative": "-3",
        "dash-sentence": "- The mug is on the left of the lamp.",
        "dash-word": "-left",
    }
    assert len(scored) == len(HOSTILE) * len({row["qid"] for row in scored})  # one row per answer, none split


FARM_VALUES = [
    ("--partition", "gpu\ntouch /tmp/x", "a newline"),
    ("--account", "lab\rtouch /tmp/x", "a carriage return"),
    ("--time", "2:00:00\r\ntouch /tmp/x", "a carriage return"),
    ("--mem", "16G\n#SBATCH --qos=high", "a newline"),
    ("--sbatch-option", "--qos=low\ntouch /tmp/x", "a newline"),
    ("--layer-cache", "/tmp/cache\ntouch /tmp/x", "a newline"),  # a render flag, written into the task's command
    ("--layer-cache=", "/tmp/cache\ntouch /tmp/x", "a newline"),
]


@pytest.mark.parametrize(("flag", "value", "what"), FARM_VALUES)
def test_a_farm_value_with_a_line_break_is_refused_in_one_line_and_no_script_is_written(tmp_path, flag, value, what):
    out = tmp_path / "farm"
    given = [flag + value] if flag.endswith("=") else [flag, value]
    result = run_cli("slurm", "render", "--out", str(out), "--tasks", "2", "--dry-run", "--objects", "3", *given)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: {flag.rstrip('=')} {value!r} contains {what}"), result.stderr
    assert "Traceback" not in result.stderr and not out.exists()


def test_an_out_folder_with_a_line_break_is_refused_and_not_made(tmp_path):
    out = tmp_path / "farm\ntouch x"
    result = run_cli("slurm", "render", "--out", str(out), "--tasks", "2", "--dry-run", "--objects", "3")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: --out {str(out)!r} contains a newline"), result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_nul_in_a_farm_value_is_refused_before_anything_is_written(tmp_path):
    farm = Farm(tmp_path / "farm", 2, ["--objects", "3"], sys.executable, os.getcwd(), Resources(partition="gpu\0x"))
    with pytest.raises(UserError, match=r"^--partition 'gpu\\x00x' contains a NUL, .*; give it on one line$"):
        farm.write_scripts()
    assert list(tmp_path.iterdir()) == []


def test_the_scripts_use_the_out_folder_as_data_whatever_its_characters(tmp_path):
    out = tmp_path / """farm $(touch pwned) `touch pwned` "q" it's"""
    result = run_cli("slurm", "render", "--out", str(out), "--tasks", "2", "--dry-run", "--objects", "3")
    assert result.returncode == 0, result.stderr
    render, merge = (out / "slurm" / "render.sbatch").read_text(), (out / "slurm" / "merge.sbatch").read_text()
    for script in ("render.sbatch", "merge.sbatch"):
        syntax = subprocess.run(["bash", "-n", str(out / "slurm" / script)], capture_output=True, text=True)
        assert syntax.returncode == 0, syntax.stderr
    (out / "parts" / "shard-0000-of-0002").mkdir(parents=True)
    (out / "parts" / "shard-0001-of-0002").mkdir()
    part = next(line for line in render.splitlines() if line.startswith("part="))
    merge_command = shlex.join([sys.executable, "-m", "tabletest.cli", "merge"])
    command = merge.splitlines()[-1].replace(merge_command, "printf '%s\\n'")  # the arguments the merge would get
    shell = f'{part}\nprintf "%s\\n" "$part"\n{command}\n'
    env = {**os.environ, "SLURM_ARRAY_TASK_ID": "1"}
    ran = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert ran.returncode == 0, ran.stderr
    root = out.resolve()
    assert ran.stdout.splitlines() == [
        f"{root}/parts/shard-0001-of-0002",
        f"{root}/parts/shard-0000-of-0002",
        f"{root}/parts/shard-0001-of-0002",
        "--out",
        f"{root}/merged",
    ]
    assert not (tmp_path / "pwned").exists()


BAD_RENDER_VALUES = [
    (("--seed", "2147483648"), "error: --seed 2147483648: Input should be less than or equal to 2147483647\n"),
    (("--seed", "-1"), "error: --seed -1: Input should be greater than or equal to 0\n"),
    (("--resolution", "7x7"), "error: --resolution 7x7: resolution 7x7 is too small; use at least 8x8\n"),
    (
        ("--resolution", "16385x8"),
        "error: --resolution 16385x8: resolution 16385x8 is too large; use at most 16384 per side "
        "and 67,108,864 pixels in all (e.g. 8192x8192)\n",
    ),
    (("--resolution", "7"), "error: --resolution '7' is not WIDTHxHEIGHT; write e.g. --resolution 1024x768\n"),
]


@pytest.mark.parametrize(
    ("flag", "message", "scenes"),
    [*((flag, message, ()) for flag, message in BAD_RENDER_VALUES), (*BAD_RENDER_VALUES[0], ("--scenes", "random", "--count", "2"))],
)
@pytest.mark.render
def test_vignettes_refuse_what_render_refuses_in_the_same_line(tmp_path, flag, message, scenes):
    for command in ("render", "vignettes"):
        out = tmp_path / command
        result = run_cli(command, "--limit", "1", *scenes, *flag, "--out", str(out))
        assert (result.returncode, result.stderr) == (2, message), (command, result.stderr)
        assert not out.exists(), command


def test_vignettes_check_their_values_without_loading_the_render_command():
    code = "import sys, tabletest.truth.cli; assert 'tabletest.render.cli' not in sys.modules, 'render.cli loaded'"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
