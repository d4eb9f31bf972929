"""Several views of one scene: on a ring round the table (`--views N --view-layout ring`) or drawn at random. In pure
Python: a ring's views stand evenly round the scene camera's look-at point at its distance and elevation, each
framing every object, the lens widened only where the scene's does not frame them; a position no lens of the range
frames gets no view. Rendered: `tabletest verify` checks each view and finds two views' images or records swapped;
`tabletest show --views` puts a scene's views side by side."""

from __future__ import annotations

import json
import math
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import one_look_random_data, run_cli
from PIL import Image
from test_view_correspondence import check

from tabletest.assets.manifest import load_manifest
from tabletest.config import load_catalog, load_config
from tabletest.errors import UserError
from tabletest.files.dataset import RenderDataset
from tabletest.files.verdict import disputed_by_scene
from tabletest.layout.random_config import RandomConfig
from tabletest.layout.random_set import make_random_set
from tabletest.show.pictures import scene_overlay
from tabletest.truth.pairs import set_scenes
from tabletest.truth.records import placed_relations
from tabletest.verify.audit import audit

TOP = load_config().table.height_m
RES = (512, 384)
SENSOR_MM = 36.0
CATALOG = load_catalog()
SHIPPED = RandomConfig.model_validate(one_look_random_data())  # the shipped config with looks off: the scenes these tests pin
TINY = ["--resolution", "96x72", "--samples", "1", "--masks", "--quiet"]


def ring_set(builtin_assets: Path, views: int, config=SHIPPED, count: int = 30) -> tuple[list, list[tuple[str, str]]]:
    """The scenes of a set with `views` views on a ring, in order, and the views it could not make."""
    entries = load_manifest(builtin_assets).objects
    sizes = {n: e.size_m for n, e in entries.items()}
    random_set = make_random_set(CATALOG, config, 2, count, None, None, None, None, None, views, "ring")
    contact = random_set.contact(entries, builtin_assets)
    relations_of = placed_relations(RES, config.relations, {o.name: o.kind for o in CATALOG.objects}, contact)
    skipped: list[tuple[str, str]] = []
    shapes = contact.shapes if contact else None
    made = set_scenes(random_set, sizes, TOP, SENSOR_MM, RES, shapes, relations_of, on_skip=lambda kind, sid: skipped.append((kind, sid)))
    return list(made), skipped


def corners_in_camera(camera, objects) -> np.ndarray:
    """Every object's box corners in the camera's frame (x right, y down, z forward), from its pose alone."""
    forward = np.subtract(camera.target, camera.position) / camera.distance_m
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    corners = np.concatenate([o.box_corners() for o in objects]) - np.asarray(camera.position)
    return corners @ np.stack([right, down, forward]).T


def frames(camera, objects, focal_mm: float) -> bool:
    """Whether a lens of `focal_mm` on the camera's pose shows every box corner `frame_margin` of the width inside the image."""
    x, y, z = corners_in_camera(camera, objects).T
    f = focal_mm / SENSOR_MM * max(RES)
    u, v = RES[0] / 2 + f * x / z, RES[1] / 2 + f * y / z
    margin = SHIPPED.camera.frame_margin * RES[0]
    return bool(z.min() > 0 and u.min() >= margin and v.min() >= margin and u.max() <= RES[0] - margin and v.max() <= RES[1] - margin)


def test_ring_views_stand_evenly_round_the_table_at_the_scenes_distance_and_elevation(builtin_assets):
    scenes, skipped = ring_set(builtin_assets, 8, count=10)
    assert [s for s in scenes if s.index < 2] == ring_set(builtin_assets, 8, count=2)[0], "a pure function of the set"
    by_id = {s.id: s for s in scenes}
    views = [s for s in scenes if s.view is not None]
    assert len(views) + len(skipped) == 10 * 7 and len(skipped) <= 3, skipped
    widened = 0
    for view in views:
        scene, camera = by_id[view.view.of], view.camera
        own = scene.camera
        turn = (camera.azimuth_deg - own.azimuth_deg) % 360
        assert abs(turn - (view.view.number - 1) * 45) < 0.002 or abs(turn - (view.view.number - 1) * 45 + 360) < 0.002
        assert (camera.elevation_deg, camera.distance_m, camera.target) == (own.elevation_deg, own.distance_m, own.target)
        a, e = math.radians(camera.azimuth_deg), math.radians(camera.elevation_deg)
        expected = np.add(own.target, np.multiply([math.sin(a) * math.cos(e), -math.cos(a) * math.cos(e), math.sin(e)], own.distance_m))
        assert np.allclose(camera.position, expected, atol=2e-6), view.id
        assert view.objects == tuple(sorted(scene.objects, key=lambda o: corners_in_camera(camera, [o])[:, 0].mean()))
        assert all(getattr(view, f) == getattr(scene, f) for f in ("table", "key_light", "world", "backdrop", "index"))
        assert frames(camera, view.objects, camera.focal_mm), view.id
        assert SHIPPED.camera.focal_mm[0] <= camera.focal_mm <= own.focal_mm
        if camera.focal_mm < own.focal_mm:  # widened just enough: a hundredth of a millimetre longer crops an object
            widened += 1
            assert not frames(camera, view.objects, camera.focal_mm + 0.01), view.id
    assert widened >= 3, "some ring positions need a wider lens than their scene's"


def test_a_ring_position_no_lens_of_the_range_frames_gets_no_view(builtin_assets):
    """With one focal length allowed (the scene's), a view is made exactly where that lens frames every object."""
    fixed = SHIPPED.model_copy(update={"camera": SHIPPED.camera.model_copy(update={"focal_mm": (60.0, 60.0)})})
    scenes, skipped = ring_set(builtin_assets, 4, fixed, count=20)
    made = {s.id for s in scenes}
    missing = 0
    for scene in (s for s in scenes if s.view is None):
        for number in (2, 3, 4):
            a = math.radians(scene.camera.azimuth_deg + (number - 1) * 90)
            e = math.radians(scene.camera.elevation_deg)
            position = np.add(scene.camera.target, np.multiply([math.sin(a) * math.cos(e), -math.cos(a) * math.cos(e), math.sin(e)], scene.camera.distance_m))
            framed = frames(replace(scene.camera, position=tuple(position)), scene.objects, 60.0)
            assert (f"{scene.id}-view{number}" in made) == framed, (scene.id, number)
            missing += not framed
    assert missing >= 3 and skipped.count(("view", skipped[0][1])) >= 1 and len(skipped) == missing


def test_a_ring_is_pinned_in_the_settings_and_its_flags_are_refused_in_one_line():
    ring = make_random_set(CATALOG, SHIPPED, 0, 4, None, None, None, None, None, 4, "ring")
    drawn = make_random_set(CATALOG, SHIPPED, 0, 4, None, None, None, None, None, 4)
    assert ring.settings() == {**drawn.settings(), "views": 4, "view_layout": "ring"}
    assert "view_layout" not in drawn.settings() and drawn.info().get("view_layout") is None and ring.info()["view_layout"] == "ring"
    for views, layout, words in ((None, "ring", "--view-layout ring places views 2 and on; add --views N"), (3, "round", "--view-layout round is none of random, ring")):
        with pytest.raises(UserError, match=re.escape(words)):
            make_random_set(CATALOG, SHIPPED, 0, 2, None, None, None, None, None, views, layout)
    benchmark = run_cli("render", "--objects", "2", "--view-layout", "ring")
    assert benchmark.returncode == 2 and "--view-layout goes with random scenes" in benchmark.stderr and "Traceback" not in benchmark.stderr


@pytest.fixture(scope="module")
def ring_render(tmp_path_factory, builtin_assets, one_look) -> Path:
    """Two scenes, each with three more views on a ring of four, masks and depth."""
    out = tmp_path_factory.mktemp("ring") / "render"
    made = run_cli(
        "render", "--scenes", "random", "--count", "2", "--seed", "6", "--views", "4", "--view-layout", "ring",
        "--assets", str(builtin_assets), "--out", str(out), "--random-config", str(one_look), *TINY,
    )  # fmt: skip (looks off: the scenes it pins)
    assert made.returncode == 0, made.stderr
    return out


def lines_of(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "metadata.jsonl").read_text().splitlines()]


def verified(folder: Path) -> dict[str, list[str]]:
    """Each scene `tabletest verify`'s audit disputes, with what it says (`check: what`)."""
    return disputed_by_scene(audit(folder).disagreements)


def checks(found: dict[str, list[str]]) -> set[tuple[str, str]]:
    return {(scene, said.split(":")[0]) for scene, what in found.items() for said in what}


def test_verify_checks_every_view_on_its_ring_and_finds_two_views_swapped(ring_render, tmp_path):
    assert verified(ring_render) == {}
    assert sum(1 for r in lines_of(ring_render) if "view" in r) == 6
    # the images alone exchanged: each is checked against its own masks and its family's
    images = tmp_path / "images-swapped"
    shutil.copytree(ring_render, images)
    first, second = (images / "images" / f"rnd6-0000001-view{n}.png" for n in (2, 3))
    data = first.read_bytes()
    first.write_bytes(second.read_bytes())
    second.write_bytes(data)
    found = verified(images)
    assert {("rnd6-0000001-view2", "image"), ("rnd6-0000001-view3", "image")} <= checks(found), found
    # whole views renamed (records, images, masks, depth): only the ring says where view 2 stands
    renamed = tmp_path / "views-swapped"
    shutil.copytree(ring_render, renamed)
    for folder in ("images", "masks", "depth"):
        a, b = (renamed / folder / f"rnd6-0000001-view{n}.png" for n in (2, 3))
        data = a.read_bytes()
        a.write_bytes(b.read_bytes())
        b.write_bytes(data)
    records = lines_of(renamed)
    at = {r["id"]: k for k, r in enumerate(records)}

    def as_view(record: dict, number: int) -> dict:
        old, new = record["id"], f"rnd6-0000001-view{number}"
        made = {k: v.replace(old, new) if k.endswith("file_name") else v for k, v in record.items()}
        return {**made, "id": new, "view": {**record["view"], "number": number}}

    two, three = at["rnd6-0000001-view2"], at["rnd6-0000001-view3"]
    records[two], records[three] = as_view(records[three], 2), as_view(records[two], 3)
    (renamed / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    found = verified(renamed)
    assert checks(found) == {("rnd6-0000001-view2", "view"), ("rnd6-0000001-view3", "view")}, found
    assert "is not at place 2 of the ring of 4" in found["rnd6-0000001-view2"][0]
    # a view given another view's camera
    copied = tmp_path / "camera-copied"
    shutil.copytree(ring_render, copied)
    records = lines_of(copied)
    records[at["rnd6-0000000-view4"]]["camera"] = records[at["rnd6-0000000-view3"]]["camera"]
    (copied / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    found = verified(copied)
    assert "view: its camera is rnd6-0000000-view3's" in found["rnd6-0000000-view4"], found


def test_show_puts_each_scenes_views_side_by_side(ring_render, tmp_path):
    out = tmp_path / "views.png"
    shown = run_cli("show", "--dataset", str(ring_render), "--id", "rnd6-0000001-view3", "--id", "rnd6-0000000", "--views", "--out", str(out))
    assert shown.returncode == 0 and "showed 8 image(s)" in shown.stderr, shown.stderr
    render = RenderDataset.open(ring_render)
    single = scene_overlay(render, next(r for r in render.records() if r.id == "rnd6-0000001"))
    with Image.open(out) as sheet:
        assert sheet.width == 4 * single.width + 3 * 8 and sheet.height >= 2 * single.height + 8
        first = np.asarray(sheet.convert("RGB"))[: single.height, : single.width]
        assert np.array_equal(first, np.asarray(single.convert("RGB"))), "a view asked for is shown after its scene, in its row"


def test_a_rings_views_ask_where_each_camera_stands_and_what_the_photos_show(ring_render):
    """On a ring of four the second camera stands to the right, opposite (behind the objects) and to the left: each gold recomputed from
    the rendered records (`test_view_correspondence.check`) and read as correct by the scorer."""
    records = {r["id"]: r for r in lines_of(ring_render)}
    asked = [q for r in records.values() if "view" in r for q in check(records[r["view"]["of"]], r)]
    sides = {q["qid"].split("-imgs-")[0].rsplit("-", 1)[1]: q["answer"] for q in asked if q["qid"].endswith("camera-side-first-second")}
    assert sides == {"view2": "right", "view3": "opposite", "view4": "left"}, sides
    assert {q["template"] for q in asked} >= {"camera-side", "taken-from", "count-together"}
    across = {q["answer"] for q in asked if q["template"] == "taken-from" and q["scene_id"].endswith("-view3")}
    assert across == {"behind"}, "the opposite camera stands behind every object the first photo sees"
