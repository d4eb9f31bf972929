"""A record is data, never a path out: paths and ids a record names stay inside its dataset, outputs never
land on a dataset, and nothing reads a folder while a render writes it. Tested on a real tiny render."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tabletest.errors import UserError
from tabletest.files.verdict import KeptVerdict, kept_verdict
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
def families(tmp_path_factory, builtin_assets, one_look) -> Path:
    """Random scenes at 64x48 (the narrowest compared with their masks), each with its remove and swap
    partners and a second view (looks off: the scenes these tests pin)."""
    out = tmp_path_factory.mktemp("families") / "out"
    result = run_cli(
        "render", "--scenes", "random", "--count", "5", "--seed", "3", "--counterfactuals", "remove,swap", "--views", "2",
        "--masks", "--resolution", "64x48", "--samples", "2", "--assets", str(builtin_assets), "--out", str(out), "--quiet",
        "--random-config", str(one_look),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out


def disputes(folder: Path, assets: Path) -> dict[str, list[str]]:
    result = run_cli("verify", str(folder), "--assets", str(assets))
    assert "Traceback" not in result.stderr, result.stderr
    kept = verdict(folder)
    return kept.disputed if kept else {}


def verdict(folder: Path) -> KeptVerdict | None:
    """The verdict kept beside the folder, as the gallery reads it."""
    return kept_verdict(folder, [json.loads(line) for line in (folder / "metadata.jsonl").read_text().splitlines()])


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


def test_a_verdict_is_full_only_where_every_label_was_checked_and_holds_only_for_the_files_it_judged(families, tmp_path, builtin_assets):
    """Objects on, in and beside others are derived again from the models they were placed with: without
    them, no disagreement is not an agreement. The gallery shows a scene whose image changed since verify as
    outdated, not as agreeing."""
    out = Path(shutil.copytree(families, tmp_path / "copy"))
    partial = run_cli("verify", "--dataset", str(out), "--assets", str(tmp_path / "nonexistent"))
    assert partial.returncode == 3, partial.stdout + partial.stderr
    assert partial.stderr.count("\n") == 1 and partial.stderr.startswith("error: the verdict is partial, not every label was checked: ")
    kept = verdict(out)
    assert "pass --assets" in partial.stderr and kept.partial and kept.disputed == {} and not kept.outdated
    site = tmp_path / "site"
    assert run_cli("gallery", "--dataset", str(out), "--out", str(site)).returncode == 0
    index = json.loads(re.search(r"tabletestIndex\((.*)\)", (site / "data" / "index.js").read_text(), re.S).group(1))
    shown = {index["vocab"]["verify"][k] for k in index["scenes"]["verify"]}
    assert shown == {"partly checked"}, shown  # the gallery never shows a partial verdict as an agreement
    full = run_cli("verify", "--dataset", str(out), "--assets", str(builtin_assets))
    assert full.returncode == 0, full.stdout + full.stderr
    kept = verdict(out)
    assert kept.partial == [] and kept.disputed == {} and not kept.outdated
    changed = json.loads((out / "metadata.jsonl").read_text().splitlines()[1])["id"]  # an image replaced after verify
    shutil.copy(out / "images" / "rnd3-0000004.png", out / "images" / f"{changed}.png")
    assert run_cli("gallery", "--dataset", str(out), "--out", str(site)).returncode == 0
    index = json.loads(re.search(r"tabletestIndex\((.*)\)", (site / "data" / "index.js").read_text(), re.S).group(1))
    shown = dict(zip(index["scenes"]["id"], (index["vocab"]["verify"][k] for k in index["scenes"]["verify"])))
    assert shown.pop(changed) == "outdated" and set(shown.values()) == {"agrees"}, shown


def rows_of(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "metadata.jsonl").read_text().splitlines()]


def write_rows(folder: Path, rows: list[dict]) -> None:
    (folder / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_images_rotated_among_a_scene_its_view_and_its_partner_are_each_named(families, tmp_path, builtin_assets):
    """Each member shows another's image: each is named, with the member whose image it holds (this scene's
    removed object shows enough edges to tell its image from its remove partner's)."""
    copy = Path(shutil.copytree(families, tmp_path / "copy"))
    scene = "rnd3-0000000"
    shows = {scene: f"{scene}-view2", f"{scene}-view2": f"{scene}-remove", f"{scene}-remove": scene}  # slot -> whose image
    images = {member: (copy / f"images/{member}.png").read_bytes() for member in shows}
    for slot, owner in shows.items():
        (copy / f"images/{slot}.png").write_bytes(images[owner])
    found = disputes(copy, builtin_assets)
    assert set(found) == set(shows), found
    for slot, owner in shows.items():
        assert any(f"image: the image does not show this scene: it is {owner}'s" in what for what in found[slot]), found[slot]


def test_a_tampered_scene_is_blamed_and_its_untouched_partners_are_not(families, tmp_path, builtin_assets):
    """A scene given its remove partner's image, and a scene whose mask moved: each is named, and not the
    partners its files now differ from (a pair check failing on the scene's own files names the scene)."""
    copy = Path(shutil.copytree(families, tmp_path / "copy"))
    given, moved = "rnd3-0000003", "rnd3-0000001"  # the first's removed object shows edges enough to tell the two images apart
    shutil.copy(copy / f"images/{given}-remove.png", copy / f"images/{given}.png")
    mask = copy / f"masks/{moved}.png"
    with Image.open(mask) as img:
        shifted = np.roll(np.asarray(img), 3, axis=1)
    Image.fromarray(shifted).save(mask)
    found = disputes(copy, builtin_assets)
    assert set(found) == {given, moved}, found
    assert any(f"it is {given}-remove's image (the two files hold the same pixels" in what for what in found[given]), found[given]
    assert any(what.startswith("pair_pixels: ") and f"found checking {moved}-remove against it" in what for what in found[moved]), found[moved]


def test_fractions_coverers_indices_and_shapes_of_lines_are_checked(families, tmp_path, builtin_assets):
    """A covered object's visible fraction raised, a coverer left out of covered_by (both against the model's
    silhouette), a partner renamed as a scene (its index no longer its id's), a line of another shape."""
    copy = Path(shutil.copytree(families, tmp_path / "copy"))
    rows = rows_of(copy)
    by_id = {r["id"]: r for r in rows}
    planted = {}
    hammer = next(o for o in by_id["rnd3-0000003"]["objects"] if o["covered_by"] and o["visible_fraction"] < 0.9)
    hammer["visible_fraction"] = 0.99
    planted["rnd3-0000003"] = f"visible: {hammer['name']}: visible_fraction 0.99, but its silhouette and the mask give"
    covered = next(o for o in by_id["rnd3-0000003-view2"]["objects"] if o["covered_by"])
    covered["covered_by"] = []
    planted["rnd3-0000003-view2"] = f"visible: {covered['name']}: covered_by [], but the mask shows"
    renamed = by_id["rnd3-0000001-swap"]
    del renamed["counterfactual"]
    renamed["id"] = "rnd3-0000009"
    for key, folder in (("file_name", "images"), ("mask_file_name", "masks"), ("depth_file_name", "depth")):
        (copy / renamed[key]).rename(copy / folder / "rnd3-0000009.png")
        renamed[key] = f"{folder}/rnd3-0000009.png"
    planted["rnd3-0000009"] = "metadata: index 1 is not the 9 its id rnd3-0000009 names"
    line = rows.index(by_id["rnd3-0000002-view2"]) + 1
    by_id["rnd3-0000002-view2"]["weather"] = "sunny"
    planted["rnd3-0000002-view2"] = f"schema: metadata.jsonl: line {line} is not a random render record: weather 'sunny': Extra inputs"
    write_rows(copy, rows)
    found = disputes(copy, builtin_assets)
    for scene, what in planted.items():
        assert any(what in line for line in found.get(scene, [])), (scene, what, found.get(scene))
    assert set(found) == set(planted), found


@pytest.fixture(scope="module")
def replaced(tmp_path_factory, builtin_assets, one_look) -> Path:
    """Scene 24 of seed 12 and its replace partner at 64x48 (looks off): a hamburger becomes a bell pepper of its
    silhouette (their masks differ at 3 pixels)."""
    out = tmp_path_factory.mktemp("replaced") / "out"
    result = run_cli(
        "render", "--scenes", "random", "--count", "30", "--seed", "12", "--shard", "24/30", "--counterfactuals", "replace",
        "--masks", "--resolution", "64x48", "--samples", "1", "--assets", str(builtin_assets), "--out", str(out), "--quiet",
        "--random-config", str(one_look),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out


def test_a_replace_partner_showing_its_scenes_colour_inside_the_replaced_object_is_caught(replaced, tmp_path, builtin_assets):
    """Given its scene's image, or its own image with the scene's pixels inside the old and the new object's masks:
    the partner's image must differ from its scene's there, not only where their masks do."""
    scene, partner = "rnd12-0000024", "rnd12-0000024-replace"
    record = next(r for r in rows_of(replaced) if r["id"] == partner)
    old, new = record["counterfactual"]["objects"]
    assert (old, new) == ("hamburger", "bell pepper")
    with Image.open(replaced / f"masks/{scene}.png") as a, Image.open(replaced / f"masks/{partner}.png") as b:
        masks = np.asarray(a), np.asarray(b)
    labels = [{o["name"]: k + 1 for k, o in enumerate(r["objects"])} for r in rows_of(replaced)]  # the scene's line, then its partner's
    region = (masks[0] == labels[0][old]) | (masks[1] == labels[1][new])
    assert ((masks[0] > 0) != (masks[1] > 0)).sum() < 4  # what an occupancy test needs to compare them
    for name, inside in (("copied", np.ones_like(region)), ("coloured", region)):
        copy = Path(shutil.copytree(replaced, tmp_path / name))
        with Image.open(copy / f"images/{scene}.png") as a, Image.open(copy / f"images/{partner}.png") as b:
            given = np.where(inside[..., None], np.asarray(a), np.asarray(b))
        Image.fromarray(given).save(copy / f"images/{partner}.png")
        found = disputes(copy, builtin_assets)
        assert partner in found and set(found) <= {scene, partner}, (name, found)
        why = "the two files hold the same pixels" if name == "copied" else f"inside the {old}'s and the {new}'s masks"
        assert any(scene in what and why in what for what in found[partner]), (name, found)
