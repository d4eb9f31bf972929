"""Models that would cost a render dearly or show nothing are refused: at import, by `assets check`, and
by `render` before any Blender work, however the assets folder's manifest was edited."""

from __future__ import annotations

import json
from pathlib import Path

import glbmaker as gm
import pytest
import trimesh
from hubserver import write_catalog

from tabletest.assets import verdicts
from tabletest.assets.builtin.build import build_assets
from tabletest.assets.canonical import bake, glb_bytes, load_world, to_canonical
from tabletest.assets.check import check_assets
from tabletest.assets.importer import import_folder
from tabletest.assets.manifest import load_manifest, save_manifest
from tabletest.files.digest import sha256_of
from tabletest.config import load_catalog

from conftest import run_cli

NO_SURFACE = "has no visible surface (every triangle has zero area: its corners are collinear or coincide)"
SIMPLIFY = "simplify it (e.g. with Blender's Decimate modifier) or raise --max-triangles"


def catalog_with_mug(tmp_path: Path):
    return load_catalog(write_catalog(tmp_path / "catalog.yaml", [{"name": "mug", "size_m": 0.1}]))


def pin(assets: Path, name: str, data: bytes) -> None:
    """Replace a model's bytes and edit its manifest entry to match them, as a tamperer would."""
    manifest = load_manifest(assets)
    entry = manifest.objects[name]
    (assets / entry.file).write_bytes(data)
    manifest.objects[name] = entry.model_copy(update={"sha256": sha256_of(assets / entry.file), "bytes": len(data)})
    save_manifest(assets, manifest)


def test_a_model_without_visible_surface_is_refused_at_import(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "mug.glb").write_bytes(gm.collinear_triangle())
    report = import_folder(catalog_with_mug(tmp_path), folder, tmp_path / "assets", log=lambda _: None)
    assert not report.imported
    assert report.failed == {
        "mug": f"{folder / 'mug.glb'} {NO_SURFACE}; export it again with its real faces, or move mug.glb out of {folder}"
    }


def test_check_refuses_a_stored_model_without_visible_surface(tmp_path):
    """What an older import stored: the collinear triangle in the canonical frame at the catalog size."""
    catalog, assets = catalog_with_mug(tmp_path), tmp_path / "assets"
    build_assets(load_catalog(), assets, ["mug"], jobs=1)
    flat = to_canonical(bake(load_world(gm.collinear_triangle())), 0.1)
    pin(assets, "mug", glb_bytes(flat))
    [problem] = check_assets(catalog, assets)
    assert problem.message == f"{assets / 'mug.glb'} {NO_SURFACE}; " + 'rebuild it with `tabletest assets build --only "mug"`'


def ply_sphere(path: Path) -> int:
    sphere = trimesh.creation.icosphere(subdivisions=3)  # 1280 triangles
    sphere.export(path)
    return len(sphere.faces)


def test_a_model_over_the_triangle_limit_is_refused_at_import(tmp_path, cli):
    folder = tmp_path / "models"
    folder.mkdir()
    triangles = ply_sphere(folder / "mug.ply")
    catalog = catalog_with_mug(tmp_path)
    report = import_folder(catalog, folder, tmp_path / "assets", max_triangles=1000, log=lambda _: None)
    assert report.failed == {
        "mug": f"{folder / 'mug.ply'} has {triangles} triangles, more than the 1000 allowed (--max-triangles); "
        f"{SIMPLIFY}, or move mug.ply out of {folder}"
    }
    catalog_file = str(tmp_path / "catalog.yaml")
    args = ["assets", "import", str(folder), "--out", str(tmp_path / "assets"), "--catalog", catalog_file]
    refused = cli(*args, "--max-triangles", "1000")
    assert refused.returncode == 2 and "more than the 1000 allowed (--max-triangles)" in refused.stderr
    assert cli(*args, "--max-triangles", "2000").returncode == 0
    check = ["assets", "check", "--assets", str(tmp_path / "assets"), "--catalog", catalog_file]
    over = cli(*check, "--max-triangles", "1000")
    assert over.returncode == 1 and "has 1280 triangles, more than the 1000 allowed (--max-triangles)" in over.stderr
    assert cli(*check).returncode == 0  # the default limit is far above a sphere's


def test_the_triangle_limit_is_read_from_the_header_before_the_file_is_loaded(tmp_path):
    """A PLY whose header declares five million faces is refused by the default limit from those few
    bytes: nothing past the header is read (here there is nothing past it to read)."""
    folder = tmp_path / "models"
    folder.mkdir()
    header = "ply\nformat binary_little_endian 1.0\nelement vertex 2500002\nproperty float x\nproperty float y\n"
    header += "property float z\nelement face 5000000\nproperty list uchar int vertex_indices\nend_header\n"
    (folder / "mug.ply").write_bytes(header.encode())
    report = import_folder(catalog_with_mug(tmp_path), folder, tmp_path / "assets", log=lambda _: None)
    assert "mug.ply has 5000000 triangles, more than the 1000000 allowed (--max-triangles)" in report.failed["mug"]


@pytest.mark.render
@pytest.mark.parametrize("command", ["render", "sheet"])
def test_render_refuses_a_model_whose_manifest_entry_was_edited_to_match_tampered_bytes(tmp_path, command):
    """The entry's sha256 matches the bytes, but the checks never accepted them: `render` (and the
    contact sheet) check them now and refuse, in one line, before any Blender work (nothing written)."""
    assets, out = tmp_path / "assets", tmp_path / "out"
    build_assets(load_catalog(), assets, ["mug"], jobs=1)
    pin(assets, "mug", gm.huge_texture())  # a 4096 px texture, which no import stores
    if command == "render":
        flags = ["--only", "mug", "--objects", "1", "--resolution", "64x48", "--samples", "4"]
        result = run_cli("render", "--out", str(out), "--assets", str(assets), *flags)
    else:
        result = run_cli("assets", "sheet", str(out), "--assets", str(assets), "--only", "mug", "--cell", "16")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr == (
        "error: model for 'mug' fails `tabletest assets check`, so nothing is rendered: "
        f"{assets / 'mug.glb'} does not load as a GLB (has image 0 of 4096×64 px, over the 2048 px a stored model "
        'may have); rebuild it with `tabletest assets build --only "mug"`\n'
    )
    assert not out.exists()


def test_a_verdict_is_recorded_only_for_bytes_the_checks_accepted(tmp_path):
    catalog, assets = load_catalog(), tmp_path / "assets"
    build_assets(catalog, assets, ["mug"], jobs=1)
    mug = catalog.by_name("mug")
    good = load_manifest(assets).objects["mug"].sha256
    assert check_assets(catalog, assets, ["mug"]) == [] and verdicts.accepted(mug, good)
    pin(assets, "mug", gm.huge_texture())
    tampered = load_manifest(assets).objects["mug"].sha256
    assert check_assets(catalog, assets, ["mug"]) and not verdicts.accepted(mug, tampered)
    recorded = [json.loads(p.read_text()) for p in verdicts.verdict_dir().iterdir()]
    expected = {"rules": verdicts.RULES, "name": "mug", "size_m": mug.size_m, "sha256": good, "max_triangles": 1_000_000}
    assert expected in recorded and all(r["sha256"] != tampered for r in recorded)
