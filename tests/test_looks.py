"""Many of a kind: the looks a kind may take (models built from its recipe, colours from its palette), random
scenes drawing them, records naming them, held-out looks, the split by look, and a question naming a look."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from hierarchy_scenes import obj, scene
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.assets.canonical import load_world
from tabletest.assets.manifest import load_manifest
from tabletest.assets.needed import needed_looks
from tabletest.assets.variants import load_looks, model_look
from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.layout.random_config import load_random_config
from tabletest.layout.random_set import make_random_set
from tabletest.layout.split import VALIDATION, labels, make_split
from tabletest.layout.variants import draw_variants, kind_variants
from tabletest.prompts.hierarchy.generate import scene_questions

from conftest import looks_config, run_cli

CATALOG = load_catalog()
POOL = ("mug", "apple")


def with_looks(**looks):
    config = load_random_config()
    return config.model_copy(update={"looks": config.looks.model_copy(update=looks)})


def test_every_kind_of_the_catalog_has_plausible_looks():
    palette = load_looks()
    assert set(palette.kinds) == set(CATALOG.names)
    for kind, looks in palette.kinds.items():
        assert looks.own is None or looks.own.name not in looks.colours, kind
        assert all(lo <= 1 <= hi for lo, hi in (looks.height, looks.width, looks.size)), kind
    assert "blue" not in palette.of("apple").colour_names and {"red", "green"} <= set(palette.of("apple").colour_names)


def test_a_model_look_is_drawn_from_its_seed_alone_within_its_kinds_ranges():
    ranges = load_looks().of("mug")
    looks = [model_look("mug", n) for n in range(1, 9)]
    assert looks == [model_look("mug", n) for n in range(1, 9)]  # the same seed, the same model, in any order
    assert len({(m.height, m.width, m.size) for m in looks}) == 8
    for m in looks:
        assert ranges.height[0] <= m.height <= ranges.height[1] and ranges.size[0] <= m.size <= ranges.size[1]
    assert model_look("mug", 3, size_spread=0).size == 1.0 and model_look("mug", 0) == model_look("mug", 0, 0.5)


def test_a_look_model_is_built_once_at_its_own_size_and_checked(tmp_path):
    build_assets(CATALOG, tmp_path, ["mug"], jobs=1)
    look = model_look("mug", 2)
    first = needed_looks(CATALOG, tmp_path, [look])["mug/2"]
    again = needed_looks(CATALOG, tmp_path, [look])["mug/2"]
    assert first == again and first.file == f"{look.slug}.glb" and first.source == "builtin"
    catalog_size = max(load_manifest(tmp_path).objects["mug"].size_m)
    assert max(first.size_m) == pytest.approx(CATALOG.by_name("mug").size_m * look.size, rel=0.01)
    assert max(first.size_m) != pytest.approx(catalog_size, rel=0.01)
    height_ratio = first.size_m[2] / max(first.size_m) / (load_manifest(tmp_path).objects["mug"].size_m[2] / catalog_size)
    assert height_ratio != pytest.approx(1.0, abs=0.01)  # stretched, not only scaled
    catalog, own = (load_world((tmp_path / f).read_bytes()) for f in (load_manifest(tmp_path).objects["mug"].file, first.file))
    mapped = np.array(first.drawn_from).reshape(3, 4)  # what the render draws the look with: the mug's model, mapped
    for name, mesh in own.geometry.items():
        source = catalog.geometry[name].vertices
        assert np.allclose(source @ mapped[:, :3].T + mapped[:, 3], mesh.vertices, atol=2e-5), name
    other = model_look("mug", 2, size_spread=0.5)  # other parameters: another model, made again
    assert needed_looks(CATALOG, tmp_path, [other])["mug/2"].file == f"{other.slug}.glb" != first.file


def test_colours_come_from_the_kinds_palette_and_held_out_looks_are_never_drawn_in_training():
    looks = with_looks(models=2, colours=True, held_out=("red", "mug/1")).looks
    train = kind_variants(POOL, looks)
    palette = load_looks()
    for kind, variants in train.items():
        assert {v.colour for v in variants} <= set(palette.of(kind).colour_names) - {"red"}
        assert all(v.model.number == 0 for v in variants if kind == "mug")
    validation = kind_variants(POOL, looks.model_copy(update={"split": "validation"}))
    assert all(v.colour == "red" or v.label.startswith("mug/1") for vs in validation.values() for v in vs)
    every = {v.label for vs in kind_variants(POOL, looks.model_copy(update={"held_out": ()})).values() for v in vs}
    assert {v.label for vs in train.values() for v in vs} | {v.label for vs in validation.values() for v in vs} == every


@pytest.mark.parametrize("spec", ["purple", "apple/blue", "mug/7", "lamp/red", "mug/0/red/x"])
def test_a_held_out_look_that_names_no_look_is_refused_in_one_line(spec):
    with pytest.raises(UserError) as err:
        kind_variants(POOL, with_looks(models=2, colours=True, held_out=(spec,)).looks)
    assert spec in str(err.value) and "\n" not in str(err.value)


def test_several_of_a_kind_in_a_scene_take_different_looks():
    variants = kind_variants(("apple",), with_looks(colours=True).looks)
    drawn = draw_variants(["apple#1", "apple#2", "apple#3"], variants, random.Random(4))
    assert len(set(drawn)) == 3 and all(v.model.kind == "apple" for v in drawn)


def test_looks_off_draws_the_scenes_it_always_did():
    config = load_random_config()
    assert config.digest == config.model_copy(update={"looks": with_looks(models=1).looks}).digest
    assert config.digest != with_looks(colours=True).digest
    plain = make_random_set(CATALOG, config, 3, 10, None, None, None, None)
    assert plain.variants == () and plain.model_looks() == []


def test_split_by_look_holds_out_every_scene_showing_a_held_out_look():
    records = [
        {"id": f"rnd0-{i:07d}", "objects": [{"name": "mug", "variant": {"look": look}} for look in looks]}
        for i, looks in enumerate([["mug/0/blue"], ["mug/1/red", "mug/0/blue"], ["mug/1/red"], ["mug/2/white"]])
    ]
    shown = [label for r in records for label in labels("look", r)]
    split = make_split("look", 0.34, 1, shown)
    assert len(split.held_out) == 1
    for record in records:
        held = set(labels("look", record)) & set(split.held_out)
        assert (split.of(record["id"], (), labels("look", record)) == VALIDATION) == bool(held)
    with pytest.raises(UserError, match="needs random scenes rendered with looks"):
        labels("look", {"id": "2obj-000001", "objects": [{"name": "mug"}]})


def test_a_question_names_one_of_a_kind_by_its_colour_where_colours_tell_them_apart():
    red, blue = (dict(obj("mug", x, 0.0, (0.12, 0.08, 0.1)), variant={"colour": colour}) for x, colour in ((-0.4, "red"), (0.4, "blue")))
    record = scene("rnd9-0000007", [red, obj("lamp", 0.0, 0.0, (0.2, 0.2, 0.45)), blue])
    asked = {q["qid"].split("-img-", 1)[1]: q for q in scene_questions(record, CATALOG, seed=0)}
    assert asked["pos-lr-yn-left-red_mug-lamp"]["answer"] is True and "red mug" in asked["pos-lr-yn-left-red_mug-lamp"]["text"]
    assert asked["pos-lr-yn-left-red_mug-blue_mug"]["answer"] is True  # two mugs, one question about them both
    assert not any("leftmost" in key for key in asked)


@pytest.mark.render
def test_a_render_with_looks_shows_each_objects_colour_and_verifies(tmp_path):
    """Real renders: each object is drawn in its look, its record names the look, its pixels take its colour
    and `tabletest verify` passes reading each look's own model."""
    assets = tmp_path / "assets"
    build_assets(CATALOG, assets, list(POOL), jobs=1)
    config = looks_config(tmp_path, models=2, colours=True)
    out = tmp_path / "out"
    result = run_cli(
        "render", "--scenes", "random", "--count", "4", "--seed", "2", "--only", ",".join(POOL), "--random-config", str(config),
        "--assets", str(assets), "--out", str(out), "--resolution", "96x72", "--samples", "2", "--masks", "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]
    shown = [(r, position, o) for r in records for position, o in enumerate(r["objects"])]
    palette = load_looks()
    assert all(o["variant"]["colour"] in palette.of(o["name"]).colour_names for _, _, o in shown)
    assert len({o["variant"]["look"] for _, _, o in shown}) >= 3
    settings = json.loads((out / "settings.json").read_text())
    assert {o["variant"]["look"].rsplit("/", 1)[0] for _, _, o in shown if o["variant"]["model"]} <= set(settings["models"])
    judged = 0
    for record, position, o in shown:  # the mug's body and the apple's skin in their look's colour
        with Image.open(out / record["file_name"]) as image, Image.open(out / record["mask_file_name"]) as mask:
            rgb = np.asarray(image.convert("RGB"), dtype=float)[np.asarray(mask) == position + 1]
        colour = palette.of(o["name"]).colours.get(o["variant"]["colour"]) or palette.of(o["name"]).own.rgb
        if len(rgb) > 20 and max(colour) > 3 * min(colour):  # a clearly hued colour, seen well enough to judge
            assert int(np.argmax(np.median(rgb, axis=0))) == int(np.argmax(colour)), (record["id"], o["variant"])
            judged += 1
    assert judged >= 2
    verified = run_cli("verify", str(out), "--assets", str(assets))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    exported = run_cli("export", "--dataset", str(out), "--format", "parquet", "--out", str(tmp_path / "pq"), "--split-by", "look", "--val-fraction", "0.3")
    assert exported.returncode == 0, exported.stderr
    rows = [row for path in sorted((tmp_path / "pq").rglob("*.parquet")) for row in pq.read_table(path).to_pylist()]
    assert {o["variant"]["look"] for row in rows for o in row["objects"]} == {o["variant"]["look"] for _, _, o in shown}
    held = set(json.loads((tmp_path / "pq" / ".tabletest-export.json").read_text())["split"]["held_out_object_looks"])
    for path in (tmp_path / "pq").rglob("*.parquet"):
        for row in pq.read_table(path).to_pylist():
            assert ("validation" in path.name) == bool(held & {o["variant"]["look"] for o in row["objects"]}), row["id"]


WORKER_HOLDS_FEW = """
import json, sys
from pathlib import Path
import numpy as np
from tabletest.config import load_catalog, load_config
from tabletest.layout.selection import Selection, select_scenes
from tabletest.layout.spec import scene_spec
from tabletest.assets.manifest import load_manifest
from tabletest.render.run_options import RenderOptions, worker_setup
from tabletest.render.worker import Worker

assets, out = Path(sys.argv[1]), Path(sys.argv[2])
config = load_config()
config = config.model_copy(update={"render": config.render.model_copy(update={"samples": 1, "resolution": [32, 24]})})
entries = load_manifest(assets).objects
scenes = {s.objects[0]: s for s in select_scenes(load_catalog(), Selection(1, only=("mug", "apple", "banana")))}
setup = {**worker_setup(config, RenderOptions(out=out, assets=assets, build_missing_assets=False, device="cpu"), (32, 24)), "max_models": 2}
worker = Worker(setup)
held = []
for i, name in enumerate(["mug", "apple", "banana", "mug"]):
    worker.render(scene_spec(scenes[name], config, entries, assets, (32, 24)).to_json(), str(out / f"{i}.png"))
    held.append(sorted(key.split("|")[0] for key in worker.assets))
print(json.dumps(held))
"""


@pytest.mark.render
def test_a_worker_holds_at_most_its_share_of_models_and_shows_a_dropped_one_again_unchanged(tmp_path):
    """With many looks a worker would hold every model it ever showed: beyond `max_models` it drops the least
    recently used, and a model it dropped and imports again renders the same pixels."""
    assets = tmp_path / "assets"
    build_assets(CATALOG, assets, ["mug", "apple", "banana"], jobs=1)
    done = subprocess.run([sys.executable, "-c", WORKER_HOLDS_FEW, str(assets), str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [["mug"], ["apple", "mug"], ["apple", "banana"], ["banana", "mug"]]
    first, again = (np.asarray(Image.open(tmp_path / f"{i}.png.tif")) for i in (0, 3))
    assert np.array_equal(first, again)


def test_held_out_looks_without_looks_are_refused_when_the_config_is_read(tmp_path):
    with pytest.raises(UserError) as err:
        load_random_config(looks_config(tmp_path, held_out=["red"]))
    assert "held_out needs looks" in str(err.value) and "\n" not in str(err.value)
