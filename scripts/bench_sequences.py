"""What a sequence's frame after the first costs a worker, against rendering as many frames as separate scenes.

A sequence's frames keep their scene's world, table, lights and objects; only the camera (orbit, dolly) or one
object's place (slide) changes, which the worker sets as values on what it already holds. Separate random scenes
each bring another world, table and objects. Each variant renders in a worker of its own, in this process's Python,
every model loaded, at 96x72 and one sample on the CPU (host-side work as long as a GPU's whole call), and prints
the median render call of the frames after each sequence's first, and of the separate scenes after the first; the
floor is a frame that shows its scene unchanged (`the first frame again`: a render call with nothing to update).

    python scripts/bench_sequences.py --scenes 6 --frames 8
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

RESOLUTION = (96, 72)
VARIANTS = ("separate scenes", "the first frame again", "orbit", "dolly", "slide")


def specs(variant: str, scenes: int, frames: int, assets: Path) -> list[tuple[object, bool]]:
    """(spec, whether it is a frame after its sequence's first) for each image the variant renders: `scenes`
    sequences of `frames` frames, or as many images as separate scenes."""
    from tabletest.assets.manifest import load_manifest
    from tabletest.config import load_catalog, load_config
    from tabletest.layout.random_config import load_random_config
    from tabletest.layout.random_set import make_random_set
    from tabletest.layout.spec import random_spec
    from tabletest.truth.pairs import set_scenes
    from tabletest.truth.records import placed_relations

    catalog, config = load_catalog(), load_config()
    entries = load_manifest(assets).objects
    separate, again = variant == "separate scenes", variant == "the first frame again"
    count = scenes * frames if separate else scenes
    sequence = None if separate else "orbit" if again else variant
    random_set = make_random_set(catalog, load_random_config(), 0, count, None, None, None, None, sequence=sequence, frames=None if separate else frames)
    contact = random_set.contact(entries, assets)
    sizes = {name: entry.size_m for name, entry in entries.items()}
    relations_of = placed_relations(RESOLUTION, random_set.config.relations, {o.name: o.kind for o in catalog.objects}, contact)
    made = set_scenes(
        random_set, sizes, config.table.height_m, config.camera.sensor_width_mm, RESOLUTION,
        contact.shapes if contact is not None else None, relations_of, meshes=random_set.meshes(entries, assets),
    )  # fmt: skip
    made = list(made)
    if again:  # each later frame shows its scene unchanged: a render call with nothing to update
        first = {scene.frame.of: scene for scene in made if scene.frame.number == 0}
        made = [dataclasses.replace(first[scene.frame.of], id=scene.id, frame=scene.frame) for scene in made]
    return [(random_spec(scene, config.render.seed, entries, assets), scene.frame is not None and scene.frame.number > 0) for scene in made]


def run_variant(variant: str, scenes: int, frames: int, assets: Path, out: Path) -> None:
    """In this process: one worker, every model loaded, each image rendered once; JSON of the call times."""
    from tabletest.config import load_config
    from tabletest.render.run_options import RenderOptions, worker_setup
    from tabletest.render.worker import Worker

    config = load_config()
    config = config.model_copy(update={"render": config.render.model_copy(update={"samples": 1, "resolution": RESOLUTION})})
    options = RenderOptions(out=out, assets=assets, build_missing_assets=False, device="cpu")
    made = specs(variant, scenes, frames, assets)
    models = sorted({(o.name.split("#")[0], o.asset) for spec, _ in made for o in spec.objects})
    worker = Worker(worker_setup(config, options, RESOLUTION, models))
    out.mkdir(parents=True, exist_ok=True)
    later, first = [], []
    for k, (spec, after_first) in enumerate(made):
        seconds = worker.render(spec.to_json(), str(out / f"{spec.id}.png"))["render_s"]
        if k > 0:  # the first call builds everything
            (later if after_first else first).append(seconds)
    print(json.dumps({"variant": variant, "images": len(made), "later_s": later, "first_s": first}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=6, help="sequences per kind (the separate scenes: scenes x frames)")
    parser.add_argument("--frames", type=int, default=8)
    parser.add_argument("--assets", type=Path, help="built-in models (default: built into a temporary folder)")
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:
        run_variant(args.variant, args.scenes, args.frames, args.assets, args.out)
        return
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load average "
          f"{os.getloadavg()[0]:.2f} at the start; {args.scenes} sequences of {args.frames} frames per kind at 96x72, 1 sample, CPU")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        assets = args.assets
        if assets is None:
            from tabletest.assets.builtin.build import build_assets
            from tabletest.config import load_catalog

            assets = Path(tmp) / "assets"
            build_assets(load_catalog(), assets)
        print("| images | rendered | render call, median | first frames' call, median |")
        print("| --- | --- | --- | --- |")
        for variant in VARIANTS:
            done = subprocess.run(
                [sys.executable, __file__, "--variant", variant, "--scenes", str(args.scenes), "--frames", str(args.frames),
                 "--assets", str(assets), "--out", str(Path(tmp) / variant.replace(" ", "-"))],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            measured = json.loads(done.stdout.strip().splitlines()[-1])
            separate = variant == "separate scenes"
            calls = measured["first_s"] if separate else measured["later_s"]
            firsts = "" if separate or not measured["first_s"] else f"{statistics.median(measured['first_s']) * 1000:.1f} ms"
            what = variant if separate or variant == "the first frame again" else f"{variant}: frames after the first"
            print(f"| {what} | {measured['images']} | {statistics.median(calls) * 1000:.1f} ms | {firsts} |")


if __name__ == "__main__":
    main()
