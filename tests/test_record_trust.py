"""A record is data, never a path out: paths and ids a record names stay inside its dataset, outputs never
land on a dataset, and nothing reads a folder while a render writes it. Tested on a real tiny render."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tabletest.errors import UserError
from tabletest.truth.verify_report import read_verdicts, unverified_labels
from tabletest.files.lock import output_lock
from tabletest.files.paths import record_id, record_path

from conftest import run_cli
from test_verify import render  # noqa: F401  (the six 3-object scenes of mug, lamp and banana, with masks)

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)


@pytest.fixture
def ds(render, tmp_path) -> Path:
    return Path(shutil.copytree(render, tmp_path / "ds"))


def edit_first(folder: Path, **fields) -> None:
    lines = (folder / "metadata.jsonl").read_text().splitlines()
    lines[0] = json.dumps({**json.loads(lines[0]), **fields})
    (folder / "metadata.jsonl").write_text("\n".join(lines) + "\n")


def one_line_refusal(result) -> str:
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stderr


def test_a_path_or_id_that_leaves_the_dataset_is_refused(tmp_path):
    root = tmp_path / "ds"
    (root / "images").mkdir(parents=True)
    assert record_path(root, "images/a.png", "file_name") == root / "images" / "a.png"
    for bad in ("images/../../victim/keep.png", "/etc/passwd", "../x.png", "images/./a.png", "images\\a.png", "", None, 3):
        with pytest.raises(UserError, match="is not a path inside the dataset"):
            record_path(root, bad, "file_name")
    outside = tmp_path / "outside.png"
    outside.write_bytes(b"x")
    (root / "images" / "link.png").symlink_to(outside)
    with pytest.raises(UserError, match="leads outside the dataset"):
        record_path(root, "images/link.png", "file_name")
    assert record_id("rnd0-0000001-view2") == "rnd0-0000001-view2"
    for bad in ("../../x", "a/b", ".hidden", "", None):
        with pytest.raises(UserError, match="is not an identifier"):
            record_id(bad)


def test_export_and_merge_refuse_a_record_that_names_a_file_outside(ds, tmp_path):
    victim = tmp_path / "victim" / "keep.png"
    victim.parent.mkdir()
    victim.write_bytes(b"keep me")
    escaping = "images/../../victim/keep.png"
    edit_first(ds, file_name=escaping)
    refused = one_line_refusal(run_cli("export", "--dataset", str(ds), "--format", "llava", "--out", str(tmp_path / "exp")))
    assert f"file_name {escaping!r}: String should match pattern" in refused
    assert victim.read_bytes() == b"keep me"

    record = json.loads((ds / "metadata.jsonl").read_text().splitlines()[0])
    edit_first(ds, id="../../victim/keep", file_name=record["file_name"])
    assert "is not an identifier" in one_line_refusal(run_cli("merge", str(ds), "--out", str(tmp_path / "merged")))
    assert victim.read_bytes() == b"keep me"


def test_an_image_linked_out_of_the_folder_is_refused(ds, tmp_path):
    record = json.loads((ds / "metadata.jsonl").read_text().splitlines()[0])
    image = ds / record["file_name"]
    outside = tmp_path / "elsewhere.png"
    shutil.move(image, outside)
    image.symlink_to(outside)
    refused = one_line_refusal(run_cli("export", "--dataset", str(ds), "--format", "llava", "--out", str(tmp_path / "exp")))
    assert "leads outside the dataset" in refused


def test_no_output_lands_on_the_dataset_it_reads(ds, tmp_path):
    before = {p: p.read_bytes() for p in ds.rglob("*") if p.is_file()}
    commands = {
        "questions": ("questions", "--from", str(ds), "--out", str(ds / "metadata.jsonl")),
        "questions of its metadata file": ("questions", "--from", str(ds / "metadata.jsonl"), "--out", str(ds / "images" / "q.jsonl")),
        "a balance report": ("questions", "--from", str(ds), "--out", str(tmp_path / "q.jsonl"), "--report", str(ds / "b.md")),
        "prompts": ("prompts", "--dataset", str(ds), "--objects", "3", "--out", str(ds / "images" / "p.jsonl")),
        "export": ("export", "--dataset", str(ds), "--format", "llava", "--out", str(ds / "exp")),
        "export onto the folder": ("export", "--dataset", str(ds), "--format", "llava", "--out", str(ds)),
        "show": ("show", "--dataset", str(ds), "--out", str(ds / "images" / "x.png")),
        "verify --show": ("verify", str(ds), "--show", str(ds / "images")),
        "gallery": ("gallery", str(ds), "--out", str(ds / "site")),
    }
    for name, command in commands.items():
        assert "is inside the dataset" in one_line_refusal(run_cli(*command)), name
    assert {p: p.read_bytes() for p in ds.rglob("*") if p.is_file()} == before
    questions = tmp_path / "questions.jsonl"
    assert run_cli("questions", "--from", str(ds), "--out", str(questions)).returncode == 0 and questions.stat().st_size
    vignettes = tmp_path / "v.jsonl"
    assert run_cli("vignettes", "--objects", "2", "--limit", "2", "--out", str(vignettes)).returncode == 0
    assert "is inside the dataset" in one_line_refusal(run_cli("questions", "--from", str(vignettes), "--out", str(vignettes)))


def test_a_folder_a_render_is_writing_is_not_read(ds, tmp_path):
    with output_lock(ds):
        for command, verb in (
            (("verify", str(ds)), "verify"),
            (("export", "--dataset", str(ds), "--format", "llava", "--out", str(tmp_path / "exp")), "export"),
        ):
            refused = one_line_refusal(run_cli(*command))
            assert "is being written by a tabletest run (pid " in refused and f"{verb} it once that run has finished" in refused
    assert run_cli("verify", str(ds)).returncode == 0
    assert run_cli("export", "--dataset", str(ds), "--format", "llava", "--out", str(tmp_path / "exp")).returncode == 0


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda r: r.update(objects="notalist"), "objects 'notalist': Input should be a valid list"),
        (lambda r: r.pop("relations"), "relations: Field required"),
        (lambda r: r["relations"]["left_of"].append(["mug", "lamp", "banana", "mug"]), r"relations\.left_of\.\d+ \['mug', 'lamp', 'banana', 'mug'\]: List should have at most 2 items"),
        (lambda r: r.update(file_name="images/../../x.png"), r"file_name 'images/\.\./\.\./x\.png': String should match pattern"),
    ],
)
def test_questions_read_records_only_as_their_schema_says(render, tmp_path, edit, field):
    """Refused in one line naming the field, the value it holds and why."""
    record = json.loads((render / "metadata.jsonl").read_text().splitlines()[0])
    edit(record)
    source = tmp_path / "records.jsonl"
    source.write_text(json.dumps(record) + "\n")
    refused = one_line_refusal(run_cli("questions", "--from", str(source), "--out", str(tmp_path / "q.jsonl")))
    assert re.search(f"{re.escape(str(source))}: line 1 is not a benchmark render record: {field}", refused), refused
    assert not (tmp_path / "q.jsonl").exists()


@pytest.fixture(scope="module")
def families(tmp_path_factory, builtin_assets) -> Path:
    """Random scenes at 64x48 (the narrowest compared with their masks), each with its remove and swap
    partners and a second view."""
    out = tmp_path_factory.mktemp("families") / "out"
    result = run_cli(
        "render", "--scenes", "random", "--count", "5", "--seed", "3", "--counterfactuals", "remove,swap", "--views", "2",
        "--masks", "--resolution", "64x48", "--samples", "2", "--assets", str(builtin_assets), "--out", str(out), "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out


def disputes(folder: Path, assets: Path) -> dict[str, list[str]]:
    result = run_cli("verify", str(folder), "--assets", str(assets))
    assert "Traceback" not in result.stderr, result.stderr
    return read_verdicts(folder) or {}


def family_of(records: list[dict], kind: str) -> tuple[str, str]:
    """(scene id, companion id) of the first scene that has a companion of this kind (`remove`, `view2`)."""
    ids = {r["id"] for r in records}
    return next((r["id"], f"{r['id']}-{kind}") for r in records if f"{r['id']}-{kind}" in ids)


def test_verify_sees_every_swapped_image_and_camera_field(families, tmp_path, builtin_assets):
    copy = Path(shutil.copytree(families, tmp_path / "copy"))
    assert disputes(copy, builtin_assets) == {}
    rows = [json.loads(line) for line in (copy / "metadata.jsonl").read_text().splitlines()]
    scenes = [r["id"] for r in rows if "counterfactual" not in r and "view" not in r]
    planted = {}
    # another scene's image, whichever fits it: only this one has a low contrast against its own masks
    shutil.copy(copy / f"images/{scenes[1]}.png", copy / f"images/{scenes[0]}.png")
    planted[scenes[0]] = "fit it"
    for kind in ("remove", "view2"):  # a partner or a view given its own scene's image
        scene, companion = family_of(rows, kind)
        if scene in planted:
            continue
        shutil.copy(copy / f"images/{scene}.png", copy / f"images/{companion}.png")
        planted[companion] = f"it is {scene}'s image"
    by_id = {r["id"]: r for r in rows}
    fields = {"azimuth_deg": 4.0, "elevation_deg": -3.0, "distance_m": 0.2, "focal_mm": 2.0}
    camera_scenes = [s for s in scenes if s not in planted][: len(fields)]
    for scene, (key, delta) in zip(camera_scenes, fields.items()):
        by_id[scene]["camera"][key] += delta
        planted[scene] = f"camera.{key}: recorded"
    (copy / "metadata.jsonl").write_text("".join(json.dumps(by_id[r["id"]]) + "\n" for r in rows))
    found = disputes(copy, builtin_assets)
    for scene, what in planted.items():
        assert any(what in line for line in found.get(scene, [])), (scene, what, found.get(scene))
    assert set(found) == set(planted), {s: w for s, w in found.items() if s not in planted}


def test_a_partner_is_known_by_its_id_and_its_field_alike(families, tmp_path, builtin_assets):
    copy = Path(shutil.copytree(families, tmp_path / "copy"))
    rows = [json.loads(line) for line in (copy / "metadata.jsonl").read_text().splitlines()]
    partner = next(r for r in rows if r["id"].endswith("-swap"))
    del partner["counterfactual"]
    (copy / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    found = disputes(copy, builtin_assets)
    assert any("counterfactual field says nothing" in what for what in found[partner["id"]])
    refused = one_line_refusal(run_cli("export", "--dataset", str(copy), "--format", "llava", "--split-by", "scene", "--out", str(tmp_path / "x")))
    assert f"id {partner['id']} is the swap partner of" in refused


def test_a_verdict_is_full_only_where_every_label_was_checked(families, tmp_path, builtin_assets):
    """Objects on, in and beside others are derived again from the models they were placed with: without
    them, no disagreement is not an agreement."""
    out = Path(shutil.copytree(families, tmp_path / "copy"))
    partial = run_cli("verify", "--dataset", str(out), "--assets", str(tmp_path / "nonexistent"))
    assert partial.returncode == 3, partial.stdout + partial.stderr
    assert partial.stderr.count("\n") == 1 and partial.stderr.startswith("error: the verdict is partial, not every label was checked: ")
    assert "pass --assets" in partial.stderr and unverified_labels(out) and read_verdicts(out) == {}
    site = tmp_path / "site"
    assert run_cli("gallery", "--dataset", str(out), "--out", str(site)).returncode == 0
    index = json.loads(re.search(r"tabletestIndex\((.*)\)", (site / "data" / "index.js").read_text(), re.S).group(1))
    shown = {index["vocab"]["verify"][k] for k in index["scenes"]["verify"]}
    assert shown == {"partly checked"}, shown  # the gallery never shows a partial verdict as an agreement
    full = run_cli("verify", "--dataset", str(out), "--assets", str(builtin_assets))
    assert full.returncode == 0, full.stdout + full.stderr
    assert unverified_labels(out) == [] and read_verdicts(out) == {}
