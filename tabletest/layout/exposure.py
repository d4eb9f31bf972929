"""A random scene's exposure: its lights dimmed where they would wash its table out (no bpy).

The renders map linear light to 8 bits with the Standard view transform, which clips at 1: under the
brightest draws of key light and HDRI a white table reflects several times that, and shows as a flat
white field. So, as a camera's automatic exposure would, the key light's power and the HDRI's strength are
scaled together by one factor that keeps the table's brightest point at `PEAK`: the table taken as a
Lambertian surface of its lightest tone, under the key light where it shines most on the part of the
table top the camera frames (an area light emits as a Lambertian disc: what Cycles renders, to 1%) and
under the HDRI's irradiance on a horizontal plane. Scenes whose table stays below `PEAK` keep their
lights as drawn. What a glossy top mirrors is left out: seen at a grazing angle under a bright sky, its
sheen may still clip.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from tabletest.layout.surfaces import SURFACES

if TYPE_CHECKING:
    from tabletest.layout.camera import PinholeCamera
    from tabletest.layout.looks import KeyLight, TableLook, WorldLight

PEAK = 0.8  # the table's brightest linear radiance allowed (1 clips); the rest is headroom for its gloss
GRID = 41  # points per side of the table top where the key light's irradiance is found
# The radiance a white Lambertian floor reflects under each HDRI of Blender's wheel at strength 1, in its
# brightest channel (`tests/test_exposure.py` measures it again from the files that are installed).
HDRI_RADIANCE = {
    "city": 2.241,
    "courtyard": 0.993,
    "forest": 1.804,
    "interior": 2.105,
    "night": 0.176,
    "studio": 0.541,
    "sunrise": 0.627,
    "sunset": 1.078,
}


def exposed(
    table: TableLook, key: KeyLight, world: WorldLight, table_height_m: float, camera: PinholeCamera
) -> tuple[KeyLight, WorldLight]:
    """The scene's key light and world, dimmed together where they would light the table `camera` sees above
    `PEAK`."""
    albedo = max(min(1.0, c * SURFACES[table.kind].light) for c in table.color)
    irradiance = key_irradiance(seen_top(table, table_height_m, camera), key.position, key.target, key.power_w)
    radiance = albedo * (irradiance / math.pi + world.strength * HDRI_RADIANCE[world.hdri])
    if radiance <= PEAK:
        return key, world
    scale = PEAK / radiance
    dimmed = replace(key, power_w=round(key.power_w * scale, 2))
    return dimmed, replace(world, strength=round(world.strength * scale, 4))


def seen_top(table: TableLook, table_height_m: float, camera: PinholeCamera) -> np.ndarray:
    """Points of the table top (centred on the origin) on a `GRID` × `GRID` grid that `camera` frames; all of
    them where it frames none (the objects fill the picture)."""
    xs = np.linspace(-table.width_m / 2, table.width_m / 2, GRID)
    ys = np.linspace(-table.depth_m / 2, table.depth_m / 2, GRID)
    points = np.stack(np.meshgrid(xs, ys, [table_height_m]), axis=-1).reshape(-1, 3)
    u, v = camera.project(points).T
    framed = (camera.depth(points) > 0) & (u >= 0) & (u <= camera.width) & (v >= 0) & (v <= camera.height)
    return points[framed] if framed.any() else points


def key_irradiance(
    points: np.ndarray, position: tuple[float, float, float], target: tuple[float, float, float], power_w: float
) -> float:
    """The most irradiance (W/m²) an area light of `power_w` at `position`, aimed at `target`, casts on the
    table top at `points`, taken as a point that emits as a Lambertian disc."""
    rays = points - np.asarray(position)
    distance = np.linalg.norm(rays, axis=1)
    aim = np.subtract(target, position) / np.linalg.norm(np.subtract(target, position))
    emitted = np.clip(rays @ aim / distance, 0.0, None)  # the light's own cosine
    received = np.clip(-rays[:, 2] / distance, 0.0, None)  # the table's (its normal is +Z)
    return float(np.max(power_w * emitted * received / (math.pi * distance**2)))
