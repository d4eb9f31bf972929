"""Benchmark: all 249,984 three-object vignette records, written by the real command.

Prints wall time, records/s and the peak RSS of the command (flat memory means it streams).
Usage: python scripts/bench_vignettes.py [--objects 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "vignettes.jsonl"
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "tabletest.cli", "vignettes", "--objects", str(args.objects), "--out", str(out)],
            check=True,
        )
        wall = time.perf_counter() - start
        lines = sum(1 for _ in open(out, encoding="utf-8"))
        size_mb = out.stat().st_size / 1e6
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{lines} records ({size_mb:.0f} MB) in {wall:.2f} s = {lines / wall:,.0f} records/s; peak RSS {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
