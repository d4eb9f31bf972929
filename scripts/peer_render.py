"""The script a user would write instead of TableTest, as CLEVR and Objaverse-XL render: for every
image, reopen the base .blend, import the models, place them, render. Used by `bench_render.py --peer`
to time TableTest against it on the same scenes and settings.

Usage: python scripts/peer_render.py JOBS.json, where JOBS.json is
{"base_blend": path, "scenes": [{"out": png, "seed": n, "objects": [{"asset": glb, "position_m": [x, y, z],
"yaw_deg": a}, ...]}, ...]}; the .blend already holds the camera, lights, table and render settings.
Prints one JSON line per image: {"out": png, "render_s": Blender's render call}.
"""

from __future__ import annotations

import json
import math
import sys
import time

import bpy


def render_scene(base_blend: str, scene: dict) -> float:
    bpy.ops.wm.open_mainfile(filepath=base_blend, load_ui=False)
    for obj in scene["objects"]:
        before = set(bpy.data.objects)
        bpy.ops.import_scene.gltf(filepath=obj["asset"])
        imported = set(bpy.data.objects) - before
        root = bpy.data.objects.new("root", None)
        bpy.context.scene.collection.objects.link(root)
        for part in imported:
            if part.parent is None:
                part.parent = root
        root.location = obj["position_m"]
        root.rotation_euler = (0.0, 0.0, math.radians(obj["yaw_deg"]))
    render = bpy.context.scene
    render.cycles.seed = scene["seed"]
    render.render.filepath = scene["out"]
    start = time.perf_counter()
    bpy.ops.render.render(write_still=True)
    return time.perf_counter() - start


def main() -> None:
    jobs = json.loads(open(sys.argv[1], encoding="utf-8").read())
    for scene in jobs["scenes"]:
        render_s = render_scene(jobs["base_blend"], scene)
        print(json.dumps({"out": scene["out"], "render_s": render_s}), file=sys.__stdout__, flush=True)


if __name__ == "__main__":
    main()
