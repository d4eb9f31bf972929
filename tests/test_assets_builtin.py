"""The built-in procedural library: every catalog object builds, in the canonical frame at its catalog
size, with more than one colour, byte-identically on a rerun; `assets check` catches broken files;
`--only` refuses unknown names; the contact sheet renders in a Blender subprocess."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import trimesh
from PIL import Image
from typer.testing import CliRunner

from tabletest.assets import verdicts
from tabletest.assets.builtin.build import MAX_TRIANGLES, build_assets, canonical_scene
from tabletest.assets.builtin.parts import Material, Part
from tabletest.assets.builtin.recipes import RECIPES
from tabletest.assets.canonical import WORLD_TO_GLTF, load_world
from tabletest.assets.check import TOLERANCE, check_assets
from tabletest.commands.assets import assets_app
from tabletest.assets.manifest import MANIFEST_NAME, load_manifest, save_manifest
from tabletest.assets.store import store_asset
from tabletest.config import load_catalog, unknown_name_message
from tabletest.errors import UserError
from tabletest.render.sheet import BACKGROUND, render_sheet

CATALOG = load_catalog()
runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("assets")
    build_assets(CATALOG, out, jobs=2)
    return out


@pytest.fixture
def copy(built, tmp_path) -> Path:
    """A private copy of the built library that a test may damage."""
    return Path(shutil.copytree(built, tmp_path / "assets"))


def pin(folder: Path, name: str, data: bytes) -> None:
    """Make `data` the model of `name` and pin its bytes in the manifest, as a build would."""
    manifest = load_manifest(folder)
    entry = manifest.objects[name]
    (folder / entry.file).write_bytes(data)
    pinned = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    manifest.objects[name] = entry.model_copy(update=pinned)
    save_manifest(folder, manifest)


def test_every_catalog_object_is_built_with_its_manifest_entry(built):
    manifest = load_manifest(built)
    assert list(manifest.objects) == sorted(CATALOG.names)
    for obj in CATALOG.objects:
        entry = manifest.objects[obj.name]
        assert entry.source == "builtin" and entry.uid is None
        assert entry.file == f"{obj.slug}.glb" and (built / entry.file).stat().st_size == entry.bytes
        assert 0 < entry.triangles <= MAX_TRIANGLES, obj.name


def test_size_and_frame_within_tolerance(built):
    for obj in CATALOG.objects:
        lo, hi = load_world(built / f"{obj.slug}.glb").bounds
        tol = TOLERANCE * obj.size_m
        assert abs(max(hi - lo) - obj.size_m) <= tol, obj.name
        assert abs(lo[2]) <= tol, f"{obj.name} does not rest on z = 0"
        assert np.all(np.abs((lo[:2] + hi[:2]) / 2) <= tol), f"{obj.name} footprint is off centre"
        assert np.allclose(load_manifest(built).objects[obj.name].bbox_m, (lo, hi), atol=1e-5), obj.name
    assert check_assets(CATALOG, built) == []


def test_axes_of_the_frame(built):
    """Spot checks: a banana's length runs along X (across the camera's view), a wine bottle stands up
    along +Z, a pineapple (round at its base) lies on its side in its rest pose, a mug's handle sticks out
    sideways (+X), not towards the camera."""
    extent = {n: np.ptp(load_world(built / f"{CATALOG.by_name(n).slug}.glb").bounds, axis=0) for n in ("banana", "wine bottle", "pineapple", "mug")}
    assert np.argmax(extent["banana"]) == 0
    assert np.argmax(extent["wine bottle"]) == 2 and np.argmax(extent["pineapple"]) == 0
    assert extent["mug"][0] > 1.2 * extent["mug"][1]


def test_materials_are_not_all_one_colour(built):
    for name, entry in load_manifest(built).objects.items():
        colours = {m.base_color for m in entry.materials}
        assert len(colours) >= 2 or any(m.textured for m in entry.materials), name


def test_rebuild_is_byte_identical(built, tmp_path):
    build_assets(CATALOG, tmp_path, jobs=1)
    for path in sorted(built.iterdir()):
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name


def test_only_rebuilds_those_and_keeps_the_others(copy):
    before = (copy / MANIFEST_NAME).read_bytes()
    (copy / "tomato.glb").unlink()
    result = runner.invoke(assets_app, ["build", "--only", "tomato, cake", "--out", str(copy), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert (copy / MANIFEST_NAME).read_bytes() == before
    assert "built 2 objects" in result.output


def test_only_with_an_unknown_name_is_refused(copy):
    result = runner.invoke(assets_app, ["build", "--only", "tomato,tomatoe", "--out", str(copy)])
    assert isinstance(result.exception, UserError)
    assert str(result.exception) == unknown_name_message("tomatoe", CATALOG.names)
    assert "did you mean 'tomato'" in str(result.exception)


def test_check_reports_a_corrupted_and_a_missing_file_by_name_with_the_fix(copy):
    pin(copy, "banana", (copy / "banana.glb").read_bytes()[:500])  # the pinned bytes, but cut short
    (copy / "mug.glb").unlink()
    shutil.copy(copy / "apple.glb", copy / "pumpkin.glb")  # not the pinned bytes: reported, never parsed
    pin(copy, "cake", (copy / "apple.glb").read_bytes())  # the pinned bytes, loads fine, but the wrong size
    result = runner.invoke(assets_app, ["check", "--assets", str(copy)])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    names = ("banana", "mug", "pumpkin", "cake")
    by_name = {name: [line for line in lines if line.startswith(f"error: {name}:")] for name in names}
    assert "does not load" in by_name["banana"][0] and '--only "banana"' in by_name["banana"][0]
    assert "missing" in by_name["mug"][0] and '--only "mug"' in by_name["mug"][0]
    assert by_name["pumpkin"] == [
        (
            f"error: pumpkin: {copy / 'pumpkin.glb'} differs from the bytes pinned in manifest.json (sha256), so it "
            'is not read; rebuild it with `tabletest assets build --only "pumpkin"`'
        )
    ]
    assert any("largest extent" in line for line in by_name["cake"]) and '--only "cake"' in by_name["cake"][0]
    assert len(lines) == sum(len(v) for v in by_name.values())
    assert "4 of 64 objects have problems" in result.output


def test_check_measures_the_model_as_a_renderer_sees_it(copy):
    """In the world frame, every node's transform applied: raw vertex coordinates are not the model."""
    mug = canonical_scene(CATALOG.by_name("mug"))
    # a correct +Y-up file whose meshes are stored turned and shifted, and whose nodes move them back
    shift = trimesh.transformations.translation_matrix([0.5, 0.0, 0.2])
    moved = trimesh.Scene()
    for name, geometry in mug.geometry.items():
        mesh = geometry.copy()
        mesh.apply_transform(shift @ WORLD_TO_GLTF)
        moved.add_geometry(mesh, node_name=name, geom_name=name, transform=np.linalg.inv(shift))
    pin(copy, "mug", moved.export(file_type="glb"))
    assert check_assets(CATALOG, copy, ["mug"]) == []
    # the canonical model written without the turn into glTF's +Y up: upright in trimesh, on its side in Blender
    pin(copy, "mug", mug.export(file_type="glb"))
    messages = [p.message for p in check_assets(CATALOG, copy, ["mug"])]
    assert len(messages) == 2 and messages[0].startswith("lowest point at z = -0.0")
    assert messages[1].startswith("footprint centred at (")


def test_a_manifest_cannot_name_a_file_outside_its_folder(copy, tmp_path):
    manifest = load_manifest(copy)
    shutil.move(copy / "mug.glb", tmp_path / "outside.glb")  # the pinned bytes, one folder up
    manifest.objects["mug"] = manifest.objects["mug"].model_copy(update={"file": "../outside.glb"})
    save_manifest(copy, manifest)
    with pytest.raises(UserError) as err:
        check_assets(CATALOG, copy, ["mug"])
    assert str(err.value) == (
        f"{copy / MANIFEST_NAME} is not a valid asset manifest (objects.mug.file: String should match pattern "
        "'^[a-z0-9_]+\\.glb$'); rebuild it with `tabletest assets build`"
    )


def test_only_selects_each_object_once_in_catalog_order(copy):
    names = ["mug", " Banana", "mug", "tomato"]
    assert [o.name for o in CATALOG.select(names)] == ["tomato", "banana", "mug"]
    assert CATALOG.select(None) == CATALOG.objects
    for name in ("mug", "banana", "tomato"):
        (copy / f"{CATALOG.by_name(name).slug}.glb").unlink()
    assert [p.name for p in check_assets(CATALOG, copy, names)] == ["tomato", "banana", "mug"]
    with pytest.raises(UserError) as err:
        CATALOG.select(["mug", "tomatoe"])
    assert str(err.value) == unknown_name_message("tomatoe", CATALOG.names)
    result = runner.invoke(assets_app, ["check", "--assets", str(copy), "--only", "mug,Mug,banana"])
    assert "2 of 2 objects have problems" in result.output


def test_a_recipe_over_the_triangle_limit_is_a_user_error_with_the_fix(monkeypatch, tmp_path):
    def dense_mug() -> list[Part]:
        return [Part("body", trimesh.creation.icosphere(subdivisions=6), Material("white", (1, 1, 1)))]

    monkeypatch.setitem(RECIPES, "mug", dense_mug)
    with pytest.raises(UserError) as err:
        build_assets(CATALOG, tmp_path, ["mug"], jobs=1)
    assert str(err.value) == (
        f"recipe 'mug' makes 81920 triangles, more than the {MAX_TRIANGLES} a built-in model may have; use fewer "
        f"segments or parts in {__name__}.dense_mug"
    )
    assert load_manifest(tmp_path).objects == {} and not (tmp_path / "mug.glb").exists()


def test_models_and_manifest_are_synced_before_they_replace_the_old_ones(copy, monkeypatch):
    synced: list[int] = []
    fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(os.fstat(fd).st_ino) or fsync(fd))
    entry = store_asset(copy, "mug", "mug", canonical_scene(CATALOG.by_name("mug")), "builtin")
    manifest = load_manifest(copy)
    save_manifest(copy, manifest.model_copy(update={"objects": {**manifest.objects, "mug": entry}}))
    assert synced == [(copy / "mug.glb").stat().st_ino, (copy / MANIFEST_NAME).stat().st_ino]


def test_a_failed_manifest_write_keeps_the_old_one_and_leaves_no_temporary_file(copy, monkeypatch):
    before = (copy / MANIFEST_NAME).read_bytes()

    def full_disk(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError):
        save_manifest(copy, load_manifest(copy).model_copy(update={"objects": {}}))
    assert (copy / MANIFEST_NAME).read_bytes() == before
    assert [p.name for p in copy.iterdir() if p.name.endswith(".tmp")] == []


def test_check_without_a_manifest_says_how_to_build(tmp_path):
    with pytest.raises(UserError, match="tabletest assets build"):
        check_assets(CATALOG, tmp_path)


@pytest.mark.render
def test_sheet_is_a_labelled_grid_of_renders(built, tmp_path):
    out = render_sheet(CATALOG, built, tmp_path / "sheet.png", only=["banana", "mug", "lamp"], cell=48, columns=2)
    sheet = np.asarray(Image.open(out).convert("RGB")).astype(int)
    label_h = sheet.shape[0] // 2 - 48  # two rows, each a 48 px render over its label
    assert sheet.shape[1] == 2 * 48 and label_h > 0
    for i in range(3):
        y, x = (i // 2) * (48 + label_h), (i % 2) * 48
        cell = sheet[y : y + 48, x : x + 48]
        label = sheet[y + 48 : y + 48 + label_h, x : x + 48]
        assert np.abs(cell - BACKGROUND).sum(axis=2).astype(bool).mean() > 0.05, f"cell {i} is empty"
        assert (label.sum(axis=2) < 300).any(), f"cell {i} has no label"
    empty = sheet[48 + label_h : 2 * 48 + label_h, 48:96]  # the fourth cell of the 2x2 grid
    assert (empty == BACKGROUND).all()


@pytest.mark.render
def test_sheet_failure_shows_blenders_last_lines(copy, tmp_path):
    """A model the checks accepted (a verdict recorded as if they had) that Blender cannot load."""
    pin(copy, "mug", b"glTF not really")
    verdicts.record(CATALOG.by_name("mug"), load_manifest(copy).objects["mug"].sha256, 0)
    with pytest.raises(UserError, match="Blender failed to render the sheet") as err:
        render_sheet(CATALOG, copy, tmp_path / "sheet.png", only=["mug"], cell=32)
    assert "mug.glb" in str(err.value)
    assert not (tmp_path / "sheet.png").exists()


def test_a_parallel_build_beside_a_running_thread_does_not_fork_it(tmp_path):
    """`assets build` shows a progress bar (a thread) while its workers build: forking a threaded
    process can deadlock, and Python 3.12+ warns of it. The build's own fork server must not."""
    code = (
        "import pathlib, threading, time\n"
        "from tabletest.assets.builtin.build import build_assets\n"
        "from tabletest.config import load_catalog\n"
        "threading.Thread(target=time.sleep, args=(3,), daemon=True).start()\n"
        f"build_assets(load_catalog(), pathlib.Path({str(tmp_path)!r}), ['mug', 'lamp', 'banana'], jobs=2)\n"
    )
    result = subprocess.run(
        [sys.executable, "-W", "always::DeprecationWarning", "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and "fork()" not in result.stderr, result.stderr
    assert {entry.name for entry in load_manifest(tmp_path).objects.values()} == {"mug", "lamp", "banana"}
