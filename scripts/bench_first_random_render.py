"""What the shipped random config's looks cost the first render of a new assets folder: it builds the models
of every kind's other looks (3 more per kind with `models: 4`) before its first scene; the next render
finds them built.

    python scripts/bench_first_random_render.py [--count 4] [--assets DIR]

Copies a folder of the built-in models (`--assets`, else built into a temporary folder first), renders
`--count` random scenes of the shipped config into it twice (64x48, 1 sample, CPU; a new --seed the second
time), and prints each render's wall time, the models the first one built and what they added to the folder.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def render(assets: Path, out: Path, seed: int, count: int) -> float:
    command = [
        sys.executable, "-m", "tabletest.cli", "render", "--scenes", "random", "--count", str(count), "--seed", str(seed),
        "--resolution", "64x48", "--samples", "1", "--assets", str(assets), "--out", str(out), "--quiet",
    ]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=REPO, capture_output=True)
    return time.perf_counter() - start


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--assets", type=Path, help="a folder of the built-in models (default: built here first)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        assets = Path(tmp) / "assets"
        if args.assets:
            shutil.copytree(args.assets, assets)
        else:
            subprocess.run([sys.executable, "-m", "tabletest.cli", "assets", "build", "--assets", str(assets)], check=True, cwd=REPO, capture_output=True)
        before = size_mb(assets)
        first = render(assets, Path(tmp) / "first", 0, args.count)
        looks = json.loads((assets / "manifest.json").read_text()).get("looks", {})
        second = render(assets, Path(tmp) / "second", 1, args.count)
        print(f"first render of {args.count} scenes (builds the looks' models): {first:.1f} s")
        print(f"second render of {args.count} other scenes (models built):       {second:.1f} s")
        print(f"models built: {len(looks)}; the assets folder {before:.1f} MB -> {size_mb(assets):.1f} MB")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
