"""A render worker process: builds the base scene once, imports each asset once, then renders specs.

Protocol, one JSON object per line: the supervisor writes `setup` then `render` (a scene, optionally
with its object mask and depth, handed over as files for `write.finish`, which the supervisor runs
beside the next render) or `layer` (a layer of the composite mode to a linear multilayer EXR)
messages on stdin; the worker answers `ready`, then `done` or `error` per item, on its original
stdout. Blender's own console output is moved to stderr, which the supervisor keeps in the worker's log.
Run as `python -m tabletest.render.worker`.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
import traceback
from collections import OrderedDict
from pathlib import Path
from types import SimpleNamespace
from typing import IO

import numpy as np

def plain(data: dict) -> SimpleNamespace:
    """The validated config's JSON as attributes (`config.table.height_m`): the supervisor checked it,
    and pydantic would add 0.2 s to every worker's start."""
    return json.loads(json.dumps(data), object_hook=lambda fields: SimpleNamespace(**fields))


def _protocol_stream() -> IO[str]:
    """Keep a private copy of stdout for messages; send fd 1 (Blender's prints) to stderr."""
    stream = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    return stream


# Errors of the input itself (a model that does not load, a scene missing a field): retrying fails the same way.
RECURRING = (LookupError, ValueError, TypeError, AttributeError, ArithmeticError, NotImplementedError)


class Worker:
    def __init__(self, setup: dict) -> None:
        import bpy

        from tabletest.render import base_scene, engine

        self.bpy = bpy
        self.config = plain(setup["config"])
        bpy.context.preferences.filepaths.use_scripts_auto_execute = False
        self.camera = base_scene.build(self.config)
        self.device = engine.configure(bpy.context.scene, setup)
        self.assets: OrderedDict[str, bpy.types.Collection] = OrderedDict()  # by `_key`, the least recently used first
        self.parts: dict[str, list[bpy.types.Object]] = {}  # each asset's objects, its root first
        self.meshes: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # by mesh object: vertices (n, 3), triangles' corners
        self.shown: set[str] = set()
        self.poses: dict[str, tuple] = {}  # where each asset's root was last put: (position, yaw)
        self.max_models = setup["max_models"]
        self.tinted: set[str] = set()  # the assets a look's colour was ever set on
        self.by_rays = setup["engine"] == "cycles"  # hide by ray visibility (Cycles), else by collection
        self.stage = None  # the random scenes' stage, built on the first random scene
        self.later = [tuple(model) for model in setup.get("models", [])]  # loaded at the second scene (`_load_later`)
        self.first_done = False  # the first scene is rendered: only its own models waited for it

    def _asset(self, name: str, path: str):
        """The asset's collection, made on first use only (from the model cache, else its GLB)."""
        if name in self.assets:
            self.assets.move_to_end(name)
            return self.assets[name]
        from tabletest.render.model_cache import import_model

        bpy = self.bpy
        try:
            imported = import_model(Path(path))
        except RuntimeError as err:  # Blender's importer refused the file: it will again
            raise ValueError(f"{path} does not load in Blender ({str(err).strip()})") from None
        if not any(o.type == "MESH" for o in imported):
            raise ValueError(f"{path} has no mesh")
        collection = bpy.data.collections.new(f"asset:{name}")
        bpy.context.scene.collection.children.link(collection)
        root = bpy.data.objects.new(f"root:{name}", None)
        collection.objects.link(root)
        for obj in imported:
            for users in list(obj.users_collection):
                users.objects.unlink(obj)
            collection.objects.link(obj)
            if obj.parent is None:
                obj.parent = root
        self.assets[name] = collection
        self.parts[name] = [root, *(obj for obj in collection.all_objects if obj is not root)]
        self._hide(name, True)
        return collection

    def _load_later(self) -> None:
        """The run's models (the setup's `models`), all at once at the second scene: the first scene waited for
        its own models only, and each model loaded alone would make Blender rebuild its dependency graph and
        Cycles sync the scene again (most of a model's cost with many loaded), where one batch pays that once."""
        later, self.later = self.later, []
        for name, path in later:
            try:
                self._asset(_key(name, path), path)
            except ValueError:  # the scenes that hold it fail with this error, one by one
                pass

    def _forget_unused(self, keep: set[str]) -> bool:
        """Drop the least recently used assets beyond the setup's `max_models` (none of `keep`): with many looks of
        a kind, a worker would otherwise hold every model it ever showed. Whether it dropped any."""
        bpy = self.bpy
        unused = [n for n in self.assets if n not in keep][: max(0, len(self.assets) - self.max_models)]
        for name in unused:
            parts = self.parts.pop(name)
            for part in parts:
                self.meshes.pop(part.name, None)
            data = {p.data for p in parts if p.data is not None}
            materials = {slot.material for p in parts for slot in p.material_slots if slot.material is not None}
            images = {n.image for m in materials if m.node_tree for n in m.node_tree.nodes if getattr(n, "image", None)}
            bpy.data.batch_remove([*parts, *data, *materials, *images, self.assets.pop(name)])
            self.shown.discard(name)
            self.tinted.discard(name)
            self.poses.pop(name, None)
        return bool(unused)

    def _drawn_as(self, name: str, transform: tuple[float, ...]) -> None:
        """A look's model drawn from its kind's: the 3x4 map between the two, in the parts' parent inverse (the one
        matrix of an object that may stretch along any axis), so the look costs no mesh of its own."""
        from mathutils import Matrix

        rows = [transform[i : i + 4] for i in range(0, 12, 4)] if transform else [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0)]
        matrix = Matrix([*rows, (0.0, 0.0, 0.0, 1.0)])
        root = self.parts[name][0]
        for part in self.parts[name][1:]:
            if part.parent is root:
                part.matrix_parent_inverse = matrix

    def _tintable(self, name: str, tint: dict[str, list[float]]) -> bool:
        """Make the materials a tint names take the object's colour (once per asset, `tint.py`): whether any changed."""
        from tabletest.render.tint import material_name, tintable

        materials = {slot.material for part in self.parts[name] for slot in part.material_slots if slot.material is not None}
        return any([tintable(m) for m in materials if material_name(m) in tint])

    def _tint(self, name: str, tint: dict[str, list[float]]) -> None:
        """A look's colour: each part whose material a tint names is multiplied by it, by the object's colour; a
        part of no tinted material keeps white, which leaves its colour as it is."""
        from tabletest.render.tint import material_name

        for part in self.parts[name]:
            names = [material_name(slot.material) for slot in part.material_slots if slot.material is not None]
            factor = next((tint[n] for n in names if n in tint), None)
            colour = (*factor, 1.0) if factor is not None else (1.0, 1.0, 1.0, 1.0)
            if tuple(part.color) != colour:  # an unchanged value set again still tags the object
                part.color = colour
        self.tinted.add(name)

    def _hide(self, name: str, hidden: bool) -> None:
        """Cycles by ray visibility (see `rays`); EEVEE and Workbench, which ignore it, by collection."""
        if self.by_rays:
            from tabletest.render.rays import set_seen

            for part in self.parts[name]:
                set_seen(part, not hidden)
        else:
            self.assets[name].hide_render = hidden

    def _show_only(self, names: set[str]) -> None:
        """Show these assets and hide the rest, touching only those that change."""
        for name in self.shown ^ names:
            self._hide(name, name not in names)
        self.shown = set(names)

    def render(self, spec: dict, out_path: str, mask_path: str | None = None, depth_path: str | None = None) -> dict:
        """One scene rendered, and handed over for writing beside the next render (`write.finish`):
        the image for `out_path`; with `mask_path`, its object mask (pixel = 1 + position from the left)
        and, with `depth_path`, its depth in millimetres; for a random scene, what each object's visible
        fraction is measured from."""
        from tabletest.render import engine

        start = time.perf_counter()
        staged = spec.get("random")  # a random scene's camera, table, lights and world; None: a benchmark scene
        facts = self._render(spec, None, object_index=mask_path is not None or staged is not None, staged=staged)
        scene = self.bpy.context.scene
        result = self.bpy.data.images["Render Result"]
        job = {"image": out_path, "raw": f"{out_path}.tif"}
        with engine.raw_output(scene):
            result.save_render(job["raw"], scene=scene)
        if staged is not None or mask_path:
            job.update(passes=f"{out_path}.passes.exr", mask=mask_path, depth=depth_path)
            with engine.multilayer_exr_output(scene, codec="NONE"):  # read once, at once: no time spent packing it
                result.save_render(job["passes"], scene=scene)
        if staged is not None:
            job["silhouettes"] = f"{out_path}.silhouettes.npz"
            with open(job["silhouettes"], "wb") as fh:
                np.savez(fh, *(self._silhouette(_key(obj["name"], obj["asset"])) for obj in spec["objects"]))
        facts["finish"] = job
        facts["busy_s"] = time.perf_counter() - start  # all the worker spent on it, the render call included
        return facts

    def layer(self, spec: dict, out_path: str) -> dict:
        """A layer (the table alone, or with one object) to a linear EXR with its Object Index pass."""
        from tabletest.render import engine

        with engine.multilayer_exr_output(self.bpy.context.scene):
            return self._render(spec, out_path, object_index=True)

    def _render(self, spec: dict, out_path: str | None, object_index: bool, staged: dict | None = None) -> dict:
        """Set the scene up (on a random scene's stage, given one) and render it; with `out_path`, Blender
        writes the result there itself."""
        bpy = self.bpy
        scene = bpy.context.scene
        importing = time.perf_counter()
        wanted = {_key(o["name"], o["asset"]): o for o in spec["objects"]}
        held = len(self.assets)
        for name, obj in wanted.items():
            self._asset(name, obj["asset"])
        if self.first_done and self.later:
            self._load_later()
        changed = [self._tintable(name, dict(obj["tint"])) for name, obj in wanted.items() if obj.get("tint")]
        if self._forget_unused(set(wanted)) or any(changed) or len(self.assets) != held:
            bpy.context.view_layer.update()  # what a new model or material costs once, kept out of the scene's set-up
        start, start_cpu = time.perf_counter(), time.process_time()
        if staged is not None:
            self._stage().apply(staged)
        for name, obj in wanted.items():
            if obj.get("tint") or name in self.tinted:  # an asset never tinted keeps its own colours: nothing to set
                self._tint(name, dict(obj.get("tint") or ()))
        self._show_only(set(wanted))
        for position, (name, obj) in enumerate(wanted.items()):
            pose = (tuple(obj["position_m"]), obj["yaw_deg"], tuple(obj.get("transform") or ()))
            if self.poses.get(name) != pose:  # set again, an unchanged pose still makes Cycles update the object
                root = self.parts[name][0]
                root.location = obj["position_m"]
                root.rotation_euler = (0.0, 0.0, math.radians(obj["yaw_deg"]))
                if self.poses.get(name, (None, None, ()))[2] != pose[2]:
                    self._drawn_as(name, pose[2])
                self.poses[name] = pose
            for part in self.parts[name]:
                if part.pass_index != position + 1:  # an unchanged value set again still tags the object
                    part.pass_index = position + 1
        view_layer = bpy.context.view_layer
        if view_layer.use_pass_object_index != object_index:
            view_layer.use_pass_object_index = view_layer.use_pass_z = object_index
        if scene.render.engine == "CYCLES":
            scene.cycles.seed = spec["seed"]
        view_layer.update()
        if out_path is not None:
            scene.render.filepath = out_path
        rendering, rendering_cpu = time.perf_counter(), time.process_time()
        bpy.ops.render.render(write_still=out_path is not None)
        self.first_done = True
        render_s, render_cpu_s = time.perf_counter() - rendering, time.process_time() - rendering_cpu
        depsgraph = bpy.context.evaluated_depsgraph_get()
        self._look(depsgraph)
        objects = [self._measure(obj, name, depsgraph) for name, obj in wanted.items()]
        return {
            "objects": objects, "render_s": render_s, "render_cpu_s": render_cpu_s, "setup_s": rendering - start,
            "setup_cpu_s": rendering_cpu - start_cpu,
            "import_s": start - importing,
        }

    def _stage(self):
        if self.stage is None:
            from tabletest.render.random_stage import RandomStage

            table = self.config.table
            self.stage = RandomStage(self.camera, (table.width_m, table.depth_m))
        return self.stage

    def _silhouette(self, name: str) -> np.ndarray:
        """Every triangle of the object's meshes projected into the image, in sub-pixels of
        `visibility.SUPERSAMPLE` (one row per triangle: x, y of its three corners; PIL puts sub-pixel
        centres at integer coordinates)."""
        from tabletest.truth.visibility import SUPERSAMPLE

        depsgraph = self.bpy.context.evaluated_depsgraph_get()
        triangles = []
        for part in self.parts[name]:
            if part.type == "MESH":
                world, corners = self._mesh(part, depsgraph)
                u, v = self._project(world)
                triangles.append((np.stack([u, v], axis=1) * SUPERSAMPLE - 0.5)[corners].reshape(-1, 6))
        return np.concatenate(triangles) if triangles else np.empty((0, 6))

    def _measure(self, obj: dict, name: str, depsgraph) -> dict:
        """Projected box centre and projected-mesh bounding box, in pixels (origin top-left), by Blender's camera."""
        points = [self._mesh(part, depsgraph)[0] for part in self.parts[name] if part.type == "MESH"]
        u, v = self._project(np.concatenate(points))
        width, height = self.resolution
        u, v = np.clip(u, 0, width), np.clip(v, 0, height)
        x, y, z = obj["position_m"]
        cu, cv = self._project(np.array([[x, y, z + obj["size_m"][2] / 2]]))
        return {
            "name": obj["name"],
            "center_px": [round(float(cu[0]), 3), round(float(cv[0]), 3)],
            "bbox_px": [round(float(u.min()), 2), round(float(v.min()), 2), round(float(u.max()), 2), round(float(v.max()), 2)],
        }

    def _mesh(self, part, depsgraph) -> tuple[np.ndarray, np.ndarray]:
        """A mesh object's vertices where the scene puts them, and its triangles' corners. Read from
        Blender once per object (a model's mesh never changes, only where it stands)."""
        evaluated = part.evaluated_get(depsgraph)
        if part.name not in self.meshes:
            mesh = evaluated.data
            mesh.calc_loop_triangles()
            co = np.empty(len(mesh.vertices) * 3)
            mesh.vertices.foreach_get("co", co)
            corners = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
            mesh.loop_triangles.foreach_get("vertices", corners)
            self.meshes[part.name] = co.reshape(-1, 3), corners
        co, corners = self.meshes[part.name]
        matrix = np.array(evaluated.matrix_world)
        return co @ matrix[:3, :3].T + matrix[:3, 3], corners

    @property
    def resolution(self) -> tuple[int, int]:
        render = self.bpy.context.scene.render
        return render.resolution_x, render.resolution_y

    def _look(self, depsgraph) -> None:
        """Take the camera of the scene just rendered: Blender's own projection and view matrices."""
        width, height = self.resolution
        projection = np.array(self.camera.calc_matrix_camera(depsgraph, x=width, y=height))
        view = np.array(self.camera.matrix_world.inverted())
        self.camera_matrix = projection @ view

    def _project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World points to pixel columns and rows through the camera `_look` took."""
        width, height = self.resolution
        clip = np.c_[points, np.ones(len(points))] @ self.camera_matrix.T
        ndc = clip[:, :2] / clip[:, 3:4]
        return (ndc[:, 0] + 1) / 2 * width, (1 - ndc[:, 1]) / 2 * height


def _key(name: str, asset: str) -> str:
    """An asset's name in the worker: the object's label and its model file (a label may show another look next)."""
    return f"{name}|{asset}"


def _ocio_config() -> str:
    """The OpenColorIO config this Blender applies its view transforms with (`$OCIO` overrides its own)."""
    import bpy

    own = os.path.join(bpy.utils.system_resource("DATAFILES"), "colormanagement", "config.ocio")
    return os.environ.get("OCIO") or own


def main() -> None:
    protocol = _protocol_stream()
    import bpy  # noqa: F401  (at once: the supervisor may start a worker before it knows the setup)

    from tabletest.render import base_scene, engine  # noqa: F401

    def send(message: dict) -> None:
        protocol.write(json.dumps(message) + "\n")

    worker = None
    for line in sys.stdin:
        message = json.loads(line)
        op = message["op"]
        try:
            if op == "setup":
                import bpy

                worker = Worker(message)
                blender = bpy.app.version_string
                send({
                    "event": "ready", "device": worker.device, "denoiser": engine.denoising(bpy.context.scene),
                    "blender": blender, "ocio_config": _ocio_config(), "pid": os.getpid(),
                })
            elif op == "render":
                facts = worker.render(message["spec"], message["out"], message.get("mask"), message.get("depth"))
                send({"event": "done", "id": message["spec"]["id"], **facts})
            elif op == "layer":
                facts = worker.layer(message["spec"], message["out"])
                send({"event": "done", "id": message["spec"]["id"], **facts})
            elif op == "quit":
                break
        except Exception as err:  # report and carry on: the supervisor decides about retries
            recurs = isinstance(err, RECURRING)  # the same input fails the same way: no use retrying it
            send({"event": "error", "op": op, "error": f"{type(err).__name__}: {err}", "recurs": recurs, "trace": traceback.format_exc()})
            if op == "setup":
                break
    protocol.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # what Blender would do at exit is free every model it holds: nothing of the worker's is left to write


if __name__ == "__main__":
    main()
