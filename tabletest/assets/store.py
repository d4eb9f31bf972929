"""Write one normalised asset and describe it: the single exit of every source (builtin, objaverse, dir).

`store_asset` writes `<assets_dir>/<slug>.glb` atomically and returns its manifest entry, so every
source yields the same file layout and the same manifest fields.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import trimesh

from tabletest.assets.canonical import glb_bytes
from tabletest.assets.manifest import REST_POSE, AssetEntry, MaterialInfo
from tabletest.files.jsonl import atomic_bytes


def material_infos(world_scene: trimesh.Scene) -> tuple[MaterialInfo, ...]:
    """The distinct materials of a scene, in first-use order."""
    infos: dict[str, MaterialInfo] = {}
    for geometry in world_scene.geometry.values():
        material = getattr(geometry.visual, "material", None)
        if material is None:
            continue
        pbr = material.to_pbr() if hasattr(material, "to_pbr") else material
        color = getattr(pbr, "baseColorFactor", None)
        rgba = (np.asarray(color, dtype=float) / 255.0) if color is not None else np.ones(4)
        info = MaterialInfo(
            name=str(pbr.name or f"material_{len(infos)}"),
            base_color=tuple(round(float(c), 4) for c in rgba),
            roughness=round(float(pbr.roughnessFactor if pbr.roughnessFactor is not None else 1.0), 4),
            metallic=round(float(pbr.metallicFactor if pbr.metallicFactor is not None else 1.0), 4),
            textured=getattr(pbr, "baseColorTexture", None) is not None,
        )
        infos.setdefault(info.name, info)
    return tuple(infos.values())


def store_asset(
    assets_dir: Path,
    name: str,
    slug: str,
    world_scene: trimesh.Scene,
    source: str,
    uid: str | None = None,
    license: str | None = None,
) -> AssetEntry:
    """Write the GLB (temporary name, synced, then renamed) and return its manifest entry."""
    data = glb_bytes(world_scene)
    path = Path(assets_dir) / f"{slug}.glb"
    atomic_bytes(path, data)
    lo, hi = world_scene.bounds
    return AssetEntry(
        name=name,
        file=path.name,
        source=source,  # type: ignore[arg-type]
        uid=uid,
        license=license,
        sha256=hashlib.sha256(data).hexdigest(),
        bytes=len(data),
        bbox_m=(tuple(round(float(v), 6) for v in lo), tuple(round(float(v), 6) for v in hi)),  # type: ignore[arg-type]
        triangles=int(sum(len(g.faces) for g in world_scene.geometry.values() if hasattr(g, "faces"))),
        materials=material_infos(world_scene),
        rest_pose=REST_POSE,
    )
