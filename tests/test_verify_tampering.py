"""`tabletest verify` against tampered labels of a real random render: each field a record states about
its image is checked against the pixels or derived again from what was (no stubs: Blender's pixels)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import REPO, run_cli

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

POOL = ("mug", "banana", "lamp", "tomato", "teapot", "book")


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    build_assets(load_catalog(), folder, list(POOL), jobs=1)
    return folder


def render_into(out: Path, assets: Path, seed: int, count: int) -> subprocess.CompletedProcess:
    """Random scenes with every object apart on the table, each kind once: what these tampering checks were measured
    on (objects on, in and beside others get their own render and planted labels in test_arrangements.py)."""
    data = yaml.safe_load((REPO / "configs" / "random.yaml").read_text())
    del data["arrangements"], data["objects"]["repeats"]
    config = out.parent / f"{out.name}-random.yaml"
    out.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(yaml.safe_dump(data))
    return run_cli(
        "render", "--scenes", "random", "--count", str(count), "--seed", str(seed), "--only", ",".join(POOL), "--masks",
        "--resolution", "64x48", "--samples", "2", "--assets", str(assets), "--out", str(out), "--quiet",
        "--random-config", str(config),
    )  # fmt: skip


@pytest.fixture(scope="module")
def render(tmp_path_factory, assets) -> Path:
    """Eight random scenes at 64x48 (the smallest width whose images are compared with their masks)."""
    out = tmp_path_factory.mktemp("tamper") / "out"
    result = render_into(out, assets, seed=7, count=8)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture
def copy(render, tmp_path) -> Path:
    return Path(shutil.copytree(render, tmp_path / "copy", symlinks=True))


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]


def write_records(out: Path, rows: list[dict]) -> None:
    (out / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def verify(folder: Path) -> subprocess.CompletedProcess:
    return run_cli("verify", str(folder), timeout=120)


def with_pair(rows: list[dict], key: str) -> dict:
    return next(r for r in rows if r["relations"][key])


def test_the_render_verifies_and_the_summary_says_what_is_not_checked(render):
    result = verify(render)
    assert result.returncode == 0, result.stdout
    assert "labels derived from the checked geometry" in result.stdout and "images match their masks" in result.stdout
    assert "visibility (mask pixels, silhouettes)" in result.stdout and "not checked: which model file made an object" in result.stdout


def swap_images(folder: Path, rows: list[dict]) -> list[str]:
    a, b = folder / rows[1]["file_name"], folder / rows[4]["file_name"]
    data = a.read_bytes()
    a.write_bytes(b.read_bytes())
    b.write_bytes(data)
    return [rows[1]["id"], rows[4]["id"]]


def shrink_box(folder: Path, rows: list[dict]) -> list[str]:
    obj = rows[2]["objects"][0]
    x0, y0 = obj["bbox_px"][:2]
    obj["bbox_px"] = [x0, y0, x0 + 1.5, y0 + 1.5]  # "too small to check", were smallness read from the record
    return [rows[2]["id"]]


def reverse_front_and_depths(folder: Path, rows: list[dict]) -> list[str]:
    row = with_pair(rows, "in_front_of")
    front, back = row["relations"]["in_front_of"][0]
    row["relations"]["in_front_of"][0] = [back, front]
    row["relations"]["behind"] = [[front, back] if pair == [back, front] else pair for pair in row["relations"]["behind"]]
    by_name = {o["name"]: o for o in row["objects"]}
    by_name[front]["depth_m"], by_name[back]["depth_m"] = by_name[back]["depth_m"], by_name[front]["depth_m"]
    return [row["id"]]


def name_an_absent_object(folder: Path, rows: list[dict]) -> list[str]:
    row = with_pair(rows, "left_of")
    row["relations"]["left_of"].append([row["relations"]["left_of"][0][0], "unicorn"])
    return [row["id"]]


def name_a_hidden_object(folder: Path, rows: list[dict]) -> list[str]:
    row = with_pair(rows, "left_of")
    a, b = row["relations"]["left_of"][0]
    row["relations"]["hidden"] = [b]
    return [row["id"]]


def flip_a_vignette(folder: Path, rows: list[dict]) -> list[str]:
    row = next(r for r in rows if r["vignettes"]["left_first"] != r["vignettes"]["right_first"])
    row["vignettes"] = {"left_first": row["vignettes"]["right_first"], "right_first": row["vignettes"]["left_first"]}
    return [row["id"]]


def change_counts(folder: Path, rows: list[dict]) -> list[str]:
    rows[3]["relations"]["counts"]["objects"] += 1
    return [rows[3]["id"]]


def move_a_center(folder: Path, rows: list[dict]) -> list[str]:
    rows[5]["objects"][0]["center_px"][0] += 3
    return [rows[5]["id"]]


def change_a_table_side(folder: Path, rows: list[dict]) -> list[str]:
    sides = rows[6]["relations"]["table_side"]
    name = next(iter(sides))
    sides[name] = {"left": "right", "right": "middle", "middle": "left"}[sides[name]]
    return [rows[6]["id"]]


@pytest.mark.parametrize(
    "tamper, kind",
    [
        (swap_images, "image"),
        (shrink_box, "box"),
        (reverse_front_and_depths, "derived"),
        (name_an_absent_object, "named"),
        (name_a_hidden_object, "named"),
        (flip_a_vignette, "derived"),
        (change_counts, "derived"),
        (move_a_center, "derived"),
        (change_a_table_side, "derived"),
    ],
)
def test_a_tampered_label_is_caught(copy, tamper, kind):
    rows = records(copy)
    tampered = tamper(copy, rows)
    write_records(copy, rows)
    result = verify(copy)
    assert result.returncode == 1, result.stdout
    for scene_id in tampered:
        assert f"DISAGREES {scene_id} [{kind}]" in result.stdout, result.stdout
    assert f"disagreement(s) in {len(tampered)} scene(s): {', '.join(sorted(tampered))}" in result.stdout.splitlines()[-1]


def test_a_table_recorded_at_another_size_is_caught(copy):
    """The table's size decides which objects stand at its edge or in its middle: a record claiming a wider table than
    its scene drew (the set's config, seed and index draw it again) disagrees."""
    rows = records(copy)
    table = rows[3]["scene"]["table"]
    table["width_m"] = round(table["width_m"] + 0.4, 4)
    write_records(copy, rows)
    result = verify(copy)
    assert result.returncode == 1, result.stdout
    assert f"DISAGREES {rows[3]['id']} [derived] scene.table: recorded" in result.stdout, result.stdout
    assert "disagreement(s) in 1 scene(s)" in result.stdout.splitlines()[-1]
    assert "a random scene's lights and backdrop" in result.stdout and "table, lights" not in result.stdout


def test_files_outside_the_folder_or_not_regular_are_never_opened(copy, tmp_path):
    rows = records(copy)
    outside = tmp_path / "elsewhere.png"
    shutil.copy(copy / rows[0]["mask_file_name"], outside)
    rows[0]["mask_file_name"] = os.path.relpath(outside, copy)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (copy / rows[1]["mask_file_name"]).unlink()
    (copy / rows[1]["mask_file_name"]).symlink_to(fifo)  # reading either pipe would block forever
    (copy / rows[2]["depth_file_name"]).unlink()
    os.mkfifo(copy / rows[2]["depth_file_name"])
    write_records(copy, rows)
    result = verify(copy)
    assert result.returncode == 1
    assert f"DISAGREES {rows[0]['id']} [files] mask_file_name {rows[0]['mask_file_name']} leads outside the folder" in result.stdout
    assert f"DISAGREES {rows[1]['id']} [files] mask_file_name {rows[1]['mask_file_name']} leads outside the folder" in result.stdout
    assert f"DISAGREES {rows[2]['id']} [files] depth_file_name {rows[2]['depth_file_name']} is not a regular file" in result.stdout


def test_a_record_without_its_mask_is_named_and_the_rest_are_checked(copy):
    rows = records(copy)
    del rows[2]["mask_file_name"]
    write_records(copy, rows)
    result = verify(copy)
    assert result.returncode == 1
    assert f"DISAGREES {rows[2]['id']} [files] no mask_file_name: rendered without --masks" in result.stdout
    assert result.stdout.splitlines()[-1].endswith(f"in 1 scene(s): {rows[2]['id']}")  # and its files unlisted


def test_records_of_another_random_set_are_refused_by_render_verify_and_export(copy, assets, tmp_path):
    """With settings.json gone, a render of another seed into the folder is refused from the records
    alone; records mixed in by hand fail verify and export."""
    (copy / "settings.json").unlink()
    other = render_into(copy, assets, seed=6, count=9)
    assert other.returncode == 2 and other.stderr.count("\n") == 1, other.stderr
    assert "holds another dataset" in other.stderr and "scenes.seed: 7 → 6" in other.stderr
    rows = records(copy)
    rows[3]["scene"]["config_sha256"] = "0" * 64  # as a render with another --random-config writes it
    write_records(copy, rows)
    result = verify(copy)
    assert result.returncode == 1 and f"DISAGREES {rows[3]['id']} [metadata] made with other settings than the first record" in result.stdout
    exported = run_cli("export", "--dataset", str(copy), "--format", "llava", "--out", str(tmp_path / "x"))
    assert exported.returncode == 2 and "mixes renders" in exported.stderr and "scenes.config_sha256" in exported.stderr


def test_an_edited_settings_file_does_not_let_another_set_in(copy, assets):
    settings = json.loads((copy / "settings.json").read_text())
    settings["scenes"]["seed"] = settings["config"]["render"]["seed"] = 6  # as if the folder were seed 6's
    (copy / "settings.json").write_text(json.dumps(settings))
    before = (copy / "metadata.jsonl").read_bytes()
    other = render_into(copy, assets, seed=6, count=9)
    assert other.returncode == 2 and other.stderr.count("\n") == 1, other.stderr
    assert "metadata.jsonl line 1: scenes.seed: 7 → 6" in other.stderr
    assert (copy / "metadata.jsonl").read_bytes() == before


def test_covered_by_is_measured_and_a_coverer_that_shows_elsewhere_is_caught(copy):
    rows = records(copy)
    covered = [(r, o) for r in rows for o in r["objects"] if o["covered_by"]]
    assert covered, "a render of 8 scenes of up to 6 objects has something covering something"
    for row, obj in covered:
        names = [o["name"] for o in row["objects"]]
        for name in obj["covered_by"]:
            assert name in names and name != obj["name"]
    def clear(a: dict, b: dict) -> bool:  # b's box lies wholly beside a's
        return b["bbox_px"][2] < a["bbox_px"][0] or b["bbox_px"][0] > a["bbox_px"][2]

    row, obj, far = next((r, o, f) for r in rows for o in r["objects"] for f in r["objects"] if f is not o and clear(o, f))
    obj["covered_by"] = [far["name"]]  # named as covering an object it stands clear of
    write_records(copy, rows)
    result = verify(copy)
    assert result.returncode == 1 and f"DISAGREES {row['id']} [visible] {obj['name']}: covered_by {far['name']!r}" in result.stdout


def test_an_object_nothing_covers_reads_wholly_visible(render):
    """Seen and hidden come from one rasterisation of the silhouette: an object no other covers reads 1.0
    but for edge pixels shared with a neighbour (the first sample's lottery at its edge counts neither way)."""
    uncovered = [o for r in records(render) for o in r["objects"] if not o["covered_by"]]
    sized = [o["visible_fraction"] for o in uncovered if min(o["bbox_px"][2] - o["bbox_px"][0], o["bbox_px"][3] - o["bbox_px"][1]) >= 4]
    assert len(sized) >= 10 and min(sized) >= 0.85, sorted(sized)[:5]
    assert sorted(sized)[len(sized) // 2] == 1.0


def test_verify_show_draws_each_disputed_scene_with_the_dispute_in_red(copy, tmp_path):
    rows = records(copy)
    tampered = shrink_box(copy, rows) + move_a_center(copy, rows)
    write_records(copy, rows)
    pictures = tmp_path / "disputed"
    result = run_cli("verify", str(copy), "--show", str(pictures), timeout=120)
    assert result.returncode == 1 and f"wrote {len(set(tampered))} picture(s)" in result.stdout, result.stdout
    assert sorted(p.stem for p in pictures.iterdir()) == sorted(set(tampered))
    from PIL import Image

    from tabletest.show.overlay import NOTE_COLOR

    with Image.open(pictures / f"{tampered[0]}.png") as picture:
        colours = picture.convert("RGB").getcolors(1 << 20)
    assert any(colour == NOTE_COLOR for _, colour in colours)


def test_rounding_through_the_recorded_camera_is_no_disagreement_and_a_real_shift_is(tmp_path, builtin_assets):
    """Scene rnd0-0000050 at 64x48: its potted plant's centre, derived again through the record's rounded
    camera pose, lands 2e-6 m from the recorded one (rounding, seen in a 1,000-scene audit); a centre moved
    by 20 micrometres is still a disagreement."""
    out = tmp_path / "one"
    made = run_cli("render", "--scenes", "random", "--count", "1000", "--seed", "0", "--shard", "50/1000", "--resolution", "64x48",
                   "--samples", "1", "--masks", "--assets", str(builtin_assets), "--out", str(out), "--quiet")  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert verify(out).returncode == 0, verify(out).stdout
    rows = records(out)
    rows[0]["objects"][0]["center_camera_m"][0] += 2e-5
    write_records(out, rows)
    caught = verify(out)
    assert caught.returncode == 1 and "[derived]" in caught.stdout and "center_camera_m" in caught.stdout
