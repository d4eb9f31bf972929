"""Reading Blender's multilayer EXR renders (one part per pass) without Blender."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def read_passes(path: Path) -> dict[str, np.ndarray]:
    """Every pass by Blender's name (`Combined`: H×W×4 RGBA, `Object Index`: H×W), top row first."""
    import OpenEXR  # imported here: the render extra's, and `tabletest render` checks for it first

    passes = {}
    with OpenEXR.File(str(path)) as exr:
        for part in exr.parts:
            _layer, _, name = part.name().partition(".")
            (pixels,) = [channel.pixels for channel in part.channels.values()]
            passes[name] = pixels
    return passes


def depth_millimetres(depth: np.ndarray) -> np.ndarray:
    """Blender's Depth pass (metres along the camera's viewing axis) as 16-bit millimetres: what a
    depth PNG holds. 0 where no surface was hit (the backdrop is the world, at infinity) or it lies
    beyond 65.535 m."""
    mm = np.rint(np.nan_to_num(depth, nan=0.0, posinf=0.0) * 1000.0)
    return np.where((mm > 0) & (mm <= 65535), mm, 0).astype(np.uint16)
