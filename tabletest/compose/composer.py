"""Composing one scene from its layers: the empty table plus each object's difference from it, in
linear light, then Blender's view transform; and the scene's object mask and depth.

Adding differences is exact for objects that stay apart in the image (each keeps its own shadow and
bounce light on the table); where two objects would overlap or touch, `touching` says so and the
scene is rendered directly instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tabletest.compose.layers import LayerSet, LoadedLayer
from tabletest.compose.png import PngEncoder
from tabletest.compose.view import ViewTransform


class Composer:
    """Composes scenes of one layer set; each layer is loaded once, memory-mapped."""

    def __init__(self, layers: LayerSet, view: str) -> None:
        self.layers = layers
        self.background = layers.background_pixels()
        self.view = ViewTransform(layers.ocio_config, view)
        self.background_8bit = np.ascontiguousarray(self.view.to_8bit(self.background))
        self.encoder = PngEncoder(self.background_8bit)
        self._loaded: dict[str, LoadedLayer] = {}

    def layer(self, stem: str) -> LoadedLayer:
        if stem not in self._loaded:
            self._loaded[stem] = self.layers.load(stem)
        return self._loaded[stem]

    def image(self, stems: Sequence[str]) -> tuple[np.ndarray, tuple[int, int]]:
        """8-bit RGB of the scene whose objects' layers are `stems`, left to right, and the rows
        (first, end) outside which it is the empty table."""
        parts = [layer for layer in map(self.layer, stems) if layer.diff_box]
        image = self.background_8bit.copy()
        if not parts:
            return image, (0, 0)
        x0, y0 = min(p.diff_box[0] for p in parts), min(p.diff_box[1] for p in parts)
        x1, y1 = max(p.diff_box[2] for p in parts), max(p.diff_box[3] for p in parts)
        linear = np.array(self.background[y0:y1, x0:x1])
        for part in parts:
            bx0, by0, bx1, by1 = part.diff_box
            linear[by0 - y0 : by1 - y0, bx0 - x0 : bx1 - x0] += part.diff
        image[y0:y1, x0:x1] = self.view.to_8bit(linear)
        return image, (y0, y1)

    def png(self, stems: Sequence[str]) -> bytes:
        """The scene's image as a PNG file."""
        return self.encoder.encode(*self.image(stems))

    def mask(self, stems: Sequence[str]) -> np.ndarray:
        """Per-pixel object label: 0 for none, 1 + the object's position from the left."""
        height, width = self.background.shape[:2]
        mask = np.zeros((height, width), dtype=np.uint8)
        for position, layer in enumerate(map(self.layer, stems)):
            if layer.mask_box:
                x0, y0, x1, y1 = layer.mask_box
                mask[y0:y1, x0:x1][layer.mask] = position + 1
        return mask

    def depth(self, stems: Sequence[str]) -> np.ndarray:
        """Per-pixel depth in millimetres: the empty table's, with each object's over its own pixels."""
        depth = np.array(self.layers.background_depth())
        for layer in map(self.layer, stems):
            if layer.mask_box:
                x0, y0, x1, y1 = layer.mask_box
                depth[y0:y1, x0:x1][layer.mask] = layer.depth[layer.mask]
        return depth


def touching(a: LoadedLayer, b: LoadedLayer) -> bool:
    """Whether the two objects' pixels overlap or are neighbours (8-connected) in the image."""
    if not (a.mask_box and b.mask_box):
        return False
    ax0, ay0, ax1, ay1 = a.mask_box
    bx0, by0, bx1, by1 = b.mask_box
    if ax1 < bx0 or bx1 < ax0 or ay1 < by0 or by1 < ay0:  # boxes more than one pixel apart
        return False
    x0, y0 = min(ax0, bx0) - 1, min(ay0, by0) - 1
    x1, y1 = max(ax1, bx1) + 1, max(ay1, by1) + 1
    grown = np.zeros((y1 - y0, x1 - x0), dtype=bool)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            grown[ay0 - y0 + dy : ay1 - y0 + dy, ax0 - x0 + dx : ax1 - x0 + dx] |= a.mask
    return bool((grown[by0 - y0 : by1 - y0, bx0 - x0 : bx1 - x0] & b.mask).any())
