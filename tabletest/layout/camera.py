"""The scene camera as plain numbers: the same pinhole Blender uses, so placement and ground truth
are computed without Blender and match its renders.

Blender's camera with `sensor_fit = 'AUTO'` maps the sensor width to the larger image side; the
principal point is the image centre; pixel origin top-left, u right, v down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # a render worker passes the config's plain data, without pydantic (start-up time)
    from tabletest.config import Config


@dataclass(frozen=True)
class PinholeCamera:
    position: tuple[float, float, float]
    target: tuple[float, float, float]
    focal_mm: float
    sensor_width_mm: float
    width: int
    height: int

    @classmethod
    def from_config(cls, config: Config, resolution: tuple[int, int] | None = None) -> PinholeCamera:
        cam, top = config.camera, config.table.height_m
        width, height = resolution or config.render.resolution
        return cls(
            position=(0.0, -cam.distance_m, top + cam.height_m),
            target=(0.0, 0.0, top + cam.target_height_m),
            focal_mm=cam.focal_mm,
            sensor_width_mm=cam.sensor_width_mm,
            width=width,
            height=height,
        )

    def at(self, resolution: tuple[int, int]) -> PinholeCamera:
        """The same camera making images of another size."""
        return PinholeCamera(self.position, self.target, self.focal_mm, self.sensor_width_mm, *resolution)

    @property
    def focal_px(self) -> float:
        return self.focal_mm / self.sensor_width_mm * max(self.width, self.height)

    @property
    def axes(self) -> np.ndarray:
        """Rows: camera right, down and forward directions in world coordinates."""
        forward = np.subtract(self.target, self.position)
        forward /= np.linalg.norm(forward)
        right = np.cross(forward, [0.0, 0.0, 1.0])
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        return np.stack([right, down, forward])

    @property
    def pitch_deg(self) -> float:
        """Downward tilt from horizontal: Blender's camera rotation about X is 90° minus this."""
        forward = self.axes[2]
        return float(np.degrees(np.arcsin(-forward[2])))

    def depth(self, points: np.ndarray) -> np.ndarray:
        return (np.asarray(points, dtype=float) - self.position) @ self.axes[2]

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (..., 3) to pixels (..., 2)."""
        cam = (np.asarray(points, dtype=float) - self.position) @ self.axes.T
        f = self.focal_px
        u = self.width / 2 + f * cam[..., 0] / cam[..., 2]
        v = self.height / 2 + f * cam[..., 1] / cam[..., 2]
        return np.stack([u, v], axis=-1)

    def x_for_u(self, u: float, y: float, z: float) -> float:
        """World x that puts a point at height z, depth y onto image column u (the camera has no yaw)."""
        depth = float(self.depth(np.array([0.0, y, z])))
        return (u - self.width / 2) * depth / self.focal_px


@dataclass(frozen=True)
class CameraView:
    """A camera as matrices: intrinsics K and the world-to-camera pose, as a record stores them (or as a
    pinhole gives them), with its position; what reading facts and pixels back needs."""

    K: np.ndarray
    world_to_camera: np.ndarray  # 4 × 4; rotation rows: right, down, forward
    position: np.ndarray
    width: int
    height: int

    @classmethod
    def from_record(cls, camera: dict) -> CameraView:
        """The camera a record's `camera` field describes: the one reading of it every stage shares."""
        pose = np.asarray(camera["world_to_camera"], dtype=float)
        rotation, translation = pose[:3, :3], pose[:3, 3]
        width, height = camera["resolution"]
        return cls(np.asarray(camera["K"], dtype=float), pose, -rotation.T @ translation, int(width), int(height))

    @classmethod
    def of(cls, pinhole: PinholeCamera) -> CameraView:
        f, axes = pinhole.focal_px, pinhole.axes
        pose = np.eye(4)
        pose[:3, :3], pose[:3, 3] = axes, -axes @ np.asarray(pinhole.position)
        K = np.array([[f, 0.0, pinhole.width / 2], [0.0, f, pinhole.height / 2], [0.0, 0.0, 1.0]])
        return cls(K, pose, np.asarray(pinhole.position, dtype=float), pinhole.width, pinhole.height)

    def pinhole(self) -> PinholeCamera:
        """The pinhole these matrices describe (no roll, square pixels): what derives a record's camera, boxes and
        relations again as the writer made them."""
        sensor_mm = 36.0  # any: the focal length in pixels is what the image depends on
        focal_mm = float(self.K[0][0]) * sensor_mm / max(self.width, self.height)
        return PinholeCamera(tuple(self.position), tuple(self.position + self.rotation[2]), focal_mm, sensor_mm, self.width, self.height)

    @property
    def rotation(self) -> np.ndarray:
        return self.world_to_camera[:3, :3]

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        return (np.asarray(points) - self.position) @ self.rotation.T

    def project(self, points: np.ndarray) -> np.ndarray:
        cam = self.to_camera(points) @ self.K.T
        return cam[..., :2] / cam[..., 2:3]

    @property
    def ground_forward(self) -> np.ndarray:
        """The view's direction along the table top (unit, 2D)."""
        forward = self.rotation[2, :2]
        return forward / np.linalg.norm(forward)
