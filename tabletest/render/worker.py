"""A render worker process: builds the base scene once, imports each asset once, then renders specs.

Protocol, one JSON object per line: the supervisor writes `setup` then `render` (a scene to a PNG,
optionally with its object mask) or `layer` (a layer of the composite mode to a linear multilayer
EXR) messages on stdin; the worker answers `ready`, then `done` or `error` per item, on its original
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
from pathlib import Path
from types import SimpleNamespace
from typing import IO

import numpy as np
from PIL import Image, ImageDraw

from tabletest.compose.exr import depth_millimetres, read_passes


SUPERSAMPLE = 4  # silhouettes for visible fractions are filled at this many times the image resolution


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
        self.assets: dict[str, bpy.types.Collection] = {}
        self.stage = None  # the random scenes' stage, built on the first random scene

    def _asset(self, name: str, path: str):
        """The asset's collection, made on first use only (from the model cache, else its GLB)."""
        if name in self.assets:
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
        collection.hide_render = True
        self.assets[name] = collection
        return collection

    def render(self, spec: dict, out_path: str, mask_path: str | None = None, depth_path: str | None = None) -> dict:
        """One scene to a PNG; with `mask_path`, also its object mask (pixel = 1 + position from the left)
        and, with `depth_path`, its depth in millimetres. A random scene also gets each object's visible
        fraction, measured on the Object Index pass."""
        random_scene = spec.get("random") is not None
        facts = self._render(spec, out_path, object_index=mask_path is not None or random_scene)
        if random_scene or mask_path:
            passes = self._passes()
            index = passes["Object Index"]
            if mask_path:
                Image.fromarray(np.rint(index).astype(np.uint8)).save(mask_path, format="PNG")
            if depth_path:
                Image.fromarray(depth_millimetres(passes["Depth"])).save(depth_path, format="PNG")
            if random_scene:
                names = [obj["name"] for obj in facts["objects"]]
                for position, obj in enumerate(facts["objects"]):
                    obj["visible_fraction"], covering = self._visibility(obj["name"], index, position + 1)
                    obj["covered_by"] = [names[label - 1] for label in covering]
        return facts

    def layer(self, spec: dict, out_path: str) -> dict:
        """A layer (the table alone, or with one object) to a linear EXR with its Object Index pass."""
        from tabletest.render import engine

        with engine.multilayer_exr_output(self.bpy.context.scene):
            return self._render(spec, out_path, object_index=True)

    def _render(self, spec: dict, out_path: str, object_index: bool) -> dict:
        bpy = self.bpy
        scene = bpy.context.scene
        importing = time.perf_counter()
        for obj in spec["objects"]:
            self._asset(obj["name"], obj["asset"])
        start, start_cpu = time.perf_counter(), time.process_time()
        if spec.get("random") is not None:
            self._stage().apply(spec["random"])
        wanted = {o["name"]: o for o in spec["objects"]}
        for name, collection in self.assets.items():
            collection.hide_render = name not in wanted
        for position, (name, obj) in enumerate(wanted.items()):
            root = bpy.data.objects[f"root:{name}"]
            root.location = obj["position_m"]
            root.rotation_euler = (0.0, 0.0, math.radians(obj["yaw_deg"]))
            for part in self.assets[name].all_objects:
                part.pass_index = position + 1
        bpy.context.view_layer.use_pass_object_index = object_index
        bpy.context.view_layer.use_pass_z = object_index
        if scene.render.engine == "CYCLES":
            scene.cycles.seed = spec["seed"]
        bpy.context.view_layer.update()
        scene.render.filepath = out_path
        rendering, setup_cpu_s = time.perf_counter(), time.process_time() - start_cpu
        bpy.ops.render.render(write_still=True)
        render_s = time.perf_counter() - rendering
        objects = [self._measure(wanted[o["name"]], o["name"]) for o in spec["objects"]]
        return {
            "objects": objects, "render_s": render_s, "setup_s": rendering - start, "setup_cpu_s": setup_cpu_s,
            "import_s": start - importing,
        }

    def _stage(self):
        if self.stage is None:
            from tabletest.render.random_stage import RandomStage

            table = self.config.table
            self.stage = RandomStage(self.camera, (table.width_m, table.depth_m))
        return self.stage

    def _passes(self) -> dict[str, np.ndarray]:
        """The last render's Object Index and Depth passes (rows top to bottom), read back through a
        temporary EXR."""
        from tabletest.render import engine

        scene = self.bpy.context.scene
        exr = Path(scene.render.filepath + ".index.exr")
        with engine.multilayer_exr_output(scene):
            self.bpy.data.images["Render Result"].save_render(str(exr), scene=scene)
        try:
            return read_passes(exr)
        finally:
            exr.unlink(missing_ok=True)

    def _visibility(self, name: str, index: np.ndarray, value: int) -> tuple[float, list[int]]:
        """How much of the object is seen, and what covers it, both read off one rasterisation of its
        whole silhouette (every triangle of its meshes projected and filled at 4× resolution). The
        visible fraction: of its silhouette's sub-pixels whose pixel the Object Index pass gives to an
        object, the share given to this one (a pixel the pass gives to nothing, an edge pixel whose first
        sample missed it, counts neither way), so an object nothing hides reads 1.0 and one wholly hidden
        0.0, whatever its edge pixels do at the first sample. What covers it: the
        objects the pass shows on pixels wholly inside its silhouette (an edge pixel may show a
        neighbour that only touches it), in label order."""
        bpy = self.bpy
        depsgraph = bpy.context.evaluated_depsgraph_get()
        width, height = self.resolution
        silhouette = Image.new("1", (width * SUPERSAMPLE, height * SUPERSAMPLE), 0)
        draw = ImageDraw.Draw(silhouette)
        for mesh_obj in self.assets[name].all_objects:
            if mesh_obj.type != "MESH":
                continue
            evaluated = mesh_obj.evaluated_get(depsgraph)
            mesh = evaluated.data
            mesh.calc_loop_triangles()
            co = np.empty(len(mesh.vertices) * 3)
            mesh.vertices.foreach_get("co", co)
            matrix = np.array(evaluated.matrix_world)
            u, v = self._project(co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3], depsgraph)
            corners = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
            mesh.loop_triangles.foreach_get("vertices", corners)
            # PIL puts sub-pixel centres at integer coordinates
            points = (np.stack([u, v], axis=1) * SUPERSAMPLE - 0.5)[corners].reshape(-1, 6)
            for triangle in points.tolist():
                draw.polygon(triangle, fill=1)
        filled = np.asarray(silhouette).reshape(height, SUPERSAMPLE, width, SUPERSAMPLE)
        labels = np.rint(index).astype(int)
        per_pixel = filled.sum(axis=(1, 3))  # sub-pixels of the silhouette in each pixel
        seen = int(per_pixel[labels == value].sum())
        hidden = int(per_pixel[(labels != value) & (labels != 0)].sum())  # where another object is seen
        covering = sorted(set(np.unique(labels[per_pixel == SUPERSAMPLE**2]).tolist()) - {0, value})
        return (round(seen / (seen + hidden), 3) if seen + hidden else 0.0), covering

    def _measure(self, obj: dict, name: str) -> dict:
        """Projected box centre and projected-mesh bounding box, in pixels (origin top-left), by Blender's camera."""
        bpy = self.bpy
        depsgraph = bpy.context.evaluated_depsgraph_get()
        points = []
        for mesh_obj in self.assets[name].all_objects:
            if mesh_obj.type != "MESH":
                continue
            evaluated = mesh_obj.evaluated_get(depsgraph)
            co = np.empty(len(evaluated.data.vertices) * 3)
            evaluated.data.vertices.foreach_get("co", co)
            matrix = np.array(evaluated.matrix_world)
            points.append(co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3])
        u, v = self._project(np.concatenate(points), depsgraph)
        width, height = self.resolution
        u, v = np.clip(u, 0, width), np.clip(v, 0, height)
        x, y, z = obj["position_m"]
        cu, cv = self._project(np.array([[x, y, z + obj["size_m"][2] / 2]]), depsgraph)
        return {
            "name": name,
            "center_px": [round(float(cu[0]), 3), round(float(cv[0]), 3)],
            "bbox_px": [round(float(u.min()), 2), round(float(v.min()), 2), round(float(u.max()), 2), round(float(v.max()), 2)],
        }

    @property
    def resolution(self) -> tuple[int, int]:
        render = self.bpy.context.scene.render
        return render.resolution_x, render.resolution_y

    def _project(self, points: np.ndarray, depsgraph) -> tuple[np.ndarray, np.ndarray]:
        """World points to pixel columns and rows through Blender's own camera matrices."""
        width, height = self.resolution
        projection = np.array(self.camera.calc_matrix_camera(depsgraph, x=width, y=height))
        view = np.array(self.camera.matrix_world.inverted())
        clip = np.c_[points, np.ones(len(points))] @ (projection @ view).T
        ndc = clip[:, :2] / clip[:, 3:4]
        return (ndc[:, 0] + 1) / 2 * width, (1 - ndc[:, 1]) / 2 * height


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
                send({"event": "ready", "device": worker.device, "blender": blender, "ocio_config": _ocio_config(), "pid": os.getpid()})
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


if __name__ == "__main__":
    main()
