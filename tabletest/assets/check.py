"""Verify an assets folder against the catalog, whatever the models' source: every selected object has
a manifest entry (its model stored in its rest pose) and a file with the pinned bytes that loads, has
at most `--max-triangles` triangles, textures no larger than an import makes them, finite geometry with
a visible surface, the catalog size and the canonical frame (+Z up, resting on z = 0, footprint centred).

A file is read once; its bytes are checked against the pin before anything parses them, its triangles
and texture sizes are read from its headers before anything is decoded, and the model is measured as a
whole in the world frame, every node's transform applied, as a renderer would see it. A model that
passes is recorded in `verdicts.py`, which is how a render trusts it without checking it again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tabletest.assets import verdicts
from tabletest.assets.canonical import bake, has_surface, load_world
from tabletest.assets.manifest import MANIFEST_NAME, REST_POSE, UNRESTED, AssetEntry, file_model_counts, load_manifest
from tabletest.assets.normalize import (
    DEFAULT_MAX_TRIANGLES,
    MAX_TEXTURE_PX,
    NO_SURFACE,
    SIMPLIFY,
    ModelError,
    check_gltf,
    gltf_triangles,
    read_glb,
    too_many_triangles,
)
from tabletest.assets.variants import SEPARATOR
from tabletest.config import Catalog, CatalogObject
from tabletest.errors import UserError

TOLERANCE = 0.01  # of the catalog size: extent, height of the lowest point, offset of the footprint centre

_REMAKE = {
    "builtin": 'rebuild it with `tabletest assets build --only "{name}"`',
    "objaverse": 'fetch it again with `tabletest assets fetch --only "{name}"`',
    "dir": "import it again from your folder with `tabletest assets import`",
}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one object, and how to fix it."""

    name: str
    message: str

    def __str__(self) -> str:
        return f"{self.name}: {self.message}"


def check_assets(
    catalog: Catalog,
    assets_dir: Path,
    only: Sequence[str] | None = None,
    max_triangles: int = DEFAULT_MAX_TRIANGLES,
) -> list[Problem]:
    """Every problem found with the selected catalog objects (all of them by default), in catalog order."""
    assets_dir = Path(assets_dir)
    if not (assets_dir / MANIFEST_NAME).is_file():
        raise UserError(f"no {MANIFEST_NAME} in {assets_dir}: build the models with `tabletest assets build --out {assets_dir}`")
    manifest = load_manifest(assets_dir)
    problems: list[Problem] = []
    for obj in catalog.select(only):
        entry = manifest.objects.get(obj.name)
        if entry is None:
            build = f'`tabletest assets build --only "{obj.name}"`'
            problems.append(Problem(obj.name, f"not in {assets_dir}/manifest.json; build it with {build} (or fetch/import it)"))
        else:
            problems += [Problem(obj.name, m) for m in check_entry(obj, entry, assets_dir, max_triangles)]
            for number in range(1, file_model_counts(assets_dir, [obj.name]).get(obj.name, 1)):  # what a render draws
                key = f"{obj.name}{SEPARATOR}{number}"
                problems += [Problem(key, m) for m in check_entry(obj, manifest.looks[key], assets_dir, max_triangles)]
    return problems


def check_entry(obj: CatalogObject, entry: AssetEntry, assets_dir: Path, max_triangles: int) -> list[str]:
    """What is wrong with one object's model, each with its fix; none, and the verdict is recorded."""
    problems = _problems(obj, entry, Path(assets_dir), max_triangles)
    if not problems:
        verdicts.record(obj, entry.sha256, max_triangles)
    return problems


def _problems(obj: CatalogObject, entry: AssetEntry, assets_dir: Path, max_triangles: int) -> list[str]:
    path = assets_dir / entry.file
    fix = _REMAKE[entry.source].format(name=obj.name)
    if not path.is_file():
        return [f"file {path} is missing; {fix}"]
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != entry.sha256:
        return [f"{path} differs from the bytes pinned in manifest.json (sha256), so it is not read; {fix}"]
    if entry.rest_pose != REST_POSE:
        return [f"{path} {UNRESTED}; {fix}"]
    try:
        gltf, binary = read_glb(data)
        if too_many := too_many_triangles(gltf_triangles(gltf), max_triangles):
            return [f"{path} {too_many}; {SIMPLIFY}"]
        check_gltf(gltf, binary, max_texture_px=MAX_TEXTURE_PX)
        meshes = bake(load_world(data))
    except ModelError as err:
        return [f"{path} does not load as a GLB ({err.problem}); {fix}"]
    except Exception as err:  # noqa: BLE001 - any reader failure means the same thing: the file is broken
        return [f"{path} does not load as a GLB ({type(err).__name__}: {err}); {fix}"]
    if not meshes:
        return [f"{path} has no geometry; {fix}"]
    points = np.concatenate([mesh.vertices for _, mesh in meshes])
    if not np.all(np.isfinite(points)):
        return [f"{path} has non-finite coordinates; {fix}"]
    if too_many := too_many_triangles(sum(len(mesh.faces) for _, mesh in meshes), max_triangles):
        return [f"{path} {too_many}; {SIMPLIFY}"]
    if not has_surface(meshes):
        return [f"{path} {NO_SURFACE}; {fix}"]
    problems = []
    lo, hi = points.min(axis=0), points.max(axis=0)
    size, tol = obj.size_m, TOLERANCE * obj.size_m
    extent = float(np.max(hi - lo))
    if abs(extent - size) > tol:
        problems.append(f"largest extent {extent:.4f} m is not the catalog's {size} m (±1%); {fix}")
    if abs(lo[2]) > tol:
        problems.append(f"lowest point at z = {lo[2]:.4f} m, not resting on z = 0; {fix}")
    centre = (lo[:2] + hi[:2]) / 2
    if np.max(np.abs(centre)) > tol:
        problems.append(f"footprint centred at ({centre[0]:.4f}, {centre[1]:.4f}) m, not on the origin; {fix}")
    return problems
