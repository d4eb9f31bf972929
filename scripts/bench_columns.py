"""Benchmark a model's columns: measuring them from the model file against reading them back from the user's
cache (`tabletest/assets/canonical.py: model_columns`), for every model of an assets folder.

    python scripts/bench_columns.py [--assets assets]

Uses a fresh user cache in a temporary folder: each model is measured once (its file loaded and rasterised,
then kept), then read back in a new lookup. Prints the totals, the slowest model, and the machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from bench_assets_build import cpu_model  # scripts/ is on the path when a script runs

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=Path, default=REPO / "assets", help="a built assets folder (tabletest assets build)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-columns-") as cache:
        os.environ["XDG_CACHE_HOME"] = cache
        from tabletest.assets.canonical import model_columns
        from tabletest.assets.manifest import load_manifest

        entries = load_manifest(args.assets).objects
        measured, read = {}, {}
        for name, entry in sorted(entries.items()):
            path = str(args.assets / entry.file)
            for times in (measured, read):
                model_columns.cache_clear()
                start = time.perf_counter()
                model_columns(path, entry.sha256)
                times[name] = time.perf_counter() - start
    slowest = max(measured, key=measured.get)
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"{len(entries)} models: measured in {sum(measured.values()):.2f} s, read back in {sum(read.values()):.3f} s")
    print(f"slowest: {slowest}, measured in {measured[slowest] * 1000:.0f} ms, read back in {read[slowest] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
