"""What Blender re-does in each render call, measured where a CPU's call is as short as a GPU's.

On a GPU the path tracing of a small or few-sample image takes milliseconds, so what Cycles does around
it in every call (syncing the scene, building the BVH, uploading it, rebuilding the world's importance
map, reading the film back) decides the images per second. At 96x72 and one sample (no denoising) the
same host-side work shows on a CPU. Each variant renders the same scenes in a worker of its own, in
this process's Python, and prints the median render call; the pixels of each variant are compared with
the default's.

    python scripts/bench_render_call.py --images 24

Variants: benchmark scenes with persistent data (the default) and without; random scenes as drawn, and
with every scene given more and more of the first scene (its world, whose importance map then need not
be rebuilt; its key light; its table; its camera): what each change costs a render call.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

RESOLUTION = (96, 72)
# name: (scene family, persistent data, what every random scene takes from the first one)
VARIANTS = {
    "benchmark, persistent data (default)": ("benchmark", True, ()),
    "benchmark, no persistent data": ("benchmark", False, ()),
    "random, as drawn (default)": ("random", True, ()),
    "random, the first scene's world": ("random", True, ("world", "backdrop")),
    "random, its world and key light": ("random", True, ("world", "backdrop", "key_light")),
    "random, its world, key light and table": ("random", True, ("world", "backdrop", "key_light", "table")),
    "random, all but the objects": ("random", True, ("world", "backdrop", "key_light", "table", "camera")),
}


def specs(family: str, count: int, assets: Path, held: tuple[str, ...]) -> list:
    from tabletest.assets.manifest import load_manifest
    from tabletest.config import load_catalog, load_config
    from tabletest.layout.random_config import load_random_config
    from tabletest.layout.random_set import make_random_set
    from tabletest.layout.selection import Selection, select_scenes
    from tabletest.layout.spec import random_spec, scene_spec

    catalog, config = load_catalog(), load_config()
    entries = load_manifest(assets).objects
    if family == "benchmark":
        return [scene_spec(s, config, entries, assets, RESOLUTION) for s in select_scenes(catalog, Selection(3, sample=count, seed=1))]
    random_set = make_random_set(catalog, load_random_config(), 0, count, None, None, None, None)
    contact = random_set.contact(entries, assets)
    sizes = {name: entry.size_m for name, entry in entries.items()}
    scenes = list(random_set.scenes(sizes, config.table.height_m, config.camera.sensor_width_mm, RESOLUTION, set(),
                                    contact.shapes if contact is not None else None))  # fmt: skip
    scenes = [dataclasses.replace(s, **{field: getattr(scenes[0], field) for field in held}) for s in scenes]
    return [random_spec(scene, config.render.seed, entries, assets) for scene in scenes]


def run_variant(name: str, count: int, assets: Path, out: Path) -> None:
    """In this process: one worker, every model loaded, each scene rendered once; JSON of the call times."""
    from tabletest.config import load_config
    from tabletest.render.run_options import RenderOptions, worker_setup
    from tabletest.render.worker import Worker

    family, persistent, held = VARIANTS[name]
    config = load_config()
    config = config.model_copy(update={"render": config.render.model_copy(update={"samples": 1, "resolution": RESOLUTION})})
    options = RenderOptions(out=out, assets=assets, build_missing_assets=False, device="cpu")
    scene_specs = specs(family, count, assets, held)
    models = sorted({(o.name.split("#")[0], o.asset) for spec in scene_specs for o in spec.objects})
    worker = Worker(worker_setup(config, options, RESOLUTION, models))
    worker.bpy.context.scene.render.use_persistent_data = persistent
    out.mkdir(parents=True, exist_ok=True)
    calls = []
    for spec in scene_specs:
        facts = worker.render(spec.to_json(), str(out / f"{spec.id}.png"))
        calls.append(facts["render_s"])
    print(json.dumps({"variant": name, "render_s": calls[1:]}))  # the first call builds everything


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", type=int, default=24)
    parser.add_argument("--assets", type=Path, help="built-in models (default: built into a temporary folder)")
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:
        run_variant(args.variant, args.images, args.assets, args.out)
        return
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f} at the start; {args.images} scenes at 96x72, 1 sample, CPU")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        assets = args.assets
        if assets is None:
            from tabletest.assets.builtin.build import build_assets
            from tabletest.config import load_catalog

            assets = Path(tmp) / "assets"
            build_assets(load_catalog(), assets)
        defaults = {}
        for name, (family, _, _) in VARIANTS.items():
            out = Path(tmp) / name.split(",")[0] / str(len(defaults))
            done = subprocess.run(
                [sys.executable, __file__, "--variant", name, "--images", str(args.images), "--assets", str(assets), "--out", str(out)],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            calls = json.loads(done.stdout.strip().splitlines()[-1])["render_s"]
            images = {p.name: _raw(p) for p in sorted(out.glob("*.png.tif"))}
            if family not in defaults:
                defaults[family], same = images, "(the reference)"
            else:
                equal = sum(np.array_equal(images[k], defaults[family][k]) for k in images)
                same = f"pixels equal to the default's: {equal}/{len(images)}"
            print(f"{name:<48} render call median {statistics.median(calls) * 1000:6.1f} ms  {same}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


def _raw(path: Path) -> np.ndarray:
    with Image.open(path) as image:
        return np.asarray(image)


if __name__ == "__main__":
    main()
