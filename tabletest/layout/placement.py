"""Where each object stands: slots, resting yaw and table position, from the asset boxes and the camera.

Each object's 3D box centre projects exactly onto its slot (−200/0/+200 px from the projected
table centre at 1024 px width, scaled with width). Objects stand on the table top on the table's
centre line. The resting yaw turns an object whose footprint is too wide for its slot so that it
fits, as little as possible (the smallest turn in `YAW_STEPS` that fits), keeping its front towards
the camera where it can.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tabletest.config import Config
from tabletest.layout.camera import PinholeCamera

SLOT_UNITS = {1: (0,), 2: (-1, 1), 3: (-1, 0, 1)}
SLOT_NAMES = {1: ("middle",), 2: ("left", "right"), 3: ("left", "middle", "right")}
REFERENCE_WIDTH = 1024
YAW_STEPS = (0.0, 30.0, 45.0, 60.0, 75.0, 90.0)
MAX_FOOTPRINT_WIDTH_M = 0.25


@dataclass(frozen=True)
class Placement:
    """One object on the table: world position of its origin (on the table top), yaw, slot."""

    slot: str
    position_m: tuple[float, float, float]
    yaw_deg: float
    size_m: tuple[float, float, float]  # its box, in its own frame (dx, dy, dz)

    def box_corners(self) -> np.ndarray:
        """The 8 corners of its 3D box, turned with it, in world coordinates."""
        dx, dy, dz = self.size_m
        xs, ys, zs = np.meshgrid([-dx / 2, dx / 2], [-dy / 2, dy / 2], [0.0, dz], indexing="ij")
        corners = np.stack([xs.ravel(), ys.ravel(), zs.ravel()], axis=1)
        t = np.radians(self.yaw_deg)
        rot = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
        return corners @ rot.T + np.asarray(self.position_m)

    @property
    def box_center(self) -> tuple[float, float, float]:
        x, y, z = self.position_m
        return (x, y, z + self.size_m[2] / 2)


def slot_u(config: Config, n_objects: int, position: int, width: int) -> float:
    """Image column of a slot: the projected table centre plus the scaled slot offset."""
    offset = config.render.slot_offset_px * width / REFERENCE_WIDTH
    return width / 2 + SLOT_UNITS[n_objects][position] * offset


def resting_yaw(size_m: tuple[float, float, float]) -> float:
    """The smallest turn that brings the footprint's width across the image within the slot budget."""
    dx, dy, _ = size_m
    for yaw in YAW_STEPS:
        t = np.radians(yaw)
        if abs(dx * np.cos(t)) + abs(dy * np.sin(t)) <= MAX_FOOTPRINT_WIDTH_M:
            return yaw
    return min(YAW_STEPS, key=lambda y: abs(dx * np.cos(np.radians(y))) + abs(dy * np.sin(np.radians(y))))


def place(
    config: Config, sizes: list[tuple[float, float, float]], resolution: tuple[int, int] | None = None
) -> list[Placement]:
    """Placements for objects of these box sizes, left to right."""
    camera = PinholeCamera.from_config(config, resolution)
    top = config.table.height_m
    n = len(sizes)
    out = []
    for position, size in enumerate(sizes):
        u = slot_u(config, n, position, camera.width)
        x = camera.x_for_u(u, 0.0, top + size[2] / 2)
        out.append(Placement(SLOT_NAMES[n][position], (x, 0.0, top), resting_yaw(size), tuple(size)))
    return out
