"""Random scenes' exposure (`tabletest/layout/exposure.py`): the light it counts on, and a white table under
the brightest lights the config draws, rendered."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import yaml
from PIL import Image

from tabletest.layout.camera import PinholeCamera
from tabletest.layout.exposure import HDRI_RADIANCE, PEAK, exposed, key_irradiance, seen_top
from tabletest.layout.looks import KeyLight, TableLook, WorldLight
from tabletest.render.hdris import hdri_folder

from conftest import REPO, run_cli


def test_hdri_radiance_is_what_the_installed_hdris_give():
    """The upper hemisphere's irradiance on a horizontal plane over π (a white Lambertian floor's radiance),
    brightest channel, from the equirectangular files themselves."""
    OpenEXR = pytest.importorskip("OpenEXR")
    files = {path.stem: path for path in hdri_folder().glob("*.exr")}
    assert set(HDRI_RADIANCE) <= set(files)
    for name, radiance in HDRI_RADIANCE.items():
        with OpenEXR.File(str(files[name])) as exr:
            pixels = exr.channels()["RGB"].pixels.astype(float)  # top row first
        rows, cols = pixels.shape[:2]
        elevation = (0.5 - (np.arange(rows) + 0.5) / rows) * math.pi
        weight = np.where(elevation > 0, np.sin(elevation) * np.cos(elevation), 0.0) * (2 * math.pi / cols) * (math.pi / rows)
        measured = (pixels * weight[:, None, None]).sum(axis=(0, 1)).max() / math.pi
        assert measured == pytest.approx(radiance, rel=0.01), name


def test_a_bright_scene_is_dimmed_to_the_peak_and_a_dim_one_kept():
    table = TableLook("white paint", "painted", (0.8, 0.8, 0.78), 1.6, 1.0)
    camera = PinholeCamera((0.0, -1.5, 1.6), (0.0, 0.0, 0.75), 50.0, 36.0, 64, 48)
    key = KeyLight((0.0, -0.5, 0.75 + 2.4), (0.0, 0.0, 0.75), 0.5, 260.0, 5000.0)
    world = WorldLight("city", 10.0, 0.7)
    dimmed_key, dimmed_world = exposed(table, key, world, 0.75, camera)
    scale = dimmed_key.power_w / key.power_w
    assert scale < 0.5 and dimmed_world.strength / world.strength == pytest.approx(scale, rel=1e-3)
    irradiance = key_irradiance(seen_top(table, 0.75, camera), key.position, key.target, dimmed_key.power_w)
    assert 0.8 * 1.04 * (irradiance / math.pi + dimmed_world.strength * HDRI_RADIANCE["city"]) == pytest.approx(PEAK, rel=1e-3)
    dim = KeyLight(key.position, key.target, 0.5, 5.0, 5000.0), WorldLight("night", 10.0, 0.2)
    assert exposed(table, *dim, 0.75, camera) == dim


@pytest.mark.render
def test_a_white_table_under_the_brightest_lights_renders_unclipped(tmp_path, builtin_assets):
    data = yaml.safe_load((REPO / "configs" / "random.yaml").read_text())
    del data["arrangements"], data["objects"]["repeats"]
    data["table"].update(surfaces=[{"name": "white paint", "kind": "painted", "color": [0.68, 0.68, 0.66]}], color_jitter=0.0)
    data["key_light"].update(power_w=[260, 260], elevation_deg=[75, 75])
    data["world"].update(hdris=["city"], strength=[0.7, 0.7])
    data["backdrop"]["hdri_probability"] = 0.0
    (tmp_path / "white.yaml").write_text(yaml.safe_dump(data))
    out = tmp_path / "white"
    result = run_cli(
        "render", "--scenes", "random", "--count", "1", "--seed", "0", "--only", "mug", "--resolution", "64x48",
        "--samples", "4", "--masks", "--assets", str(builtin_assets), "--out", str(out), "--quiet",
        "--random-config", str(tmp_path / "white.yaml"),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    record = json.loads((out / "metadata.jsonl").read_text())
    pixels = {field: np.asarray(Image.open(out / record[field])) for field in ("file_name", "mask_file_name", "depth_file_name")}
    table = (pixels["mask_file_name"] == 0) & (pixels["depth_file_name"] > 0)  # not an object, not the backdrop
    brightest = pixels["file_name"][..., :3][table].max(axis=1)
    assert table.mean() > 0.3 and np.percentile(brightest, 99) < 250, np.percentile(brightest, [50, 99])
