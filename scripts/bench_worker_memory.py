"""Benchmark: a render worker's resident memory over a long run stays flat.

Runs the real `tabletest render` command over N scenes (default: 1,000 3-object benchmark scenes at
32x24, 1 sample, with --masks) and reads the worker process's resident size (VmRSS, from /proc) as the
metadata file passes scene 1, 10, 100, 200, ... N (the first reading at or after each). Long Blender sessions are known to leak
(BlenderProc issues 400, 920, 1194); the bar is RSS after scene 1,000 within 10% of after scene 100.
The output folder is kept (--out) so `tabletest verify` can audit it.
Usage: python scripts/bench_worker_memory.py [--scenes 1000] [--resolution 32x24] [--samples 1] --out DIR
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORKER = "tabletest.render.worker"


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def worker_pids(pid: int) -> list[int]:
    """The render workers below process `pid`."""
    todo, workers = [pid], []
    while todo:
        for child in children(todo.pop()):
            todo.append(child)
            try:
                if WORKER in (Path("/proc") / str(child) / "cmdline").read_bytes().decode(errors="replace"):
                    workers.append(child)
            except OSError:
                continue
    return workers


def rss_mb(pid: int) -> float:
    for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise ValueError(f"no VmRSS for {pid}")


def lines(path: Path) -> int:
    try:
        with open(path, "rb") as fh:
            return sum(1 for _ in fh)
    except OSError:
        return 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=1000)
    parser.add_argument("--objects", type=int, default=3)
    parser.add_argument("--resolution", default="32x24")
    parser.add_argument("--samples", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--assets", default="assets", help="the models (default: assets/, built-in models built if missing)")
    args = parser.parse_args()
    marks = sorted({1, 10, *range(100, args.scenes + 1, 100), args.scenes})
    command = [
        sys.executable, "-m", "tabletest.cli", "render", "--objects", str(args.objects), "--sample", str(args.scenes),
        "--seed", "5", "--resolution", args.resolution, "--samples", str(args.samples), "--masks", "--quiet",
        "--assets", args.assets, "--out", str(args.out),
    ]  # fmt: skip
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f} at the start")  # fmt: skip
    print(" ".join(command[1:]))
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    readings: dict[int, tuple[int, float]] = {}  # scenes done -> (worker pid, RSS MB)
    metadata = args.out / "metadata.jsonl"
    while proc.poll() is None and marks:
        done = lines(metadata)
        if done >= marks[0]:
            try:
                for pid in worker_pids(proc.pid):  # one worker on a CPU box
                    readings[done] = (pid, rss_mb(pid))
            except (OSError, ValueError):  # the worker quit after the last image
                pass
            while marks and marks[0] <= done:
                marks.pop(0)
            continue
        time.sleep(0.01)
    code = proc.wait()
    wall = time.perf_counter() - start
    for scenes, (pid, rss) in sorted(readings.items()):
        print(f"after scene {scenes:>5}: worker {pid} RSS {rss:7.1f} MB")
    if code:
        sys.exit(f"tabletest render exited {code}")
    print(f"{args.scenes} images in {wall:.0f} s; load average {os.getloadavg()[0]:.2f} at the end")
    hundredth = min((n for n in readings if n >= 100), default=None)
    if hundredth is not None:
        last = max(readings)
        (pid0, rss0), (pid1, rss1) = readings[hundredth], readings[last]
        same = "the same worker" if pid0 == pid1 else "different workers"
        print(f"RSS after scene {last} / after scene {hundredth}: {rss1 / rss0:.3f} ({same})")


if __name__ == "__main__":
    main()
