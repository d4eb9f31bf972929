"""How much of an object an image shows, and what covers the rest (no bpy): from the Object Index
pass and the object's whole silhouette (every triangle of its meshes, projected by the worker)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

SUPERSAMPLE = 4  # silhouettes are filled at this many times the image resolution
# A silhouette's part outside the frame is filled at most this many image areas large (sub-sampled beyond:
# its share, not its outline, is what counts).
MAX_OUTSIDE_AREAS = 8


def visibility(silhouette: np.ndarray, index: np.ndarray, value: int) -> tuple[float, list[int]]:
    """The visible fraction of the object whose Object Index is `value`, and the labels of what covers
    it, both read off one fill of its silhouette (`silhouette`: one row per triangle, its three corners
    as x, y in sub-pixels of `SUPERSAMPLE`, centres at integers).

    The visible fraction: the seen share of its whole silhouette, in the frame or not. Of its sub-pixels
    in the frame whose pixel the Object Index pass gives to an object, those given to this one are seen,
    the others hidden (a pixel the pass gives to nothing, an edge pixel whose first sample missed it,
    counts neither way); every sub-pixel outside the frame is unseen. So an object nothing hides reads
    1.0, one wholly hidden 0.0, whatever its edge pixels do at the first sample, and one half out of the
    picture 0.5. What covers it: the objects the pass shows on pixels wholly inside its silhouette (an
    edge pixel may show a neighbour that only touches it), in label order."""
    height, width = index.shape
    filled = _fill(silhouette, (0, 0), (width * SUPERSAMPLE, height * SUPERSAMPLE), 1)
    filled = filled.reshape(height, SUPERSAMPLE, width, SUPERSAMPLE)
    labels = np.rint(index).astype(int)
    per_pixel = filled.sum(axis=(1, 3))  # sub-pixels of the silhouette in each pixel
    seen = int(per_pixel[labels == value].sum())
    hidden = int(per_pixel[(labels != value) & (labels != 0)].sum())  # where another object is seen
    hidden += _outside_frame(silhouette, width * SUPERSAMPLE, height * SUPERSAMPLE)
    covering = sorted(set(np.unique(labels[per_pixel == SUPERSAMPLE**2]).tolist()) - {0, value})
    return (round(seen / (seen + hidden), 3) if seen + hidden else 0.0), covering


def _fill(triangles: np.ndarray, origin: tuple[float, float], size: tuple[int, int], step: float) -> np.ndarray:
    """The triangles (sub-pixel corners) filled on a canvas of `size` cells, each `step` sub-pixels a side,
    whose first cell's centre is at `origin`."""
    canvas = Image.new("1", size, 0)
    draw = ImageDraw.Draw(canvas)
    corners = (triangles.reshape(-1, 3, 2) - origin) / step
    for triangle in corners.reshape(-1, 6).tolist():
        draw.polygon(triangle, fill=1)
    return np.asarray(canvas)


def _outside_frame(triangles: np.ndarray, width: int, height: int) -> int:
    """How many sub-pixels of the silhouette lie outside the frame of `width` x `height` sub-pixels (0 at
    once for one wholly inside). Filled on a canvas over the silhouette's box, coarser where that is larger
    than `MAX_OUTSIDE_AREAS` frames, each coarse cell counting for the sub-pixels it stands for."""
    if not len(triangles):
        return 0
    xs, ys = triangles[:, 0::2], triangles[:, 1::2]
    x0, y0 = np.floor([xs.min(), ys.min()])
    x1, y1 = np.ceil([xs.max(), ys.max()])
    if x0 >= -0.5 and y0 >= -0.5 and x1 <= width - 0.5 and y1 <= height - 0.5:
        return 0
    step = max(1, int(np.ceil(np.sqrt((x1 - x0 + 1) * (y1 - y0 + 1) / (MAX_OUTSIDE_AREAS * width * height)))))
    size = (int((x1 - x0) // step) + 1, int((y1 - y0) // step) + 1)
    filled = _fill(triangles, (x0, y0), size, step)
    cx = x0 + step * np.arange(size[0])  # each cell's centre, in the frame's sub-pixels
    cy = y0 + step * np.arange(size[1])
    inside = ((cy >= -0.5) & (cy < height - 0.5))[:, None] & ((cx >= -0.5) & (cx < width - 0.5))[None, :]
    return int(filled[~inside].sum()) * step * step
