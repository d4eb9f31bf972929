"""Every object's box follows its footprint: a model lying diagonally in its own box (a torch turned 30° so its lens
shows, a bent eggplant, a carrot its rest pose rolled) is measured along its least-area footprint rectangle, which
these tests find again on their own (rotating calipers over the outline's hull), for every kind and its looks."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
import trimesh
from scipy.spatial import ConvexHull

from tabletest.assets.builtin.build import canonical_scene
from tabletest.assets.canonical import model_mesh
from tabletest.assets.footprint import Footprints, footprint_of, model_footprint
from tabletest.assets.manifest import load_manifest
from tabletest.assets.variants import model_look
from tabletest.config import load_catalog, load_config
from tabletest.layout.camera import PinholeCamera
from tabletest.layout.random_scene import CameraPose, PlacedObject
from tabletest.layout.selection import Scene
from tabletest.layout.spec import random_spec, scene_spec
from tabletest.prompts.hierarchy.generate import scene_questions
from tabletest.prompts.hierarchy.metric import stated
from tabletest.truth.geometry import box3d
from tabletest.truth.relation_table import LINE_DEG
from tabletest.write.records import RandomTruth, image_record, random_record

from conftest import run_cli
from test_random_layout import RES, TOP, draw, flat_config

CATALOG = load_catalog()
LOOKS = 2  # each kind's catalog model and the models of its first looks
DIAGONAL = ("flashlight", "eggplant", "carrot")


def calipers(points: np.ndarray) -> tuple[float, float, float, tuple[float, float]]:
    """The least-area rectangle around 2D points, found on its own: (turn of its long side off +X in degrees,
    -90..90, its long side, its short side, its centre), trying each edge of the hull as one of its sides."""
    hull = points[ConvexHull(points).vertices]
    best = None
    for p, q in zip(hull, np.roll(hull, -1, axis=0)):
        angle = math.atan2(q[1] - p[1], q[0] - p[0])
        u, v = np.array([math.cos(angle), math.sin(angle)]), np.array([-math.sin(angle), math.cos(angle)])
        a, b = hull @ u, hull @ v
        area = np.ptp(a) * np.ptp(b)
        if best is None or area < best[0] - 1e-12:
            centre = u * (a.max() + a.min()) / 2 + v * (b.max() + b.min()) / 2
            best = (area, angle, float(np.ptp(a)), float(np.ptp(b)), (float(centre[0]), float(centre[1])))
    _, angle, along, across = best[:4]
    if across > along:
        along, across, angle = across, along, angle + math.pi / 2
    turn = (math.degrees(angle) + 90) % 180 - 90
    return turn, along, across, best[4]


def lies_diagonally(points: np.ndarray, turn: float, along: float, across: float, bounds=(10.0, 2.0, 1.05)) -> bool:
    """Whether a model lies diagonally in its own box: its least-area rectangle elongated, turned off the model's
    axes and clearly narrower than its own box (`bounds`: the turn, the elongation and the narrowing)."""
    own = np.ptp(points, axis=0)
    off_axes = min(abs(turn) % 90, 90 - abs(turn) % 90)
    return off_axes >= bounds[0] and along >= bounds[1] * across and min(own) >= bounds[2] * across


def footprint_points(scene: trimesh.Scene) -> np.ndarray:
    """A world-frame scene's (+Z up) outline on the table."""
    return np.concatenate([m.vertices for m in scene.dump()])[:, :2]


def file_points(path) -> np.ndarray:
    """A model file's outline on the table: glTF's (x, -z) are the table's (x, y)."""
    scene = trimesh.load(path, force="scene")
    return np.concatenate([m.vertices for m in scene.dump()])[:, [0, 2]] * (1, -1)


@pytest.mark.slow
def test_every_kind_and_look_is_measured_along_its_footprint(builtin_assets):
    """Over all 64 kinds, their catalog models and their first looks: a model lying diagonally in its own box gets the
    box of its least-area footprint (its sides, its long axis), every other one its own box; and none lies near the
    bounds of that rule (a turn of 8°-12°, an elongation of 1.8-2.2, a box 2 %-8 % wider), where a small change of a
    recipe would flip it. A new recipe lying diagonally is measured along its footprint, whatever it is."""
    manifest = load_manifest(builtin_assets)
    diagonal = set()
    for obj in CATALOG.objects:
        for number in range(LOOKS + 1):
            if number == 0:
                points = file_points(builtin_assets / manifest.objects[obj.name].file)
            else:
                points = footprint_points(canonical_scene(obj, model_look(obj.name, number)))
            turn, along, across, centre = calipers(points)
            label = f"{obj.name}/{number}"
            assert lies_diagonally(points, turn, along, across, (8.0, 1.8, 1.02)) == lies_diagonally(points, turn, along, across, (12.0, 2.2, 1.08)), label
            own = tuple(float(v) for v in np.ptp(points, axis=0)) + (0.1,)
            box = box3d((0.0, 0.0, 0.0), 0.0, own, footprint_of(np.c_[points, np.zeros(len(points))]))
            if not lies_diagonally(points, turn, along, across):
                assert box["size_m"] == list(own) and box["yaw_deg"] == 0.0, label
                continue
            diagonal.add(obj.name)
            sides, yaw = box["size_m"][:2], box["yaw_deg"]
            assert max(sides) == pytest.approx(along, abs=2e-6) and min(sides) == pytest.approx(across, abs=2e-6), label
            axis = yaw + (0.0 if sides[0] >= sides[1] else 90.0)
            assert abs((axis - turn + 90) % 180 - 90) < 0.01, label  # its long axis, not just its sides
            assert box["center_m"][:2] == pytest.approx(centre, abs=2e-6), label
    assert diagonal == set(DIAGONAL)


def test_a_footprint_read_from_the_cache_is_the_one_measured(builtin_assets, tmp_path, monkeypatch):
    """Every built-in model's footprint as a run reads it from the user's cache is exactly the one its mesh gives,
    the diagonal ones included."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    measure = model_footprint.__wrapped__  # past the process's own memory, to the cache
    for entry in load_manifest(builtin_assets).objects.values():
        path = str(builtin_assets / entry.file)
        measured = footprint_of(model_mesh(path, entry.sha256)[0])
        assert measure(path, entry.sha256) == measured and measure(path, entry.sha256) == measured, entry.name
    kept = list((tmp_path / "cache" / "tabletest" / "footprints").iterdir())
    assert len(kept) == len(load_manifest(builtin_assets).objects)
    assert sum(k.read_text() != "null\n" for k in kept) == len(DIAGONAL)


def test_the_diagonal_kinds_are_asked_their_width_and_length_along_their_footprint(builtin_assets):
    """A benchmark record of the three models that lie diagonally in their own boxes: their width and length golds
    are the least-area footprint's short and long sides (a torch 4.6 cm thick, not its 12.4 cm box), and the
    pictures are untouched: each object stands where, and is turned as, the model's own box put it."""
    config, manifest = load_config(), load_manifest(builtin_assets)
    scene = Scene(3, 0, DIAGONAL)
    spec = scene_spec(scene, config, manifest.objects, builtin_assets, (1024, 768))
    measured = [{"center_px": [0.0, 0.0], "bbox_px": [0.0, 0.0, 1.0, 1.0]}] * 3
    footprints = Footprints.of_entries(manifest.objects, builtin_assets)
    record = image_record(spec, measured, {"resolution": [1024, 768]}, False, PinholeCamera.from_config(config), footprints)
    golds = {(q["template"], q["objects"][0]): q["answer"] for q in scene_questions(record, CATALOG, seed=0) if q["objects"]}
    for obj, placed in zip(record["objects"], spec.objects):
        entry = manifest.objects[obj["name"]]
        assert (obj["position_m"], obj["yaw_deg"], obj["size_m"]) == (list(placed.position_m), placed.yaw_deg, list(entry.size_m))
        _, along, across, _ = calipers(file_points(builtin_assets / entry.file))
        assert golds[("metric-width", obj["name"])] == stated(across).stated, obj["name"]
        assert golds[("metric-length", obj["name"])] == stated(along).stated, obj["name"]
        assert min(obj["size_m"][:2]) > 1.1 * across  # what its own box said
    assert golds[("metric-width", "flashlight")] == 4.6


def test_parallel_and_perpendicular_follow_the_long_axes_the_meshes_show(builtin_assets):
    """A torch turned so that it lies straight across the view beside a stapler along it, and a carrot turned square
    to them: captions of parallel and perpendicular say what their meshes' long axes say (recomputed here from the
    outlines), where the model boxes' axes said the torch was 30° off the stapler."""
    manifest = load_manifest(builtin_assets)
    sizes = {name: entry.size_m for name, entry in manifest.objects.items()}
    axes = {}
    for name in ("flashlight", "stapler", "carrot"):
        axes[name] = calipers(file_points(builtin_assets / manifest.objects[name].file))[0]
    turns = {"flashlight": -axes["flashlight"], "stapler": -axes["stapler"], "carrot": 90.0 - axes["carrot"]}
    spots = {"flashlight": (-0.3, 0.0), "stapler": (0.05, 0.05), "carrot": (0.35, -0.05)}
    base = draw(flat_config(), sizes, 0, 0)
    placed = tuple(PlacedObject(n, (*spots[n], TOP), round(turns[n], 3), sizes[n]) for n in spots)
    camera = CameraPose((0.0, -2.0, TOP + 0.8), (0.0, 0.0, TOP + 0.05), 50.0, 36.0, 0.0, 21.8, 2.15)
    scene = dataclasses.replace(base, objects=placed, camera=camera)
    spec = random_spec(scene, 0, manifest.objects, builtin_assets)
    measured = [{"center_px": [0.0, 0.0], "bbox_px": [0.0, 0.0, 1.0, 1.0], "visible_fraction": 1.0, "covered_by": []}] * 3
    config = flat_config()
    kinds = {o.name: o.kind for o in CATALOG.objects}
    truth = RandomTruth(config.relations, kinds, config.digest, 0, Footprints.of_entries(manifest.objects, builtin_assets))
    record = random_record(spec, measured, {"resolution": list(RES)}, False, truth)
    captions = {(q["relation"], *q["objects"]): q["answer"] for q in scene_questions(record, CATALOG, seed=0) if q["relation"] in ("parallel", "perpendicular")}
    assert captions, "no caption of the long axes was asked"
    for (relation, a, b), gold in captions.items():
        between = abs((turns[a] + axes[a]) - (turns[b] + axes[b])) % 180
        between = min(between, 180 - between)
        held = between <= LINE_DEG if relation == "parallel" else between >= 90 - LINE_DEG
        assert gold == held, (relation, a, b, between)
    assert captions.get(("parallel", "flashlight", "stapler"), captions.get(("parallel", "stapler", "flashlight"))) is True


@pytest.mark.render
def test_verify_derives_the_footprint_box_again_from_the_models(builtin_assets, tmp_path):
    """A benchmark render of the torch: `verify` derives its footprint box again from the model the render used; the
    model's own box in its place disagrees, and without the models the verdict says it could not confirm the box."""
    out = tmp_path / "bench"
    rendered = run_cli(
        "render", "--objects", "1", "--only", "flashlight", "--resolution", "64x48", "--samples", "1", "--masks",
        "--assets", str(builtin_assets), "--out", str(out), "--quiet",
    )  # fmt: skip
    assert rendered.returncode == 0, rendered.stderr
    assert run_cli("verify", str(out)).returncode == 0
    record = json.loads((out / "metadata.jsonl").read_text())
    assert record["objects"][0]["box3d"]["size_m"][1] == pytest.approx(0.046492)
    empty = tmp_path / "no-models"
    empty.mkdir()
    partial = run_cli("verify", str(out), "--assets", str(empty))
    assert partial.returncode == 3 and "3D boxes along a model's footprint: 1 object(s)" in partial.stderr, partial.stderr
    obj = record["objects"][0]
    x, y, z = obj["position_m"]
    obj["box3d"] = {"center_m": [x, y, round(z + obj["size_m"][2] / 2, 6)], "size_m": obj["size_m"], "yaw_deg": obj["yaw_deg"], "frame": "world"}
    (out / "metadata.jsonl").write_text(json.dumps(record) + "\n")
    tampered = run_cli("verify", str(out))
    assert tampered.returncode == 1 and f"DISAGREES {record['id']} [derived] flashlight.box3d" in tampered.stdout, tampered.stdout


def test_verify_measures_the_footprint_itself_never_trusting_the_cache(builtin_assets, tmp_path, monkeypatch):
    """A footprint cache entry of the right shape but wrong (turned 5° more, its centre 3 cm aside): the render trusts
    its cache and writes that box and the slides it decides, and `verify`, which measures the model itself,
    disagrees with both."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    render = (
        "render", "--scenes", "random", "--count", "1", "--only", "flashlight,mug", "--resolution", "64x48",
        "--samples", "1", "--masks", "--assets", str(builtin_assets), "--quiet",
    )  # fmt: skip
    assert run_cli(*render, "--out", str(tmp_path / "first")).returncode == 0
    (entry,) = (e for e in (tmp_path / "cache" / "tabletest" / "footprints").iterdir() if e.read_text() != "null\n")
    turn, x, *rest = json.loads(entry.read_text())
    entry.write_text(json.dumps([turn + 5.0, x + 0.03, *rest]) + "\n")
    assert run_cli(*render, "--out", str(tmp_path / "second")).returncode == 0
    first, second = (json.loads((tmp_path / run / "metadata.jsonl").read_text()) for run in ("first", "second"))
    boxes = [{o["name"]: o["box3d"]["yaw_deg"] for o in record["objects"]}["flashlight"] for record in (first, second)]
    assert boxes[1] == pytest.approx(boxes[0] + 5.0) and first["slides_m"] and second["slides_m"] != first["slides_m"]
    assert run_cli("verify", str(tmp_path / "first")).returncode == 0
    spoiled = run_cli("verify", str(tmp_path / "second"))
    assert spoiled.returncode == 1, spoiled.stdout
    for what in ("flashlight.box3d", "slides_m"):
        assert f"DISAGREES {second['id']} [derived] {what}" in spoiled.stdout, spoiled.stdout
