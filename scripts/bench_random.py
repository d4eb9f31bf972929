"""Benchmark random training scenes: sampling speed (pure Python), the worker's per-scene set-up,
and images/s at a training preset, with a projection for 100,000 images.

    python scripts/bench_random.py --images 6 --resolution 512x512 --samples 32

Renders with the real `tabletest render --scenes random` command (Cycles, denoised, CPU unless a
GPU is found) into a temporary folder. The steady rate leaves out the first image (worker start-up,
imports): it is (N - 1) / (time the last image landed - time the first landed).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_assets_build import cpu_model  # scripts/ is on the path when a script runs

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tabletest.files.run_output import read_runs  # noqa: E402


def sampling_rate(count: int, assets: Path) -> float:
    from tabletest.assets.manifest import load_manifest
    from tabletest.config import load_catalog, load_config
    from tabletest.layout.random_config import load_random_config
    from tabletest.layout.random_scene import sample_scene
    from tabletest.layout.random_set import make_random_set

    catalog, config, rconfig = load_catalog(), load_config(), load_random_config()
    entries = load_manifest(assets).objects
    sizes = {n: e.size_m for n, e in entries.items()}
    contact = make_random_set(catalog, rconfig, 0, count, None, None, None, None).contact(entries, assets)
    shapes = contact.shapes if contact is not None else None
    start = time.perf_counter()
    for i in range(count):
        sample_scene(rconfig, catalog.names, sizes, 0, i, config.table.height_m, 36.0, (512, 512), shapes)
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=6)
    parser.add_argument("--resolution", default="512x512")
    parser.add_argument("--samples", type=int, default=32)
    parser.add_argument("--assets", type=Path, default=None, help="built-in models (default: built into a temporary folder)")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, load average {load:.1f} at start")
    with tempfile.TemporaryDirectory() as tmp:
        assets = args.assets
        if assets is None:
            from tabletest.assets.builtin.build import build_assets
            from tabletest.config import load_catalog

            assets = Path(tmp) / "assets"
            build_assets(load_catalog(), assets)
        print(f"sampling (pure Python): {sampling_rate(2000, assets):,.0f} scenes/s")
        out = Path(tmp) / "out"
        command = [
            sys.executable, "-m", "tabletest.cli", "render", "--scenes", "random", "--count", str(args.images), "--seed", "0",
            "--resolution", args.resolution, "--samples", str(args.samples), "--assets", str(assets), "--out", str(out), "--quiet",
        ]
        start = time.time()
        subprocess.run(command, check=True, cwd=REPO, capture_output=True)
        wall = time.time() - start
        run = read_runs(out)[-1]
        landed = sorted(p.stat().st_mtime for p in (out / "images").glob("*.png"))
        steady = (len(landed) - 1) / (landed[-1] - landed[0])
        timings = run["timings"]
        blender = timings["blender_render_s_total"] / timings["images_rendered"]
        print(
            f"render {args.images} random scenes at {args.resolution}, {args.samples} samples, denoised, on {run['device']}: "
            f"{wall:.1f} s with start-up; first image after {landed[0] - start:.1f} s"
        )
        print(f"steady: {steady:.4f} images/s ({1 / steady:.2f} s/image; Blender's own render call {blender:.2f} s/image)")
        print(
            f"worker set-up per scene (camera, table, lights, world, objects), median: {timings['scene_setup_s_median'] * 1000:.1f} ms wall, "
            f"{timings['scene_setup_cpu_s_median'] * 1000:.1f} ms CPU"
        )
        print(f"projected for 100,000 images on this machine: {100_000 / steady / 3600:,.1f} h ({100_000 / steady / 86400:,.1f} days)")
        print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
