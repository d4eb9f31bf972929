"""Build the built-in library: run each catalog object's recipe, normalise it to the canonical frame,
write `<slug>.glb` atomically and record it in the manifest.

Output is byte-identical on a rerun: recipes are deterministic, parts keep their order and get
unique node names, and the manifest is saved sorted. Objects build in parallel processes.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import trimesh

from tabletest.assets import canonical
from tabletest.assets.builtin.parts import Part
from tabletest.assets.builtin.recipes import RECIPES
from tabletest.assets.manifest import AssetEntry, Manifest, load_manifest, save_manifest
from tabletest.assets.store import store_asset
from tabletest.assets.variants import ModelLook
from tabletest.config import Catalog, CatalogObject
from tabletest.errors import UserError

MAX_TRIANGLES = 50_000


def part_scene(parts: Sequence[Part]) -> trimesh.Scene:
    """The parts as one scene, one node each; a repeated part name gets a suffix so no part is lost."""
    scene = trimesh.Scene()
    seen: dict[str, int] = {}
    for part in parts:
        count = seen.get(part.name, 0)
        seen[part.name] = count + 1
        name = part.name if count == 0 else f"{part.name}.{count}"
        scene.add_geometry(split_sharp_edges(part.textured_mesh()), node_name=name, geom_name=name)
    return scene


def split_sharp_edges(mesh: trimesh.Trimesh, angle_deg: float = 40.0) -> trimesh.Trimesh:
    """A copy whose vertices are shared only across edges flatter than `angle_deg`, so per-vertex
    normals (which the GLB carries) shade curved surfaces smoothly and keep box edges crisp.

    Each corner gets the area-weighted normal of the faces around its position that lie within the
    angle of its own face; corners of one vertex with the same normal stay one vertex (with its UV).
    """
    faces, normals = mesh.faces, mesh.face_normals
    _, position = np.unique(np.round(mesh.vertices, 9), axis=0, return_inverse=True)
    corner_position = position.ravel()[faces].ravel()
    corner_face = np.repeat(np.arange(len(faces)), 3)
    order = np.argsort(corner_position, kind="stable")
    start = np.searchsorted(corner_position[order], corner_position)
    valence = np.bincount(corner_position)[corner_position]
    corner = np.repeat(np.arange(len(corner_position)), valence)
    neighbour = corner_face[order[np.repeat(start, valence) + _ramps(valence)]]
    smooth = np.einsum("ij,ij->i", normals[corner_face[corner]], normals[neighbour]) > np.cos(np.radians(angle_deg))
    corner_normal = np.zeros((len(corner_position), 3))
    np.add.at(corner_normal, corner[smooth], normals[neighbour[smooth]] * mesh.area_faces[neighbour[smooth], None])
    corner_normal /= np.maximum(np.linalg.norm(corner_normal, axis=1, keepdims=True), 1e-12)
    key = np.column_stack([faces.ravel(), np.round(corner_normal, 4)])
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    source = faces.ravel()[first]
    out = trimesh.Trimesh(mesh.vertices[source], inverse.reshape(-1, 3), process=False)
    out.visual = trimesh.visual.TextureVisuals(uv=mesh.visual.uv[source], material=mesh.visual.material)
    return out


def _ramps(lengths: np.ndarray) -> np.ndarray:
    """0, 1, …, n-1 for each n in `lengths`, concatenated."""
    return np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)


def canonical_scene(obj: CatalogObject, look: ModelLook | None = None) -> trimesh.Scene:
    """One catalog object built from its recipe, in the canonical frame at its catalog size; with `look`, stretched
    in height and footprint and scaled to the look's size."""
    recipe = RECIPES[obj.name]
    parts = recipe()
    triangles = sum(len(p.mesh.faces) for p in parts)
    if triangles > MAX_TRIANGLES:
        raise UserError(
            f"recipe {obj.name!r} makes {triangles} triangles, more than the {MAX_TRIANGLES} a built-in model "
            f"may have; use fewer segments or parts in {recipe.__module__}.{recipe.__name__}"
        )
    meshes = canonical.bake(part_scene(parts))
    if look is None:
        return canonical.to_canonical(meshes, obj.size_m, obj.yaw_deg)
    stretch = (look.width, look.width, look.height)  # after the edges are split: the same vertices, only moved
    return canonical.to_canonical([(name, mesh.copy().apply_scale(stretch)) for name, mesh in meshes], obj.size_m * look.size, obj.yaw_deg)


def _build_one(obj: CatalogObject, out_dir: Path, look: ModelLook | None = None) -> AssetEntry:
    """Build, write and describe one object, or one of its looks' models (runs in a worker process): a look's
    model that is its kind's model moved by one linear map (a stretch, and the other turn its rest pose took) says
    so (`drawn_from`), so a render shows it with that model, transformed, rather than hold another mesh."""
    scene = canonical_scene(obj, look)
    entry = store_asset(out_dir, obj.name, obj.slug if look is None else look.slug, scene, "builtin")
    mapped = affine_from(_catalog_scene(obj), scene) if look is not None else None
    return entry if mapped is None else entry.model_copy(update={"drawn_from": mapped})


@functools.lru_cache(maxsize=8)
def _catalog_scene(obj: CatalogObject) -> trimesh.Scene:
    """A kind's catalog model, built once per process for all of its looks' models (they come in kind order)."""
    return canonical_scene(obj)


def affine_from(model: trimesh.Scene, look: trimesh.Scene, tolerance_m: float = 1e-6) -> tuple[float, ...] | None:
    """The 3x4 map (row by row) that takes every vertex of `model` to the same vertex of `look`, to
    `tolerance_m`; None where none does (the stretch split its edges otherwise)."""
    names = list(look.geometry)
    if sorted(names) != sorted(model.geometry) or any(model.geometry[n].vertices.shape != look.geometry[n].vertices.shape for n in names):
        return None
    source = np.concatenate([model.geometry[n].vertices for n in names])
    target = np.concatenate([look.geometry[n].vertices for n in names])
    homogeneous = np.c_[source, np.ones(len(source))]
    solution = np.linalg.lstsq(homogeneous, target, rcond=None)[0]  # (4, 3): target = homogeneous @ solution
    if np.abs(homogeneous @ solution - target).max() > tolerance_m:
        return None
    return tuple(round(float(v), 9) for v in solution.T.ravel())


def select(catalog: Catalog, only: Sequence[str] | None) -> list[CatalogObject]:
    """The catalog objects to build, in catalog order; an unknown name or one without a recipe is refused."""
    objects = list(catalog.select(only))
    missing = [o.name for o in objects if o.name not in RECIPES]
    if missing:
        raise UserError(
            f"no built-in recipe for {', '.join(repr(n) for n in missing)}; "
            "add one under tabletest/assets/builtin/recipes/ or get the model from another source"
        )
    return objects


def build_assets(
    catalog: Catalog,
    out_dir: Path,
    only: Sequence[str] | None = None,
    jobs: int | None = None,
    progress: Callable[[AssetEntry], None] | None = None,
) -> Manifest:
    """Build the selected objects into `out_dir` and update its manifest (other entries are kept).

    The manifest is saved even when a recipe fails, keeping every object built before the failure.
    """
    objects = select(catalog, only)
    return _build_into(Path(out_dir), objects, [None] * len(objects), jobs, progress)


def build_looks(
    catalog: Catalog, out_dir: Path, looks: Sequence[ModelLook], jobs: int | None = None,
    progress: Callable[[AssetEntry], None] | None = None,
) -> Manifest:
    """Build the models of these looks into `out_dir` and record them under the manifest's `looks` (kept on failure)."""
    return _build_into(Path(out_dir), [catalog.by_name(look.kind) for look in looks], list(looks), jobs, progress)


def _build_into(
    out_dir: Path, objects: list[CatalogObject], looks: list[ModelLook | None], jobs: int | None,
    progress: Callable[[AssetEntry], None] | None,
) -> Manifest:
    """Build each object (or look's model) and record it in the manifest as it comes, saved even on a failure."""
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest = load_manifest(out_dir)
    try:
        for look, entry in zip(looks, _built(objects, out_dir, max(1, min(jobs or os.cpu_count() or 1, len(objects))), looks)):
            if look is None:
                manifest.objects[entry.name] = entry
            else:
                manifest.looks[look.key] = entry
            if progress:
                progress(entry)
    finally:
        save_manifest(out_dir, manifest)
    return manifest


def _built(objects: list[CatalogObject], out_dir: Path, jobs: int, looks: list[ModelLook | None]) -> Iterator[AssetEntry]:
    if jobs == 1:
        yield from (_build_one(obj, out_dir, look) for obj, look in zip(objects, looks))
        return
    # Not fork: the caller may hold threads (a progress bar's), and a forked copy of them can deadlock.
    # A fork server that has imported this module once forks the workers cheaply.
    context = get_context("forkserver")
    context.set_forkserver_preload([__name__])
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        yield from pool.map(_build_one, objects, [out_dir] * len(objects), looks)
