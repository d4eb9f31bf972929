"""Blender's view transform outside Blender: the same OpenColorIO config and processor, then the
same 8-bit rounding (`unit_float_to_uchar_clamp`, no dither), so a composite is encoded exactly as
Blender would encode the same linear pixels.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

DISPLAY = "sRGB"  # the display device every render uses (set in the base scene)


class ViewTransform:
    def __init__(self, ocio_config: Path, view: str) -> None:
        import PyOpenColorIO as ocio  # imported here: never in the same process as bpy's own OCIO

        config = ocio.Config.CreateFromFile(str(ocio_config))
        transform = ocio.DisplayViewTransform(src=ocio.ROLE_SCENE_LINEAR, display=DISPLAY, view=view)
        self._cpu = config.getProcessor(transform).getDefaultCPUProcessor()

    def to_8bit(self, linear: np.ndarray) -> np.ndarray:
        """Scene-linear RGBA (H×W×4) to display-encoded 8-bit RGB (H×W×3).

        RGBA because OpenColorIO applies its CPU processor to packed RGBA three times faster than to RGB.
        """
        pixels = np.array(linear, dtype=np.float32, order="C")
        self._cpu.applyRGBA(pixels)
        np.clip(pixels, 0.0, 1.0, out=pixels)
        pixels *= 255.0
        pixels += 0.5
        return pixels.astype(np.uint8)[..., :3]
