"""Which way an object faces: its front on the table, that direction as the viewer sees it (one of eight words,
or a clock hour), and how two fronts, or a front and another object, lie to each other.

An object's front is −Y of its model turned by the catalog's `front_deg` (a spout on −X: −90), then by its own
yaw. As the viewer sees it, a direction is an angle on the table measured clockwise seen from above from "away":
the viewer's line of sight through the object, so 0 is away from the viewer, 90 to the viewer's right, 180
towards the viewer and 270 to the viewer's left. A careful person could name a direction near the line between
two words (or two hours) either way: eight words 45° apart are withheld within `BAND_DEG` of a boundary, and the
hours, 30° apart, within `HOUR_BAND_DEG`, so either is said only of a front within 7.5° of the direction it names.
Two fronts face the same way within 45° of each other and opposite ways within 45° of opposite, and an object
faces another standing within 45° of its front (faces away: of its back), each withheld within `BAND_DEG` of 45°.

Every function here is pure arithmetic on positions and angles (NumPy only), so the questions, the counterfactual
partners' differences, the maps and `tabletest verify` decide a facing the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tabletest.truth.relation_table import BAND_DEG, SECTOR_DEG  # the eight words' spacing and their withheld band

HOUR_BAND_DEG = 7.5  # a facing's clock hour: the hours are 30° apart, so half of each is asked
# the eight directions as the viewer sees them, clockwise seen from above from straight away from the viewer
DIRECTIONS = ("away", "away and right", "right", "towards and right", "towards", "towards and left", "left", "away and left")
# the order a question offers them in: the four sides, then the diagonals
OPTIONS = ("towards", "away", "left", "right", "towards and left", "towards and right", "away and left", "away and right")
MIN_SIGHT_M = 1e-6  # an object this near straight below the viewer has no line of sight on the table


@dataclass(frozen=True)
class Facing:
    """Which way an object's front points as the viewer sees it: its angle (clockwise from away, 0-360), the
    word for it and its clock hour (12 away from the viewer, 3 to the right), each None where withheld."""

    angle_deg: float
    direction: str | None
    hour: int | None


def front_vector(yaw_deg: float, front_deg: float = 0.0) -> np.ndarray:
    """An object's front on the table (x, y): −Y of its model turned by `front_deg` and its yaw, both
    anticlockwise seen from above."""
    t = math.radians(yaw_deg + front_deg)
    return np.array([math.sin(t), -math.cos(t)])


def facing(front: np.ndarray, at: np.ndarray, viewer: np.ndarray) -> Facing | None:
    """Which way a front (x, y on the table) of an object standing `at` points as a viewer standing at `viewer`
    sees it (positions in the table's frame; only x and y are read); None where the viewer looks straight down on it."""
    away = np.asarray(at[:2], dtype=float) - np.asarray(viewer[:2], dtype=float)
    if np.linalg.norm(away) < MIN_SIGHT_M:
        return None
    right = np.array([away[1], -away[0]])  # the viewer's right, looking along `away`
    angle = math.degrees(math.atan2(float(front @ right), float(front @ away))) % 360
    return Facing(round(angle, 3), word_of(angle), hour_of(angle))


def word_of(angle_deg: float) -> str | None:
    """The word for a direction (clockwise from away), None within `BAND_DEG` of the line between two."""
    sector, off = _nearest(angle_deg, SECTOR_DEG)
    return DIRECTIONS[sector % len(DIRECTIONS)] if off <= SECTOR_DEG / 2 - BAND_DEG else None


def hour_of(angle_deg: float) -> int | None:
    """The clock hour of a direction (12 away, 3 to the right), None within `HOUR_BAND_DEG` of the line between two."""
    hour, off = _nearest(angle_deg, 30.0)
    return (hour % 12 or 12) if off <= 15.0 - HOUR_BAND_DEG else None


def _nearest(angle_deg: float, step: float) -> tuple[int, float]:
    """The nearest multiple of `step` to an angle (its count) and how far the angle is from it."""
    count = round((angle_deg % 360) / step)
    return count, abs((angle_deg % 360) - count * step)


def between_fronts(a: np.ndarray, b: np.ndarray) -> float:
    """The angle between two fronts on the table, 0 (the same way) to 180 (opposite ways)."""
    return _angle(a, b)


def bearing(front: np.ndarray, at: np.ndarray, other: np.ndarray) -> float | None:
    """How far off its front another object stands from one at `at`, 0 (straight ahead) to 180 (straight
    behind); None where the two stand at the same place."""
    towards = np.asarray(other[:2], dtype=float) - np.asarray(at[:2], dtype=float)
    return None if np.linalg.norm(towards) < MIN_SIGHT_M else _angle(front, towards)


def within(angle_deg: float | None, near: float) -> bool | None:
    """Whether an angle (0-180) is within 45° of `near` (0 or 180): True within 45° less the band, False beyond 45°
    and the band, None between or where there is no angle."""
    if angle_deg is None:
        return None
    off = abs(angle_deg - near)
    return True if off <= SECTOR_DEG - BAND_DEG else False if off >= SECTOR_DEG + BAND_DEG else None


def _angle(u: np.ndarray, v: np.ndarray) -> float:
    cos = float(u @ v) / (float(np.linalg.norm(u)) * float(np.linalg.norm(v)))
    return math.degrees(math.acos(max(-1.0, min(1.0, cos))))
