"""A new scene family, added as a developer adds one (scripts/change_costs.py: one module, `write/one_object.py`, and
its entry in `files/family.py`), rendered for real (tiny) in shards, then read by every command: questions, show, the
gallery, verify, merge, the split and the Parquet export, the schema. What the family costs is counted here, so the
figure docs/architecture.md states cannot drift."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pyarrow.parquet as pq
import pytest

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog

from change_costs import FAMILY, cost, make

pytestmark = pytest.mark.render  # renders (or reads what a render made)

POOL = ("mug", "banana", "lamp")
RENDER = ["render", "--scenes", "one", "--count", "4", "--only", ",".join(POOL), "--resolution", "64x48", "--samples", "1", "--quiet"]


@pytest.fixture(scope="module")
def changed(tmp_path_factory) -> Path:
    """The package with the family added (its module and its entry in the registry)."""
    return make(FAMILY, tmp_path_factory.mktemp("with-one-family"))


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    build_assets(load_catalog(), folder, list(POOL), jobs=1)
    return folder


def tabletest(changed: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The `tabletest` command of the changed package."""
    env = {**os.environ, "PYTHONPATH": str(changed)}
    return subprocess.run([sys.executable, "-m", "tabletest.cli", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "metadata.jsonl").read_text().splitlines()]


def test_a_new_family_is_one_module_and_its_entry_in_the_registry(changed):
    found = cost(changed)
    assert found.code == ("tabletest/files/family.py", "tabletest/write/one_object.py")
    assert found.generated == ("tabletest/schemas/one-record.schema.json",)  # `python -m tabletest.write.schema` writes it


def test_a_new_family_renders_in_shards_and_every_command_reads_it(changed, assets, tmp_path):
    def run(*args: str) -> subprocess.CompletedProcess:
        done = tabletest(changed, *args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done

    parts = [tmp_path / "parts" / name for name in ("a", "b")]
    for shard, part in enumerate(parts):
        run(*RENDER, "--assets", str(assets), "--masks", "--shard", f"{shard}/2", "--out", str(part))
    # --shard 0/2 is every index with index % 2 == 0, as for every family, and each scene holds one object
    assert [[r["id"] for r in records(part)] for part in parts] == [["one0-0000000", "one0-0000002"], ["one0-0000001", "one0-0000003"]]
    assert all(len(r["objects"]) == 1 and r["scene"]["table"] for part in parts for r in records(part))
    again = run(*RENDER, "--assets", str(assets), "--masks", "--shard", "0/2", "--out", str(parts[0]))
    assert "0 rendered, 2 already done" in again.stderr  # resumed: nothing made twice
    limited = tmp_path / "limited"
    run(*RENDER, "--assets", str(assets), "--shard", "1/2", "--limit", "1", "--out", str(limited))
    assert [r["id"] for r in records(limited)] == ["one0-0000001"]

    merged = tmp_path / "merged"
    run("merge", *map(str, parts), "--out", str(merged))
    merged_records = records(merged)
    assert [r["id"] for r in merged_records] == [f"one0-000000{i}" for i in range(4)]

    verdict = json.loads(run("verify", str(merged), "--json").stdout)
    assert verdict["verdict"] == "agrees" and verdict["images"] == 4 and verdict["checked"]["derived"] == 4

    questions = [json.loads(line) for line in run("questions", "--dataset", str(merged)).stdout.splitlines()]
    assert {q["scene_id"] for q in questions} == {r["id"] for r in merged_records}

    run("show", "--dataset", str(merged), "--id", "one0-0000001", "--out", str(tmp_path / "show.png"))
    assert (tmp_path / "show.png").stat().st_size > 0

    run("gallery", "--dataset", str(merged), "--out", str(tmp_path / "site"))
    index = (tmp_path / "site" / "data" / "index.js").read_text()
    facets = json.loads(index[index.index("(") + 1 : index.rindex(")")])
    assert facets["vocab"]["families"] == ["one"] and facets["scenes"]["verify"] == [0, 0, 0, 0]  # each agrees

    run("export", "--format", "parquet", "--dataset", str(merged), "--out", str(tmp_path / "pq"), "--split-by", "scene", "--val-fraction", "0.5")
    rows = [row for path in sorted((tmp_path / "pq" / "data").glob("*.parquet")) for row in pq.read_table(path).to_pylist()]
    assert sorted(row["id"] for row in rows) == [r["id"] for r in merged_records]
    for row in rows:  # its relations whole, with what a freely placed scene's records hold beyond the benchmark's
        held = next(r for r in merged_records if r["id"] == row["id"])
        assert row["relations"]["counts"] == held["relations"]["counts"] and row["relations"]["hidden"] == []
        assert row["relations"]["table_side"] == [[name, side] for name, side in held["relations"]["table_side"].items()]
        assert row["scene"]["world"]["hdri"] == held["scene"]["world"]["hdri"] and row["camera"]["K"] == held["camera"]["K"]

    schema = json.loads(run("schema", "one-record").stdout)
    for record in merged_records:
        jsonschema.validate(record, schema)
    with pytest.raises(jsonschema.ValidationError):  # its ids are its own
        jsonschema.validate({**merged_records[0], "id": "rnd0-0000000"}, schema)
