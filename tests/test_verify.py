"""The depth pass and `tabletest verify`, on a real tiny render with --masks (no stubs: every check
reads the pixels Blender wrote)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog, load_config
from tabletest.layout.camera import PinholeCamera
from tabletest.files.verdict import VERIFY_FILE, kept_verdict

from conftest import run_cli

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

SIZE = (64, 48)
NAMES = ("mug", "lamp", "banana")


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]


def write_records(out: Path, rows: list[dict]) -> None:
    (out / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def pixels(out: Path, name: str) -> np.ndarray:
    with Image.open(out / name) as img:
        return np.asarray(img)


@pytest.fixture(scope="module")
def render(tmp_path_factory) -> Path:
    """The six 3-object scenes of mug, lamp and banana at 64x48, 2 samples, with masks and depth."""
    root = tmp_path_factory.mktemp("verify")
    build_assets(load_catalog(), root / "assets", list(NAMES), jobs=1)
    out = root / "out"
    result = run_cli(
        "render", "--objects", "3", "--only", ",".join(NAMES), "--assets", str(root / "assets"),
        "--resolution", "x".join(map(str, SIZE)), "--samples", "2", "--masks", "--quiet", "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture
def copy(render, tmp_path) -> Path:
    return Path(shutil.copytree(render, tmp_path / "copy"))


def verify(folder: Path):
    return run_cli("verify", str(folder))


def test_depth_pass_matches_the_scene_geometry(render):
    """Each object pixel's depth, back-projected through the camera, lands on the object's 3D box (within a
    pixel's footprint), the table's pixels on the table top, and the backdrop has no depth."""
    camera = PinholeCamera.from_config(load_config(), SIZE)
    rows, cols = np.mgrid[0 : SIZE[1], 0 : SIZE[0]] + 0.5
    for record in records(render):
        assert record["depth_file_name"] == f"depth/{record['id']}.png"
        with Image.open(render / record["depth_file_name"]) as img:
            assert img.mode == "I;16"  # 16-bit grey PNG
            depth = np.asarray(img).astype(float) / 1000
        mask = pixels(render, record["mask_file_name"])
        z = depth
        in_camera = np.stack([(cols - SIZE[0] / 2) * z / camera.focal_px, (rows - SIZE[1] / 2) * z / camera.focal_px, z], -1)
        world = in_camera @ camera.axes + np.asarray(camera.position)
        footprint = 1.5 * depth.max() / camera.focal_px
        for label, obj in enumerate(record["objects"], start=1):
            points = world[mask == label]
            assert len(points) and (depth[mask == label] > 0).all()
            yaw = math.radians(obj["yaw_deg"])
            offset = points - (np.asarray(obj["position_m"]) + [0, 0, obj["size_m"][2] / 2])
            local = np.stack(
                [math.cos(yaw) * offset[:, 0] + math.sin(yaw) * offset[:, 1],
                 -math.sin(yaw) * offset[:, 0] + math.cos(yaw) * offset[:, 1], offset[:, 2]], -1,
            )  # fmt: skip
            outside = np.maximum(np.abs(local) - np.asarray(obj["size_m"]) / 2, 0).max()
            assert outside <= footprint + 0.005, (record["id"], obj["name"], outside)
        table_top = world[(mask == 0) & (depth > 0)][:, 2]
        assert abs(np.median(table_top) - load_config().table.height_m) < 0.003
        assert (depth[0] == 0).all()  # the top row is the backdrop: the world, at infinity


def test_a_real_render_verifies(render):
    result = verify(render)
    assert result.returncode == 0, result.stdout
    assert "0 disagreement(s) in 0 scene(s)" in result.stdout
    assert "left/right labels (mask pixels)" in result.stdout and "depth inside 3D boxes" in result.stdout


def test_a_planted_wrong_label_is_caught(copy):
    rows = records(copy)
    relations = rows[2]["relations"]
    relations["left_of"][0] = relations["left_of"][0][::-1]
    write_records(copy, rows)
    result = verify(copy)
    assert result.returncode == 1
    assert f"DISAGREES {rows[2]['id']} [left_right] left_of" in result.stdout
    assert f"DISAGREES {rows[2]['id']} [derived] relations.left_of" in result.stdout  # and it is not what the scene gives
    assert "2 disagreement(s) in 1 scene(s)" in result.stdout
    said = run_cli("verify", "--dataset", str(copy), "--json")  # the same verdict for a script
    verdict = json.loads(said.stdout)
    assert said.returncode == 1 and verdict["verdict"] == "disagrees" and verdict["images"] == len(rows)
    assert {(d["id"], d["check"]) for d in verdict["disagreements"]} == {(rows[2]["id"], "left_right"), (rows[2]["id"], "derived")}


def test_a_partly_hidden_objects_label_is_checked_by_the_extent_of_its_pixels(copy):
    """What is seen of a partly hidden object can be any part of it: its pixels may then only not lie
    wholly on the wrong side (a centroid test failed true labels of a 1,000-scene random render)."""
    rows = records(copy)
    row = rows[2]
    a, b = row["relations"]["left_of"][0]
    for obj in row["objects"]:
        if obj["name"] in (a, b):
            obj["visible_fraction"] = 0.5
    write_records(copy, rows)
    assert f"DISAGREES {row['id']} [left_right]" not in verify(copy).stdout
    row["relations"]["left_of"][0] = [b, a]
    write_records(copy, rows)
    result = verify(copy)
    assert result.returncode == 1 and f"DISAGREES {row['id']} [left_right] left_of {[b, a]}: pixels give" in result.stdout
    assert "(partly hidden)" in result.stdout


def test_a_swapped_mask_is_caught(copy):
    rows = records(copy)
    a, b = rows[0], rows[-1]  # the first and last scenes: the same three objects in reversed order
    assert [o["name"] for o in a["objects"]] == [o["name"] for o in b["objects"]][::-1]
    mask_a, mask_b = copy / a["mask_file_name"], copy / b["mask_file_name"]
    data = mask_a.read_bytes()
    mask_a.write_bytes(mask_b.read_bytes())
    mask_b.write_bytes(data)
    result = verify(copy)
    assert result.returncode == 1
    # labels are positions from the left, so the order of the swapped masks still holds: their shapes do not
    assert f"DISAGREES {a['id']} [box]" in result.stdout and f"DISAGREES {b['id']} [box]" in result.stdout
    assert f"DISAGREES {a['id']} [depth]" in result.stdout
    assert f"in 2 scene(s): {a['id']}, {b['id']}" in result.stdout


def test_in_front_and_behind_are_checked_against_the_depth_pass(copy):
    """The lamp's surface faces the camera nearer than the banana's: true labels pass, reversed ones fail (a
    benchmark record has no such relation: each line is also named as of another shape, and still judged)."""
    rows = records(copy)
    for row in rows:
        depth, mask = pixels(copy, row["depth_file_name"]), pixels(copy, row["mask_file_name"])
        names = [o["name"] for o in row["objects"]]
        lamp, banana = (np.median(depth[mask == names.index(n) + 1]) for n in ("lamp", "banana"))
        assert lamp < banana
        row["relations"]["in_front_of"] = [["lamp", "banana"]]
        row["relations"]["behind"] = [["banana", "lamp"]]
    write_records(copy, rows)
    passed = verify(copy)
    assert "in front/behind labels (depth pass)" in passed.stdout and "[front_behind]" not in passed.stdout, passed.stdout
    rows[1]["relations"]["in_front_of"] = [["banana", "lamp"]]
    write_records(copy, rows)
    failed = verify(copy)
    assert failed.returncode == 1 and f"DISAGREES {rows[1]['id']} [front_behind] in_front_of" in failed.stdout


def test_a_line_of_another_shape_is_named_and_every_line_is_still_judged(copy):
    """Every other command refuses a line its record model does not hold; verify names each such line as a
    disagreement of its scene and goes on judging every line against its pixels."""
    rows = records(copy)
    for row in rows:
        row["weather"] = "sunny"
    rows[3]["objects"][0]["visible_fraction"] = 0.0  # a benchmark object has none: what it says is checked all the same
    write_records(copy, rows)
    result = verify(copy)
    assert result.returncode == 1, result.stdout
    for line, row in enumerate(rows, start=1):
        said = f"DISAGREES {row['id']} [schema] metadata.jsonl: line {line} is not a benchmark render record: "
        assert said + ("objects.0.visible_fraction" if line == 4 else "weather 'sunny': Extra inputs") in result.stdout, result.stdout
    assert f"DISAGREES {rows[3]['id']} [visible] {rows[3]['objects'][0]['name']}: visible_fraction 0.0 but" in result.stdout
    assert {line.split()[2] for line in result.stdout.splitlines() if "DISAGREES" in line} == {"[schema]", "[visible]"}


def test_images_too_small_to_compare_with_their_masks_make_the_verdict_partial(render, tmp_path):
    """Under 64 px wide an image is too noisy to compare with its masks: a check that could not run on every
    image is no agreement (exit 3), and the last line says which check and how many images."""
    small = tmp_path / "small"
    made = run_cli(
        "render", "--objects", "3", "--only", ",".join(NAMES), "--limit", "1", "--assets", str(render.parent / "assets"),
        "--resolution", "48x36", "--samples", "1", "--masks", "--quiet", "--out", str(small),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    result = verify(small)
    assert result.returncode == 3 and "0 disagreement(s)" in result.stdout, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: the verdict is partial, not every label was checked: ")
    assert "images match their masks: 1 of 1 image(s) under 64 px wide, too small to compare with their masks" in result.stderr


def test_missing_broken_and_unlisted_files_are_caught(copy):
    rows = records(copy)
    (copy / rows[0]["file_name"]).unlink()
    (copy / rows[1]["depth_file_name"]).write_bytes(b"\x89PNG\r\n\x1a\n not really")
    shutil.copy(copy / rows[2]["file_name"], copy / "images" / "2obj-999999.png")
    result = verify(copy)
    assert result.returncode == 1
    assert f"{rows[0]['file_name']} is missing" in result.stdout
    assert f"{rows[1]['depth_file_name']} does not decode" in result.stdout
    assert "images/2obj-999999.png is in the folder but in no metadata line" in result.stdout


def test_folders_verify_cannot_read_get_one_line(copy, tmp_path):
    not_render = verify(tmp_path / "nowhere")
    assert not_render.returncode == 2 and not_render.stderr.startswith("error: ") and "not a folder" in not_render.stderr
    rows = records(copy)
    for row in rows:
        del row["mask_file_name"], row["depth_file_name"]
    write_records(copy, rows)
    no_masks = verify(copy)
    assert no_masks.returncode == 2 and len(no_masks.stderr.strip().splitlines()) == 1
    assert "rendered without --masks" in no_masks.stderr and "with the same command plus --masks and another --out" in no_masks.stderr


def test_the_verdict_is_kept_for_this_metadata_only_and_a_read_only_folder_is_verified_all_the_same(copy, tmp_path):
    original, rows = records(copy), records(copy)
    rows[0]["objects"][0]["bbox_px"] = [0.0, 0.0, 2.0, 2.0]
    write_records(copy, rows)
    assert verify(copy).returncode == 1
    disputed = kept_verdict(copy, rows).disputed
    assert list(disputed) == [rows[0]["id"]] and any("bbox" in what for what in disputed[rows[0]["id"]])
    write_records(copy, rows[1:])  # the folder changed since: the verdict no longer applies
    assert kept_verdict(copy, rows[1:]) is None
    frozen = tmp_path / "frozen"
    frozen.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(frozen)], capture_output=True).returncode:
        pytest.fail("this test mounts a read-only tmpfs: run it as root (the CI container is)")
    try:
        write_records(copy, original)
        shutil.copytree(copy, frozen / "render")
        (frozen / "render" / VERIFY_FILE).unlink()
        subprocess.run(["mount", "-o", "remount,ro", str(frozen)], check=True)
        result = verify(frozen / "render")
        assert result.returncode == 0 and "0 disagreement(s)" in result.stdout, result.stdout + result.stderr
        assert "the verdict was not kept" in result.stderr and "Traceback" not in result.stderr
        assert not (frozen / "render" / VERIFY_FILE).exists()
    finally:
        subprocess.run(["umount", str(frozen)], check=True)


@pytest.mark.parametrize("fixture", ["random-golden", "benchmark-main"])
def test_the_golden_folders_verify_without_a_disagreement(fixture, tmp_path):
    """Each golden folder, verified as a user verifies a render (no flag), agrees with its own pixels: the
    random set's settings.json pins how its labels read (in front of by where objects stand, "the scissors
    are"). Without a run.json naming the render config and the models, the verdict is partial, not wrong."""
    from conftest import REPO

    folder = Path(shutil.copytree(REPO / "tests" / "fixtures" / fixture, tmp_path / fixture))  # verify keeps its verdict beside it
    result = run_cli("verify", str(folder))
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "0 disagreement(s) in 0 scene(s)", result.stdout
    assert "drawn before" not in result.stderr, result.stderr  # the random set's rules read from its settings
