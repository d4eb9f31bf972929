"""Views of a scene on a ring round the table (`--views N --view-layout ring`): view n of N stands (n - 1) * 360/N
degrees round the scene camera's look-at point from the scene's own camera, at its elevation and its distance, so
that N views see the table from every side, evenly.

A ring position keeps the scene camera's lens where that frames every object's 3D box (`frame_margin` of the
width from the image's edges, as every scene's camera does); where it does not (the objects spread wider across
this view than across the scene's), the lens is widened just enough, to no shorter a focal length than the
config's range allows; a position that even the shortest cannot frame gets no view, counted among the views
not made, as a random view that no camera of the ranges frames.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from tabletest.files.family import view_id
from tabletest.layout.camera import PinholeCamera
from tabletest.layout.random_config import RandomConfig
from tabletest.layout.random_scene import NEAR_M, CameraPose, RandomScene, View, _direction, framed, left_to_right

LAYOUTS = ("random", "ring")  # --view-layout: drawn from the config's camera ranges, or evenly round the table


def ring_azimuth(scene_deg: float, number: int, views: int) -> float:
    """The azimuth of view `number` of `views` on the ring through the scene's camera, in [-180, 180)."""
    turned = scene_deg + (number - 1) * 360.0 / views
    return round((turned + 180.0) % 360.0 - 180.0, 3)


def ring_view(config: RandomConfig, scene: RandomScene, number: int, views: int, resolution: tuple[int, int]) -> RandomScene | None:
    """View `number` (2 .. `views`) of a scene on its ring; None where no focal length of the config's range
    frames every object from there."""
    own = scene.camera
    azimuth = ring_azimuth(own.azimuth_deg, number, views)
    position = tuple(round(float(v), 6) for v in np.add(own.target, _direction(azimuth, own.elevation_deg) * own.distance_m))
    margin = config.camera.frame_margin * resolution[0]
    focal = _framing_focal(PinholeCamera(position, own.target, own.focal_mm, own.sensor_width_mm, *resolution), scene, margin)
    if focal is None or focal < config.camera.focal_mm[0]:
        return None
    camera = CameraPose(position, own.target, min(own.focal_mm, focal), own.sensor_width_mm, azimuth, own.elevation_deg, own.distance_m)
    if not framed(camera, scene.objects, resolution, margin):
        return None
    return replace(scene, id=view_id(scene.id, number), objects=left_to_right(scene.objects, camera), camera=camera, view=View(scene.id, number))


def _framing_focal(probe: PinholeCamera, scene: RandomScene, margin_px: float) -> float | None:
    """The longest focal length (mm, 3 decimals, rounded down) at which the probe's pose frames every object's
    box `margin_px` from the image's edges; None where a box corner is nearer than `NEAR_M` or no lens can."""
    corners = np.concatenate([o.box_corners() for o in scene.objects])
    x, y, z = ((corners - np.asarray(probe.position)) @ probe.axes.T).T
    half_u, half_v = probe.width / 2 - margin_px, probe.height / 2 - margin_px
    if z.min() < NEAR_M or half_u <= 0 or half_v <= 0:
        return None
    with np.errstate(divide="ignore"):  # a corner on the optical axis limits no lens
        widest_px = float(min(np.min(half_u * z / np.abs(x)), np.min(half_v * z / np.abs(y))))
    return math.floor(widest_px * probe.sensor_width_mm / max(probe.width, probe.height) * 1000) / 1000
