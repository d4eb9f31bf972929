"""Every render path on each Blender TableTest supports. scripts/test.sh shares the other test files out
between its Pythons (3.11 with bpy 5.0.1, 3.13 with bpy 5.2), so a path only they render would run on one
Blender; each Python runs this file (conftest's `EVERY_LANE`), which renders each path once, tiny: a
benchmark scene on the device `--device auto` finds, the same scene composed from its layers, a random
scene with looks (colours, and models drawn from their kind's mesh), masks, a counterfactual partner and a
second view, a Workbench draft and the contact sheet."""

from __future__ import annotations

import json
from pathlib import Path

import glbmaker as gm
import numpy as np
import pytest
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.assets.importer import import_folder
from tabletest.assets.variants import load_looks
from tabletest.config import load_catalog
from tabletest.render.devices import detect_nvidia_gpus

from conftest import looks_config, run_cli

pytestmark = pytest.mark.render  # every test here renders

NAMES = ("mug", "apple")
TINY = ("--resolution", "48x36", "--samples", "1", "--quiet")
GREEN = (20, 200, 40)


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("models")
    build_assets(load_catalog(), folder, list(NAMES), jobs=1)
    return folder


@pytest.fixture(scope="module")
def textured(tmp_path_factory) -> Path:
    """A box whose only colour is a green texture (its material is plain white), imported as the mug."""
    g = gm.Gltf()
    g.node(mesh=g.box(extents=(1.0, 1.0, 1.0), material=g.textured_material(gm.png(8, 8, GREEN))))
    root = tmp_path_factory.mktemp("textured")
    (root / "models").mkdir()
    (root / "models" / "mug.glb").write_bytes(g.glb())
    assert import_folder(load_catalog(), root / "models", root / "assets", log=print).imported
    return root / "assets"


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]


def rgb(path: Path) -> np.ndarray:
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"), dtype=float)


def test_a_benchmark_scene_renders_directly_and_composed_from_its_layers_alike(tmp_path, models):
    """Direct mode on the device `--device auto` finds (the CPU on a machine without an NVIDIA GPU), then
    composite mode: the same placement and Blender's own measurements, and a picture either way."""
    scene = ("render", "--objects", "2", "--only", ",".join(NAMES), "--limit", "1", "--assets", str(models), *TINY)
    direct, composed = tmp_path / "direct", tmp_path / "composed"
    made = run_cli(*scene, "--out", str(direct))
    assert made.returncode == 0, made.stderr
    made = run_cli(*scene, "--mode", "composite", "--layer-cache", str(tmp_path / "layers"), "--out", str(composed))
    assert made.returncode == 0, made.stderr
    [one], [other] = records(direct), records(composed)
    assert (one["render"]["mode"], other["render"]["mode"]) == ("direct", "composite")
    assert one["objects"] == other["objects"] and len(one["objects"]) == 2
    assert rgb(direct / one["file_name"]).std() > 5 and rgb(composed / other["file_name"]).std() > 5
    if not detect_nvidia_gpus():
        assert one["render"]["device"] == "CPU (CPU)"


def test_a_random_scene_with_looks_masks_a_partner_and_a_view(tmp_path, models):
    """Seed 8 draws both objects in a look of their kind's second model (drawn from its mesh, stretched) and
    a colour of its palette; the scene, its swapped partner and its second view each come with a mask, and
    the red apple's pixels under its mask are red."""
    out = tmp_path / "out"
    made = run_cli(
        "render", "--scenes", "random", "--count", "1", "--seed", "8", "--only", ",".join(NAMES), "--masks",
        "--random-config", str(looks_config(tmp_path, models=2, colours=True)), "--counterfactuals", "swap",
        "--views", "2", "--assets", str(models), "--out", str(out), *TINY,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    made = {r["id"]: r for r in records(out)}
    assert set(made) == {"rnd8-0000000", "rnd8-0000000-swap", "rnd8-0000000-view2"}, (
        "pick another --seed if the random config changed: the test needs a partner, a view and looks of a second model")
    palette = load_looks()
    for record in made.values():
        assert {o["name"] for o in record["objects"]} == set(NAMES)
        for obj in record["objects"]:
            look = obj["variant"]
            assert look["model"] == 1 and look["shape"] != {"height": 1.0, "width": 1.0, "size": 1.0}, look
            assert look["colour"] in palette.of(obj["name"]).colour_names
        with Image.open(out / record["mask_file_name"]) as mask:
            labels = np.asarray(mask)
        assert set(np.unique(labels)) == {0, 1, 2}
        apple = next(i for i, o in enumerate(record["objects"], start=1) if o["name"] == "apple")
        assert record["objects"][apple - 1]["variant"]["colour"] == "red"
        red, green, blue = np.median(rgb(out / record["file_name"])[labels == apple], axis=0)
        assert red > green and red > blue, (record["id"], red, green, blue)


def test_a_workbench_draft_and_the_contact_sheet_show_the_texture_colour(tmp_path, textured):
    """The textured box in a Workbench draft and on the contact sheet: its pixels are green, not flat grey."""
    out = tmp_path / "out"
    made = run_cli("render", "--engine", "workbench", "--only", "mug", "--objects", "1", "--assets", str(textured),
                   "--out", str(out), *TINY)  # fmt: skip
    assert made.returncode == 0, made.stderr
    [record] = records(out)
    x0, y0, x1, y1 = (round(v) for v in record["objects"][0]["bbox_px"])
    r, g, b = rgb(out / record["file_name"])[y0:y1, x0:x1].reshape(-1, 3).mean(axis=0)
    assert g > r + 40 and g > b + 40, (r, g, b)
    sheet = tmp_path / "sheet.png"
    made = run_cli("assets", "sheet", str(sheet), "--only", "mug", "--cell", "32", "--assets", str(textured))
    assert made.returncode == 0, made.stderr
    cell = rgb(sheet)[:32, :32].reshape(-1, 3)
    r, g, b = cell[np.abs(cell - (236, 236, 232)).sum(axis=1) > 30].mean(axis=0)  # what is not the sheet's background
    assert g > r + 40 and g > b + 40, (r, g, b)
