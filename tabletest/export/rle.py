"""COCO's compressed run-length encoding of a binary mask, in NumPy (no compiled pycocotools needed).

Runs are counted down the columns (Fortran order), starting with a run of zeros; each count, minus
the count two before it from the fourth on, is written 5 bits at a time as characters 48-111
(pycocotools' `rleToString`).
"""

from __future__ import annotations

import numpy as np


def run_lengths(mask: np.ndarray) -> list[int]:
    flat = np.asarray(mask, dtype=bool).ravel(order="F")
    changes = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    counts = np.diff(np.concatenate([[0], changes, [flat.size]])).tolist()
    return [0, *counts] if flat.size and flat[0] else counts


def encode(mask: np.ndarray) -> dict:
    """`{"size": [h, w], "counts": str}`, as `pycocotools.mask.encode` gives it (counts decoded to text)."""
    counts = run_lengths(mask)
    chars = []
    for i, count in enumerate(counts):
        x = count - counts[i - 2] if i > 2 else count
        more = True
        while more:
            c = x & 0x1F
            x >>= 5
            more = x != -1 if c & 0x10 else x != 0
            chars.append(chr((c | 0x20 if more else c) + 48))
    return {"size": [int(mask.shape[0]), int(mask.shape[1])], "counts": "".join(chars)}
