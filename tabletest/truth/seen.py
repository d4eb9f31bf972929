"""What of each object the image shows, read from the render's object mask (`tabletest render --masks`: pixel
value 1 + the object's position in the record's `objects`): its visible pixels as COCO RLE (what a point is
judged against), their box (the gold of a box question: the visible extent, as COCO's boxes are), and the
point deepest inside them (the gold point, as far from the mask's edge as it gets).

An object shows too little to point at below `MIN_PIXEL_SHARE` of the image, or where no pixel lies
`MIN_DEPTH_PX` inside its mask (a sliver).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.ndimage import distance_transform_edt

from tabletest.files.rle import encode
from tabletest.layout.instances import label_of

MIN_PIXEL_SHARE = 0.001  # an object shows at least this share of the image's pixels to be pointed at ...
MIN_DEPTH_PX = 2.0  # ... and has a pixel this far inside its mask's edge


@dataclass(frozen=True)
class Seen:
    """One object as the image shows it."""

    label: str
    value: int  # its value in the mask
    pixels: int
    box: tuple[int, int, int, int]  # x0, y0, x1, y1: pixel edges, x1 and y1 one past its last column and row
    inner: tuple[float, float]  # the pixel centre deepest inside its mask
    depth: float  # how far inside, in pixels
    rle: dict

    @property
    def pointable(self) -> bool:
        return self.depth >= MIN_DEPTH_PX


def seen_objects(record: dict, mask: np.ndarray) -> dict[str, Seen]:
    """Each object the mask shows enough of, by label (an object it does not show is left out)."""
    height, width = mask.shape
    least = MIN_PIXEL_SHARE * width * height
    out = {}
    for position, obj in enumerate(record["objects"]):
        own = mask == position + 1
        count = int(own.sum())
        if count < max(1, least):
            continue
        rows, cols = np.flatnonzero(own.any(axis=1)), np.flatnonzero(own.any(axis=0))
        y0, y1, x0, x1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
        inside = distance_transform_edt(np.pad(own[y0:y1, x0:x1], 1))[1:-1, 1:-1]
        row, col = np.unravel_index(int(np.argmax(inside)), inside.shape)
        out[label_of(obj)] = Seen(
            label_of(obj), position + 1, count, (x0, y0, x1, y1), (x0 + col + 0.5, y0 + row + 0.5), float(inside[row, col]), encode(own)
        )
    return out
