"""How long the `tabletest` command takes to answer when it does no work: its help, a mistyped flag, a
command's help (each a new process, as a user types it).

    python scripts/bench_cli_start.py [--runs 15] [--code DIR]

Runs each line `--runs` times, one after another, and prints the median and the fastest wall time and the
median CPU time (user + system: what the command itself spent, which other jobs on a busy machine do not
stretch), with the machine and its load average before and after. `--code DIR` times another checkout of TableTest (its
folder goes first on PYTHONPATH), e.g. an older one to compare with; the default is this one.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINES = (("--help",), ("render", "--bogus"), ("render", "--help"))


def command() -> list[str]:
    """The console script beside this Python where it is installed (what a user types), else the module."""
    script = Path(sys.executable).with_name("tabletest")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "tabletest.cli"]


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one run."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(argv, env=env, cwd=env["PYTHONPATH"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--code", type=Path, default=REPO, help="the TableTest checkout to time (default: this one)")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(args.code.resolve()), "COLUMNS": "80"}
    base = command()
    cores = os.cpu_count()
    print(f"machine: {platform.processor() or platform.machine()}, {cores} cores, Python {platform.python_version()}")
    print(f"code: {args.code.resolve()}; command: {' '.join(base)}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    timed([*base, "--help"], env)  # a first run to warm the file cache
    for line in LINES:
        walls, cpus = zip(*(timed([*base, *line], env) for _ in range(args.runs)))
        shown = f"tabletest {' '.join(line)}"
        print(
            f"{shown:<26} wall median {statistics.median(walls):.3f} s, fastest {min(walls):.3f} s;"
            f" CPU median {statistics.median(cpus):.3f} s  ({args.runs} runs)"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
