"""Random scenes without Blender: determinism, placement, framing, relations and their margins, config errors."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import yaml
from matplotlib.path import Path as Polygon

from tabletest.assets.footprint import Footprints
from tabletest.assets.manifest import load_manifest
from tabletest.config import load_catalog, load_config
from tabletest.errors import UserError
from tabletest.layout.camera import CameraView, PinholeCamera
from tabletest.layout.random_config import RandomConfig, load_random_config
from tabletest.layout.random_scene import CameraPose, PlacedObject, sample_scene
from tabletest.layout.random_set import RandomSet, object_pool
from tabletest.layout.selection import Shard
from tabletest.layout.spec import random_spec
from tabletest.truth.geometry import camera_record, scene_relations
from tabletest.truth.records import random_truth
from tabletest.write.records import RandomTruth, random_record
from tabletest.truth.vignettes import relation_vignettes

from conftest import REPO, run_cli

TOP = load_config().table.height_m
NAMES = load_catalog().names
RES = (512, 384)


def flat_yaml() -> dict:
    """The shipped random config without its arrangements: every object apart on the table, as these tests
    measure (objects on, in and beside others: test_arrangements.py)."""
    data = yaml.safe_load((REPO / "configs" / "random.yaml").read_text())
    del data["arrangements"]
    return data


def flat_config() -> RandomConfig:
    return RandomConfig.model_validate(flat_yaml())


@pytest.fixture(scope="module")
def sizes(builtin_assets) -> dict:
    return {name: entry.size_m for name, entry in load_manifest(builtin_assets).objects.items()}


def draw(config, sizes, seed, index, pool=None, resolution=RES):
    return sample_scene(config, pool or NAMES, sizes, seed, index, TOP, 36.0, resolution)


def test_same_seed_same_scene_in_any_order(sizes):
    config = flat_config()
    forwards = [draw(config, sizes, 3, i) for i in range(20)]
    assert [draw(config, sizes, 3, i) for i in reversed(range(20))][::-1] == forwards
    assert draw(config, sizes, 4, 0) != forwards[0]
    assert len({s.world.hdri for s in forwards}) > 3 and len({s.table.surface for s in forwards}) > 3
    assert len({len(s.objects) for s in forwards}) > 3


def test_the_config_digest_decides_the_scenes(sizes, tmp_path):
    data = flat_yaml()
    data["camera"]["focal_mm"] = [40, 50]
    path = tmp_path / "narrow.yaml"
    path.write_text(yaml.safe_dump(data))
    changed = load_random_config(path)
    assert changed.digest != flat_config().digest
    assert all(40 <= draw(changed, sizes, 0, i).camera.focal_mm <= 50 for i in range(20))


def _apart(a: np.ndarray, b: np.ndarray) -> float:
    """Distance between two convex footprints, computed independently of the sampler (0 if they meet):
    the least vertex-to-edge distance either way, unless the outlines intersect."""
    if Polygon(np.vstack([a, a[:1]])).intersects_path(Polygon(np.vstack([b, b[:1]])), filled=True):
        return 0.0
    best = np.inf
    for points, poly in ((a, b), (b, a)):
        q0, q1 = poly, np.roll(poly, -1, axis=0)  # the 4 edges
        d = q1 - q0
        t = np.clip(np.einsum("pek,ek->pe", points[:, None, :] - q0[None], d) / (d * d).sum(axis=1), 0, 1)
        nearest = q0[None] + t[..., None] * d[None]
        best = min(best, float(np.linalg.norm(points[:, None, :] - nearest, axis=2).min()))
    return best


def test_2500_scenes_never_overlap_and_frame_every_object(sizes):
    config = flat_config()
    gap = config.placement.min_gap_m
    width, height = RES
    margin = config.camera.frame_margin * width
    counts = set()
    for index in range(2_500):
        scene = draw(config, sizes, 0, index)
        counts.add(len(scene.objects))
        feet = [o.footprint() for o in scene.objects]
        reach = [np.linalg.norm(f - f.mean(axis=0), axis=1).max() for f in feet]
        for i in range(len(feet)):
            for j in range(i + 1, len(feet)):
                if np.linalg.norm(feet[i].mean(axis=0) - feet[j].mean(axis=0)) - reach[i] - reach[j] >= gap:
                    continue  # too far apart to be near: no need for the exact distance
                assert _apart(feet[i], feet[j]) >= gap - 1e-6, (index, scene.objects[i].name, scene.objects[j].name)
        camera = scene.camera.pinhole(RES)
        corners = np.concatenate([o.box_corners() for o in scene.objects])
        uv = camera.project(corners)
        assert (camera.depth(corners) > 0).all()
        assert uv[:, 0].min() >= margin - 1e-6 and uv[:, 0].max() <= width - margin + 1e-6, index
        assert uv[:, 1].min() >= margin - 1e-6 and uv[:, 1].max() <= height - margin + 1e-6, index
        half_w, half_d = scene.table.width_m / 2, scene.table.depth_m / 2
        foot = np.concatenate(feet)
        assert (np.abs(foot[:, 0]) <= half_w).all() and (np.abs(foot[:, 1]) <= half_d).all()
        assert all(o.position_m[2] == TOP for o in scene.objects)
    assert counts == {1, 2, 3, 4, 5, 6}


def test_an_impossible_config_is_refused_not_a_hang(sizes, tmp_path):
    data = flat_yaml()
    data["objects"]["count"] = [6, 6]
    data["placement"].update(area_m=[0.3, 0.3], attempts=5, redraws=3)
    path = tmp_path / "tight.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(UserError, match="did not fit after 3 draws"):
        draw(load_random_config(path), sizes, 0, 0)


def test_a_config_at_the_validators_maxima_is_refused_within_a_bounded_work(sizes, tmp_path):
    """64 objects, 10,000 attempts and 1,000 redraws would test placements for minutes before refusing."""
    data = flat_yaml()
    data["objects"]["count"] = [64, 64]
    data["placement"].update(attempts=10_000, redraws=1_000)
    data["camera"]["attempts"] = 10_000
    path = tmp_path / "maxima.yaml"
    path.write_text(yaml.safe_dump(data))
    pool = tuple(sizes)
    with pytest.raises(UserError, match=r"did not fit after 1,000,000 placement tests: .* lower objects.count"):
        sample_scene(load_random_config(path), pool, sizes, 0, 0, 0.75, 36.0, RES)


def _scene_with(sizes, placed: list[tuple[str, float, float]]):
    """A scene built by hand: the named objects at (x, y), the camera straight in front of the table."""
    base = draw(flat_config(), sizes, 0, 0)
    objects = tuple(PlacedObject(n, (x, y, TOP), 0.0, sizes[n]) for n, x, y in placed)
    camera = CameraPose((0.0, -2.0, TOP + 0.8), (0.0, 0.0, TOP + 0.05), 50.0, 36.0, 0.0, 21.8, 2.15)
    return dataclasses.replace(base, objects=objects, camera=camera)


@pytest.mark.parametrize("dx,labelled", [(0.03, False), (0.05, True), (-0.03, False), (-0.05, True)])
def test_left_right_withheld_inside_the_margin(sizes, dx, labelled):
    margins = flat_config().relations
    scene = _scene_with(sizes, [("apple", 0.0, 0.0), ("lemon", dx, 0.3)])
    rel = scene_relations(scene.objects, scene.camera.pinhole(RES), margins, {"apple": "natural", "lemon": "natural"})
    left = ["apple", "lemon"] if dx > 0 else ["lemon", "apple"]
    assert (left in rel["left_of"]) == labelled and (left[::-1] in rel["right_of"]) == labelled
    assert (["apple", "lemon", "left_right"] in rel["ambiguous"]) != labelled
    assert ["apple", "lemon"] in rel["in_front_of"] and ["lemon", "apple"] in rel["behind"]


def test_front_back_withheld_inside_the_margin(sizes):
    margins = flat_config().relations
    scene = _scene_with(sizes, [("apple", -0.2, 0.0), ("orange", 0.2, 0.02), ("lemon", 0.4, 0.3)])
    rel = scene_relations(scene.objects, scene.camera.pinhole(RES), margins, {n: "natural" for n in ("apple", "orange", "lemon")})
    assert ["apple", "orange", "front_back"] in rel["ambiguous"]
    assert not {("apple", "orange"), ("orange", "apple")} & {tuple(p) for p in rel["in_front_of"] + rel["behind"]}
    assert ["orange", "apple", "lemon"] in rel["between"] and ["apple", "orange"] in rel["left_of"]
    assert rel["counts"] == {"objects": 3, "natural": 3, "artifact": 0}
    assert rel["table_side"] == {"apple": "left", "orange": "right", "lemon": "right"}
    words = relation_vignettes(("apple", "orange", "lemon"), rel)
    assert words["left_first"] == "The apple is to the left of the orange. The orange is to the left of the lemon."
    assert words["right_first"] == "The lemon is to the right of the orange. The orange is to the right of the apple."


def test_a_hidden_object_gets_no_relation_count_or_mention(sizes):
    """What a render measured as hidden (`min_visible_fraction`) is left out of every label, not guessed about."""
    margins = flat_config().relations
    scene = _scene_with(sizes, [("strawberry", -0.3, 0.0), ("apple", -0.1, 0.0), ("lamp", 0.3, 0.1)])
    kinds = {"strawberry": "natural", "apple": "natural", "lamp": "artifact"}
    truth = random_truth(scene, RES, margins, kinds, frozenset({"apple"}))
    rel = truth["relations"]
    assert rel["hidden"] == ["apple"] and rel["counts"] == {"objects": 2, "natural": 1, "artifact": 1}
    named = {n for key, value in rel.items() if key not in ("hidden", "counts", "table_side") for entry in value for n in entry}
    assert named - {"left_right", "front_back"} == set(rel["table_side"]) == {"strawberry", "lamp"} and rel["left_of"] == [["strawberry", "lamp"]]
    assert truth["vignettes"]["left_first"] == "The strawberry is to the left of the lamp."
    assert random_truth(scene, RES, margins, kinds)["relations"]["hidden"] == []
    alone = random_truth(scene, RES, margins, kinds, frozenset({"strawberry", "apple", "lamp"}))
    assert alone["relations"]["counts"]["objects"] == 0 and alone["relations"]["left_of"] == []


def test_the_record_hides_what_the_render_measured_below_the_threshold(sizes, builtin_assets):
    config = flat_config()
    scene = _scene_with(sizes, [("strawberry", -0.3, 0.0), ("apple", -0.1, 0.0), ("lamp", 0.3, 0.1)])
    spec = random_spec(scene, 0, load_manifest(builtin_assets).objects, builtin_assets)
    measured = [{"center_px": [0.0, 0.0], "bbox_px": [0.0, 0.0, 1.0, 1.0], "visible_fraction": f, "covered_by": []} for f in (0.9, 0.24, 0.25)]
    kinds = {"strawberry": "natural", "apple": "natural", "lamp": "artifact"}
    truth = RandomTruth(config.relations, kinds, config.digest, 0, Footprints.of_entries(load_manifest(builtin_assets).objects, builtin_assets))
    record = random_record(spec, measured, {"resolution": list(RES)}, False, truth)
    assert record["relations"]["hidden"] == ["apple"] and [o["name"] for o in record["objects"]] == ["strawberry", "apple", "lamp"]
    assert record["relations"] == random_truth(scene, RES, config.relations, kinds, frozenset({"apple"}))["relations"]


def test_min_visible_fraction_is_validated_and_in_the_digest_unless_default(tmp_path):
    data = flat_yaml()
    del data["relations"]["min_visible_fraction"]
    (tmp_path / "without.yaml").write_text(yaml.safe_dump(data))
    assert load_random_config(tmp_path / "without.yaml").digest == flat_config().digest  # earlier sets keep their scenes
    data["relations"]["min_visible_fraction"] = 0.5
    (tmp_path / "half.yaml").write_text(yaml.safe_dump(data))
    assert load_random_config(tmp_path / "half.yaml").digest != flat_config().digest
    data["relations"]["min_visible_fraction"] = 0.95
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(UserError, match="relations.min_visible_fraction: Input should be less than or equal to 0.9"):
        load_random_config(tmp_path / "bad.yaml")


def test_vignettes_fall_back_to_front_and_behind(sizes):
    margins = flat_config().relations
    scene = _scene_with(sizes, [("apple", 0.0, 0.0), ("lemon", 0.01, 0.3)])
    rel = scene_relations(scene.objects, scene.camera.pinhole(RES), margins, {"apple": "natural", "lemon": "natural"})
    words = relation_vignettes(("apple", "lemon"), rel)
    assert words == {"left_first": "The apple is in front of the lemon.", "right_first": "The lemon is behind the apple."}


def test_nearer_sizes_and_camera_record(sizes):
    margins = flat_config().relations
    scene = _scene_with(sizes, [("strawberry", -0.3, 0.0), ("apple", -0.1, 0.0), ("lamp", 0.3, 0.1)])
    camera = scene.camera.pinhole(RES)
    rel = scene_relations(scene.objects, camera, margins, {"strawberry": "natural", "apple": "natural", "lamp": "artifact"})
    assert ["strawberry", "apple", "lamp"] in rel["nearer"] and ["strawberry", "lamp", "apple"] in rel["farther"]
    assert ["lamp", "apple"] in rel["bigger"] and ["apple", "strawberry"] in rel["taller"] and ["strawberry", "apple"] in rel["shorter"]
    record = camera_record(camera)
    K, pose = np.array(record["K"]), np.array(record["world_to_camera"])
    point = np.array([0.3, 0.1, TOP + 0.1, 1.0])
    uvw = K @ (pose @ point)[:3]
    assert np.allclose(uvw[:2] / uvw[2], camera.project(point[:3]), atol=1e-3)
    view = CameraView.from_record(record)  # the one reading of a record's camera (verify re-derives from its pinhole)
    again = camera_record(view.pinhole())
    assert np.allclose(again["K"], record["K"], atol=1e-3) and np.allclose(again["world_to_camera"], record["world_to_camera"], atol=1e-5)
    assert (view.width, view.height) == RES and not hasattr(PinholeCamera, "from_record")


def test_random_set_shards_cover_the_set(sizes):
    config = flat_config()
    pool = object_pool(load_catalog(), config, None)
    whole = list(RandomSet(config, 0, 10, pool).ids())
    parts = [list(RandomSet(config, 0, 10, pool, Shard(i, 3)).ids()) for i in range(3)]
    assert sorted(sum(parts, [])) == whole and whole[0] == "rnd0-0000000"
    assert list(RandomSet(config, 0, 10, pool, Shard(1, 3), limit=2).ids()) == ["rnd0-0000001", "rnd0-0000004"]


def test_held_out_objects_are_never_drawn(sizes, tmp_path):
    data = flat_yaml()
    data["objects"]["held_out"] = ["mug", "lamp"]
    path = tmp_path / "held.yaml"
    path.write_text(yaml.safe_dump(data))
    config = load_random_config(path)
    pool = object_pool(load_catalog(), config, None)
    assert "mug" not in pool and len(pool) == 62
    assert not {o.name for i in range(200) for o in draw(config, sizes, 0, i, pool).objects} & {"mug", "lamp"}


BAD = [
    (("objects", "count"), [4, 2], "objects: range [4, 2] runs backwards; write [low, high]"),
    (("camera", "elevation_deg"), [10, 95], "camera: elevation_deg must lie inside (0, 90)"),
    (("camera", "focal"), 50, "camera.focal: unknown key 'focal'; remove it or fix its spelling"),
    (("table", "color_jitter"), 2, "table.color_jitter: Input should be less than 1"),
    (("key_light", "temperature_k"), [100, 5000], "key_light: temperature_k must lie within [800, 20000] K"),
    (("backdrop", "hdri_probability"), "often", "backdrop.hdri_probability: Input should be a valid number"),
    # ends so far apart that sampling between them overflows to inf
    (("camera", "azimuth_deg"), [-1e308, 1e308], "camera.azimuth_deg: range [-1e+308, 1e+308] is out of bounds; keep both ends within"),
    (("objects", "yaw_deg"), [0, 1e308], "objects.yaw_deg: range [0, 1e+308] is out of bounds"),
]


@pytest.mark.parametrize("keys,value,message", BAD)
def test_bad_config_values_are_refused_in_one_line(tmp_path, keys, value, message):
    data = flat_yaml()
    data[keys[0]][keys[1]] = value
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(UserError) as err:
        load_random_config(path)
    assert str(err.value).startswith(f"{path}: {message}") and "\n" not in str(err.value)


@pytest.mark.parametrize(
    "edit,message",
    [
        (lambda d: d["objects"].update(held_out=["unicorn"]), "error: unknown object name 'unicorn'"),
        (lambda d: d["world"].update(hdris=["studio", "moon"]), "error: {path}: world.hdris: has 'moon', not among the HDRIs"),
        (lambda d: d["table"]["surfaces"][0].update(kind="plastic"), "error: "),
    ],
)
@pytest.mark.render
def test_cli_refuses_bad_random_configs_before_any_work(tmp_path, edit, message):
    data = flat_yaml()
    edit(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    out = tmp_path / "out"
    result = run_cli("render", "--scenes", "random", "--count", "2", "--random-config", str(path), "--out", str(out), "--assets", str(tmp_path / "none"))
    assert result.returncode == 2 and result.stderr.startswith(message.format(path=path)), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not out.exists()


@pytest.mark.parametrize(
    "args,message",
    [
        (["--scenes", "random"], "error: --scenes random needs --count N"),
        (["--scenes", "random", "--count", "5", "--sample", "2"], "error: --sample picks from the benchmark"),
        (["--count", "5"], "error: --count and --random-config go with --scenes random"),
        (["--scenes", "random", "--count", "5", "--mode", "composite"], "error: --mode composite composes the benchmark's"),
        (["--scenes", "random", "--count", str(10**30)], "error: --count 1000000000000000000000000000000 is more than one set holds"),
        (["--scenes", "random", "--count", "5", "--engine", "workbench"], "error: --scenes random needs --engine cycles, not workbench"),
        (["--scenes", "random", "--count", "5", "--engine", "eevee"], "error: --scenes random needs --engine cycles, not eevee"),
    ],
)
@pytest.mark.render
def test_cli_refuses_flags_that_do_not_go_together(tmp_path, args, message):
    result = run_cli("render", *args, "--out", str(tmp_path / "out"), "--assets", str(tmp_path / "none"))
    assert result.returncode == 2 and result.stderr.startswith(message), result.stderr
    assert result.stderr.count("\n") == 1


def test_a_limit_past_every_scene_is_no_limit(tmp_path):
    huge = 10**30
    assert list(RandomSet(flat_config(), 3, 5, ("mug",), Shard(1, 2), huge).ids()) == ["rnd3-0000001", "rnd3-0000003"]
    result = run_cli("vignettes", "--objects", "2", "--only", "mug,lamp,banana", "--limit", str(huge))
    assert result.returncode == 0 and len(result.stdout.splitlines()) == 6, result.stderr


@pytest.mark.render
def test_the_settings_guard_keeps_one_family_config_and_seed_per_folder(tmp_path, builtin_assets):
    out = tmp_path / "out"
    base = ["render", "--scenes", "random", "--count", "5", "--only", "mug,lamp", "--out", str(out), "--assets", str(builtin_assets)]
    base += ["--resolution", "32x24", "--samples", "1"]
    result = run_cli(*base, "--limit", "1")  # pins the folder's settings
    assert result.returncode == 0, result.stderr
    assert json.loads((out / "settings.json").read_text())["scenes"]["family"] == "random"
    data = flat_yaml()
    data["camera"]["focal_mm"] = [40, 50]
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(data))
    for args, difference in (
        (["--seed", "1"], "scenes.seed: 0 → 1"),
        (["--random-config", str(other)], "scenes.config_sha256"),
        (["--only", "mug,lamp,banana"], "scenes.pool"),
    ):
        result = run_cli(*base, *args)
        assert result.returncode == 2 and result.stderr.startswith(f"error: --out {out} holds another dataset"), result.stderr
        assert difference in result.stderr and len(result.stderr.strip().splitlines()) == 1
    result = run_cli("render", "--objects", "2", "--only", "mug,lamp", "--out", str(out), "--assets", str(builtin_assets))
    assert result.returncode == 2 and "scenes" in result.stderr  # the benchmark family is another dataset


def test_appearance_split_holds_out_tables_and_hdris():
    from tabletest.layout.split import VALIDATION, TRAIN, make_split

    labels = (f"{kind}:{name}" for kind, names in (("table", "abcdefghij"), ("hdri", "stuvwxyz")) for name in names)
    split = make_split("appearance", 0.1, 0, labels)  # a stream, read once
    held = split.held_out
    assert [label.split(":")[0] for label in held] == ["hdri", "table"]
    table = next(label for label in held if label.startswith("table:"))
    assert split.of("rnd0-0000000", (table, "hdri:none")) == VALIDATION
    assert split.of("rnd0-0000001", ("table:other", "hdri:none")) == TRAIN
    with pytest.raises(UserError, match="at least two hdri looks"):
        make_split("appearance", 0.1, 0, ["table:a", "table:b", "hdri:x"])


def test_in_front_of_is_where_objects_stand_on_the_table(sizes):
    """A tall lamp 12 cm farther back has its box centre higher, so nearer the camera along its tilted axis;
    it still stands behind the doughnut, and the label says so."""
    margins = flat_config().relations
    scene = _scene_with(sizes, [("doughnut", -0.3, 0.0), ("lamp", 0.3, 0.12)])
    steep = CameraPose((0.0, -1.5, TOP + 1.5), (0.0, 0.0, TOP + 0.05), 50.0, 36.0, 0.0, 44.0, 2.1)  # looking down at 44°
    camera = steep.pinhole(RES)
    centres = [camera.depth(np.array(o.box_center)) for o in scene.objects]
    assert centres[1] < centres[0]  # by box centres the lamp would be "in front"
    rel = scene_relations(scene.objects, camera, margins, {"doughnut": "natural", "lamp": "artifact"})
    assert rel["in_front_of"] == [["doughnut", "lamp"]] and rel["behind"] == [["lamp", "doughnut"]]
