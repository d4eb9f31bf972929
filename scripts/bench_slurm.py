"""Benchmark: the overhead of the farm path (submit, schedule, merge) against a plain local render.

Renders the same scenes twice on this machine: once with `tabletest render`, once with
`tabletest slurm render --tasks T` on the single-node SLURM of scripts/ci/slurm-single-node.sh
(started here if it is not up, and stopped again), waiting for the merged dataset. Prints both wall
times, their ratio, and where the farm's extra time goes (time to the first task's start, the merge).
Usage (as root): python scripts/bench_slurm.py [--tasks 4] [--only tomato,banana,apple,lemon,orange]
                 [--objects 2] [--resolution 64x48] [--samples 4]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog

REPO = Path(__file__).resolve().parents[1]
CLUSTER = REPO / "scripts" / "ci" / "slurm-single-node.sh"


def tabletest(*args: str) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "tabletest.cli", *args], capture_output=True, text=True, cwd=REPO)
    if result.returncode != 0:
        sys.exit(f"tabletest {' '.join(args)} failed: {result.stderr}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--only", default="tomato,banana,apple,lemon,orange")
    parser.add_argument("--objects", default="2")
    parser.add_argument("--resolution", default="64x48")
    parser.add_argument("--samples", default="4")
    args = parser.parse_args()
    up = subprocess.run([str(CLUSTER), "up"], capture_output=True, text=True, check=True).stdout
    os.environ["SLURM_CONF"] = subprocess.run([str(CLUSTER), "env"], capture_output=True, text=True, check=True).stdout.split("=", 1)[1].strip()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            run(Path(tmp), args)
    finally:
        if "already up" not in up:
            subprocess.run([str(CLUSTER), "down"], capture_output=True, check=True)


def run(tmp: Path, args: argparse.Namespace) -> None:
    assets = tmp / "assets"
    build_assets(load_catalog(), assets, args.only.split(","), jobs=1)
    scenes = ["--objects", args.objects, "--only", args.only, "--resolution", args.resolution,
              "--samples", args.samples, "--device", "cpu", "--assets", str(assets)]

    start = time.perf_counter()
    tabletest("render", "--out", str(tmp / "local"), "--quiet", *scenes)
    local = time.perf_counter() - start

    farm = tmp / "farm"
    submitted_at = time.time()
    start = time.perf_counter()
    submitted = tabletest("slurm", "render", "--out", str(farm), "--tasks", str(args.tasks), *scenes)
    submit = time.perf_counter() - start
    array = re.search(r"submitted array job (\d+)", submitted.stdout).group(1)
    while not (farm / "merged" / "run.json").is_file():
        time.sleep(0.2)
    farm_wall = time.perf_counter() - start
    merge_log = ""
    while "merged" not in merge_log:  # the job prints its line just after writing run.json
        time.sleep(0.2)
        merge_log = "".join(log.read_text() for log in (farm / "slurm" / "logs").glob("merge-*.log"))

    start = time.perf_counter()
    tabletest("merge", *map(str, sorted((farm / "parts").iterdir())), "--out", str(tmp / "merged-again"))
    merge = time.perf_counter() - start
    first_start = min(
        datetime.fromisoformat(json.loads((part / "run.json").read_text())["runs"][0]["started"]).timestamp()
        for part in (farm / "parts").iterdir()
    )
    images = len((tmp / "local" / "metadata.jsonl").read_text().splitlines())
    cores = os.cpu_count()
    print(f"machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}; SLURM {slurm_version()}, one node")
    print(f"{images} images ({args.objects} objects, {args.resolution}, {args.samples} samples, cycles CPU)")
    print(f"local render:  {local:6.1f} s  (tabletest render, one process, {cores} threads)")
    print(f"farm path:     {farm_wall:6.1f} s  (slurm render --tasks {args.tasks}: submit, schedule, render, merge job)")
    print(f"ratio farm / local: {farm_wall / local:.2f}")
    print(f"  submit command: {submit:.1f} s; first render began {first_start - submitted_at:.0f} s after submitting (1 s clock); array job {array}")
    print(f"  merge alone (tabletest merge of the {args.tasks} parts): {merge:.1f} s; merge job said: {merge_log.strip()}")


def slurm_version() -> str:
    return subprocess.run(["sbatch", "--version"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main()
