"""The layer cache: the empty table and each object alone at each slot, rendered once, reused by
every run and shard that shares their settings.

A layer set is one folder per combination of everything that decides the pixels of a layer except
the object (camera, table, lights, resolution, engine, samples, seed, the renderer's code, the
Blender version); its name is the start of that combination's sha256, the *layer cache key*. Inside,
each layer is keyed by its model's sha256 and its pose on the table, so a 2-object run and a 3-object
run share their left and right layers. The view transform is not part of the key: layers are linear,
the composer applies it.

Per layer: `<stem>.exr` (Blender's multilayer EXR: Combined, Object Index and Depth), the prepared
arrays the composer memory-maps (`background.npy`: the empty table in linear light, RGBA, and
`background.depth.npy` its depth in millimetres; `<stem>.diff.npy`: the object's difference from it
inside `diff_box`; `<stem>.mask.npy` and `<stem>.depth.npy`: the object's pixels and their depth in
millimetres inside `mask_box`) and `<stem>.json`, written last: a layer is cached when its JSON is there.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from tabletest.cache import cache_entry, check_folder
from tabletest.compose.exr import depth_millimetres, read_passes
from tabletest.config import Config, slugify
from tabletest.errors import UserError
from tabletest.extras import installed_bpy
from tabletest.layout.spec import SceneSpec, SpecObject
from tabletest.files.jsonl import atomic_output
from tabletest.files.paths import no_link_out
from tabletest.files.temp import clean_stale, temp_path

LAYER_FORMAT = 2  # bump when the meaning of the cached files changes
RENDERER_SOURCES = ("base_scene.py", "engine.py", "worker.py")  # the code that decides a layer's pixels
BACKGROUND = "background"
# A linear difference below this counts as "the object does not reach this pixel" (denoiser drift):
# under half an 8-bit step anywhere on the table.
CROP_EPS = 1e-3
# What one layer may take on disk, per pixel: the EXR (RGBA and an index, 32-bit floats, before ZIP) and
# the prepared arrays (the RGBA difference and the mask, at most the whole image each).
LAYER_BYTES_PER_PIXEL = 5 * 4 + 4 * 4 + 1
MOVE_LAYERS = "move it aside, or give --layer-cache another folder"
Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive), pixel origin top-left


def set_fields(config: Config) -> dict:
    """Everything a layer's pixels depend on besides its object."""
    render = config.render
    renderer = Path(__file__).resolve().parents[1] / "render"
    code = hashlib.sha256(b"".join((renderer / name).read_bytes() for name in RENDERER_SOURCES)).hexdigest()
    return {
        "format": LAYER_FORMAT,
        "renderer_sha256": code,
        "blender": installed_bpy(),  # Blender 5.0 and 5.2 light and denoise differently: never mix their layers
        "resolution": list(render.resolution),
        "engine": render.engine,
        "samples": render.samples,
        "seed": render.seed,
        "camera": config.camera.model_dump(mode="json"),
        "table": config.table.model_dump(mode="json"),
        "lighting": config.lighting.model_dump(mode="json"),
        **render.pinned_denoising(),
    }


def _digest(data: dict) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Layer:
    """One layer render: a scene spec with no object (the background) or one."""

    stem: str
    key: str
    spec: SceneSpec

    @property
    def is_background(self) -> bool:
        return not self.spec.objects


@dataclass(frozen=True)
class LoadedLayer:
    """A cached object layer as the composer uses it (arrays memory-mapped, shared between processes)."""

    stem: str
    facts: dict  # Blender's measurement of the object at its slot: center_px, bbox_px
    diff_box: Box | None
    diff: np.ndarray | None  # float32 RGBA inside diff_box
    mask_box: Box | None
    mask: np.ndarray | None  # bool H×W inside mask_box
    depth: np.ndarray | None  # uint16 millimetres inside mask_box


class LayerSet:
    def __init__(self, root: Path, config: Config) -> None:
        """The set of `config`'s layers in the cache `root`; a file where its folder goes, or a link out of the
        cache there (or where its colour configuration goes), is refused now, before any layer is rendered for it."""
        self.fields = set_fields(config)
        self.key = _digest(self.fields)
        self.folder = Path(root) / self.key[:16]
        self.seed = config.render.seed % (2**31)
        check_folder(self.folder, f"the layer cache {self.folder}", MOVE_LAYERS)
        no_link_out(Path(root), self.ocio_config, "composite mode's layer cache")

    @property
    def ocio_config(self) -> Path:
        return self.folder / "ocio" / "config.ocio"

    def background(self) -> Layer:
        key = _digest({"set": self.key, "layer": BACKGROUND})
        return Layer(BACKGROUND, key, SceneSpec(BACKGROUND, -1, 0, (), self.seed))

    def object_layer(self, obj: SpecObject, asset_sha256: str) -> Layer:
        key = _digest(
            {"set": self.key, "asset_sha256": asset_sha256, "position_m": list(obj.position_m), "yaw_deg": obj.yaw_deg}
        )
        stem = f"{slugify(obj.name)}-{key[:12]}"
        return Layer(stem, key, SceneSpec(stem, -1, 1, (obj,), self.seed))

    def path(self, stem: str, suffix: str) -> Path:
        """A layer's file; a folder in its place is refused (it could never be written, nor read)."""
        return cache_entry(self.folder / f"{stem}{suffix}", MOVE_LAYERS)

    def tmp_exr(self, stem: str) -> Path:
        return temp_path(self.path(stem, ".exr"))

    def clean_stale_temps(self) -> None:
        """Remove what killed runs of this host left half-written in the cache (every set's folder)."""
        root = self.folder.parent
        for folder in [root, *(p for p in root.iterdir() if p.is_dir())] if root.is_dir() else []:
            clean_stale(folder)

    def ensure_space(self) -> None:
        """A cache that cannot hold one more layer is a full disk: one error that stops the run, rather
        than a failed layer render for every scene (the CLI turns ENOSPC into one line)."""
        width, height = self.fields["resolution"]
        needed = width * height * LAYER_BYTES_PER_PIXEL
        free = shutil.disk_usage(self.folder if self.folder.exists() else self.folder.parent).free
        if free < needed:
            raise OSError(errno.ENOSPC, f"{free} bytes free, a layer needs about {needed}", str(self.folder))

    def is_cached(self, layer: Layer) -> bool:
        info = self._info(layer.stem)
        if info is None or info.get("key") != layer.key:
            return False
        return layer.is_background or info.get("background") == self._background_digest

    def _info(self, stem: str) -> dict | None:
        try:
            return json.loads(self.path(stem, ".json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    @cached_property
    def _background_digest(self) -> str | None:
        info = self._info(BACKGROUND)
        return info and info.get("digest")

    def background_info(self) -> dict:
        info = self._info(BACKGROUND)
        if info is None:
            raise UserError(
                f"the layer cache {self.folder} has no background layer; rerun with Blender installed to render it"
            )
        return info

    def store(self, layer: Layer, exr: Path, facts: dict, ocio_config: Path | None = None) -> None:
        """Prepare a freshly rendered layer for the composer and publish it (the JSON goes last)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        combined = read_passes(exr)
        linear = np.ascontiguousarray(combined["Combined"], dtype=np.float32)  # RGBA: what OCIO applies fastest
        depth = depth_millimetres(combined["Depth"])
        info = {"key": layer.key, **facts}
        if layer.is_background:
            self._copy_ocio(ocio_config)
            _save(self.path(BACKGROUND, ".npy"), linear)
            _save(self.path(BACKGROUND, ".depth.npy"), depth)
            info["digest"] = hashlib.sha256(linear.tobytes()).hexdigest()
            self.__dict__.pop("_background_digest", None)
        else:
            diff = linear - self.background_pixels()
            diff_box = _box(np.abs(diff[..., :3]).max(axis=2) > CROP_EPS)
            mask = np.rint(combined["Object Index"]) == 1
            mask_box = _box(mask)
            if diff_box:
                _save(self.path(layer.stem, ".diff.npy"), _crop(diff, diff_box))
            if mask_box:
                _save(self.path(layer.stem, ".mask.npy"), _crop(mask, mask_box))
                _save(self.path(layer.stem, ".depth.npy"), _crop(depth, mask_box))
            info.update(background=self._background_digest, diff_box=diff_box, mask_box=mask_box)
        os.replace(exr, self.path(layer.stem, ".exr"))
        with atomic_output(self.path(layer.stem, ".json")) as fh:
            fh.write(json.dumps(info, indent=1) + "\n")

    def write_description(self) -> None:
        """`set.json`: what the folder's key covers, for a person looking at the cache."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with atomic_output(cache_entry(self.folder / "set.json", MOVE_LAYERS)) as fh:
            fh.write(json.dumps({"key": self.key, **self.fields}, indent=1) + "\n")

    def _copy_ocio(self, source: Path | None) -> None:
        """Keep Blender's colour configuration with the layers, so composing never needs Blender."""
        if self.ocio_config.exists():
            return
        if source is None or not Path(source).is_file():
            raise UserError(f"Blender reported no usable OpenColorIO config ({source}); check its installation")
        tmp = temp_path(self.folder / "ocio")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(Path(source).parent, tmp)
        try:
            os.replace(tmp, self.ocio_config.parent)
        except OSError:  # another run copied it first
            shutil.rmtree(tmp, ignore_errors=True)

    def background_pixels(self) -> np.ndarray:
        return np.load(self.path(BACKGROUND, ".npy"), mmap_mode="r")

    def background_depth(self) -> np.ndarray:
        return np.load(self.path(BACKGROUND, ".depth.npy"), mmap_mode="r")

    def load(self, stem: str) -> LoadedLayer:
        info = self._info(stem)
        if info is None:
            raise UserError(f"layer {stem} is missing from {self.folder}; rerun to render it again")
        diff_box = tuple(info["diff_box"]) if info["diff_box"] else None
        mask_box = tuple(info["mask_box"]) if info["mask_box"] else None
        return LoadedLayer(
            stem=stem,
            facts=info["objects"][0],
            diff_box=diff_box,
            diff=np.load(self.path(stem, ".diff.npy"), mmap_mode="r") if diff_box else None,
            mask_box=mask_box,
            mask=np.load(self.path(stem, ".mask.npy"), mmap_mode="r") if mask_box else None,
            depth=np.load(self.path(stem, ".depth.npy"), mmap_mode="r") if mask_box else None,
        )


def _box(where: np.ndarray) -> Box | None:
    """The smallest box holding every True pixel, or None."""
    rows, cols = np.flatnonzero(where.any(axis=1)), np.flatnonzero(where.any(axis=0))
    if not len(rows):
        return None
    return (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)


def _crop(array: np.ndarray, box: Box) -> np.ndarray:
    x0, y0, x1, y1 = box
    return np.ascontiguousarray(array[y0:y1, x0:x1])


def _save(path: Path, array: np.ndarray) -> None:
    tmp = temp_path(path)
    try:
        with open(tmp, "wb") as fh:
            np.save(fh, array)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
