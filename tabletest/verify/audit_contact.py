"""`tabletest verify` for relations off the table plane: each object's mask pixels, back-projected through
the depth pass and the recorded camera, give the points of it the image shows, in the world. An object
`on` or `inside` another must show no point down at the table and its middle over the other; one
`inside` must also show points below the other's highest; one `above` another shows no point lower than
the other's highest. (Touching and next to need the surfaces where they meet, which the pixels rarely show.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from tabletest.truth.relation_table import STACKED

OFF_TABLE_M = 0.005  # a carried object's lowest visible point is at least this far above the table
OVER_M = 0.01  # its middle (median of its points in plan) lies within the other's points grown by this
LEVEL_M = 0.004  # heights compared within this (the depth pass is in whole millimetres)
MIN_POINTS = 8  # fewer visible pixels say too little to check a relation with


def world_points(p: np.ndarray, depth: np.ndarray, K: np.ndarray, world_to_camera: np.ndarray) -> np.ndarray:
    """The world points (3 × n) the mask `p`'s pixels show, from the depth pass (millimetres along the view axis)."""
    z = depth[p].astype(float) / 1000
    rows, cols = np.nonzero(p)
    rays = np.linalg.solve(K, np.stack([cols + 0.5, rows + 0.5, np.ones_like(z)]))
    rotation, translation = world_to_camera[:3, :3], world_to_camera[:3, 3]
    return rotation.T @ (rays * z - translation[:, None])


def check_off_plane(
    check: Callable[[bool, str], None], relations: Mapping, terms: Mapping, points: Sequence[np.ndarray | None], table_top: float
) -> None:
    """`check(ok, what)` once for each on, inside and above pair whose objects both show enough pixels."""
    for key in STACKED:
        for pair in relations.get(key) or []:
            a, b = (terms.get(t) for t in pair[:2]) if isinstance(pair, list) and len(pair) >= 2 else (None, None)
            if a is None or b is None or points[a] is None or points[b] is None:
                continue
            pa, pb = points[a], points[b]
            low_a, high_b = float(np.percentile(pa[2], 2)), float(np.percentile(pb[2], 98))
            if key == "above":
                check(low_a >= high_b - LEVEL_M, f"above {pair}: pixels put the {pair[0]}'s lowest point {high_b - low_a:.3f} m under the {pair[1]}'s highest")
                continue
            middle = np.median(pa[:2], axis=1)
            lo, hi = pb[:2].min(axis=1) - OVER_M, pb[:2].max(axis=1) + OVER_M
            over = bool(np.all((middle >= lo) & (middle <= hi)))
            lifted = low_a >= table_top + OFF_TABLE_M
            sunk = key != "inside" or low_a <= high_b + LEVEL_M
            check(
                over and lifted and sunk,
                f"{key} {pair}: pixels put the {pair[0]}'s lowest point {low_a - table_top:.3f} m above the table, its middle "
                f"{'over' if over else 'not over'} the {pair[1]}" + ("" if sunk else f", {low_a - high_b:.3f} m above its top"),
            )


def object_points(
    pixels: Sequence[np.ndarray], depth: np.ndarray, K: np.ndarray, world_to_camera: np.ndarray
) -> list[np.ndarray | None]:
    """Each object's visible world points (None where it shows too few pixels, or a pixel without depth)."""
    out: list[np.ndarray | None] = []
    for p in pixels:
        usable = int(p.sum()) >= MIN_POINTS and bool((depth[p] > 0).all())
        out.append(world_points(p, depth, K, world_to_camera) if usable else None)
    return out
