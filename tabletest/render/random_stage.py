"""The random scenes' stage on top of the base scene (bpy; runs only inside a worker).

Built once per worker: a table top per surface kind (one mesh, each its own material), a world
that lights with an HDRI and shows either the HDRI or a plain colour behind the table. `apply` then
only sets values on what exists (camera, table size and surface, key light, world): it shows the
scene's table top by ray visibility and picks its HDRI with mix factors, because assigning another
material, image or world rebuilds the dependency graph (25 to 40 ms with 64 models loaded), where
values cost a fraction of a millisecond. Cycles folds a mix whose factor is 0 or 1 into the input it
picks, so the world it renders is the one a single HDRI node makes, pixel for pixel.
"""

from __future__ import annotations

import math
import os

import bpy
from mathutils import Vector

from tabletest.render import base_scene
from tabletest.render.rays import set_seen

LEG_M = 0.06  # as base_scene's table legs
HDRI_WIDTH = 1024  # the studio lights shipped in the bpy wheel are 1024x512


class RandomStage:
    def __init__(self, camera: bpy.types.Object, base_table: tuple[float, float]) -> None:
        self.camera = camera
        self.base_width, self.base_depth = base_table
        self.surfaces = {kind: base_scene.surface_material(f"surface:{kind}", kind, (0.5, 0.5, 0.5)) for kind in base_scene.SURFACES}
        base_top = bpy.data.objects["table_top"]
        set_seen(base_top, False)
        self.tops = {kind: self._top(base_top, kind) for kind in base_scene.SURFACES}
        hdri_folder = os.path.join(bpy.utils.system_resource("DATAFILES"), "studiolights", "world")
        self.hdris = {name[: -len(".exr")]: os.path.join(hdri_folder, name) for name in sorted(os.listdir(hdri_folder)) if name.endswith(".exr")}
        self.world = self._world()
        bpy.data.objects["fill_light"].hide_render = True  # the HDRI fills the shadows
        bpy.data.objects["key_light"].data.use_temperature = True
        bpy.context.scene.world = self.world
        self.applied: dict = {}  # what the last scene set, part by part

    def apply(self, scene: dict) -> None:
        """Set the camera, table, key light and world of one random scene (a `RandomScene` as JSON), each
        only where it differs from the last scene's: a value set again, even unchanged, makes Cycles
        update what depends on it, and a world set again rebuilds its importance map (most of a short
        render call). A scene's views and counterfactual partners, rendered after it, keep its world."""
        parts = {
            "camera": (self._camera, scene["camera"]),
            "table": (self._table, scene["table"]),
            "key_light": (self._key_light, scene["key_light"]),
            "world": (lambda both: self._world_values(*both), (scene["world"], scene["backdrop"])),
        }
        for part, (setter, values) in parts.items():
            if self.applied.get(part) != values:
                setter(values)
                self.applied[part] = values

    def _camera(self, pose: dict) -> None:
        self.camera.location = pose["position"]
        direction = Vector(pose["target"]) - Vector(pose["position"])
        self.camera.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()
        self.camera.data.lens = pose["focal_mm"]
        self.camera.data.sensor_width = pose["sensor_width_mm"]

    def _top(self, base_top: bpy.types.Object, kind: str) -> bpy.types.Object:
        """A hidden copy of the base table top, sharing its mesh, with the `kind` surface on the object."""
        top = base_top.copy()
        top.name = f"table_top:{kind}"
        for collection in base_top.users_collection:
            collection.objects.link(top)
        top.material_slots[0].link = "OBJECT"
        top.material_slots[0].material = self.surfaces[kind]
        set_seen(top, False)
        return top

    def _table(self, table: dict) -> None:
        for kind, top in self.tops.items():
            set_seen(top, kind == table["kind"])
        top = self.tops[table["kind"]]
        top.scale = (table["width_m"] / self.base_width, table["depth_m"] / self.base_depth, 1.0)
        base_scene.recolor(self.surfaces[table["kind"]], table["kind"], tuple(table["color"]))
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
        light = nodes["Background"]
        light.name = "light"
        plain = nodes.new("ShaderNodeBackground")
        plain.name = "plain"
        backdrop = nodes.new("ShaderNodeMixShader")
        backdrop.name = "backdrop"
        is_camera = nodes.new("ShaderNodeLightPath")
        seen = nodes.new("ShaderNodeMixShader")
        links.new(coord.outputs["Generated"], mapping.inputs["Vector"])
        picked = None
        for name, path in self.hdris.items():  # a chain of mixes: "pick:<name>" at 1 picks that HDRI
            env = nodes.new("ShaderNodeTexEnvironment")
            env.image = bpy.data.images.load(path, check_existing=True)
            links.new(mapping.outputs["Vector"], env.inputs["Vector"])
            if picked is None:
                picked = env.outputs["Color"]
                continue
            mix = nodes.new("ShaderNodeMix")
            mix.name = f"pick:{name}"
            mix.data_type = "RGBA"
            mix.inputs["Factor"].default_value = 0.0
            links.new(picked, mix.inputs[6])  # A, as a colour
            links.new(env.outputs["Color"], mix.inputs[7])  # B
            picked = mix.outputs[2]  # Result, as a colour
        links.new(picked, light.inputs["Color"])
        links.new(plain.outputs["Background"], backdrop.inputs[1])
        links.new(light.outputs["Background"], backdrop.inputs[2])
        links.new(is_camera.outputs["Is Camera Ray"], seen.inputs["Fac"])
        links.new(light.outputs["Background"], seen.inputs[1])
        links.new(backdrop.outputs["Shader"], seen.inputs[2])
        links.new(seen.outputs["Shader"], nodes["World Output"].inputs["Surface"])
        return world

    def _world_values(self, world: dict, backdrop: dict) -> None:
        nodes = self.world.node_tree.nodes
        for name in self.hdris:
            pick, factor = nodes.get(f"pick:{name}"), float(name == world["hdri"])  # the first HDRI has no mix
            if pick is not None and pick.inputs["Factor"].default_value != factor:
                pick.inputs["Factor"].default_value = factor
        nodes["rotation"].inputs["Rotation"].default_value = (0.0, 0.0, math.radians(world["rotation_deg"]))
        nodes["light"].inputs["Strength"].default_value = world["strength"]
        nodes["plain"].inputs["Color"].default_value = (*backdrop["color"], 1.0)
        nodes["backdrop"].inputs["Fac"].default_value = 1.0 if backdrop["kind"] == "hdri" else 0.0
