"""Materials, turns and small mesh helpers that several recipe groups share, defined once."""

from __future__ import annotations

import numpy as np
import trimesh

from tabletest.assets.builtin.parts import Material
from tabletest.assets.builtin.shapes import extrude, moved

Z_TO_MINUS_Y = (90, 0, 0)  # rotate_deg that turns a +Z axis (lathe, cylinder) towards the viewer
FACE_UP = (-90, 0, 0)  # turns a decal (facing −Y) to face +Z, its top towards +Y

STEEL = Material("steel", (0.75, 0.76, 0.78), roughness=0.25, metallic=1.0)
CHROME = Material("chrome", (0.85, 0.86, 0.88), roughness=0.2, metallic=1.0)
BLACK_PLASTIC = Material("black plastic", (0.04, 0.04, 0.045), roughness=0.45)


def merge(*meshes: trimesh.Trimesh) -> trimesh.Trimesh:
    """Several meshes as one, for a part made of pieces that share a material."""
    return trimesh.util.concatenate(list(meshes))


def front_extrude(outline_xz: np.ndarray, depth: float) -> trimesh.Trimesh:
    """A solid from a front outline in (x, z), `depth` along y centred on y = 0 (cases, boxes with round corners)."""
    return moved(extrude(outline_xz, depth), offset=(0, depth / 2, 0), rotate_deg=(90, 0, 0))
