"""Small generated textures for the recipes (PIL images mapped by a part's UVs), seeded so every
build gives the same bytes: peel dimples, speckles, stripes. Colours are 0..1 RGB."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import Image

Color = Sequence[float]


def image_of(rgb: np.ndarray) -> Image.Image:
    """An (h, w, 3) array of 0..1 colours as an 8-bit RGB image."""
    return Image.fromarray(np.clip(np.round(rgb * 255), 0, 255).astype(np.uint8), "RGB")


def smooth_noise(size: int, cells: int, seed: int) -> np.ndarray:
    """Tileable value noise in 0..1 of shape (size, size): `cells` random values per side, bilinearly blended."""
    grid = np.random.default_rng(seed).random((cells, cells))
    t = np.arange(size) * cells / size
    i0 = t.astype(int)
    f = t - i0
    f = f * f * (3 - 2 * f)
    i1 = (i0 + 1) % cells
    rows = grid[i0] * (1 - f)[:, None] + grid[i1] * f[:, None]
    return rows[:, i0] * (1 - f)[None, :] + rows[:, i1] * f[None, :]


def mottled(base: Color, variation: float, seed: int, size: int = 128, cells: int = 24) -> Image.Image:
    """A colour with fine, soft light-dark variation (citrus peel, bread crust, meat)."""
    noise = 0.6 * smooth_noise(size, cells, seed) + 0.4 * smooth_noise(size, cells * 3, seed + 1)
    shade = 1 + variation * (noise - 0.5) * 2
    return image_of(np.asarray(base)[None, None, :3] * shade[..., None])


def blend(base: Color | np.ndarray, other: Color | np.ndarray, weight: np.ndarray) -> Image.Image:
    """`base` where `weight` is 0, `other` where it is 1: each a colour or an (h, w, 3) 0..1 array."""
    a, b = (np.asarray(c, dtype=float) for c in (base, other))
    a, b = (c[..., :3] if c.ndim == 3 else c[:3] for c in (a, b))
    return image_of(a * (1 - weight[..., None]) + b * weight[..., None])


def spots(count: int, radius_px: float, seed: int, size: int = 256) -> np.ndarray:
    """A (size, size) weight in 0..1: `count` soft round spots scattered at random (seeds, freckles, pores)."""
    rng = np.random.default_rng(seed)
    weight = np.zeros((size, size))
    reach = int(np.ceil(1.5 * radius_px))
    offsets = np.arange(-reach, reach + 1)
    for cx, cy in rng.random((count, 2)) * size:
        xs, ys = np.floor(cx).astype(int) + offsets, np.floor(cy).astype(int) + offsets
        falloff = np.clip(1.5 - np.hypot(xs[None, :] - cx, ys[:, None] - cy) / radius_px, 0, 1)
        rows, cols = ys.clip(0, size - 1)[:, None], (xs % size)[None, :]  # wrap around in u so the texture tiles
        weight[rows, cols] = np.maximum(weight[rows, cols], falloff)
    return weight


def speckled(base: Color, spot: Color, count: int, radius_px: float, seed: int, size: int = 256) -> Image.Image:
    """Round spots of `spot` colour scattered over `base`."""
    return blend(base, spot, spots(count, radius_px, seed, size))


def stripe_weight(count: int, width: float, wobble: float, seed: int, size: int = 256, across: bool = False,
                  cells: int = 8) -> np.ndarray:
    """A (size, size) weight in 0..1: `count` stripes of constant u (along a lathe's length), each `width`
    of its period, wavy by `wobble` (noise of `cells` per side: more cells, more jagged); `across` turns
    them into rings of constant v."""
    yy, xx = np.mgrid[0:size, 0:size] / size
    wave = wobble * (smooth_noise(size, cells, seed) - 0.5)
    phase = ((yy if across else xx) * count + wave * count) % 1.0
    return np.clip((width / 2 - np.abs(phase - 0.5)) * size / count + 0.5, 0, 1)  # soft edge of about a pixel


def stripes(base: Color, stripe: Color, count: int, width: float, wobble: float, seed: int, size: int = 256,
            across: bool = False, cells: int = 8) -> Image.Image:
    """Wavy stripes of `stripe` colour over `base` (melon, pumpkin grooves, carrot rings); see `stripe_weight`."""
    return blend(base, stripe, stripe_weight(count, width, wobble, seed, size, across, cells))
