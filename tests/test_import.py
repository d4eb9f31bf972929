"""`assets import DIR`: the user's own GLB / glTF / OBJ / PLY files, named after catalog objects, go
through the same normalisation and store as downloads; naming mistakes are refused before any work."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import glbmaker as gm
import numpy as np
import pytest
import trimesh
from hubserver import write_catalog
from PIL import EpsImagePlugin, Image

from tabletest.assets.canonical import load_world
from tabletest.assets.check import check_assets
from tabletest.assets.importer import import_folder
from tabletest.assets.manifest import load_manifest, save_manifest
from tabletest.files.digest import sha256_of
from tabletest.assets.normalize import read_glb
from tabletest.config import load_catalog
from tabletest.errors import UserError

REPO_CONFIGS = Path(__file__).resolve().parents[1] / "configs"
OBJECTS = [
    {"name": "tall box", "size_m": 0.3},
    {"name": "wine bottle", "size_m": 0.3},
    {"name": "mug", "size_m": 0.1},
    {"name": "scan", "size_m": 0.25},
    {"name": "broken", "size_m": 0.1},
]


def write_folder(folder: Path, files: dict[str, bytes]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


@pytest.fixture
def models(tmp_path) -> Path:
    """One file per format, each tallest along its format's up axis, plus the files beside them."""
    folder = write_folder(tmp_path / "models", {"Tall Box.glb": gm.y_up_tall(), **gm.gltf_files("wine_bottle")})
    mug = trimesh.creation.box(extents=(0.2, 1.0, 0.4))  # OBJ: +Y up by convention
    mug.visual = trimesh.visual.TextureVisuals(
        uv=np.random.default_rng(0).random((8, 2)), image=Image.new("RGB", (3000, 100))
    )
    mug.export(folder / "mug.obj")
    scan = trimesh.creation.box(extents=(0.3, 0.3, 1.0))  # PLY: +Z up, as Blender and scanners write it
    scan.visual.vertex_colors = [200, 20, 20, 255]
    scan.export(folder / "scan.ply")
    return folder


def catalog_at(tmp_path: Path, **overrides: dict):
    objects = [{**obj, **overrides.get(obj["name"], {})} for obj in OBJECTS]
    return load_catalog(write_catalog(tmp_path / "catalog.yaml", objects))


def extents(path: Path) -> np.ndarray:
    lo, hi = load_world(path).bounds
    return hi - lo


def test_every_format_lands_in_the_canonical_frame(models, tmp_path):
    catalog, out = catalog_at(tmp_path), tmp_path / "assets"
    report = import_folder(catalog, models, out, log=lambda _: None)
    names = ["tall box", "wine bottle", "mug", "scan"]
    assert [e.name for e in report.imported] == names and not report.failed
    assert check_assets(catalog, out, names) == []
    manifest = load_manifest(out)
    assert {(e.source, e.uid, e.license) for e in manifest.objects.values()} == {("dir", None, None)}
    for name in names:  # every one stands up along +Z at its catalog height
        size = catalog.by_name(name).size_m
        assert np.isclose(extents(out / manifest.objects[name].file)[2], size), name
    gltf, binary = read_glb((out / "mug.glb").read_bytes())
    view = gltf["bufferViews"][gltf["images"][0]["bufferView"]]
    image = Image.open(io.BytesIO(binary[view.get("byteOffset", 0) : view.get("byteOffset", 0) + view["byteLength"]]))
    assert image.size == (2048, 68)


def test_catalog_overrides_of_up_axis_and_yaw_apply(models, tmp_path):
    catalog = catalog_at(tmp_path, scan={"up_axis": "y"}, **{"tall box": {"yaw_deg": 90}})
    import_folder(catalog, models, tmp_path / "assets", ["scan", "tall box"], log=lambda _: None)
    # the PLY read as +Y up lies down: its long side now points along −Y, towards the camera
    assert np.allclose(extents(tmp_path / "assets" / "scan.glb"), [0.075, 0.25, 0.075], atol=1e-6)
    # a quarter turn swaps the tall box's width (0.06) and depth (0.12)
    assert np.allclose(extents(tmp_path / "assets" / "tall_box.glb"), [0.12, 0.06, 0.3], atol=1e-6)


def test_a_bad_file_is_reported_and_the_others_imported(models, tmp_path):
    (models / "broken.glb").write_bytes(gm.plain_box()[:-64])
    report = import_folder(catalog_at(tmp_path), models, tmp_path / "assets", log=lambda _: None)
    assert len(report.imported) == 4 and list(report.failed) == ["broken"]
    assert (
        report.failed["broken"]
        == f"{models / 'broken.glb'} is truncated or padded: its header says 1528 bytes, the file has 1464; "
        f"copy the whole file again, or re-export it as glTF 2.0 binary (.glb), or move broken.glb out of {models}"
    )
    assert (
        not (tmp_path / "assets" / "broken.glb").exists() and "broken" not in load_manifest(tmp_path / "assets").objects
    )


@pytest.fixture
def ghostscript(tmp_path, monkeypatch) -> Path:
    """Pillow's Ghostscript replaced by a script that leaves a marker file: if the marker appears, a
    model file has made Pillow run an external program. Returns the marker's path."""
    marker, script = tmp_path / "ghostscript-ran", tmp_path / "fake-gs"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
    script.chmod(0o755)
    monkeypatch.setattr(EpsImagePlugin, "gs_binary", str(script))
    monkeypatch.setattr(EpsImagePlugin, "gs_windows_binary", str(script))
    return marker


def prove_ghostscript_would_run(marker: Path) -> None:
    """The fixture is live: decoding the same EPS image outside a model load does run the script."""
    with pytest.raises(subprocess.CalledProcessError), Image.open(io.BytesIO(gm.eps())) as image:
        image.load()
    assert marker.exists()


@pytest.mark.parametrize(
    "files, reason",
    [
        ({"mug.glb": gm.eps_texture()}, "has image 0 in EPS format, which is not read as a texture"),
        (gm.obj_files("mug", "label.eps", gm.eps()), "has a texture in EPS format, which is not read as a texture"),
    ],
    ids=["glb", "obj"],
)
def test_an_eps_texture_is_refused_and_ghostscript_never_runs(tmp_path, ghostscript, files, reason):
    folder = write_folder(tmp_path / "models", files)
    report = import_folder(catalog_at(tmp_path), folder, tmp_path / "assets", log=lambda _: None)
    assert not report.imported and list(report.failed) == ["mug"]
    assert reason in report.failed["mug"] and "(only PNG, JPEG, WebP, BMP and TGA are)" in report.failed["mug"]
    assert "; convert it to PNG or JPEG" in report.failed["mug"]
    assert not ghostscript.exists() and not (tmp_path / "assets" / "mug.glb").exists()
    prove_ghostscript_would_run(ghostscript)


def test_check_never_runs_ghostscript_on_a_pinned_model(models, tmp_path, ghostscript):
    """A hostile assets folder: its manifest pins a GLB with an EPS texture. `check` refuses it unrun."""
    catalog, out = catalog_at(tmp_path), tmp_path / "assets"
    import_folder(catalog, models, out, ["mug"], log=lambda _: None)
    (out / "mug.glb").write_bytes(gm.eps_texture())
    manifest = load_manifest(out)
    manifest.objects["mug"] = manifest.objects["mug"].model_copy(update={"sha256": sha256_of(out / "mug.glb")})
    save_manifest(out, manifest)
    [problem] = check_assets(catalog, out, ["mug"])
    assert f"{out / 'mug.glb'} does not load as a GLB (has image 0 in EPS format" in problem.message
    assert not ghostscript.exists()
    prove_ghostscript_would_run(ghostscript)


REEXPORT = "re-export it as glTF 2.0 binary (.glb)"


@pytest.mark.parametrize(
    "files, problem_and_fix",
    [
        (
            {"mug.glb": b"<html>"},
            f"is not a GLB file (it does not start with the 'glTF' magic); {REEXPORT}",
        ),
        (
            {"mug.glb": gm.external_texture()},
            (
                "has image 0 referring to the external file 'diffuse.png', which a GLB cannot carry; "
                "re-export it as a GLB with its textures embedded"
            ),
        ),
        (
            {"mug.glb": gm.corrupt_texture()},
            (
                "has image 0 in no image format Pillow knows (it starts like PNG, but is not one); "
                "convert it to PNG or JPEG"
            ),
        ),
        (
            {"mug.glb": gm.camera_only()},
            "has no mesh with faces; export it again with its meshes, not only cameras or lights",
        ),
        (
            {"mug.glb": gm.non_finite()},
            f"has non-finite vertex coordinates (NaN or infinity); repair the mesh, then {REEXPORT}",
        ),
        (
            {"mug.glb": gm.degenerate()},
            "cannot be scaled to size (degenerate extent 0.0); re-export it with its real geometry",
        ),
        (
            gm.gltf_files("mug", texture_uri="gone.png"),
            (
                "has image 0 referring to 'gone.png', which is not a file in {folder}; "
                f"put that file in {{folder}} beside the model, or {REEXPORT}"
            ),
        ),
    ],
    ids=["not-glb", "external-texture", "corrupt-texture", "no-mesh", "nan", "degenerate", "missing-texture"],
)
def test_every_refusal_names_the_problem_and_the_fix(tmp_path, files, problem_and_fix):
    folder = write_folder(tmp_path / "models", files)
    model = next(name for name in files if name.startswith("mug."))
    report = import_folder(catalog_at(tmp_path), folder, tmp_path / "assets", log=lambda _: None)
    expected = f"{folder / model} {problem_and_fix.format(folder=folder)}, or move {model} out of {folder}"
    assert report.failed == {"mug": expected}


def test_a_gltf_may_not_reach_outside_its_folder(tmp_path):
    (tmp_path / "secret.png").write_bytes(gm.png(4, 4))
    folder = write_folder(tmp_path / "models", gm.gltf_files("mug", texture_uri="../secret.png"))
    report = import_folder(catalog_at(tmp_path), folder, tmp_path / "assets", log=lambda _: None)
    assert "has image 0 referring to '../secret.png', which is not a file in" in report.failed["mug"]


@pytest.mark.parametrize(
    "files, only, message",
    [
        ({"teapot.glb": b""}, None, "teapot.glb is named after no catalog object (unknown object name 'teapot'"),
        ({"wine botle.glb": b""}, None, "did you mean 'wine bottle'?); rename it to the object's name"),
        ({"mug.glb": b"", "Mug.obj": b""}, None, "Mug.obj and mug.glb are both models of 'mug'; keep one of them"),
        ({"notes.txt": b""}, None, "no model files (.glb, .gltf, .obj, .ply) in"),
        ({"mug.glb": b""}, ["scan"], "no model file for 'scan' in"),
        ({"mug.glb": b""}, ["scann"], "unknown object name 'scann': did you mean 'scan'?"),
    ],
)
def test_naming_mistakes_are_refused_before_any_work(tmp_path, files, only, message):
    folder = write_folder(tmp_path / "models", files)
    with pytest.raises(UserError) as err:
        import_folder(catalog_at(tmp_path), folder, tmp_path / "assets", only, log=print)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "assets").exists()


def test_the_import_command_as_a_user_runs_it(cli, models, tmp_path):
    (models / "broken.glb").write_bytes(b"not a model")
    catalog_at(tmp_path)
    args = [
        "assets",
        "import",
        str(models),
        "--out",
        str(tmp_path / "assets"),
        "--catalog",
        str(tmp_path / "catalog.yaml"),
    ]
    result = cli(*args)
    assert result.returncode == 2
    assert f"broken: not imported: {models / 'broken.glb'} is not a GLB file" in result.stderr
    assert result.stderr.splitlines()[-1].startswith(
        f"error: imported 4 objects from {models} into {tmp_path / 'assets'}, but 1 failed: broken;"
    )
    (models / "broken.glb").unlink()
    result = cli(*args)
    assert result.returncode == 0 and f"mug: {models / 'mug.obj'} -> {tmp_path / 'assets' / 'mug.glb'}" in result.stderr
    missing = cli("assets", "import", str(tmp_path / "nowhere"), "--catalog", str(tmp_path / "catalog.yaml"))
    assert (
        missing.returncode == 2
        and missing.stderr
        == f"error: import folder {tmp_path / 'nowhere'} does not exist; give the folder that holds your model files\n"
    )


@pytest.mark.parametrize("reference", ["texture", "mtllib", "none"])
def test_an_obj_texture_the_import_drops_is_named_with_the_reason(tmp_path, reference):
    """trimesh reads an OBJ's material library and textures only inside the model's folder and drops the
    others without a word: the import says which was dropped and why, and still imports the model."""
    files = gm.obj_files("mug", "label.png", gm.png(8, 8))
    if reference == "texture":
        (tmp_path / "secret.png").write_bytes(gm.png(4, 4))
        files["mug.mtl"] = files["mug.mtl"].replace(b"map_Kd label.png", b"map_Kd ../secret.png")
    elif reference == "mtllib":
        (tmp_path / "outside.mtl").write_bytes(files.pop("mug.mtl"))
        files["mug.obj"] = files["mug.obj"].replace(b"mtllib mug.mtl", b"mtllib ../outside.mtl")
    folder = write_folder(tmp_path / "models", files)
    lines: list[str] = []
    report = import_folder(catalog_at(tmp_path), folder, tmp_path / "assets", log=lines.append)
    assert [e.name for e in report.imported] == ["mug"]
    [textured] = {m.textured for m in report.imported[0].materials} or {False}
    warnings = [line for line in lines if "warning" in line]
    if reference == "none":
        assert warnings == [] and report.dropped == {} and textured
        return
    what = {
        "texture": "texture '../secret.png' named by mug.mtl points outside {folder}, so it was dropped and the model "
        "is imported without it",
        "mtllib": "material library '../outside.mtl' named by mug.obj points outside {folder}, so its materials and "
        "textures were dropped",
    }[reference].format(folder=folder)
    assert warnings == [f"mug: warning: {what}; put it in {folder} beside the model"]
    assert report.dropped == {"mug": [warnings[0].removeprefix("mug: warning: ")]}
    assert textured == (reference == "mtllib")  # without its library, trimesh gives the UVs a plain 2×2 image


def test_a_subfolder_named_after_an_object_holds_more_models_of_it(tmp_path):
    """`mug.glb` is the mug's model; `mug/` holds its other models, `mug/1`, `mug/2` in name order, each
    normalised at the catalog's size: what random scenes with `looks.models` draw among."""
    folder = write_folder(tmp_path / "models", {"mug.glb": gm.plain_box()})
    write_folder(folder / "Mug", {"b-tall.glb": gm.plain_box(extents=(1, 3, 1)), "a-wide.glb": gm.plain_box(extents=(3, 1, 1))})
    write_folder(folder / "scan", {"only.glb": gm.plain_box(extents=(1, 2, 1))})  # no top-level file: its first is the model
    out = tmp_path / "assets"
    report = import_folder(catalog_at(tmp_path), folder, out, log=lambda _: None)
    manifest = load_manifest(out)
    assert not report.failed and set(manifest.objects) == {"mug", "scan"} and set(manifest.looks) == {"mug/1", "mug/2"}
    wide, tall = extents(out / manifest.looks["mug/1"].file), extents(out / manifest.looks["mug/2"].file)
    assert max(wide) == pytest.approx(0.1, rel=0.01) and wide[0] > wide[2] and tall[2] > tall[0]
    assert manifest.looks["mug/1"].source == "dir" and manifest.looks["mug/1"].name == "mug"


def test_a_subfolder_adds_looks_beside_the_model_the_assets_folder_holds(tmp_path, cli):
    """`mug/{tall,wide}.glb` with no `mug.glb`: the mug's built-in model stays, the files become `mug/1` and `mug/2`
    (replacing looks built from its recipe), and a render draws among the three; `assets check` judges the looks a
    render draws as the render does, and `assets build` keeps a model it did not build."""
    from tabletest.assets.builtin.build import build_assets, build_looks
    from tabletest.assets.manifest import file_model_counts
    from tabletest.assets.variants import model_look
    from tabletest.layout.random_config import load_random_config
    from tabletest.layout.random_set import make_random_set

    catalog, out = load_catalog(), tmp_path / "assets"
    build_assets(catalog, out, ["mug"], jobs=1)
    build_looks(catalog, out, [model_look("mug", 1), model_look("mug", 2)], jobs=1)  # what a render with looks built
    folder = write_folder(tmp_path / "models" / "mug", {"tall.glb": gm.plain_box(extents=(1, 3, 1)), "wide.glb": gm.plain_box(extents=(3, 1, 1))})
    report = import_folder(catalog, folder.parent, out, log=lambda _: None)
    manifest = load_manifest(out)
    assert not report.failed and manifest.objects["mug"].source == "builtin"
    assert [manifest.looks[k].source for k in ("mug/1", "mug/2")] == ["dir", "dir"] and file_model_counts(out, ["mug"]) == {"mug": 3}
    config = load_random_config(REPO_CONFIGS / "random-looks.yaml").model_copy(update={"looks": load_random_config().looks.model_copy(update={"models": 3})})
    drawn, _ = make_random_set(catalog, config, 0, 4, ("mug",), None, None, None).with_look_models(catalog, out)
    assert [v.label for v in dict(drawn.variants)["mug"]] == ["mug/0", "mug/1", "mug/2"]
    assert check_assets(catalog, out, ["mug"]) == []
    broken = out / manifest.looks["mug/2"].file
    data = broken.read_bytes()
    broken.write_bytes(data[:100] + bytes([data[100] ^ 0xFF]) + data[101:])  # a look's bytes no longer those pinned
    assert [problem.name for problem in check_assets(catalog, out, ["mug"])] == ["mug/2"]
    with pytest.raises(UserError, match="mug"):  # and the render refuses what the check names
        make_random_set(catalog, config, 0, 4, ("mug",), None, None, None).with_look_models(catalog, out)
    write_folder(tmp_path / "own", {"mug.glb": gm.plain_box()})
    import_folder(catalog, tmp_path / "own", out, log=lambda _: None)
    built = cli("assets", "build", "--only", "mug", "--out", str(out))
    assert built.returncode == 0 and "kept mug (dir)" in built.stderr and load_manifest(out).objects["mug"].source == "dir"
    replaced = cli("assets", "build", "--only", "mug", "--out", str(out), "--replace")
    assert replaced.returncode == 0 and load_manifest(out).objects["mug"].source == "builtin"
