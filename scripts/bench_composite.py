"""Benchmark: composite vs direct rendering, speed and fidelity, through the real `tabletest render`.

With K built-in objects drawn at random (seeded) it renders their layers cold (3K+1 renders), then
composes every 3-object scene of them from the warm cache (repeated R times into fresh folders),
then renders Q random 2-object and Q random 3-object scenes of them directly and compares them with
their composites (PSNR). It prints images/s of both modes and projects the wall time of the
4,032-image and 249,984-image sets (129 and 193 layers) on this machine.
Usage: python scripts/bench_composite.py [--objects 8] [--repeat 3] [--quality 3] [--resolution 1024x768] [--samples 64]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog
from tabletest.files.run_output import read_runs

SETS = {"4,032 (2 objects)": (4032, 2 * 64 + 1), "249,984 (3 objects)": (249984, 3 * 64 + 1)}


def render(out: Path, *args: str) -> dict:
    """Run `tabletest render`; return its record in run.json with the command's own wall time."""
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "tabletest.cli", "render", "--out", str(out), "--quiet", *args],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"render failed:\n{result.stderr}")
    return {**read_runs(out)[-1], "command_wall_s": wall}


def _cpu_model() -> str:
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.machine()
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), platform.machine())


def psnr(a: Path, b: Path) -> float:
    x, y = (np.asarray(Image.open(p), dtype=float) for p in (a, b))
    return float(10 * np.log10(255**2 / np.mean((x - y) ** 2)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=8, help="built-in objects drawn at random (K)")
    parser.add_argument("--repeat", type=int, default=3, help="warm composite runs over all 3-object scenes of them")
    parser.add_argument("--quality", type=int, default=3, help="random scenes per size rendered directly and compared")
    parser.add_argument("--resolution", default="1024x768")
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    catalog = load_catalog()
    names = random.Random(args.seed).sample(catalog.names, args.objects)
    print(
        f"machine: {_cpu_model()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.2f} at the start"
    )
    print(f"objects: {', '.join(names)}; {args.resolution}, {args.samples} samples")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build_assets(catalog, root / "assets", names)
        common = [
            "--assets",
            str(root / "assets"),
            "--only",
            ",".join(names),
            "--resolution",
            args.resolution,
            "--samples",
            str(args.samples),
            "--layer-cache",
            str(root / "cache"),
        ]

        cold = render(root / "cold", "--objects", "3", "--mode", "composite", *common)
        layers = cold["layers"]
        warm = [
            render(root / f"warm-{i}", "--objects", "3", "--mode", "composite", *common) for i in range(args.repeat)
        ]
        one = [
            render(root / f"one-{i}", "--objects", "3", "--mode", "composite", "--limit", "1", *common)
            for i in range(args.repeat)
        ]
        images = warm[0]["timings"]["images_rendered"]
        warm_wall = float(np.mean([w["command_wall_s"] for w in warm]))
        start_up = float(np.mean([w["command_wall_s"] for w in one]))
        layer_wall = (cold["command_wall_s"] - warm_wall) / layers["rendered"]
        compose_rate = (images - 1) / (warm_wall - start_up)  # the steady rate: without the command's start-up
        print(
            f"layers: {layers['rendered']} rendered cold in {cold['command_wall_s'] - warm_wall:.0f} s: "
            f"{layer_wall:.2f} s/layer wall, {layers['blender_render_s'] / layers['rendered']:.2f} s/layer in Blender"
        )
        print(
            f"composite, warm cache: {images} images in {warm_wall:.2f} s per command, {start_up:.2f} s for 1 image "
            f"(means of {args.repeat}) -> {compose_rate:.1f} images/s steady; "
            f"{warm[0]['images_rendered_directly']} rendered directly"
        )

        scores, direct_s = {}, []
        for n in (2, 3):
            select = ["--objects", str(n), "--sample", str(args.quality), "--seed", str(args.seed), *common]
            composite = render(root / f"q-composite-{n}", "--mode", "composite", *select)
            direct = render(root / f"q-direct-{n}", "--mode", "direct", *select)
            direct_s.append(direct["timings"]["blender_render_s_total"] / direct["timings"]["images_rendered"])
            records = [
                json.loads(line) for line in (root / f"q-direct-{n}" / "metadata.jsonl").read_text().splitlines()
            ]
            assert composite["images_composed"] == len(records)
            scores[n] = [
                psnr(root / f"q-composite-{n}" / r["file_name"], root / f"q-direct-{n}" / r["file_name"])
                for r in records
            ]
        direct_rate = 1 / float(np.mean(direct_s))
        print(
            f"direct: {direct_rate:.4f} images/s ({1 / direct_rate:.1f} s/image in Blender; "
            "bench_render.py: 0.1 % more per image in a long run)"
        )
        for n, values in scores.items():
            print(f"PSNR composite vs direct, {n} objects: " + ", ".join(f"{v:.1f}" for v in sorted(values)) + " dB")
        everything = [v for values in scores.values() for v in values]
        print(
            f"PSNR over all {len(everything)}: min {min(everything):.1f}, "
            f"median {np.median(everything):.1f}, max {max(everything):.1f} dB"
        )

    print(f"projected on this machine ({args.resolution}, {args.samples} samples):")
    for label, (count, n_layers) in SETS.items():
        composite_h = (n_layers * layer_wall + count / compose_rate) / 3600
        print(
            f"  {label}: composite {composite_h:.2f} h ({n_layers} layers {n_layers * layer_wall / 3600:.2f} h + "
            f"composing {count / compose_rate / 3600:.2f} h), direct {count / direct_rate / 3600:.1f} h "
            f"({count / direct_rate / 86400:.1f} days)"
        )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
