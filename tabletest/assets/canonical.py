"""The canonical frame every asset is put in, whatever its source.

In the world (Blender's convention): +Z up, resting on z = 0 in a stable pose (`rest.py`), footprint
centred on the origin, front towards −Y (the camera side), largest extent equal to the catalog's `size_m`.
In the GLB file the same object is stored in glTF's own convention (+Y up, front towards +Z), which
every glTF reader expects; Blender's importer turns it back into the world frame above.
"""

from __future__ import annotations

import io
from functools import lru_cache
from pathlib import Path

import numpy as np
import trimesh

from tabletest.assets.columns import COLUMNS_RULE, Columns, columns_of, merged, read_npz, to_npz
from tabletest.assets.images import textures_only
from tabletest.assets.rest import rest_turn
from tabletest.cache import cache_entry, cache_folder
from tabletest.files.jsonl import atomic_bytes

# A model whose triangles together cover less than this fraction of its extent squared shows nothing:
# every triangle has collinear or coincident corners (a real thin part, a needle or a sheet, covers far more).
SURFACE_EPS = 1e-6

# world (x, y, z) -> glTF (x, z, -y): a −90° turn about +X.
WORLD_TO_GLTF = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1]], dtype=float)
GLTF_TO_WORLD = np.linalg.inv(WORLD_TO_GLTF)


def bake(scene: trimesh.Scene) -> list[tuple[str, trimesh.Trimesh]]:
    """Every mesh instance of a scene graph with its transform applied, named by node, in graph order.

    Cameras, lights and empty nodes carry no geometry and drop out; so do point clouds and paths.
    """
    meshes = []
    for node in scene.graph.nodes_geometry:
        transform, geometry_name = scene.graph[node]
        geometry = scene.geometry[geometry_name]
        if not isinstance(geometry, trimesh.Trimesh) or len(geometry.faces) == 0:
            continue
        mesh = geometry.copy()
        mesh.apply_transform(transform)
        meshes.append((str(node), mesh))
    return meshes


def has_surface(meshes: list[tuple[str, trimesh.Trimesh]]) -> bool:
    """Whether the meshes cover any area a camera could see, relative to their size."""
    if not meshes:
        return False
    points = np.concatenate([mesh.vertices for _, mesh in meshes])
    extent = float(np.max(np.ptp(points, axis=0)))
    area = sum(float(mesh.area) for _, mesh in meshes)
    return extent > 0 and area > SURFACE_EPS * extent**2


def to_canonical(
    meshes: list[tuple[str, trimesh.Trimesh]], size_m: float, yaw_deg: float = 0.0
) -> trimesh.Scene:
    """Turn about +Z by `yaw_deg`, scale the largest extent to `size_m`, rest on z = 0, centre the footprint,
    and settle in the model's rest pose (`rest.py`).

    `meshes` are in the world convention (+Z up). Returns a flat scene, one node per part, identity transforms.
    """
    if not meshes:
        raise ValueError("no mesh with faces to normalise")
    yaw = trimesh.transformations.rotation_matrix(np.radians(yaw_deg), [0, 0, 1])
    parts = []
    for name, mesh in meshes:
        mesh = mesh.copy()
        mesh.apply_transform(yaw)
        parts.append((name, mesh))
    _place(parts, size_m)
    turn = rest_turn([mesh for _, mesh in parts])
    if turn is not None:
        for _, mesh in parts:
            mesh.apply_transform(turn)
        _place(parts, size_m)
    scene = trimesh.Scene()
    for name, mesh in parts:
        scene.add_geometry(mesh, node_name=name, geom_name=name)
    return scene


def _place(parts: list[tuple[str, trimesh.Trimesh]], size_m: float) -> None:
    """Scale the largest extent to `size_m`, rest on z = 0, centre the footprint (in place)."""
    lo = np.min([m.bounds[0] for _, m in parts], axis=0)
    hi = np.max([m.bounds[1] for _, m in parts], axis=0)
    extent = float(np.max(hi - lo))
    if not np.isfinite(extent) or extent <= 0:
        raise ValueError(f"degenerate extent {extent}")
    scale = size_m / extent
    offset = -np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2]])
    place = trimesh.transformations.scale_matrix(scale) @ trimesh.transformations.translation_matrix(offset)
    for _, mesh in parts:
        mesh.apply_transform(place)


def glb_bytes(world_scene: trimesh.Scene) -> bytes:
    """Export a world-frame (+Z up) scene as GLB in glTF's frame (+Y up)."""
    scene = world_scene.copy()
    scene.apply_transform(WORLD_TO_GLTF)
    return scene.export(file_type="glb", include_normals=True)  # without normals glTF readers shade flat


def load_world(path: Path | str | bytes) -> trimesh.Scene:
    """Load a GLB written by `glb_bytes` back into the world frame (+Z up); its images are read only as
    plain texture formats (`images.py`), and one in any other format is an error."""
    with textures_only():
        if isinstance(path, bytes):
            scene = trimesh.load(io.BytesIO(path), file_type="glb", force="scene")
        else:
            scene = trimesh.load(str(path), file_type="glb", force="scene")
    scene.apply_transform(GLTF_TO_WORLD)
    return scene


@lru_cache(maxsize=256)
def model_columns(path: str, sha256: str) -> Columns:
    """The columns of a model file (GLB, canonical frame); `sha256` names its bytes, so a changed file is
    measured again. Kept in the user's cache (`columns/`) by those bytes and the rule's version: measuring
    a model takes up to half a second, which every run placing objects on others would pay again."""
    cached = cache_entry(cache_folder("columns") / f"{sha256}-{COLUMNS_RULE}.npz")
    if (columns := read_npz(cached)) is not None:
        return columns
    columns = columns_of(*model_mesh(path, sha256))  # not measured yet, or kept cut short or of another shape
    try:
        atomic_bytes(cached, to_npz(columns))
    except OSError:  # a read-only or full cache: measured again next time
        pass
    return columns


@lru_cache(maxsize=128)
def model_mesh(path: str, sha256: str) -> tuple[np.ndarray, np.ndarray]:
    """All the triangles of a model file (GLB, canonical frame) as one mesh: vertices (n × 3) and faces."""
    return merged([mesh for _, mesh in bake(load_world(Path(path)))])
