"""Workbench drafts show a model's textures, as the contact sheet and Cycles do, not flat grey."""

from __future__ import annotations

import json

import glbmaker as gm
import numpy as np
import pytest
from PIL import Image

from tabletest.assets.importer import import_folder
from tabletest.config import load_catalog

from conftest import run_cli

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

GREEN = (20, 200, 40)


def test_a_workbench_draft_shows_the_texture_colour(tmp_path):
    """A box whose only colour is a green texture (its material is plain white): the object's pixels in
    a Workbench draft must be green."""
    g = gm.Gltf()
    g.node(mesh=g.box(extents=(1.0, 1.0, 1.0), material=g.textured_material(gm.png(8, 8, GREEN))))
    models = tmp_path / "models"
    models.mkdir()
    (models / "mug.glb").write_bytes(g.glb())
    assets, out = tmp_path / "assets", tmp_path / "out"
    assert import_folder(load_catalog(), models, assets, log=print).imported
    result = run_cli(
        "render", "--engine", "workbench", "--only", "mug", "--objects", "1", "--resolution", "64x48",
        "--samples", "1", "--assets", str(assets), "--out", str(out), "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    [record] = [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]
    x0, y0, x1, y1 = (round(v) for v in record["objects"][0]["bbox_px"])
    with Image.open(out / record["file_name"]) as image:
        box = np.asarray(image.convert("RGB"), dtype=float)[y0:y1, x0:x1]
    r, g_, b = box.reshape(-1, 3).mean(axis=0)
    assert g_ > r + 40 and g_ > b + 40, (r, g_, b)
