"""Materials and turns that several recipe groups share, defined once."""

from __future__ import annotations

from tabletest.assets.builtin.parts import Material

Z_TO_MINUS_Y = (90, 0, 0)  # rotate_deg that turns a +Z axis (lathe, cylinder) towards the viewer
FACE_UP = (-90, 0, 0)  # turns a decal (facing −Y) to face +Z, its top towards +Y

STEEL = Material("steel", (0.75, 0.76, 0.78), roughness=0.25, metallic=1.0)
CHROME = Material("chrome", (0.85, 0.86, 0.88), roughness=0.2, metallic=1.0)
BLACK_PLASTIC = Material("black plastic", (0.04, 0.04, 0.045), roughness=0.45)
