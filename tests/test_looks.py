"""Many of a kind: the looks a kind may take (models built from its recipe, colours from its palette), random
scenes drawing them, records naming them, held-out looks, the split by look, and a question naming a look."""

from __future__ import annotations

import json
import random
import shutil
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
from tabletest.layout.random_config import Arrangements, load_random_config
from tabletest.layout.random_set import make_random_set
from tabletest.layout.split import VALIDATION, labels, make_split
from tabletest.layout.variants import Variant, draw_variants, kind_variants
from tabletest.prompts.hierarchy.generate import scene_questions
from tabletest.truth.pairs import partner
from tabletest.truth.records import placed_relations
from tabletest.verify.audit_looks import look_problems

from conftest import looks_config, run_cli

CATALOG = load_catalog()
POOL = ("mug", "apple")
REPO = Path(__file__).parents[1]


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
        assert (split.of(record["id"], labels("look", record)) == VALIDATION) == bool(held)
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


def test_holding_out_every_look_in_training_is_refused_with_trainings_advice():
    every = [f"{kind}/0" for kind in POOL]  # models 1: each kind's one model, in any colour
    config = with_looks(colours=True, held_out=tuple(every))
    with pytest.raises(UserError) as err:
        make_random_set(CATALOG, config, 0, 10, POOL, None, None, None)
    message = str(err.value)
    assert "training has none left" in message and "hold out fewer" in message and "split validation" not in message
    validation = with_looks(colours=True, held_out=("lamp/0",), split="validation")
    with pytest.raises(UserError, match="names no look"):  # a look of no object drawn is refused first, as before
        make_random_set(CATALOG, validation, 0, 10, POOL, None, None, None)


def test_the_random_config_the_training_guide_names_ships_and_the_palette_given_instead_is_named(tmp_path):
    guide = (REPO / "docs" / "guide" / "training.md").read_text()
    named = {word for word in guide.split() if word.startswith("configs/random-") and word.endswith(".yaml")}
    assert named and all((REPO / name).is_file() for name in named)
    shipped = load_random_config(REPO / "configs" / "random-looks.yaml")
    assert shipped.looks.enabled and shipped.looks.held_out and shipped.looks.split == "train"
    result = run_cli("render", "--scenes", "random", "--count", "1", "--random-config", str(REPO / "configs" / "looks.yaml"), "--out", str(tmp_path / "out"))
    assert result.returncode != 0 and "add it" not in result.stderr
    assert "looks palette" in result.stderr and "configs/random-looks.yaml" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_replace_partners_draw_a_look_as_any_object_does_and_never_a_held_out_one(tmp_path):
    pool = ("apple", "orange", "lemon", "tomato", "pear", "egg")
    build_assets(CATALOG, tmp_path, list(pool), jobs=1)
    config = with_looks(models=2, colours=True, held_out=("red", "orange/1"))
    config = config.model_copy(update={"arrangements": Arrangements(), "objects": config.objects.model_copy(update={"count": (2, 3)})})
    random_set, entries = make_random_set(CATALOG, config, 0, 30, pool, None, None, None, "replace").with_look_models(CATALOG, tmp_path)
    sizes = {**{n: e.size_m for n, e in load_manifest(tmp_path).objects.items()}, **{k: e.size_m for k, e in entries.items()}}
    top, resolution = 0.75, (320, 240)
    candidates = random_set.candidates(sizes, top, resolution)
    relations_of = placed_relations(resolution, config.relations, {o.name: o.kind for o in CATALOG.objects}, None)
    drawable = dict(random_set.variants)
    made = [p for p in (partner(s, "replace", candidates, relations_of) for s in random_set.scenes(sizes, top, 36.0, resolution)) if p]
    assert len(made) >= 5
    for made_scene in made:
        new = next(o for o in made_scene.objects if o.name == made_scene.change.objects[1])
        assert new.variant is not None and new.variant in drawable[new.name], made_scene.id
        assert not new.variant.names & {"red", "orange/1"} and new.size_m == tuple(sizes[new.model])
    assert len({o.variant for s in made for o in s.objects if o.name == s.change.objects[1]}) >= 3


def test_a_looks_record_is_derived_again_from_its_seed_its_palette_and_the_runs_looks():
    looks = with_looks(models=3, colours=True, held_out=("mug/red",)).looks
    obj = {"name": "mug", "variant": Variant(model_look("mug", 2), "blue").record()}
    assert list(look_problems(obj, looks)) == []
    tampered = {
        "seed": {"seed": "mug/1"},
        "shape": {"shape": {**obj["variant"]["shape"], "height": 1.1}},
        "look": {"look": "mug/2/green"},
        "colour": {"colour": "purple", "look": "mug/2/purple"},  # a colour no mug comes in
        "held out": {"colour": "red", "look": "mug/2/red"},  # held out of this training set
        "model": {"model": 3, "seed": "mug/3", "look": "mug/3/blue", "shape": model_look("mug", 3).shape()},  # beyond models
    }
    for what, change in tampered.items():
        problems = list(look_problems({"name": "mug", "variant": {**obj["variant"], **change}}, looks))
        assert problems, what
    catalog_look = {"name": "mug", "variant": Variant(model_look("mug", 0), "blue").record()}
    assert list(look_problems(catalog_look, None)) == []  # the run's looks unknown: what the seed and palette make
    assert list(look_problems({"name": "mug", "variant": {**catalog_look["variant"], "seed": "mug/0"}}, None))


FAMILY_POOL = ("apple", "orange", "tomato", "lemon", "mug", "bowl")


@pytest.fixture(scope="module")
def families(tmp_path_factory) -> tuple[Path, Path]:
    """Eight random scenes with looks (green held out of training), each with a second view and a replace partner."""
    root = tmp_path_factory.mktemp("families")
    build_assets(CATALOG, root / "assets", list(FAMILY_POOL), jobs=1)
    config = looks_config(root, models=2, colours=True, held_out=["green"])
    result = run_cli(
        "render", "--scenes", "random", "--count", "8", "--seed", "3", "--only", ",".join(FAMILY_POOL), "--random-config", str(config),
        "--counterfactuals", "replace", "--views", "2", "--assets", str(root / "assets"), "--out", str(root / "out"),
        "--resolution", "96x72", "--samples", "2", "--masks", "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return root / "out", root / "assets"


def family_records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]


def family_of(record: dict) -> str:
    return (record.get("counterfactual") or record.get("view") or {}).get("of") or record["id"]


@pytest.mark.render
def test_replace_partners_record_their_look_and_the_render_verifies(families):
    out, assets = families
    records = family_records(out)
    partners = [r for r in records if (r.get("counterfactual") or {}).get("kind") == "replace"]
    assert partners
    for record in partners:
        new = next(o for o in record["objects"] if (o.get("instance") or o["name"]) == record["counterfactual"]["objects"][1])
        assert new["variant"] is not None and new["variant"]["colour"] != "green", record["id"]
    verified = run_cli("verify", str(out), "--assets", str(assets))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "looks (seed, shape, palette" in verified.stdout and "looks' colours in their pixels" in verified.stdout


@pytest.mark.render
@pytest.mark.parametrize("by", ["look", "scene", "object"])
def test_every_split_keeps_a_scene_its_views_and_partners_on_one_side(families, tmp_path, by):
    out, _ = families
    exported = run_cli("export", "--dataset", str(out), "--format", "parquet", "--out", str(tmp_path / "pq"), "--split-by", by, "--val-fraction", "0.3")
    assert exported.returncode == 0, exported.stderr
    sides: dict[str, set[str]] = {}
    for path in (tmp_path / "pq").rglob("*.parquet"):
        for row in pq.read_table(path).to_pylist():
            sides.setdefault(family_of(row), set()).add("validation" if "validation" in path.name else "train")
    assert len(sides) == 8 and all(len(side) == 1 for side in sides.values()), sides
    if by in ("look", "object"):  # a scene showing any held-out look goes to validation: the summary says how far that reaches
        assert "validation holds every scene showing one of the" in exported.stderr and "of 8 scenes" in exported.stderr


@pytest.mark.render
def test_a_partner_renamed_as_a_scene_is_refused_by_the_split_and_named_by_verify(families, tmp_path):
    out, assets = families
    copy = Path(shutil.copytree(out, tmp_path / "copy"))
    records = family_records(copy)
    partner = next(r for r in records if r.get("counterfactual"))
    renamed = f"{partner['id'].split('-')[0]}-0000099"  # a scene id of the set's seed, its index left as it was
    for key in ("file_name", "mask_file_name", "depth_file_name"):
        (copy / partner[key]).rename(copy / partner[key].replace(partner["id"], renamed))
        partner[key] = partner[key].replace(partner["id"], renamed)
    partner["id"] = renamed
    del partner["counterfactual"]
    (copy / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    exported = run_cli("export", "--dataset", str(copy), "--format", "parquet", "--out", str(tmp_path / "pq"), "--split-by", "scene")
    assert exported.returncode != 0 and f"its id {renamed} names" in exported.stderr and len(exported.stderr.strip().splitlines()) == 1
    verified = run_cli("verify", str(copy), "--assets", str(assets))
    assert verified.returncode != 0 and f"DISAGREES {renamed} [metadata] index" in verified.stdout


def _hue(colour: str) -> float:
    from tabletest.assets.colour_names import NAMES

    lo, hi = NAMES[colour].hues[0]
    return ((lo + hi + (360 if hi < lo else 0)) / 2) % 360


@pytest.mark.render
def test_a_recoloured_record_or_picture_is_caught_by_verify(families, tmp_path):
    """An object plainly in its colour (a strong hue, seen in many pixels) named in a far other hue of its palette,
    in its record or by its pixels painted so, disagrees; so does a look whose shape is not its seed's."""
    from tabletest.assets.colour_names import seen_in
    from tabletest.verify.audit_looks import HUES

    out, assets = families
    palette = load_looks()
    chosen = None
    for line, record in enumerate(family_records(out)):
        with Image.open(out / record["file_name"]) as image, Image.open(out / record["mask_file_name"]) as mask:
            rgb, labels_px = np.asarray(image.convert("RGB")), np.asarray(mask)
        for position, o in enumerate(record["objects"]):
            colour, pixels = o["variant"]["colour"], rgb[labels_px == position + 1]
            far = [
                c for c in palette.of(o["name"]).colour_names
                if c in HUES and c != "green" and min(abs(_hue(c) - _hue(colour)), 360 - abs(_hue(c) - _hue(colour))) >= 60
            ]  # a colour far round the hue circle, not the held-out one (a look the set could have drawn)
            if colour in HUES and far and len(pixels) >= 100 and seen_in(pixels).fits(colour):
                chosen = (line, position, far[0], f"{o['name']} {colour} -> {far[0]}")
    assert chosen is not None, "no object plainly in a strong hue to recolour"
    line, position, other, _ = chosen

    def tampered(name: str, change) -> subprocess.CompletedProcess:
        copy = Path(shutil.copytree(out, tmp_path / name))
        records = family_records(copy)
        change(copy, records[line], records[line]["objects"][position])
        (copy / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        return run_cli("verify", str(copy), "--assets", str(assets))

    def rename(_copy, _record, obj):
        look = obj["variant"]
        obj["variant"] = {**look, "colour": other, "look": f"{obj['name']}/{look['model']}/{other}"}

    def paint(copy, record, obj):
        kind = palette.of(obj["name"])
        factor = np.array(kind.colours.get(other) or kind.own.rgb) / np.maximum(kind.colours.get(obj["variant"]["colour"]) or kind.own.rgb, 0.01)
        with Image.open(copy / record["mask_file_name"]) as mask:
            where = np.asarray(mask) == position + 1
        path = copy / record["file_name"]
        rgb = np.asarray(Image.open(path).convert("RGB")).astype(float) / 255
        linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        linear[where] = np.clip(linear[where] * factor, 0, 1)
        srgb = np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)
        Image.fromarray(np.rint(srgb * 255).astype(np.uint8)).save(path)

    def reshape(_copy, _record, obj):
        obj["variant"] = {**obj["variant"], "shape": {**obj["variant"]["shape"], "height": round(obj["variant"]["shape"]["height"] * 1.2, 3)}}

    scene_id = family_records(out)[line]["id"]
    for name, change, kind in (("record", rename, "look_colour"), ("pixels", paint, "look_colour"), ("shape", reshape, "look")):
        verified = tampered(name, change)
        assert verified.returncode != 0 and f"DISAGREES {scene_id} [{kind}]" in verified.stdout, (name, chosen, verified.stdout[-1500:])


@pytest.mark.render
def test_every_kinds_colours_render_apart_and_look_as_they_are_named(builtin_assets, tmp_path):
    """Each kind rendered once in every colour of its palette (64x48, one neutral light, the real worker): two looks of
    a kind differ plainly (CIEDE2000 at least `DISTINCT` between their colours where the looks differ), and each
    colour's rendered lightness, chroma and hue are what a person calls by its name (`assets/colour_names.py`)."""
    from palette_renders import render_palettes

    distinct = 10.0  # a plain difference at a glance; 2 is one a person just sees side by side
    kinds = [kind for kind in CATALOG.names if len(load_looks().of(kind).colour_names) > 1]
    seen = render_palettes(builtin_assets, kinds, tmp_path, (64, 48), 2)
    assert set(seen) == set(kinds)
    from tabletest.assets.colour_names import separation

    apart = {kind: separation(looks) for kind, looks in seen.items()}
    assert not [f"{kind}: {d:.1f} ({' vs '.join(pair)})" for kind, (d, pair) in apart.items() if d < distinct]
    misnamed = [f"{kind} {colour}: {look.described()}" for kind, looks in seen.items() for colour, look in looks.items() if not look.fits(colour)]
    assert not misnamed
