"""Render the small scenes docs/guide/questions.md shows, and write their records in the
random-scene shape (camera, box3d, center_camera_m, depth_m, visible_fraction), so `tabletest questions`
reads them as it reads the random training scenes.

Objects stand where this script puts them (not in the benchmark's slots). Each scene is rendered by
the project's own Blender worker with its object mask, and each object once more alone, so that
`visible_fraction` is the share of its own pixels still seen in the scene.

    python scripts/render_question_examples.py --out docs/questions --assets assets
    tabletest questions --from docs/questions --out questions.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from PIL import Image

from tabletest.config import load_catalog, load_config
from tabletest.layout.camera import PinholeCamera
from tabletest.layout.spec import SceneSpec, SpecObject
from tabletest.assets.needed import needed_assets
from tabletest.render.supervisor import Supervisor, WorkerSlot

CAMERA_DISTANCE_M = 1.5
# (name, x, y, yaw): x right, y away from the camera, metres from the table centre; yaw turns the front
SCENES = {
    "rnd0-0000000": [
        ("teddy bear", -0.38, -0.05, 35.0),
        ("mug", -0.05, -0.28, 0.0),
        ("banana", -0.33, 0.16, 0.0),
        ("vase", 0.36, 0.3, 0.0),
        ("alarm clock", 0.3, -0.25, -60.0),
    ],
    "rnd0-0000001": [
        ("apple", 0.1, -0.38, 0.0),
        ("mug", -0.15, 0.38, 0.0),
        ("laptop", 0.32, 0.2, -30.0),
    ],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/questions"))
    parser.add_argument("--assets", type=Path, default=Path("assets"))
    parser.add_argument("--resolution", default="480x360")
    parser.add_argument("--samples", type=int, default=32)
    args = parser.parse_args()
    width, height = (int(v) for v in args.resolution.split("x"))
    catalog = load_catalog()
    base = load_config()
    render = base.render.model_copy(update={"engine": "cycles", "samples": args.samples})
    camera = base.camera.model_copy(update={"distance_m": CAMERA_DISTANCE_M})  # closer: depth shows more
    config = base.model_copy(update={"render": render, "camera": camera})
    entries = needed_assets(catalog, args.assets, {n for s in SCENES.values() for n, *_ in s}, True, None)
    top = config.table.height_m
    specs = []
    for scene_id, placed in SCENES.items():
        objects = tuple(
            SpecObject(n, "free", entries[n].source, entries[n].uid, str((args.assets / entries[n].file).resolve()),
                       (x, y, top), yaw, tuple(entries[n].size_m))
            for n, x, y, yaw in placed
        )  # fmt: skip
        specs.append(SceneSpec(scene_id, 0, len(objects), objects, 0))
        specs += [SceneSpec(f"{scene_id}-solo{k}", 0, 1, (o,), 0) for k, o in enumerate(objects)]
    work = args.out / ".work"
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)

    def request(spec: SceneSpec) -> dict:
        folder = args.out / "images" if "solo" not in spec.id else work
        return {"op": "render", "spec": spec.to_json(), "out": str(folder / f"{spec.id}.png"),
                "mask": str(work / f"{spec.id}.mask.png")}  # fmt: skip

    supervisor = Supervisor(
        setup={"config": config.model_dump(mode="json"), "resolution": [width, height], "engine": "cycles",
               "samples": args.samples, "device": "cpu"},
        slots=[WorkerSlot(0, None, None)], log_dir=work / "logs", request=request, retries=1, item_timeout=600,
        verbose=False,
    )  # fmt: skip
    for outcome in supervisor.run(specs):
        if not outcome.ok:
            raise SystemExit(f"{outcome.spec.id}: {outcome.error}\n{outcome.stderr}")
    camera = PinholeCamera.from_config(config, (width, height))
    rotation, position = camera.axes, np.asarray(camera.position)
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rotation, -rotation @ position
    f = camera.focal_px
    cam = {
        "K": [[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]],
        "world_to_camera": m.tolist(),
        "resolution": [width, height],
    }
    with open(args.out / "metadata.jsonl", "w", encoding="utf-8") as fh:
        for index, (scene_id, placed) in enumerate(SCENES.items()):
            mask = np.asarray(Image.open(work / f"{scene_id}.mask.png"))
            objects = []
            for k, (name, x, y, yaw) in enumerate(placed):
                alone = (np.asarray(Image.open(work / f"{scene_id}-solo{k}.mask.png")) == 1).sum()
                size = list(entries[name].size_m)
                center = [x, y, top + size[2] / 2]
                in_camera = rotation @ (np.asarray(center) - position)
                objects.append({
                    "name": name, "box3d": {"center_m": center, "size_m": size, "yaw_deg": yaw},
                    "center_camera_m": [round(float(v), 6) for v in in_camera], "depth_m": round(float(in_camera[2]), 6),
                    "visible_fraction": round(float((mask == k + 1).sum() / alone), 4) if alone else 0.0,
                })  # fmt: skip
            record = {"file_name": f"images/{scene_id}.png", "id": scene_id, "index": index, "n_objects": len(objects),
                      "camera": cam, "objects": objects, "relations": {}}  # fmt: skip
            fh.write(json.dumps(record) + "\n")
    print(f"wrote {len(SCENES)} scenes to {args.out}")


if __name__ == "__main__":
    main()
