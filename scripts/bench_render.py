"""Benchmark: direct rendering spends its time in path tracing.

Renders K scenes through the real supervisor and worker, then compares, for the steady part of the
run (after the first image, which pays for the worker start and the asset imports), the wall time
per image seen by the supervisor with Blender's own render time for that image.
Usage: python scripts/bench_render.py [--images 6] [--resolution 1024x768] [--samples 64] [--engine cycles]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog, load_config
from tabletest.layout.selection import Selection, select_scenes
from tabletest.layout.spec import scene_spec
from tabletest.render.cli import parse_resolution
from tabletest.render.context import RenderOptions, worker_slots
from tabletest.render.supervisor import Supervisor


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=6)
    parser.add_argument("--objects", type=int, default=3)
    parser.add_argument("--resolution", default="1024x768")
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--engine", default="cycles")
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    catalog, config = load_catalog(), load_config()
    resolution = parse_resolution(args.resolution)
    scenes = list(select_scenes(catalog, Selection(args.objects, sample=args.images, seed=1)))
    with tempfile.TemporaryDirectory() as tmp:
        assets, out = Path(tmp) / "assets", Path(tmp) / "out"
        manifest = build_assets(catalog, assets, sorted({n for s in scenes for n in s.objects}))
        specs = [scene_spec(s, config, manifest.objects, assets, resolution) for s in scenes]
        options = RenderOptions(out=out, assets=assets, build_missing_assets=False, device=args.device)
        supervisor = Supervisor(
            setup={"config": config.model_dump(mode="json"), "resolution": list(resolution), "engine": args.engine,
                   "samples": args.samples, "device": args.device},
            slots=worker_slots(options),
            log_dir=out / "logs",
            request=lambda spec: {"op": "render", "spec": spec.to_json(), "out": str(out / f"{spec.id}.png")},
        )
        start = time.perf_counter()
        outcomes = list(supervisor.run(specs))
        total = time.perf_counter() - start
    steady = outcomes[1:]
    wall = statistics.mean(o.wall_s for o in steady)
    blender = statistics.mean(o.facts["render_s"] for o in steady)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; device {supervisor.started[0]['device']}")
    print(f"{args.engine}, {args.resolution}, {args.samples} samples, {args.objects} objects, {len(outcomes)} images in {total:.1f} s")
    print(f"first image (worker start + imports + render): {outcomes[0].wall_s:.2f} s")
    print(f"steady: wall {wall:.3f} s/image vs Blender render {blender:.3f} s/image -> overhead {100 * (wall / blender - 1):.1f}%")
    print(f"steady throughput: {1 / wall:.3f} images/s per worker")


if __name__ == "__main__":
    main()
