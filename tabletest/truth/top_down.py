"""The scene seen from above, the viewer at the bottom: each object's cell on a grid over the objects and where
its front faces, for map questions and map targets (map-then-answer training, as MindCube's cognitive maps).

The grid is a square over the objects' box centres on the table, in the viewer's frame (across: the viewer's
right; up: away from the viewer along the view), as wide as the larger of their two spreads and centred on
them, cut into `GRID` by `GRID` cells. It spans the objects rather than the table because the table is
seldom whole in the picture, and a grid over what the picture does not show could not be read off it. A
coordinate within the records' margins of a line between cells (`LATERAL_M` across, `DEPTH_M` along the view,
as left/right and in front/behind are withheld) leaves the object's cell withheld (None); so does a grid
narrower than `MIN_SPAN_M`.

Facing: an object with a front faces away from the viewer, towards them, to their left or to their right,
whichever its front lies within 45° of on the table; withheld within `FACING_BAND_DEG` of the diagonals between.
"""

from __future__ import annotations

import math

import numpy as np

from tabletest.truth.scene_facts import DEPTH_M, LATERAL_M, SceneGeometry, Thing

GRID = 3
MIN_SPAN_M = 0.2  # a grid narrower than this says nothing the objects' left-right and front-behind do not
FACING_BAND_DEG = 15.0
ROWS = ("top", "middle", "bottom")  # far from the viewer at the top
COLUMNS = ("left", "middle", "right")
CELLS = tuple("centre" if (r, c) == ("middle", "middle") else f"{r} {c}" for r in ROWS for c in COLUMNS)
FACINGS = ("away", "right", "towards", "left")  # clockwise from away, seen from above


def ground(g: SceneGeometry, a: Thing) -> tuple[float, float]:
    """Where a's box centre stands on the table: metres to the viewer's right, and away from them along the view."""
    forward = g.view.ground_forward
    right = np.array([forward[1], -forward[0]])
    return float(a.center[:2] @ right), float(a.center[:2] @ forward)


def square(g: SceneGeometry) -> tuple[float, float, float] | None:
    """The grid's left edge, far edge and side in metres (the viewer's frame); None for a text record, fewer than
    two objects or a spread under MIN_SPAN_M."""
    if g.view is None or len(g.things) < 2:
        return None
    places = np.array([ground(g, t) for t in g.things])
    low, high = places.min(axis=0), places.max(axis=0)
    side = float(max(high - low))
    if side < MIN_SPAN_M:
        return None
    middle = (low + high) / 2
    return float(middle[0] - side / 2), float(middle[1] + side / 2), side


def cell(g: SceneGeometry, a: Thing) -> str | None:
    """The cell holding a's box centre (`CELLS`), or None within a margin of a line between cells."""
    grid = square(g)
    if grid is None:
        return None
    left, far, side = grid
    across, along = ground(g, a)
    column = _band(across - left, side, LATERAL_M)
    row = _band(far - along, side, DEPTH_M)
    return None if column is None or row is None else CELLS[row * GRID + column]


def _band(offset: float, side: float, margin: float) -> int | None:
    """Which of GRID bands `offset` (0 to `side`) falls in; None within `margin` of a line between two."""
    width = side / GRID
    index = min(GRID - 1, max(0, math.floor(offset / width)))
    lines = [k * width for k in range(1, GRID)]
    return None if any(abs(offset - line) < margin for line in lines) else index


def facing(g: SceneGeometry, a: Thing) -> str | None:
    """Where a's front points seen from above (`FACINGS`); None for an object without a front, or within
    FACING_BAND_DEG of a diagonal."""
    if g.view is None or not a.has_front:
        return None
    forward = g.view.ground_forward
    right = np.array([forward[1], -forward[0]])
    angle = math.degrees(math.atan2(float(a.front @ right), float(a.front @ forward))) % 360  # clockwise from away
    quarter, off = divmod(angle + 45, 90)
    if min(off, 90 - off) < FACING_BAND_DEG:
        return None
    return FACINGS[int(quarter) % 4]


def scene_map(g: SceneGeometry) -> dict | None:
    """Every object's cell and, for one with a front, its facing (None where withheld): the map target."""
    if square(g) is None:
        return None
    objects = []
    for t in g.things:
        entry: dict = {"object": t.name, "cell": cell(g, t)}
        if t.has_front:
            entry["facing"] = facing(g, t)
        objects.append(entry)
    return {"grid": f"{GRID}x{GRID}", "objects": objects}
