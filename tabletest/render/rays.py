"""Showing and hiding objects by ray visibility (bpy; Cycles only).

Cycles leaves out an object no ray sees, so these flags hide it as `hide_render` does, pixel for
pixel, but without what `hide_render` (or swapping a material, an image or a world) costs: a rebuild
of the dependency graph's relations for every object loaded, 25 to 40 ms a scene with 64 models.
"""

from __future__ import annotations

import bpy

RAYS = ("visible_camera", "visible_diffuse", "visible_glossy", "visible_transmission", "visible_volume_scatter", "visible_shadow")


def set_seen(obj: bpy.types.Object, seen: bool) -> None:
    for ray in RAYS:
        if getattr(obj, ray) != seen:
            setattr(obj, ray, seen)
