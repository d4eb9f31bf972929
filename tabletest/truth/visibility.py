"""How much of an object an image shows, and what covers the rest (no bpy): from the Object Index
pass and the object's whole silhouette (every triangle of its meshes, projected by the worker)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

SUPERSAMPLE = 4  # silhouettes are filled at this many times the image resolution


def visibility(silhouette: np.ndarray, index: np.ndarray, value: int) -> tuple[float, list[int]]:
    """The visible fraction of the object whose Object Index is `value`, and the labels of what covers
    it, both read off one fill of its silhouette (`silhouette`: one row per triangle, its three corners
    as x, y in sub-pixels of `SUPERSAMPLE`, centres at integers).

    The visible fraction: of its silhouette's sub-pixels whose pixel the Object Index pass gives to an
    object, the share given to this one (a pixel the pass gives to nothing, an edge pixel whose first
    sample missed it, counts neither way), so an object nothing hides reads 1.0 and one wholly hidden
    0.0, whatever its edge pixels do at the first sample. What covers it: the objects the pass shows
    on pixels wholly inside its silhouette (an edge pixel may show a neighbour that only touches it),
    in label order."""
    height, width = index.shape
    filled_image = Image.new("1", (width * SUPERSAMPLE, height * SUPERSAMPLE), 0)
    draw = ImageDraw.Draw(filled_image)
    for triangle in silhouette.tolist():
        draw.polygon(triangle, fill=1)
    filled = np.asarray(filled_image).reshape(height, SUPERSAMPLE, width, SUPERSAMPLE)
    labels = np.rint(index).astype(int)
    per_pixel = filled.sum(axis=(1, 3))  # sub-pixels of the silhouette in each pixel
    seen = int(per_pixel[labels == value].sum())
    hidden = int(per_pixel[(labels != value) & (labels != 0)].sum())  # where another object is seen
    covering = sorted(set(np.unique(labels[per_pixel == SUPERSAMPLE**2]).tolist()) - {0, value})
    return (round(seen / (seen + hidden), 3) if seen + hidden else 0.0), covering
