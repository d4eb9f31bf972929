"""Composite rendering, tested against direct renders of the same scenes on the CPU.

The PSNR comparison is bounded by Cycles' noise (two direct renders of one scene with different
seeds differ as much as a composite and a direct render do), so it renders at 128x96 with 256
samples: the smallest size found to keep that noise clearly under the 40 dB bar. The other tests
render tiny images with few samples.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.compose.exr import read_passes
from tabletest.compose.view import ViewTransform
from tabletest.config import load_catalog
from tabletest.files.run_output import read_runs

from conftest import REPO, copy_with_unloadable_model, run_cli

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

QUALITY = ["--resolution", "128x96", "--samples", "256", "--masks", "--quiet"]
TINY = ["--resolution", "64x48", "--samples", "8", "--quiet"]
NAMES = ("mug", "lamp", "wine bottle")
OBJECTS = 3  # the quality scenes' objects


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]


def pixels(out: Path, name: str) -> np.ndarray:
    with Image.open(out / name) as img:
        return np.asarray(img)


def composite_flags(cache: Path, out: Path) -> list[str]:
    """The flags that make a run composite, with its layer cache and output folder."""
    return ["--mode", "composite", "--layer-cache", str(cache), "--out", str(out)]


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = np.mean((a.astype(float) - b.astype(float)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255**2 / mse)


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    build_assets(load_catalog(), folder, list(NAMES), jobs=1)
    return folder


@pytest.fixture(scope="module")
def random_scenes(tmp_path_factory, builtin_assets) -> dict:
    """Two random 3-object scenes of the built-in objects (every layer sum of a 2-object scene, and more), composed
    and rendered directly."""
    root = tmp_path_factory.mktemp("quality")
    cache = root / "cache"
    runs = {}
    select = ["--objects", str(OBJECTS), "--sample", "2", "--seed", "11", "--assets", str(builtin_assets)]
    for mode in ("composite", "direct"):
        runs[mode] = root / mode
        result = run_cli("render", *select, *QUALITY, "--mode", mode, "--layer-cache", str(cache), "--out", str(runs[mode]))
        assert result.returncode == 0, result.stderr
    return {"runs": runs, "cache": cache, "assets": builtin_assets, "root": root}


@pytest.mark.slow
def test_composites_match_direct_renders(random_scenes):
    runs = random_scenes["runs"]
    composite, direct = records(runs["composite"]), records(runs["direct"])
    assert [r["id"] for r in composite] == [r["id"] for r in direct] and len(composite) == 2
    scores = []
    for c, d in zip(composite, direct):
        assert c["render"]["mode"] == "composite" and d["render"]["mode"] == "direct"
        assert c["objects"] == d["objects"]  # the same placement and Blender's own measurements
        score = psnr(pixels(runs["composite"], c["file_name"]), pixels(runs["direct"], d["file_name"]))
        scores.append(score)
        print(f"{c['id']} {'+'.join(o['name'] for o in c['objects'])}: {score:.1f} dB")
    print(f"PSNR composite vs direct, 128x96, 256 samples: min {min(scores):.1f}, max {max(scores):.1f} dB")
    assert min(scores) >= 40.0


def test_masks_agree_between_modes(random_scenes):
    runs = random_scenes["runs"]
    for c, d in zip(records(runs["composite"]), records(runs["direct"])):
        composite, direct = pixels(runs["composite"], c["mask_file_name"]), pixels(runs["direct"], d["mask_file_name"])
        assert set(np.unique(composite)) == set(np.unique(direct)) == set(range(OBJECTS + 1))
        assert np.mean(composite == direct) > 0.99
        for label, obj in enumerate(c["objects"], start=1):
            rows, cols = np.nonzero(composite == label)
            x0, y0, x1, y1 = obj["bbox_px"]
            assert x0 - 1 <= cols.min() and cols.max() <= x1 and y0 - 1 <= rows.min() and rows.max() <= y1


WARM_RUN = """
import sys
sys.modules["bpy"] = None  # composing from a warm cache must not need Blender
sys.argv = ["tabletest", *sys.argv[1:]]
from tabletest.commands.main import main
main()
"""


def test_warm_cache_renders_nothing_in_blender(random_scenes):
    first = random_scenes["runs"]["composite"]
    out = random_scenes["root"] / "warm"
    args = [
        "render",
        "--objects",
        "3",
        "--sample",
        "2",
        "--seed",
        "11",
        "--assets",
        str(random_scenes["assets"]),
        *QUALITY,
        *composite_flags(random_scenes["cache"], out),
    ]
    result = subprocess.run(
        [sys.executable, "-c", WARM_RUN, *args], capture_output=True, text=True, cwd=REPO, timeout=300
    )
    assert result.returncode == 0, result.stderr
    run = read_runs(out)[-1]
    placed = {(o["name"], o["slot"]) for r in records(first) for o in r["objects"]}
    assert run["layers"]["rendered"] == 0 and run["layers"]["cached"] == run["layers"]["needed"] == 1 + len(placed)
    assert run["layers"]["key"] == read_runs(first)[-1]["layers"]["key"]
    assert not (out / "logs").exists()  # no Blender worker was started
    assert (out / "metadata.jsonl").read_bytes() == (first / "metadata.jsonl").read_bytes()
    for record in records(out):
        assert np.array_equal(pixels(out, record["file_name"]), pixels(first, record["file_name"]))


@pytest.mark.parametrize("view", ["Standard", "AgX", "Filmic"])
def test_one_object_composite_is_blenders_own_image(tmp_path, assets, view):
    """With the same noise seed, a 1-object scene's layer is the direct render: the composer's view
    transform turns its linear EXR into exactly Blender's 8-bit PNG, for every view transform."""
    config = tmp_path / "config.yaml"
    config.write_text(
        (REPO / "configs" / "default.yaml").read_text().replace("view_transform: Standard", f"view_transform: {view}")
    )
    index = load_catalog().index_of("mug")  # 1obj-<index>: direct mode's noise seed is seed + index
    select = ["--objects", "1", "--only", "mug", "--assets", str(assets), "--config", str(config), *TINY]
    cache = tmp_path / "cache"
    composite = run_cli("render", *select, "--seed", str(index), *composite_flags(cache, tmp_path / "c"))
    direct = run_cli("render", *select, "--seed", "0", "--out", str(tmp_path / "d"))
    assert composite.returncode == direct.returncode == 0, composite.stderr + direct.stderr
    (record,) = records(tmp_path / "d")
    blender = pixels(tmp_path / "d", record["file_name"])
    (folder,) = [p for p in cache.iterdir()]
    (layer,) = folder.glob("mug-*.exr")
    linear = read_passes(layer)["Combined"]
    assert np.array_equal(ViewTransform(folder / "ocio" / "config.ocio", view).to_8bit(linear), blender)
    composed = pixels(tmp_path / "c", record["file_name"]).astype(int)
    off = np.abs(composed - blender)
    assert off.max() <= 1 and np.count_nonzero(off) <= blender.size // 1000  # float rounding of bg + (layer - bg) only


def test_composite_depth_is_the_direct_depth(tmp_path, assets):
    """With the same noise seed, the composed depth pass (the table's, with the object's over its pixels)
    is the direct render's, pixel for pixel, as is the mask."""
    index = load_catalog().index_of("mug")
    select = ["--objects", "1", "--only", "mug", "--assets", str(assets), "--masks", *TINY]
    composite = run_cli("render", *select, "--seed", str(index), *composite_flags(tmp_path / "cache", tmp_path / "c"))
    direct = run_cli("render", *select, "--seed", "0", "--out", str(tmp_path / "d"))
    assert composite.returncode == direct.returncode == 0, composite.stderr + direct.stderr
    (c,), (d,) = records(tmp_path / "c"), records(tmp_path / "d")
    assert c["depth_file_name"] == d["depth_file_name"] == f"depth/{d['id']}.png"
    composed, rendered = pixels(tmp_path / "c", c["depth_file_name"]), pixels(tmp_path / "d", d["depth_file_name"])
    assert composed.dtype == np.uint16 and np.array_equal(composed, rendered)
    assert np.array_equal(pixels(tmp_path / "c", c["mask_file_name"]), pixels(tmp_path / "d", d["mask_file_name"]))
    assert (rendered[pixels(tmp_path / "d", d["mask_file_name"]) == 1] > 0).all()


def test_touching_objects_are_rendered_directly(tmp_path, assets):
    """Slots 45 px apart (at 1024 px): some pairs touch in the image, and only those are rendered directly."""
    config = tmp_path / "config.yaml"
    config.write_text(
        (REPO / "configs" / "default.yaml").read_text().replace("slot_offset_px: 200", "slot_offset_px: 45")
    )
    out = tmp_path / "out"
    result = run_cli(
        "render",
        "--objects",
        "2",
        "--only",
        ",".join(NAMES),
        "--assets",
        str(assets),
        "--config",
        str(config),
        *TINY,
        "--masks",
        *composite_flags(tmp_path / "cache", out),
    )
    assert result.returncode == 0, result.stderr
    modes = [r["render"]["mode"] for r in records(out)]
    run = read_runs(out)[-1]
    assert (
        run["images_composed"] == modes.count("composite") > 0
        and run["images_rendered_directly"] == modes.count("direct") > 0
    )
    for record in records(out):  # the masks agree: a direct render's objects touch, a composite's keep a gap
        mask = pixels(out, record["mask_file_name"])
        grown = np.zeros((mask.shape[0] + 2, mask.shape[1] + 2), dtype=bool)
        for dy in (0, 1, 2):
            for dx in (0, 1, 2):
                grown[dy : dy + mask.shape[0], dx : dx + mask.shape[1]] |= mask == 1
        touches = bool((grown[1:-1, 1:-1] & (mask == 2)).any())
        assert touches == (record["render"]["mode"] == "direct"), record["id"]
        assert record["render"]["seed"] == (
            record["index"] if touches else 0
        )  # direct renders keep their own noise seed


def test_failed_layer_fails_only_its_scenes(tmp_path, assets):
    broken = copy_with_unloadable_model(assets, tmp_path / "assets", "mug")
    out = tmp_path / "out"
    result = run_cli(
        "render",
        "--objects",
        "2",
        "--only",
        ",".join(NAMES),
        "--assets",
        str(broken),
        *TINY,
        "--retries",
        "0",
        *composite_flags(tmp_path / "cache", out),
    )
    assert result.returncode == 1 and "4 image(s) failed" in result.stderr
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert len(failures) == 4 and all("mug" in f["objects"] and "layer mug-" in f["error"] for f in failures)
    assert {tuple(o["name"] for o in r["objects"]) for r in records(out)} == {
        ("lamp", "wine bottle"),
        ("wine bottle", "lamp"),
    }
    assert not list((tmp_path / "cache").glob("*/.*.tmp"))


def test_direct_masks_leave_the_image_unchanged(tmp_path, assets):
    select = ["--objects", "2", "--only", "mug,lamp", "--assets", str(assets), *TINY]
    plain, masked = tmp_path / "plain", tmp_path / "masked"
    assert run_cli("render", *select, "--out", str(plain)).returncode == 0
    assert run_cli("render", *select, "--masks", "--out", str(masked)).returncode == 0
    for a, b in zip(records(plain), records(masked)):
        assert "mask_file_name" not in a and b["mask_file_name"] == f"masks/{b['id']}.png"
        assert np.array_equal(pixels(plain, a["file_name"]), pixels(masked, b["file_name"]))
        assert set(np.unique(pixels(masked, b["mask_file_name"]))) == {0, 1, 2}


def test_composite_resumes_and_refuses_other_engines(tmp_path, assets):
    select = [
        "--objects",
        "3",
        "--only",
        ",".join(NAMES),
        "--assets",
        str(assets),
        *TINY,
        *composite_flags(tmp_path / "cache", tmp_path / "out"),
    ]
    assert run_cli("render", *select, "--limit", "2").returncode == 0
    first = {r["id"]: (tmp_path / "out" / r["file_name"]).stat().st_mtime_ns for r in records(tmp_path / "out")}
    result = run_cli("render", *select)
    assert result.returncode == 0 and "4 rendered, 2 already done" in result.stderr
    assert len(records(tmp_path / "out")) == 6
    assert all((tmp_path / "out" / "images" / f"{sid}.png").stat().st_mtime_ns == mtime for sid, mtime in first.items())
    refused = run_cli("render", *select, "--engine", "workbench")
    assert refused.returncode == 2 and refused.stderr.startswith("error: --mode composite needs --engine cycles")
