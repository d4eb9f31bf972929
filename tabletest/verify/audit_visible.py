"""`tabletest verify` for visible fractions and `covered_by`: an object's whole silhouette, its model's
triangles projected with the record's camera where the record puts it, against the mask.

The mask shows only what is seen; the silhouette says how much there is. Measured from the two as a render
measures them (`truth/visibility.py`: the seen share of the whole silhouette, the part outside the image
unseen; what covers it, the objects seen on pixels wholly inside it), the fraction must be the recorded one
within `TOLERANCE` and the objects covering it those recorded, so a fraction raised on an object something
covers disagrees, and so does a coverer left out. An object whose projected 3D box lies inside the image
and holds no other object's pixel is wholly seen wherever its mask shows it, and covered by nothing (no
silhouette is drawn for it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from tabletest.assets.canonical import model_mesh
from tabletest.assets.manifest import load_manifest
from tabletest.errors import UserError
from tabletest.layout.camera import CameraView
from tabletest.layout.instances import label_of
from tabletest.layout.variants import model_key_of
from tabletest.truth.visibility import SUPERSAMPLE, visibility

# Measured again from the model file and the record's camera, the fraction differs from the recorded one by
# at most 0.003 over 2,956 objects of seven random renders (64x48 to 160x120, 1 to 8 samples; a record rounds
# it to 3 decimals), 3 objects crossing the image's edge left out: their renders counted only the part of
# the silhouette inside the image.
TOLERANCE = 0.02

Models = Mapping[str, tuple[str, str]]  # model key (`mug`, `mug/2`) -> (model file, sha256)


def model_files(settings: Mapping, assets: Path) -> dict[str, tuple[str, str]] | None:
    """Each model the render used (by name: its file and sha256, as `settings.json` pins them), found in
    `assets`; None where one is not there, or the settings pin none."""
    if not settings.get("models"):
        return None
    try:
        manifest = load_manifest(assets)
    except UserError:
        return None
    files = {}
    for name, sha in settings["models"].items():
        entry = manifest.model(name)
        if entry is None or entry.sha256 != sha:
            return None
        files[name] = (str(assets / entry.file), sha)
    return files


def check_fractions(
    check: Callable[[bool, str], None], objects: list[dict], mask: np.ndarray, camera: CameraView, models: Models,
    corners: Callable[[dict], np.ndarray],
) -> None:
    """`check(ok, what)` for the `visible_fraction` and the `covered_by` of each object whose model is known;
    `corners(obj)`: its 3D box's corners in the world."""
    pixels = [mask == position + 1 for position in range(len(objects))]
    for position, obj in enumerate(objects):
        recorded = obj.get("visible_fraction")
        key = model_key_of(obj) if "name" in obj else None
        if not isinstance(recorded, (int, float)) or key not in models:
            continue
        measured = _alone(pixels, position, camera.project(corners(obj)), mask.shape)
        if measured is None:
            measured = _measured(obj, models[key], camera, mask, position + 1)
        if measured is None:
            continue  # part of it behind the camera: no silhouette to compare
        fraction, covering = measured
        check(
            abs(fraction - recorded) <= TOLERANCE,
            f"{label_of(obj)}: visible_fraction {recorded}, but its silhouette and the mask give {fraction:.3f}",
        )
        seen = sorted(label_of(objects[label - 1]) for label in covering if label <= len(objects))
        named = obj.get("covered_by")
        check(
            not isinstance(named, list) or sorted(map(str, named)) == seen,
            f"{label_of(obj)}: covered_by {named}, but the mask shows {seen} on pixels wholly inside its silhouette",
        )


def _alone(pixels: list[np.ndarray], position: int, box: np.ndarray, shape: tuple[int, ...]) -> tuple[float, list[int]] | None:
    """The fraction and coverers of an object whose projected 3D box lies inside the image and holds no other
    object's pixel (a pixel beyond it, for the silhouette's edge): wholly seen where it shows, unseen where it
    does not, covered by nothing; else None."""
    height, width = shape
    x0, y0 = np.floor(box.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(box.max(axis=0)).astype(int) + 1
    if x0 < 0 or y0 < 0 or x1 > width or y1 > height:
        return None
    if any(p[y0:y1, x0:x1].any() for k, p in enumerate(pixels) if k != position):
        return None
    return (1.0 if pixels[position].any() else 0.0), []


def _measured(obj: dict, model: tuple[str, str], camera: CameraView, mask: np.ndarray, label: int) -> tuple[float, list[int]] | None:
    """The fraction and the coverers' mask labels from the object's silhouette and the mask, as a render
    measures them, on the part of the mask the silhouette reaches (shifted by whole pixels, it fills the same
    sub-pixels; what lies beyond that part lies beyond the image); None where part of the object lies behind
    the camera."""
    vertices, faces = model_mesh(*model)
    c, s = math.cos(math.radians(obj["yaw_deg"])), math.sin(math.radians(obj["yaw_deg"]))
    world = vertices @ np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]]) + np.asarray(obj["position_m"], dtype=float)
    if (camera.to_camera(world)[:, 2] <= 0).any():
        return None
    pixels = camera.project(world)
    height, width = mask.shape
    x0, y0 = np.maximum(np.floor(pixels.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(pixels.max(axis=0)).astype(int) + 1, (width, height))
    if x0 >= x1 or y0 >= y1:
        return 0.0, []  # wholly outside the image: unseen
    silhouette = ((pixels - (x0, y0)) * SUPERSAMPLE - 0.5)[faces].reshape(-1, 6)  # as a render worker hands it over
    return visibility(silhouette, mask[y0:y1, x0:x1].astype(float), label)
