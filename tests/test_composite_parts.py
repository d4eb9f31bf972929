"""The composite mode's parts that need no rendering: layer cache keys, the touching test, and the
writer's handling of masks through interruptions."""

from __future__ import annotations

import importlib.metadata
import io
import json
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.compose.composer import touching
from tabletest.compose.layers import LayerSet, LoadedLayer
from tabletest.compose.png import PngEncoder
from tabletest.config import load_catalog, load_config
from tabletest.layout.selection import Scene
from tabletest.layout.spec import scene_spec
from tabletest.files.run_output import RunOutput


def with_render(config, **changes):
    return config.model_copy(update={"render": config.render.model_copy(update=changes)})


def test_layer_set_key_covers_what_changes_the_pixels(tmp_path):
    config = load_config()
    key = LayerSet(tmp_path, config).key
    assert LayerSet(tmp_path, load_config()).key == key
    for changed in (
        with_render(config, samples=7),
        with_render(config, seed=1),
        with_render(config, resolution=(320, 240)),
        config.model_copy(update={"lighting": config.lighting.model_copy(update={"key_power_w": 1.0})}),
        config.model_copy(update={"camera": config.camera.model_copy(update={"focal_mm": 35.0})}),
        config.model_copy(update={"table": config.table.model_copy(update={"height_m": 0.7})}),
    ):
        assert LayerSet(tmp_path, changed).key != key
    # linear layers do not depend on the view transform; slot positions are part of each layer's own key
    assert LayerSet(tmp_path, with_render(config, view_transform="AgX", slot_offset_px=150)).key == key
    assert LayerSet(tmp_path, config).folder == tmp_path / key[:16]


@pytest.mark.render
def test_layer_set_key_holds_the_blender_version():
    """The suite runs on Blender 5.0 and 5.2, whose renders differ: a shared cache keeps their layers apart."""
    assert LayerSet(Path("cache"), load_config()).fields["blender"] == importlib.metadata.version("bpy")


def test_object_layers_are_shared_between_scene_sizes(tmp_path):
    config, catalog = load_config(), load_catalog()
    entries = build_assets(catalog, tmp_path / "assets", ["mug", "lamp", "banana"], jobs=1).objects
    layers = LayerSet(tmp_path / "cache", config)

    def layer_keys(*names: str) -> list[str]:
        spec = scene_spec(Scene(len(names), 0, names), config, entries, tmp_path / "assets", (1024, 768))
        return [layers.object_layer(obj, entries[obj.name].sha256).key for obj in spec.objects]

    left, right = layer_keys("mug", "lamp")
    assert layer_keys("mug", "banana", "lamp") == [left, layer_keys("lamp", "banana", "mug")[1], right]
    assert layer_keys("banana")[0] == layer_keys("mug", "banana", "lamp")[1]  # the middle slot is the centre
    assert len({left, right, *layer_keys("lamp", "mug")}) == 4
    moved = entries["mug"].model_copy(update={"sha256": "0" * 64})
    spec = scene_spec(Scene(2, 0, ("mug", "lamp")), config, entries, tmp_path / "assets", (1024, 768))
    assert layers.object_layer(spec.objects[0], moved.sha256).key != left


def layer(x0: int, y0: int, mask: list[str]) -> LoadedLayer:
    pixels = np.array([[c == "#" for c in row] for row in mask])
    box = (x0, y0, x0 + pixels.shape[1], y0 + pixels.shape[0])
    return LoadedLayer("x", {}, None, None, box, pixels, None)


def test_touching_means_overlapping_or_neighbouring_pixels():
    a = layer(0, 0, ["##.", "#.."])
    assert not touching(a, layer(3, 0, ["#"]))  # one empty column between
    assert touching(a, layer(2, 0, ["#"]))  # side by side
    assert touching(a, layer(2, 1, ["#"]))  # diagonal neighbours (a's box holds an empty pixel there)
    assert not touching(a, layer(2, 2, ["#"]))  # a's pixel at (1, 1) is empty: nothing within one pixel
    assert touching(a, layer(0, 1, ["#"]))  # overlapping
    assert not touching(a, LoadedLayer("hidden", {}, None, None, None, None, None))


def png(path: Path, value: int) -> None:
    Image.fromarray(np.full((4, 4), value, dtype=np.uint8)).save(path, format="PNG")


def test_writer_finishes_or_drops_images_with_their_masks(tmp_path):
    output = RunOutput(tmp_path, masks=True)
    output.recover()
    lines = []
    for sid in ("2obj-000001", "2obj-000002", "2obj-000003"):
        lines.append(
            json.dumps(
                {
                    "file_name": f"images/{sid}.png",
                    "mask_file_name": f"masks/{sid}.png",
                    "id": sid,
                    "index": int(sid[-1]),
                }
            )
        )
    # 1: killed after the metadata line, before the renames; 2: its mask never got written; 3: both done
    png(output.tmp_image("2obj-000001"), 10), png(output.tmp_mask("2obj-000001"), 1)
    png(output.tmp_image("2obj-000002"), 20)
    png(output.final_image("2obj-000003"), 30), png(output.final_mask("2obj-000003"), 2)
    png(output.tmp_image("2obj-000004"), 40), png(output.tmp_mask("2obj-000004"), 1)  # never committed
    (output.images / ".2obj-000004.png.tmp.tif").write_bytes(b"a worker's hand-over, never finished")
    png(output.final_image("2obj-000005"), 50)  # under an image's name, but no record names it: not the render's
    yours = {"holiday.png": b"photo", ".DS_Store": b"finder", "2obj-000003.png~": b"backup", "notes": b"text"}
    for name, data in yours.items():  # what the user put there: never the render's to remove
        (output.images / name).write_bytes(data)
    (tmp_path / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    recovered = RunOutput(tmp_path, masks=True)
    done = recovered.recover()
    assert done == {"2obj-000001", "2obj-000003"}
    kept = ["2obj-000001.png", "2obj-000003.png", "2obj-000005.png.set-aside", *yours]  # 2: its record names it
    assert sorted(p.name for p in output.images.iterdir()) == sorted(kept)
    assert recovered.set_aside == [(output.final_image("2obj-000005"), output.images / "2obj-000005.png.set-aside")]
    assert sorted(p.name for p in output.masks.iterdir()) == ["2obj-000001.png", "2obj-000003.png"]
    assert [json.loads(line)["id"] for line in (tmp_path / "metadata.jsonl").read_text().splitlines()] == [
        "2obj-000001",
        "2obj-000003",
    ]


def test_png_encoder_reuses_background_rows_exactly():
    rng = np.random.default_rng(3)
    background = rng.integers(0, 256, (37, 29, 3), dtype=np.uint8)
    encoder = PngEncoder(background)
    for first, end in ((0, 0), (0, 37), (5, 9), (16, 32), (30, 37)):
        image = background.copy()
        image[first:end] = rng.integers(0, 256, (end - first, 29, 3), dtype=np.uint8)
        data = encoder.encode(image, (first, end))
        with Image.open(io.BytesIO(data)) as png:
            assert png.mode == "RGB" and np.array_equal(np.asarray(png), image)
        (length,) = struct.unpack(">I", data[33:37])  # the IDAT chunk follows the 8-byte signature and IHDR
        assert data[37:41] == b"IDAT"
        idat = data[41 : 41 + length]
        assert struct.unpack(">I", data[41 + length : 45 + length])[0] == zlib.crc32(b"IDAT" + idat)
        assert len(zlib.decompress(idat)) == 37 * (1 + 29 * 3)  # zlib checks the stream's Adler-32 too
