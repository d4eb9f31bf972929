"""How the camera moved between two views of one scene, decided from the two records' `world_to_camera`
alone: the turn round the table's vertical axis (both cameras aim at one point, so the angle the camera went
round it), and each camera's distance to the point both look at, where their optical axes cross.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tabletest.layout.camera import CameraView

# Where two optical axes cross is the point both cameras look at: fixed to millimetres by poses of six decimals
# from this angle between the axes (two views drawn at random are never nearer parallel) ...
AXES_APART_DEG = 0.1
AXES_MEET_M = 0.01  # ... and two axes that pass further apart than this look at different points


@dataclass(frozen=True)
class CameraMotion:
    """How the camera moved from one photo to another, from their world-to-camera poses."""

    turn_deg: float  # round the table's vertical axis; positive: to the first view's right (anticlockwise from above)
    distances_m: tuple[float, float] | None  # each camera's to the point both look at; None where the poses do not fix it


def camera_motion(first: dict, second: dict) -> CameraMotion:
    """The turn of the view direction about the vertical (both cameras aim at one point, so the angle the camera
    went round it) and the distances along each optical axis to where the two axes meet."""
    a, b = CameraView.from_record(first), CameraView.from_record(second)
    fa, fb = a.rotation[2], b.rotation[2]
    turn = math.degrees(math.atan2(fb[1], fb[0]) - math.atan2(fa[1], fa[0]))
    return CameraMotion((turn + 180.0) % 360.0 - 180.0, _look_at_distances(a.position, fa, b.position, fb))


def _look_at_distances(pa: np.ndarray, fa: np.ndarray, pb: np.ndarray, fb: np.ndarray) -> tuple[float, float] | None:
    """How far along each axis (from `pa` along unit `fa`, from `pb` along unit `fb`) the two come closest, where
    they meet in front of both cameras at an angle that fixes the point; None otherwise."""
    cos = float(fa @ fb)
    if cos > math.cos(math.radians(AXES_APART_DEG)):
        return None
    w = pa - pb
    d, e = float(fa @ w), float(fb @ w)
    s, u = (cos * e - d) / (1 - cos**2), (e - cos * d) / (1 - cos**2)
    if s <= 0 or u <= 0 or np.linalg.norm(pa + s * fa - pb - u * fb) > AXES_MEET_M:
        return None
    return s, u
