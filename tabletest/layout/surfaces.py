"""The table surfaces' procedural looks (no bpy): the renderer builds them (`render/base_scene.py`), and
the random scenes' exposure needs their lightest tone (`exposure.py`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SurfaceLook:
    """A procedural table surface: noise (stretched along x for a grain) between a dark and a light tone."""

    stretch: tuple[float, float, float]
    noise_scale: float
    detail: float
    noise_roughness: float
    distortion: float
    stops: tuple[float, float]
    dark: float  # the tones, as factors of the surface colour
    light: float
    roughness: float
    bump: float  # strength of a bump from the same noise (cloth weave); 0: none


SURFACES = {
    "wood": SurfaceLook((0.04, 1.0, 1.0), 14.0, 6.0, 0.6, 0.8, (0.35, 0.7), 0.6, 1.2, 0.45, 0.0),
    "painted": SurfaceLook((1.0, 1.0, 1.0), 30.0, 2.0, 0.5, 0.0, (0.3, 0.7), 0.95, 1.04, 0.35, 0.0),
    "stone": SurfaceLook((1.0, 1.0, 1.0), 5.0, 10.0, 0.7, 3.0, (0.45, 0.75), 0.72, 1.15, 0.3, 0.0),
    "cloth": SurfaceLook((1.0, 1.0, 1.0), 600.0, 2.0, 0.5, 0.0, (0.2, 0.8), 0.8, 1.1, 0.95, 0.25),
}
