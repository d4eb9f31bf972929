"""Where in an image a point or a box answer lands, judged exactly and without NumPy: a point against an object's
visible mask (COCO RLE) or against a free-space region (a convex table region, half-planes, object outlines), a
box against the gold box by IoU. The judge and the balance report's text-only reader both judge so.

Coordinates: x to the right and y down from the image's top-left corner, in one of the main model families'
conventions (`COORDINATES`): absolute pixels (Qwen2.5-VL), 0-1000 (Qwen2-VL, InternVL), 0-1, or percent
(Molmo's points). A pixel (i, j) covers [i, i+1) x [j, j+1), so a point at (12.7, 40.2) is in pixel (12, 40).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tabletest.files.rle import covers

# convention -> the value that stands for the image's full width (and height); None: pixels
COORDINATES: dict[str, float | None] = {"pixels": None, "0-1000": 1000.0, "0-1": 1.0, "percent": 100.0}
BOX_IOU = 0.5  # a box answer is right at this IoU with the gold box or more
Point = tuple[float, float]
Box = tuple[float, float, float, float]


def to_pixels(values: Sequence[float], coordinates: str, size: Sequence[int]) -> tuple[float, ...]:
    """x, y (, x, y) in `coordinates` as pixels of an image of `size` (width, height)."""
    full = COORDINATES[coordinates]
    if full is None:
        return tuple(float(v) for v in values)
    return tuple(float(v) / full * size[i % 2] for i, v in enumerate(values))


def from_pixels(values: Sequence[float], coordinates: str, size: Sequence[int]) -> tuple[float, ...]:
    """Pixels as `coordinates`: the inverse of `to_pixels`."""
    full = COORDINATES[coordinates]
    if full is None:
        return tuple(float(v) for v in values)
    return tuple(float(v) * full / size[i % 2] for i, v in enumerate(values))


def point_hits(question: dict, point: Point) -> bool:
    """Whether a point (pixels) is where the question asks: on the object's visible mask, or in its free region."""
    if "region" in question:
        return in_region(question["region"], point)
    x, y = point
    return math.isfinite(x) and math.isfinite(y) and covers(question["mask"], math.floor(x), math.floor(y))


def in_region(region: dict, point: Point) -> bool:
    """Inside the convex `table` polygon, on the kept side of every half-plane `sides` (a*x + b*y + c >= 0), and
    outside every object's outline (`objects`, convex polygons)."""
    x, y = point
    if not (math.isfinite(x) and math.isfinite(y)) or not in_convex(region["table"], point):
        return False
    if any(a * x + b * y + c < 0 for a, b, c in region["sides"]):
        return False
    return not any(in_convex(outline, point) for outline in region["objects"])


def in_convex(polygon: Sequence[Sequence[float]], point: Point) -> bool:
    """Inside or on a convex polygon, its corners in either turning order."""
    x, y = point
    sign = 0.0
    for (x0, y0), (x1, y1) in zip(polygon, [*polygon[1:], polygon[0]]):
        cross = (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)
        if cross * sign < 0:
            return False
        sign = sign or cross
    return len(polygon) >= 3


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two boxes [x0, y0, x1, y1], each corner pair in either order."""
    ax0, ax1 = sorted((a[0], a[2]))
    ay0, ay1 = sorted((a[1], a[3]))
    bx0, bx1 = sorted((b[0], b[2]))
    by0, by1 = sorted((b[1], b[3]))
    width, height = min(ax1, bx1) - max(ax0, bx0), min(ay1, by1) - max(ay0, by0)
    inter = max(0.0, width) * max(0.0, height)
    union = (ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - inter
    return inter / union if union > 0 and math.isfinite(union) else 0.0


def box_hits(question: dict, box: Box) -> bool:
    """Whether a box (pixels) overlaps the gold box by IoU at least BOX_IOU."""
    return iou(box, tuple(question["answer"])) >= BOX_IOU
