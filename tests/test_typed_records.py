"""A render folder is read as typed records: each line checked against the closed model of its kind where it
is read, so a record of another shape is refused by every command that reads the folder, in one line naming
the file, the line, the field and the fix. No Blender: the render test's golden folder is the render."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import REPO, run_cli
from tabletest.commands.main import app
from tabletest.files.dataset import RenderDataset
from tabletest.files.records import BenchmarkRecord, RandomRecord

GOLDEN = REPO / "tests" / "fixtures" / "random-golden"
BENCHMARK = REPO / "tests" / "fixtures" / "benchmark-main"


def with_second_line(tmp_path: Path, change) -> Path:
    """A copy of the golden random render whose second record is `change`d."""
    folder = Path(shutil.copytree(GOLDEN, tmp_path / "render"))
    lines = (folder / "metadata.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    change(record)
    lines[1] = json.dumps(record)
    (folder / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def objects_a_string(record: dict) -> None:
    record["objects"] = "mug, laptop"


def a_pair_of_three(record: dict) -> None:
    record["relations"]["left_of"].insert(0, ["mug", "laptop", "screwdriver"])


def no_file_name(record: dict) -> None:
    del record["file_name"]


def a_box_of_three(record: dict) -> None:
    record["objects"][0]["bbox_px"] = [1, 2, 3]


WRONG = [(objects_a_string, "objects 'mug, laptop': Input should be a valid list"),
         (a_pair_of_three, "relations.left_of.0 ['mug', 'laptop', 'screwdriver']: List should have at most 2 items"),
         (a_box_of_three, "objects.0.bbox_px [1, 2, 3]: List should have at least 4 items"),
         (no_file_name, "file_name: Field required")]  # fmt: skip
COMMANDS = [
    lambda folder, out: ["export", "--dataset", str(folder), "--format", "imagefolder", "--out", str(out / "export")],
    lambda folder, out: ["show", "--dataset", str(folder), "--out", str(out / "show.png")],
    lambda folder, out: ["gallery", "--dataset", str(folder), "--out", str(out / "gallery"), "--workers", "1"],
]


@pytest.mark.parametrize("change, said", WRONG, ids=[change.__name__ for change, _ in WRONG])
@pytest.mark.parametrize("command", COMMANDS, ids=["export", "show", "gallery"])
def test_a_record_of_another_shape_is_refused_where_it_is_read(tmp_path, change, said, command):
    folder = with_second_line(tmp_path, change)
    result = CliRunner().invoke(app, command(folder, tmp_path))
    message = str(result.exception)
    assert result.exit_code != 0 and "\n" not in message, result.output
    assert message.startswith(f"{folder / 'metadata.jsonl'}: line 2 is not a random render record: {said}"), message
    assert message.endswith("; restore metadata.jsonl from the render, or render the folder again"), message


def test_the_refusal_is_one_line_without_a_traceback(tmp_path):
    folder = with_second_line(tmp_path, a_pair_of_three)
    result = run_cli("export", "--dataset", str(folder), "--format", "coco", "--out", str(tmp_path / "coco"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert "line 2 is not a random render record: relations.left_of.0 ['mug', 'laptop', 'screwdriver']:" in result.stderr


def test_records_are_typed_and_keep_their_lines():
    """Each record is the model of its kind; `raw` is its line as written, what passes on as JSON."""
    for folder, kind in ((GOLDEN, RandomRecord), (BENCHMARK, BenchmarkRecord)):
        lines = [json.loads(line) for line in (folder / "metadata.jsonl").read_text().splitlines()]
        records = list(RenderDataset.open(folder).records())
        assert all(type(r) is kind for r in records)
        assert [r.raw for r in records] == lines
        assert [r.names for r in records] == [tuple(o["name"] for o in line["objects"]) for line in lines]
        assert [r.made_from for r in records] == [(line.get("counterfactual") or line.get("view") or {}).get("of") for line in lines]


def test_prompts_refuse_a_record_of_another_shape_before_reading_it(tmp_path):
    folder = with_second_line(tmp_path, a_pair_of_three)
    result = CliRunner().invoke(app, ["prompts", "--dataset", str(folder), "--out", str(tmp_path / "prompts.jsonl")])
    message = str(result.exception)
    assert result.exit_code != 0 and "\n" not in message and not (tmp_path / "prompts.jsonl").exists(), result.output
    assert message.startswith(f"{folder / 'metadata.jsonl'}: line 2 is not a random render record: relations.left_of.0"), message
