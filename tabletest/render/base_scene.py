"""The base scene, built by code from the validated config: a wooden table, a neutral backdrop,
the fixed camera, key/fill lights and ambient light. Imports bpy: run only inside a worker.

Run `python -m tabletest.render.base_scene blend/table.blend` to save it for a look in Blender.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import bpy

from tabletest.compose.view import DISPLAY
from tabletest.errors import UserError
from tabletest.layout.camera import PinholeCamera
from tabletest.layout.surfaces import SURFACES

if TYPE_CHECKING:  # workers build from the config's plain data (see `worker.plain`), without pydantic
    from tabletest.config import Config

BACKDROP_GREY = (0.62, 0.62, 0.6, 1.0)


def build(config: Config) -> bpy.types.Object:
    """Reset Blender to an empty file and build the scene; return the camera object."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    _table(config)
    _lights(config)
    _world(config.lighting.ambient_strength)
    camera = _camera(config)
    scene.camera = camera
    scene.display_settings.display_device = DISPLAY
    scene.view_settings.view_transform = config.render.view_transform
    scene.view_settings.look = "None"
    return camera


def _material(name: str, color: tuple[float, float, float, float], roughness: float) -> bpy.types.Material:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = color
    bsdf.inputs["Roughness"].default_value = roughness
    mat.diffuse_color = color  # what Workbench shows
    return mat


def surface_material(name: str, kind: str, color: tuple[float, float, float]) -> bpy.types.Material:
    """A table surface of one of the `SURFACES` kinds in `color`; `recolor` changes it in place."""
    look = SURFACES[kind]
    mat = _material(name, (*color, 1.0), look.roughness)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    coord = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Scale"].default_value = look.stretch
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = look.noise_scale
    noise.inputs["Detail"].default_value = look.detail
    noise.inputs["Roughness"].default_value = look.noise_roughness
    noise.inputs["Distortion"].default_value = look.distortion
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.name = "tones"
    ramp.color_ramp.elements[0].position, ramp.color_ramp.elements[1].position = look.stops
    recolor(mat, kind, color)
    links.new(coord.outputs["Object"], mapping.inputs["Vector"])
    links.new(mapping.outputs["Vector"], noise.inputs["Vector"])
    links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])
    if look.bump:
        bump = nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = look.bump
        links.new(noise.outputs["Fac"], bump.inputs["Height"])
        links.new(bump.outputs["Normal"], nodes["Principled BSDF"].inputs["Normal"])
    return mat


def recolor(mat: bpy.types.Material, kind: str, color: tuple[float, float, float]) -> None:
    look = SURFACES[kind]
    dark, light = mat.node_tree.nodes["tones"].color_ramp.elements
    dark.color = tuple(c * look.dark for c in color) + (1.0,)
    light.color = tuple(min(1.0, c * look.light) for c in color) + (1.0,)
    mat.diffuse_color = (*color, 1.0)


def _wood(color: tuple[float, float, float]) -> bpy.types.Material:
    """The benchmark's table: procedural wood in the config's colour."""
    return surface_material("table_wood", "wood", color)


def _add_box(name: str, size: tuple[float, float, float], location: tuple[float, float, float]) -> bpy.types.Object:
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=location)
    obj = bpy.context.active_object
    obj.name = name
    obj.scale = size
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    return obj


def _table(config: Config) -> None:
    t = config.table
    top = _add_box("table_top", (t.width_m, t.depth_m, t.top_thickness_m), (0, 0, t.height_m - t.top_thickness_m / 2))
    top.data.materials.append(_wood(t.wood_color))
    leg_mat = _material("table_legs", (*[c * 0.6 for c in t.wood_color], 1.0), 0.5)
    leg = 0.06
    for sx in (-1, 1):
        for sy in (-1, 1):
            x, y = sx * (t.width_m / 2 - leg), sy * (t.depth_m / 2 - leg)
            height = t.height_m - t.top_thickness_m
            obj = _add_box(f"table_leg_{sx}_{sy}", (leg, leg, height), (x, y, height / 2))
            obj.data.materials.append(leg_mat)


def _area_light(name: str, power: float, location: tuple[float, float, float], size: float) -> None:
    data = bpy.data.lights.new(name, "AREA")
    data.energy = power
    data.size = size
    obj = bpy.data.objects.new(name, data)
    obj.location = location
    bpy.context.collection.objects.link(obj)
    direction = -obj.location.normalized()  # aim at the table centre
    obj.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()


def _lights(config: Config) -> None:
    top = config.table.height_m
    _area_light("key_light", config.lighting.key_power_w, (-1.2, -1.6, top + 1.8), 1.2)
    _area_light("fill_light", config.lighting.fill_power_w, (1.8, -1.2, top + 1.0), 1.5)


def _world(strength: float) -> None:
    """Soft ambient light for the scene, and a plain neutral backdrop for the camera.

    The backdrop is the world as seen by camera rays only, so it costs no path tracing (most of
    the frame) and adds no light; everything else sees the dimmer ambient sky.
    """
    world = bpy.data.worlds.new("ambient")
    world.use_nodes = True
    world.color = BACKDROP_GREY[:3]  # what Workbench shows
    nodes, links = world.node_tree.nodes, world.node_tree.links
    ambient = nodes["Background"]
    ambient.inputs["Color"].default_value = (0.8, 0.82, 0.85, 1.0)
    ambient.inputs["Strength"].default_value = strength
    backdrop = nodes.new("ShaderNodeBackground")
    backdrop.inputs["Color"].default_value = BACKDROP_GREY
    backdrop.inputs["Strength"].default_value = 1.0
    is_camera = nodes.new("ShaderNodeLightPath")
    mix = nodes.new("ShaderNodeMixShader")
    links.new(is_camera.outputs["Is Camera Ray"], mix.inputs["Fac"])
    links.new(ambient.outputs["Background"], mix.inputs[1])
    links.new(backdrop.outputs["Background"], mix.inputs[2])
    links.new(mix.outputs["Shader"], nodes["World Output"].inputs["Surface"])
    bpy.context.scene.world = world


def _camera(config: Config) -> bpy.types.Object:
    pinhole = PinholeCamera.from_config(config)
    data = bpy.data.cameras.new("camera")
    data.lens = pinhole.focal_mm
    data.sensor_width = pinhole.sensor_width_mm
    data.sensor_fit = "AUTO"
    obj = bpy.data.objects.new("camera", data)
    obj.location = pinhole.position
    obj.rotation_euler = (math.radians(90.0 - pinhole.pitch_deg), 0.0, 0.0)
    bpy.context.collection.objects.link(obj)
    return obj


def save(target: str, config: str | None) -> None:
    """Build the scene and save it as a .blend file (for a look in Blender), the inputs checked first."""
    path = Path(target)
    if path.suffix != ".blend":
        raise UserError(f"{target} is not a .blend path; write e.g. blend/table.blend")
    if not path.parent.is_dir():
        raise UserError(f"folder {path.parent}/ does not exist; create it (mkdir {path.parent}) or give another path")
    from tabletest.config import load_config

    build(load_config(config))
    bpy.ops.wm.save_as_mainfile(filepath=str(path.resolve()))


if __name__ == "__main__":
    try:
        if len(sys.argv) not in (2, 3):
            raise UserError("usage: python -m tabletest.render.base_scene OUT.blend [CONFIG.yaml]")
        save(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    except UserError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
