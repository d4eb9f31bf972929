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
