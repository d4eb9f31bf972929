"""How a random scene looks beyond its objects: the table's surface, the key light, the world light and the
backdrop, as plain values (drawn by `random_scene`, balanced by `exposure`, rendered by `render`)."""

from __future__ import annotations

from dataclasses import dataclass

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class TableLook:
    surface: str
    kind: str
    color: Vec3
    width_m: float
    depth_m: float


@dataclass(frozen=True)
class KeyLight:
    position: Vec3
    target: Vec3
    size_m: float
    power_w: float
    temperature_k: float


@dataclass(frozen=True)
class WorldLight:
    hdri: str
    rotation_deg: float
    strength: float


@dataclass(frozen=True)
class Backdrop:
    kind: str  # "hdri" (the world itself) or "color"
    color: Vec3
