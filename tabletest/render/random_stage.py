"""The random scenes' stage on top of the base scene (bpy; runs only inside a worker).

Built once per worker: one material per surface kind, a world that lights with an HDRI and shows
either the HDRI or a plain colour behind the table, the HDRIs loaded on first use. `apply` then
only sets values on what exists (camera, table size and surface, key light, world), so a scene
change costs milliseconds, not a rebuild.
"""

from __future__ import annotations

import math
import os

import bpy
from mathutils import Vector

from tabletest.render import base_scene

LEG_M = 0.06  # as base_scene's table legs
HDRI_WIDTH = 1024  # the studio lights shipped in the bpy wheel are 1024x512


class RandomStage:
    def __init__(self, camera: bpy.types.Object, base_table: tuple[float, float]) -> None:
        self.camera = camera
        self.base_width, self.base_depth = base_table
        self.surfaces = {kind: base_scene.surface_material(f"surface:{kind}", kind, (0.5, 0.5, 0.5)) for kind in base_scene.SURFACES}
        self.hdri_folder = os.path.join(bpy.utils.system_resource("DATAFILES"), "studiolights", "world")
        self.world = self._world()
        bpy.data.objects["fill_light"].hide_render = True  # the HDRI fills the shadows
        bpy.context.scene.world = self.world

    def apply(self, scene: dict) -> None:
        """Set the camera, table, key light and world of one random scene (a `RandomScene` as JSON)."""
        self._camera(scene["camera"])
        self._table(scene["table"])
        self._key_light(scene["key_light"])
        self._world_values(scene["world"], scene["backdrop"])

    def _camera(self, pose: dict) -> None:
        self.camera.location = pose["position"]
        direction = Vector(pose["target"]) - Vector(pose["position"])
        self.camera.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()
        self.camera.data.lens = pose["focal_mm"]
        self.camera.data.sensor_width = pose["sensor_width_mm"]

    def _table(self, table: dict) -> None:
        top = bpy.data.objects["table_top"]
        top.scale = (table["width_m"] / self.base_width, table["depth_m"] / self.base_depth, 1.0)
        material = self.surfaces[table["kind"]]
        base_scene.recolor(material, table["kind"], tuple(table["color"]))
        if top.data.materials[0] is not material:
            top.data.materials[0] = material
        for sx in (-1, 1):
            for sy in (-1, 1):
                leg = bpy.data.objects[f"table_leg_{sx}_{sy}"]
                leg.location.x = sx * (table["width_m"] / 2 - LEG_M)
                leg.location.y = sy * (table["depth_m"] / 2 - LEG_M)

    def _key_light(self, light: dict) -> None:
        obj = bpy.data.objects["key_light"]
        obj.location = light["position"]
        obj.rotation_euler = (Vector(light["target"]) - Vector(light["position"])).to_track_quat("-Z", "Y").to_euler()
        obj.data.size = light["size_m"]
        obj.data.energy = light["power_w"]
        obj.data.use_temperature = True
        obj.data.temperature = light["temperature_k"]

    def _world(self) -> bpy.types.World:
        """HDRI light for every ray; camera rays see the backdrop: the HDRI or a plain colour (a mix of the two)."""
        world = bpy.data.worlds.new("random")
        world.use_nodes = True
        # Cycles rebuilds the world's importance map on every world change; its automatic size cost
        # about 2.4 s of a 48x36 render's 2.5 s. A map as wide as the HDRIs (1024x512) samples them
        # with the same noise for a fraction of that (docs/guide/training.md).
        world.cycles.sampling_method = "MANUAL"
        world.cycles.sample_map_resolution = HDRI_WIDTH
        nodes, links = world.node_tree.nodes, world.node_tree.links
        coord = nodes.new("ShaderNodeTexCoord")
        mapping = nodes.new("ShaderNodeMapping")
        mapping.name = "rotation"
        env = nodes.new("ShaderNodeTexEnvironment")
        env.name = "hdri"
        light = nodes["Background"]
        light.name = "light"
        plain = nodes.new("ShaderNodeBackground")
        plain.name = "plain"
        backdrop = nodes.new("ShaderNodeMixShader")
        backdrop.name = "backdrop"
        is_camera = nodes.new("ShaderNodeLightPath")
        seen = nodes.new("ShaderNodeMixShader")
        links.new(coord.outputs["Generated"], mapping.inputs["Vector"])
        links.new(mapping.outputs["Vector"], env.inputs["Vector"])
        links.new(env.outputs["Color"], light.inputs["Color"])
        links.new(plain.outputs["Background"], backdrop.inputs[1])
        links.new(light.outputs["Background"], backdrop.inputs[2])
        links.new(is_camera.outputs["Is Camera Ray"], seen.inputs["Fac"])
        links.new(light.outputs["Background"], seen.inputs[1])
        links.new(backdrop.outputs["Shader"], seen.inputs[2])
        links.new(seen.outputs["Shader"], nodes["World Output"].inputs["Surface"])
        return world

    def _world_values(self, world: dict, backdrop: dict) -> None:
        nodes = self.world.node_tree.nodes
        path = os.path.join(self.hdri_folder, f"{world['hdri']}.exr")
        image = bpy.data.images.load(path, check_existing=True)
        if nodes["hdri"].image is not image:
            nodes["hdri"].image = image
        nodes["rotation"].inputs["Rotation"].default_value = (0.0, 0.0, math.radians(world["rotation_deg"]))
        nodes["light"].inputs["Strength"].default_value = world["strength"]
        nodes["plain"].inputs["Color"].default_value = (*backdrop["color"], 1.0)
        nodes["backdrop"].inputs["Fac"].default_value = 1.0 if backdrop["kind"] == "hdri" else 0.0
        self.world.color = tuple(backdrop["color"])  # what Workbench shows
