"""`tabletest show`: the labels drawn on a real render, the 3D boxes projected where the pixels are (a
wrong camera is caught), and one-line errors for what cannot be shown."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli
from PIL import Image

from tabletest.layout.camera import CameraView
from tabletest.show.overlay import CHANGE_COLOR, MIN_WIDTH_PX, PALETTE, changes, overlay, projected_box

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

TINY = ["--resolution", "64x48", "--samples", "1", "--masks", "--quiet"]


@pytest.fixture(scope="module")
def renders(tmp_path_factory, builtin_assets) -> Path:
    root = tmp_path_factory.mktemp("show")
    for args in (
        ["--scenes", "random", "--count", "4", "--out", str(root / "random")],
        ["--objects", "3", "--limit", "2", "--only", "mug,lamp,banana", "--out", str(root / "bench")],
    ):
        result = run_cli("render", *args, "--assets", str(builtin_assets), *TINY)
        assert result.returncode == 0, result.stderr
    return root


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "metadata.jsonl").read_text().splitlines()]


def mask_of(folder: Path, record: dict) -> np.ndarray:
    return np.asarray(Image.open(folder / record["mask_file_name"]))


def box_holds_the_pixels(record: dict, masks: np.ndarray, camera: CameraView) -> list[bool]:
    """Per object that shows at least 12 pixels: whether its projected 3D box's extent holds 95 % of them."""
    held = []
    for position, obj in enumerate(record["objects"]):
        rows, cols = np.nonzero(masks == position + 1)
        if len(rows) < 12:
            continue
        corners = projected_box(obj, camera)
        if corners is None:
            held.append(False)
            continue
        (u0, v0), (u1, v1) = corners.min(axis=0) - 1, corners.max(axis=0) + 1
        inside = (cols + 0.5 >= u0) & (cols + 0.5 <= u1) & (rows + 0.5 >= v0) & (rows + 0.5 <= v1)
        held.append(inside.mean() >= 0.95)
    return held


def test_the_3d_boxes_project_where_the_pixels_are_and_a_wrong_camera_is_caught(renders):
    folder = renders / "random"
    checked = planted = 0
    for record in records(folder):
        masks = mask_of(folder, record)
        right = box_holds_the_pixels(record, masks, CameraView.from_record(record["camera"]))
        assert all(right), record["id"]
        checked += len(right)
        wrong = json.loads(json.dumps(record["camera"]))
        wrong["world_to_camera"][0][3] += 0.25  # the camera 25 cm off to one side
        planted += right.count(True) - box_holds_the_pixels(record, masks, CameraView.from_record(wrong)).count(True)
    assert checked >= 4 and planted >= checked // 2


def test_the_benchmark_boxes_project_with_the_camera_each_record_names(renders):
    folder = renders / "bench"
    for record in records(folder):
        assert all(box_holds_the_pixels(record, mask_of(folder, record), CameraView.from_record(record["camera"]))), record["id"]


def test_the_overlay_draws_each_objects_box_in_its_colour(renders):
    folder = renders / "random"
    record = records(folder)[0]
    with Image.open(folder / record["file_name"]) as image:
        drawn = np.asarray(overlay(record, image, mask_of(folder, record), CameraView.from_record(record["camera"])))
    scale = MIN_WIDTH_PX / 64
    assert drawn.shape[1] == MIN_WIDTH_PX and drawn.shape[0] > 48 * scale  # enlarged, the legend below
    for position, obj in enumerate(record["objects"]):
        x0, y0, x1, y1 = (round(c * scale) for c in obj["bbox_px"])
        edge = drawn[max(y0, 0) : y1 + 1, max(x0, 0)][:, :3]  # the 2D box's left side
        if len(edge):
            assert (np.abs(edge.astype(int) - PALETTE[position % len(PALETTE)]).sum(axis=1) == 0).any(), obj["name"]


def test_show_writes_the_scenes_asked_for_side_by_side(renders, tmp_path):
    folder = renders / "random"
    ids = [r["id"] for r in records(folder)][:3]
    out = tmp_path / "show.png"
    result = run_cli("show", "--dataset", str(folder), *[a for i in ids for a in ("--id", i)], "--out", str(out), "--columns", "3")
    assert result.returncode == 0, result.stderr
    with Image.open(out) as picture:
        assert picture.width >= 3 * MIN_WIDTH_PX
    bench = run_cli("show", "--dataset", str(renders / "bench"), "--out", str(tmp_path / "bench.png"))
    assert bench.returncode == 0 and (tmp_path / "bench.png").is_file(), bench.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--id", "rnd0-0000099"], "--id rnd0-0000099: no such scene in"),
        (["--out", "show.jpg"], "is not a .png file"),
    ],
)
def test_what_cannot_be_shown_is_one_line_and_writes_nothing(renders, tmp_path, args, message):
    args = [a if a != "show.jpg" else str(tmp_path / "show.jpg") for a in args]
    out = ["--out", str(tmp_path / "show.png")] if "--out" not in args else []
    result = run_cli("show", "--dataset", str(renders / "random"), *args, *out)
    assert result.returncode == 2 and message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert list(tmp_path.iterdir()) == []
    missing = run_cli("show", "--dataset", str(tmp_path / "none"))
    assert missing.returncode == 2 and "is not a folder" in missing.stderr


def test_a_merged_benchmark_names_its_camera_and_a_record_from_before_is_described_by_its_render(tmp_path, builtin_assets):
    """Each record names the camera it was shot with and each object's 3D box; one from before records named them
    gets them from the config of the last run that rendered the folder (a merge's own run records none)."""
    from tabletest.truth.described import described

    for shard in ("0/2", "1/2"):
        part = tmp_path / f"part{shard[0]}"
        result = run_cli("render", "--objects", "2", "--limit", "4", "--only", "mug,lamp,banana", "--shard", shard,
                         "--out", str(part), "--assets", str(builtin_assets), *TINY)
        assert result.returncode == 0, result.stderr
    merged = tmp_path / "merged"
    assert run_cli("merge", str(tmp_path / "part0"), str(tmp_path / "part1"), "--out", str(merged)).returncode == 0
    assert "config" not in json.loads((merged / "run.json").read_text())["runs"][-1]
    for record in records(merged):
        assert all(box_holds_the_pixels(record, mask_of(merged, record), CameraView.from_record(record["camera"]))), record["id"]
        before = {key: value for key, value in record.items() if key != "camera"}
        before["objects"] = [{key: value for key, value in o.items() if key != "box3d"} for o in record["objects"]]
        assert described(before, merged) == record


def test_a_partner_and_a_view_say_what_changed_from_their_scene(tmp_path, builtin_assets):
    """Beside its scene, a counterfactual partner's overlay says in blue what changed (its kind, the relations
    that now hold and no longer hold) and draws the objects the change names thicker; a view says where its
    camera stands; the scene itself says neither."""
    out = tmp_path / "pairs"
    made = run_cli("render", "--scenes", "random", "--count", "3", "--seed", "0", "--counterfactuals", "swap", "--views", "2",
                   "--assets", str(builtin_assets), "--out", str(out), *TINY)  # fmt: skip
    assert made.returncode == 0, made.stderr
    by_id = {r["id"]: r for r in records(out)}
    partner = next(r for r in by_id.values() if "counterfactual" in r)
    scene, view = by_id[partner["counterfactual"]["of"]], by_id[f"{partner['counterfactual']['of']}-view2"]
    said = changes(partner, lines=100)
    a, b = partner["counterfactual"]["objects"]
    assert said[0] == f"swap of {a} and {b} (from {scene['id']})"
    for side, word in (("became_true", "now"), ("became_false", "no longer")):
        for x, y in partner["counterfactual"][side].get("left_of", []):
            assert f"{word}: {x} left of {y}" in said
    assert changes(view)[0].startswith(f"view 2 of {scene['id']}: camera at azimuth") and changes(scene) == []

    def legend_in_blue(record: dict) -> int:
        with Image.open(out / record["file_name"]) as image:
            drawn = np.asarray(overlay(record, image, mask_of(out, record), CameraView.from_record(record["camera"])))
        below = drawn[round(image.height * MIN_WIDTH_PX / image.width):]
        return int(np.all(below == CHANGE_COLOR, axis=-1).sum())

    assert legend_in_blue(partner) > 0 and legend_in_blue(view) > 0 and legend_in_blue(scene) == 0
    shown = run_cli("show", "--dataset", str(out), "--id", scene["id"], "--id", partner["id"], "--id", view["id"],
                    "--columns", "3", "--out", str(tmp_path / "pair.png"))  # fmt: skip
    assert shown.returncode == 0 and Image.open(tmp_path / "pair.png").width > 3 * MIN_WIDTH_PX, shown.stderr
