"""What a recipe returns: coloured parts. A recipe builds in any convenient metric size in the world
frame (+Z up, front towards −Y); the builder normalises the whole to the canonical frame."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import trimesh
from trimesh.visual.material import PBRMaterial
from PIL import Image


@dataclass(frozen=True)
class Material:
    """A glTF metallic-roughness material; `texture` (optional) is an RGB(A) image mapped by the part's UVs."""

    name: str
    color: tuple[float, float, float] | tuple[float, float, float, float]
    roughness: float = 0.6
    metallic: float = 0.0
    texture: Image.Image | None = None

    def to_pbr(self) -> PBRMaterial:
        rgba = tuple(self.color) + ((1.0,) if len(self.color) == 3 else ())
        return PBRMaterial(
            name=self.name,
            baseColorFactor=np.round(np.array(rgba) * 255).astype(np.uint8),
            roughnessFactor=float(self.roughness),
            metallicFactor=float(self.metallic),
            baseColorTexture=self.texture,
            doubleSided=False,
        )


@dataclass(frozen=True)
class Part:
    name: str
    mesh: trimesh.Trimesh
    material: Material

    def textured_mesh(self) -> trimesh.Trimesh:
        """The mesh with its material attached (UVs kept when the mesh has them, else a zero UV set)."""
        mesh = self.mesh.copy()
        uv = getattr(mesh.visual, "uv", None)
        if uv is None or len(uv) != len(mesh.vertices):
            uv = np.zeros((len(mesh.vertices), 2))
        mesh.visual = trimesh.visual.TextureVisuals(uv=uv, material=self.material.to_pbr())
        return mesh
