"""Blender side of the contact sheet: render each GLB alone, three-quarter view, Workbench, transparent.

Run as `python -m tabletest.render.sheet_worker JOB.json` by `tabletest.render.sheet`, never imported
by the CLI. JOB.json: {"cell": pixels, "items": [{"glb": path, "png": path, "front": [x, y]}, ...]}: an item with
a `front` gets an arrow on the ground pointing that way out of its footprint (its recorded front, in the model's
frame), seen from higher up. The helpers (`reset_scene`, `import_glb`, `world_bounds`, `aim_three_quarter`) are
reusable by other bpy workers.
"""

from __future__ import annotations

import json
import math
import sys

import bpy
import numpy as np
from mathutils import Vector

AZIMUTH_DEG = 35.0  # to the right of the front (−Y) direction
ELEVATION_DEG = 22.0
FRONT_ELEVATION_DEG = 55.0  # with a front's arrow: high enough that the arrow shows behind a tall model too
ARROW_RGBA = (0.95, 0.1, 0.55, 1.0)  # a magenta no built-in model wears
LENS_MM, SENSOR_MM = 50.0, 36.0


def reset_scene() -> bpy.types.Scene:
    """An empty scene; script auto-execution stays off, so nothing inside a loaded file ever runs."""
    bpy.context.preferences.filepaths.use_scripts_auto_execute = False
    bpy.ops.wm.read_factory_settings(use_empty=True)
    return bpy.context.scene


def clear_objects(scene: bpy.types.Scene) -> None:
    """Remove every object except cameras, and the data they leave behind, keeping the scene set up."""
    for obj in list(scene.objects):
        if obj.type != "CAMERA":
            bpy.data.objects.remove(obj, do_unlink=True)
    bpy.data.orphans_purge(do_recursive=True)


def import_glb(path: str) -> list[bpy.types.Object]:
    """Import a GLB (glTF +Y up) into Blender's +Z-up world; return the new mesh objects."""
    before = set(bpy.data.objects)
    bpy.ops.import_scene.gltf(filepath=path)
    return [o for o in bpy.data.objects if o not in before and o.type == "MESH"]


def world_bounds(objects: list[bpy.types.Object]) -> tuple[Vector, Vector]:
    corners = [o.matrix_world @ Vector(c) for o in objects for c in o.bound_box]
    lo = Vector([min(c[i] for c in corners) for i in range(3)])
    hi = Vector([max(c[i] for c in corners) for i in range(3)])
    return lo, hi


def aim_three_quarter(camera: bpy.types.Object, lo: Vector, hi: Vector, margin: float = 1.04, elevation_deg: float = ELEVATION_DEG) -> None:
    """Place the camera front-right and above the box so its bounding sphere just fills the frame."""
    centre, radius = (lo + hi) / 2, (hi - lo).length / 2
    half_fov = math.atan(SENSOR_MM / 2 / LENS_MM)
    distance = margin * radius / math.sin(half_fov)
    az, el = math.radians(AZIMUTH_DEG), math.radians(elevation_deg)
    direction = Vector((math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)))
    camera.location = centre + distance * direction
    camera.rotation_euler = (-direction).to_track_quat("-Z", "Y").to_euler()
    camera.data.clip_start, camera.data.clip_end = distance / 100, distance * 10


def setup_workbench(scene: bpy.types.Scene, pixels: int) -> bpy.types.Object:
    """Solid shading with material/texture colours, studio light, plain sRGB, transparent film."""
    scene.render.engine = "BLENDER_WORKBENCH"
    shading = scene.display.shading
    shading.light = "STUDIO"
    shading.color_type = "TEXTURE"  # image textures where a part has one, the material colour elsewhere
    shading.show_cavity = True
    shading.cavity_type = "WORLD"
    scene.view_settings.view_transform = "Standard"
    scene.render.film_transparent = True
    scene.render.resolution_x = scene.render.resolution_y = pixels
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGBA"
    camera = bpy.data.objects.new("sheet_camera", bpy.data.cameras.new("sheet_camera"))
    camera.data.lens, camera.data.sensor_width = LENS_MM, SENSOR_MM
    scene.collection.objects.link(camera)
    scene.camera = camera
    return camera


def tint_materials(objects: list[bpy.types.Object], tint: dict[str, list[float]]) -> None:
    """A look's colour as Workbench shows it: the named materials' colour and image pixels times their factor."""
    from tabletest.render.tint import material_name

    materials = {slot.material for o in objects for slot in o.material_slots if slot.material is not None}
    for material in (m for m in materials if material_name(m) in tint):
        factor = [*tint[material_name(material)], 1.0]
        material.diffuse_color = [min(1.0, c * f) for c, f in zip(material.diffuse_color, factor)]
        for node in material.node_tree.nodes if material.node_tree else ():
            if node.type == "TEX_IMAGE" and node.image is not None:
                pixels = np.empty(len(node.image.pixels), dtype=np.float32)
                node.image.pixels.foreach_get(pixels)
                channels = node.image.channels
                encoded = node.image.colorspace_settings.name == "sRGB"  # the factor is linear: near enough, its 2.2 root
                scale = np.array(factor[:channels], dtype=np.float32) ** (1 / 2.2 if encoded else 1.0)
                pixels = (pixels.reshape(-1, channels) * scale).clip(0, 1)
                node.image.pixels.foreach_set(pixels.ravel())
            elif node.type == "BSDF_PRINCIPLED" and not node.inputs["Base Color"].links:
                base = node.inputs["Base Color"]
                base.default_value = [min(1.0, c * f) for c, f in zip(base.default_value, factor)]


def add_front_arrow(scene: bpy.types.Scene, front: list[float], lo: Vector, hi: Vector) -> bpy.types.Object:
    """A flat arrow on the ground from the footprint's edge outwards along `front`, as long as half the model's
    largest extent: where the catalog says the model faces."""
    direction = Vector((front[0], front[1], 0.0)).normalized()
    side = Vector((-direction.y, direction.x, 0.0))
    centre = Vector(((lo.x + hi.x) / 2, (lo.y + hi.y) / 2, lo.z + 0.0005))
    size = max(hi.x - lo.x, hi.y - lo.y, hi.z - lo.z)
    reach = max(abs(direction.x) * (hi.x - lo.x), abs(direction.y) * (hi.y - lo.y)) / 2  # to the footprint box's edge
    start, length, width = centre + direction * reach, 0.5 * size, 0.06 * size
    shaft_end = start + direction * 0.6 * length
    points = [
        start + side * width / 2, shaft_end + side * width / 2, shaft_end + side * width * 1.4,
        start + direction * length, shaft_end - side * width * 1.4, shaft_end - side * width / 2, start - side * width / 2,
    ]
    mesh = bpy.data.meshes.new("front_arrow")
    mesh.from_pydata([tuple(p) for p in points], [], [(0, 1, 5, 6), (2, 3, 4)])
    material = bpy.data.materials.new("front arrow")
    material.diffuse_color = ARROW_RGBA
    mesh.materials.append(material)
    arrow = bpy.data.objects.new("front_arrow", mesh)
    scene.collection.objects.link(arrow)
    return arrow


def render_items(job: dict) -> None:
    scene = reset_scene()
    camera = setup_workbench(scene, int(job["cell"]))
    for item in job["items"]:
        clear_objects(scene)
        try:
            objects = import_glb(item["glb"])
        except RuntimeError as err:
            raise SystemExit(f"error: {item['glb']} does not import: {str(err).strip()}") from None
        if not objects:
            raise SystemExit(f"error: {item['glb']} has no mesh")
        tint_materials(objects, item.get("tint") or {})
        lo, hi = world_bounds(objects)
        if item.get("front") is not None:
            arrow = add_front_arrow(scene, item["front"], lo, hi)
            lo, hi = world_bounds([*objects, arrow])
        aim_three_quarter(camera, lo, hi, elevation_deg=FRONT_ELEVATION_DEG if item.get("front") is not None else ELEVATION_DEG)
        scene.render.filepath = item["png"]
        bpy.ops.render.render(write_still=True)
        print(f"rendered {item['glb']}", flush=True)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as fh:
        render_items(json.load(fh))
