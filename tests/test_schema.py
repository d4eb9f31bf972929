"""The record formats' JSON Schemas: the shipped files are what the code generates, and what the tools
really write validates against them (and a record with a field wrong does not)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import run_cli

from tabletest.write.schema import KINDS, SCHEMA_DIR, schema, schema_text

TINY = ["--resolution", "48x36", "--samples", "1", "--masks", "--quiet"]


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def assert_valid(kind: str, records: list[dict]) -> None:
    validator = jsonschema.Draft202012Validator(json.loads((SCHEMA_DIR / f"{kind}.schema.json").read_text()))
    assert records
    for record in records:
        errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(record)]
        assert not errors, (kind, record.get("id") or record.get("qid"), errors[:3])


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_shipped_schema_files_are_the_ones_the_code_generates(kind):
    jsonschema.Draft202012Validator.check_schema(schema(kind))
    assert (SCHEMA_DIR / f"{kind}.schema.json").read_text() == schema_text(kind)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory, builtin_assets) -> Path:
    """A benchmark render, a random render with objects on and in others, and the text made from them."""
    root = tmp_path_factory.mktemp("schema")
    assets = ["--assets", str(builtin_assets)]
    for args in (
        ["render", "--objects", "3", "--limit", "2", "--only", "mug,lamp,headphones", "--out", str(root / "bench")],
        ["render", "--scenes", "random", "--count", "3", "--out", str(root / "random")],
    ):
        result = run_cli(*args, *assets, *TINY)
        assert result.returncode == 0, result.stderr
    for args in (
        ["vignettes", "--objects", "2", "--limit", "5", "--out", str(root / "vignettes.jsonl")],
        ["vignettes", "--scenes", "random", "--count", "60", *assets, "--out", str(root / "random-vignettes.jsonl")],
        ["prompts", "--dataset", str(root / "bench"), "--out", str(root / "prompts.jsonl")],
        ["prompts", "--text-only", "--objects", "2", "--limit", "2", "--out", str(root / "text-prompts.jsonl")],
        ["questions", "--from", str(root / "random"), "--out", str(root / "questions.jsonl")],
        ["questions", "--from", str(root / "random-vignettes.jsonl"), "--out", str(root / "text-questions.jsonl")],
    ):
        result = run_cli(*args)
        assert result.returncode == 0, result.stderr
    return root


@pytest.mark.render
def test_real_outputs_validate_against_their_schemas(outputs):
    assert_valid("benchmark-record", lines(outputs / "bench" / "metadata.jsonl"))
    assert_valid("random-record", lines(outputs / "random" / "metadata.jsonl"))
    random_vignettes = lines(outputs / "random-vignettes.jsonl")
    assert any(r["relations"]["on"] or r["relations"]["inside"] for r in random_vignettes)  # off the table plane too
    assert any("instances" in r for r in random_vignettes)  # several of a kind too
    assert_valid("vignette", lines(outputs / "vignettes.jsonl") + random_vignettes)
    prompts = lines(outputs / "prompts.jsonl") + lines(outputs / "text-prompts.jsonl")
    assert {p["modality"] for p in prompts} == {"image", "text"}
    assert_valid("prompt", prompts)
    questions = lines(outputs / "questions.jsonl") + lines(outputs / "text-questions.jsonl")
    assert {q["form"] for q in questions} == {"question", "caption", "story"}
    assert_valid("question", questions)
    assert_valid("response", [{"qid": p["qid"], "response": "left", "model": "m"} for p in prompts[:3]] + [{"qid": "x", "response": None}, {"qid": "y", "response": "No.", "model": None}])


@pytest.mark.parametrize(
    ("kind", "change"),
    [
        ("benchmark-record", lambda r: r.pop("vignettes")),
        ("benchmark-record", lambda r: r["objects"][0].update(bbox_px=[1, 2, 3])),
        ("benchmark-record", lambda r: r.update(id="2obj-12")),
        ("random-record", lambda r: r["relations"].update(left_of=[["mug"]])),
        ("random-record", lambda r: r["objects"][0].update(visible_fraction=1.5)),
        ("random-record", lambda r: r.update(colour="red")),
    ],
)
@pytest.mark.render
def test_a_record_with_a_field_wrong_does_not_validate(outputs, kind, change):
    folder = "bench" if kind == "benchmark-record" else "random"
    record = lines(outputs / folder / "metadata.jsonl")[0]
    change(record)
    validator = jsonschema.Draft202012Validator(schema(kind))
    assert not validator.is_valid(record)


def test_schema_prints_a_kind_and_names_the_kinds_for_a_wrong_one(cli):
    result = cli("schema", "question")
    assert result.returncode == 0 and json.loads(result.stdout) == schema("question")
    wrong = cli("schema", "records")
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1
    assert "is not one of benchmark-record, random-record" in wrong.stderr and "did you mean" in wrong.stderr
