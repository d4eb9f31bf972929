"""A model as columns: over a grid on its footprint, the lowest and highest point of its surface in
each cell (in its own canonical frame: resting on z = 0, footprint centred on the origin).

Placement off the table plane needs the real shape, not the box: where a carrier's top is under each
point of what it carries, how far down the cavity of a container goes, where two objects meet side by
side. Treating each cell as solid from its lowest to its highest point is conservative: two objects
whose columns never overlap do not interpenetrate (to the grid's resolution, measured by
`scripts/bench_arrangements.py` against the exact meshes). Pure NumPy on the model file, so text
records know every relation without Blender, and the same file gives the same columns on any machine.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import trimesh

CELL_M = 0.002  # grid spacing: 2 mm
ROUND_M = 1e-5  # heights are rounded to this, so float noise never reaches a placement
COLUMNS_RULE = 1  # how `columns_of` measures a model: bump when it would measure one otherwise (cached columns are keyed by it)


@dataclass(frozen=True, eq=False)
class Columns:
    """`bottom[j, i]`/`top[j, i]`: the surface's lowest/highest z in cell (i, j), NaN where the model has
    nothing; cell (i, j) spans x0 + i·cell .. x0 + (i + 1)·cell (and y likewise)."""

    x0: float
    y0: float
    cell: float
    bottom: np.ndarray
    top: np.ndarray

    @property
    def filled(self) -> np.ndarray:
        return ~np.isnan(self.top)

    @cached_property
    def cells(self) -> int:
        """How many cells are filled: what a lookup of this model in another's columns costs grows with it."""
        return int(np.count_nonzero(self.filled))

    def cell_centers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """x, y (own frame), bottom and top of every filled cell, as flat arrays."""
        j, i = np.nonzero(self.filled)
        return self.x0 + (i + 0.5) * self.cell, self.y0 + (j + 0.5) * self.cell, self.bottom[j, i], self.top[j, i]

    def solid(self) -> tuple[float, np.ndarray]:
        """Volume and centre of mass of the model taken as uniform and solid from the lowest to the highest
        point of each cell: what physics weighs it by, and what its rest pose balances (a hull's own volume
        would put a lamp's centre of mass under its arm, in the air)."""
        x, y, bottom, top = self.cell_centers()
        volume = (top - bottom) * self.cell**2
        total = float(volume.sum())
        center = np.array([(x * volume).sum(), (y * volume).sum(), ((top + bottom) / 2 * volume).sum()])
        return total, center / max(total, 1e-12)

    def lookup(self, x: np.ndarray, y: np.ndarray, which: str, reach: int = 1) -> np.ndarray:
        """The highest `top` (or lowest `bottom`) within `reach` cells of each point (own frame), NaN off the
        model: a point between two grid samples takes the worse of its neighbours, never an interpolation."""
        grid = self._grown(which, reach)
        i = np.floor((x - self.x0) / self.cell).astype(int)
        j = np.floor((y - self.y0) / self.cell).astype(int)
        inside = (i >= 0) & (j >= 0) & (i < grid.shape[1]) & (j < grid.shape[0])
        out = np.full(x.shape, np.nan)
        out[inside] = grid[j[inside], i[inside]]
        return out

    def _grown(self, which: str, reach: int) -> np.ndarray:
        key = (which, reach)
        cache = self.__dict__.setdefault("_grown_cache", {})
        if key not in cache:
            cache[key] = _grow(self.top if which == "top" else -self.bottom, reach)
            if which == "bottom":
                cache[key] = -cache[key]
        return cache[key]


SCALARS, GRIDS = ("x0", "y0", "cell"), ("bottom", "top")  # what a kept copy holds (`to_npz`)


def to_npz(columns: Columns) -> bytes:
    """The columns as the user's cache keeps them (`read_npz` reads them back exactly)."""
    data = io.BytesIO()
    np.savez(data, **{name: getattr(columns, name) for name in SCALARS + GRIDS})
    return data.getvalue()


def read_npz(path: Path, cell: float = CELL_M) -> Columns | None:
    """Columns kept by `to_npz` with this cell size, or None where the file holds none (missing, cut short,
    other arrays, types or sizes): the model is then measured again, never judged by what the file says."""
    try:
        with np.load(path) as saved:
            if sorted(saved.files) != sorted(SCALARS + GRIDS):
                return None
            x0, y0, kept_cell, bottom, top = (saved[name] for name in SCALARS + GRIDS)
    except Exception:  # bytes of any kind: zipfile and NumPy raise many types (and a lone .npy has no `with`)
        return None
    numbers = all(a.shape == () and a.dtype == np.float64 and np.isfinite(a) for a in (x0, y0, kept_cell))
    if not numbers or kept_cell != cell or not _grids(bottom, top):
        return None
    return Columns(float(x0), float(y0), cell, bottom, top)


def _grids(bottom: np.ndarray, top: np.ndarray) -> bool:
    """Whether two arrays are a model's columns: float grids of one shape, empty in the same cells, and
    each filled cell's bottom at or above the table and at or below its top."""
    if bottom.dtype != np.float64 or top.dtype != np.float64 or bottom.ndim != 2 or bottom.shape != top.shape:
        return False
    filled = ~np.isnan(top)
    if bottom.size == 0 or not np.array_equal(filled, ~np.isnan(bottom)):
        return False
    low, high = bottom[filled], top[filled]
    return bool(np.isfinite(low).all() and np.isfinite(high).all() and (low >= 0).all() and (low <= high).all())


def _grow(values: np.ndarray, reach: int) -> np.ndarray:
    """The maximum over each cell's (2·reach + 1)² neighbourhood, NaN (nothing) ignored."""
    padded = np.pad(np.where(np.isnan(values), -np.inf, values), reach, constant_values=-np.inf)
    out = np.full(values.shape, -np.inf)
    rows, cols = values.shape
    for dj in range(2 * reach + 1):
        for di in range(2 * reach + 1):
            out = np.maximum(out, padded[dj : dj + rows, di : di + cols])
    return np.where(np.isinf(out), np.nan, out)


def columns_of(vertices: np.ndarray, faces: np.ndarray, cell: float = CELL_M) -> Columns:
    """Rasterise a triangle mesh (canonical frame) into columns: each triangle is sampled on a barycentric
    grid no coarser than half a cell in plan (its edges included, so walls seen edge-on from above, a mug's
    side or a bowl's rim, still fill their cells), and each cell keeps the lowest and highest sample."""
    lo, hi = vertices[:, :2].min(axis=0), vertices[:, :2].max(axis=0)
    x0, y0 = lo[0] - cell, lo[1] - cell
    nx, ny = int(math.ceil((hi[0] - x0) / cell)) + 2, int(math.ceil((hi[1] - y0) / cell)) + 2
    points = _surface_samples(vertices[faces], cell / 2)
    i = np.clip(np.floor((points[:, 0] - x0) / cell).astype(int), 0, nx - 1)
    j = np.clip(np.floor((points[:, 1] - y0) / cell).astype(int), 0, ny - 1)
    flat = j * nx + i
    top = np.full(nx * ny, -np.inf)
    bottom = np.full(nx * ny, np.inf)
    np.maximum.at(top, flat, points[:, 2])
    np.minimum.at(bottom, flat, points[:, 2])
    top = np.where(np.isinf(top), np.nan, np.round(top / ROUND_M) * ROUND_M).reshape(ny, nx)
    bottom = np.where(np.isinf(bottom), np.nan, np.round(np.maximum(bottom, 0.0) / ROUND_M) * ROUND_M).reshape(ny, nx)
    return Columns(round(float(x0), 6), round(float(y0), 6), cell, bottom, top)


def _surface_samples(triangles: np.ndarray, spacing: float) -> np.ndarray:
    """Points on every triangle, `spacing` apart or closer in plan: triangles with the same number of
    divisions n are sampled together on the grid (a/n, b/n) with a + b <= n."""
    lengths = np.linalg.norm((triangles - np.roll(triangles, 1, axis=1))[:, :, :2], axis=2).max(axis=1)
    divisions = np.maximum(1, np.ceil(lengths / spacing)).astype(int)
    samples = []
    for n in np.unique(divisions):
        a, b = np.meshgrid(np.arange(n + 1), np.arange(n + 1))
        keep = a + b <= n
        weights = np.c_[a[keep], b[keep], n - a[keep] - b[keep]] / n  # (P, 3)
        samples.append(np.einsum("pk,tkd->tpd", weights, triangles[divisions == n]).reshape(-1, 3))
    return np.concatenate(samples)


def merged(meshes: Sequence[trimesh.Trimesh]) -> tuple[np.ndarray, np.ndarray]:
    """The triangles of several meshes as one: vertices (n × 3) and faces, materials left behind."""
    offsets = np.cumsum([0] + [len(m.vertices) for m in meshes])
    vertices = np.concatenate([m.vertices for m in meshes])
    faces = np.concatenate([m.faces + offset for m, offset in zip(meshes, offsets)])
    return np.asarray(vertices, dtype=float), np.asarray(faces)
