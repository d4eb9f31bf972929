"""Numbered marks on the objects (set-of-marks prompting), placed from the render's object mask so that a mark
is read as its object's and hides little of any object.

Each object the mask shows enough of (`truth.seen`) gets a disc `RADIUS_SHARE` of the image's width in radius
(at least `MIN_RADIUS_PX`): inside the object, at its deepest point, where the disc fits wholly inside it and
covers at most `MAX_COVER` of its visible pixels; else just beside it, on pixels no object shows, as near
its deepest point as there is room, clear of the marks placed before. An object with room for neither is
left unmarked (and no question names it by a mark). The numbers run 1 to n in an order drawn from the scene's
id alone, so that they say nothing of where the objects stand and the same record always gets the same marks.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np
from scipy.ndimage import distance_transform_edt

from tabletest.truth.seen import Seen

RADIUS_SHARE = 0.016  # a mark's radius: this share of the image's width ...
MIN_RADIUS_PX = 7.0  # ... and at least this, for two digits to read
MAX_COVER = 0.2  # a mark covers at most this share of an object's visible pixels
BESIDE_PX = 3.0  # a mark beside its object: its edge at most this far from the object's pixels
GAP_PX = 2.0  # between a mark and what it must not touch (another object, another mark)


@dataclass(frozen=True)
class Mark:
    number: int
    label: str  # the object's label
    centre: tuple[float, float]  # pixels
    radius: float
    inside: bool  # on the object (else beside it)


def radius(width: int) -> float:
    return max(MIN_RADIUS_PX, RADIUS_SHARE * width)


def place_marks(scene_id: str, mask: np.ndarray, seen: dict[str, Seen]) -> list[Mark]:
    """The marks of one image, numbered; `seen`: its objects as the mask shows them, in the record's order."""
    height, width = mask.shape
    r = radius(width)
    clear_of_objects = distance_transform_edt(mask == 0)  # each pixel's distance to the nearest object pixel
    placed: list[tuple[str, tuple[float, float], bool]] = []
    for shown in seen.values():
        if not shown.pointable:
            continue
        centre = _inside(shown, r) or _beside(mask, shown, r, clear_of_objects, [c for _, c, _ in placed])
        if centre is not None:
            placed.append((shown.label, centre, centre == shown.inner))
    numbers = list(range(1, len(placed) + 1))
    random.Random(f"marks:{scene_id}").shuffle(numbers)
    return sorted((Mark(n, label, centre, r, inside) for n, (label, centre, inside) in zip(numbers, placed)), key=lambda m: m.number)


def _inside(shown: Seen, r: float) -> tuple[float, float] | None:
    """The object's deepest point, where a disc of radius r fits inside it and covers at most MAX_COVER of it."""
    fits = shown.depth >= r + GAP_PX and math.pi * r * r <= MAX_COVER * shown.pixels
    return shown.inner if fits else None


def _beside(
    mask: np.ndarray, shown: Seen, r: float, clear_of_objects: np.ndarray, taken: list[tuple[float, float]]
) -> tuple[float, float] | None:
    """The pixel centre nearest the object's deepest point whose disc touches no object, lies within BESIDE_PX of
    this one and nearer it than any other object by GAP_PX (so it reads as this one's), stays in the image and
    clear of the marks in `taken`."""
    height, width = mask.shape
    reach = 2 * int(math.ceil(r + BESIDE_PX + GAP_PX)) + 1  # every object nearer a candidate than its own is in view
    x0, y0, x1, y1 = shown.box
    left, top = max(0, x0 - reach), max(0, y0 - reach)
    right, bottom = min(width, x1 + reach), min(height, y1 + reach)
    crop = mask[top:bottom, left:right]
    to_own = distance_transform_edt(crop != shown.value)
    to_others = distance_transform_edt((crop == 0) | (crop == shown.value))
    ys, xs = np.mgrid[top:bottom, left:right]
    cx, cy = xs + 0.5, ys + 0.5
    ok = (clear_of_objects[top:bottom, left:right] >= r + GAP_PX) & (to_own <= r + BESIDE_PX) & (to_own + GAP_PX <= to_others)
    ok &= (cx >= r) & (cx <= width - r) & (cy >= r) & (cy <= height - r)
    for tx, ty in taken:
        ok &= np.hypot(cx - tx, cy - ty) >= 2 * r + GAP_PX
    if not ok.any():
        return None
    far = np.where(ok, np.hypot(cx - shown.inner[0], cy - shown.inner[1]), np.inf)
    row, col = np.unravel_index(int(np.argmin(far)), far.shape)
    return float(cx[row, col]), float(cy[row, col])


def covered(mask: np.ndarray, marks: list[Mark]) -> dict[int, float]:
    """The share of each object's visible pixels (by mask value) that the marks' discs cover."""
    height, width = mask.shape
    ys, xs = np.mgrid[0:height, 0:width]
    disc = np.zeros(mask.shape, dtype=bool)
    for m in marks:
        disc |= np.hypot(xs + 0.5 - m.centre[0], ys + 0.5 - m.centre[1]) <= m.radius
    values, counts = np.unique(mask[mask > 0], return_counts=True)
    hidden = dict(zip(*np.unique(mask[disc & (mask > 0)], return_counts=True)))
    return {int(v): float(hidden.get(v, 0)) / float(n) for v, n in zip(values, counts)}
