"""Benchmark: build all 64 built-in models with the real command, `tabletest assets build`.

Times the whole command (start-up, recipes, rest poses, GLB export, manifest) from a fresh process, a
few times, and prints the best and median wall time with the machine. Each run has a fresh user cache,
as on first use; with `--warm` they share one that holds the rest poses already, as on a rebuild.
`--cpus 2` pins the command to two CPUs, so the figure stands for a 2-core machine on a bigger one too.
Usage: python scripts/bench_assets_build.py [--cpus 2] [--jobs 2] [--repeat 3] [--warm]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cpus", type=int, default=None, help="pin to the first N CPUs (Linux)")
    parser.add_argument("--jobs", type=int, default=None, help="--jobs of the build (default: its own default)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--warm", action="store_true", help="the user cache holds the rest poses already (a rebuild)")
    args = parser.parse_args()
    if args.cpus:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[: args.cpus])  # inherited by the command
    cpus = len(os.sched_getaffinity(0))
    command = [sys.executable, "-m", "tabletest.cli", "assets", "build"] + (["--jobs", str(args.jobs)] if args.jobs else [])
    walls = []
    with tempfile.TemporaryDirectory() as shared:
        if args.warm:  # the rest poses found once, as on any rebuild
            subprocess.run(command + ["--out", str(Path(shared) / "first")], check=True, capture_output=True, env={**os.environ, "XDG_CACHE_HOME": shared})
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                env = {**os.environ, "XDG_CACHE_HOME": shared if args.warm else str(Path(tmp) / "cache")}
                start = time.perf_counter()
                subprocess.run(command + ["--out", str(Path(tmp) / "assets")], check=True, capture_output=True, env=env)
                walls.append(time.perf_counter() - start)
                models = Path(tmp) / "assets"
                count = len(list(models.glob("*.glb")))
                size_mb = sum(p.stat().st_size for p in models.iterdir()) / 1e6
    print(f"machine: {cpu_model()}, {cpus} of {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(
        f"{count} models ({size_mb:.1f} MB) built by `tabletest assets build{' --jobs ' + str(args.jobs) if args.jobs else ''}`: "
        f"best {min(walls):.1f} s, median {statistics.median(walls):.1f} s over {len(walls)} runs, "
        f"{'rest poses from the user cache' if args.warm else 'each with a fresh user cache'}"
    )


if __name__ == "__main__":
    main()
