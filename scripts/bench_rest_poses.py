"""Benchmark the rest poses: how far each built-in model moves standing alone on the table in 2 s of MuJoCo,
posed as its recipe made it and in its rest pose (`tabletest/assets/rest.py`).

    python scripts/bench_rest_poses.py [--seconds 2]

Builds the library twice into a temporary folder, in one process and with a fresh user cache (the first
time with the rest pose skipped), simulates each model alone (all in one MuJoCo world, a metre apart:
models never collide with one another there), and prints one line per model, the most moving first: its
motion as made and at rest, and the tilt of its rest pose (0: kept as made). Needs the physics extra
(`pip install -e '.[physics]'`).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from bench_assets_build import cpu_model  # scripts/ is on the path when a script runs

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TOP = 0.75


def motion(assets: Path, seconds: float) -> dict[str, float]:
    """How far (m) each model of `assets` moves standing alone on the table."""
    from tabletest.assets.manifest import load_manifest
    from tabletest.layout.arrangements import Shape
    from physics import simulate
    from tabletest.layout.random_scene import PlacedObject

    entries = sorted(load_manifest(assets).objects.items())
    shapes = {name: Shape(e.size_m, str(assets / e.file), e.sha256) for name, e in entries}
    objects = [PlacedObject(name, (float(k), 0.0, TOP), 0.0, e.size_m) for k, (name, e) in enumerate(entries)]
    return simulate(objects, shapes, [], TOP, seconds)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=2.0, help="simulated time")
    args = parser.parse_args()
    from tabletest.assets import canonical
    from tabletest.assets.builtin.build import build_assets
    from tabletest.config import load_catalog

    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f} at start")
    catalog, rest_turn, turns = load_catalog(), canonical.rest_turn, []

    def recorded(meshes):  # one process builds the catalog in order: the n-th turn is the n-th object's
        turns.append(rest_turn(meshes))
        return turns[-1]

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = tmp  # a fresh user cache: every rest pose is searched for
        made, rested = Path(tmp) / "made", Path(tmp) / "rested"
        canonical.rest_turn = lambda meshes: None  # the recipes' own poses
        started = time.perf_counter()
        build_assets(catalog, made, jobs=1)
        print(f"built {len(catalog.objects)} models as made in {time.perf_counter() - started:.1f} s (one process)")
        canonical.rest_turn = recorded
        started = time.perf_counter()
        build_assets(catalog, rested, jobs=1)
        print(f"built them in their rest poses in {time.perf_counter() - started:.1f} s (one process)")
        started = time.perf_counter()
        before, after = motion(made, args.seconds), motion(rested, args.seconds)
        print(f"simulated {args.seconds:g} s twice in {time.perf_counter() - started:.1f} s")
    tilt = {obj.name: 0.0 if turn is None else math.degrees(math.acos(min(1.0, turn[2, 2]))) for obj, turn in zip(catalog.objects, turns, strict=True)}
    print("\n| model | moves as made (mm) | moves at rest (mm) | rest pose tilt |\n| --- | ---: | ---: | ---: |")
    for name in sorted(before, key=lambda n: (-before[n], n)):
        print(f"| {name} | {before[name] * 1000:.2f} | {after[name] * 1000:.2f} | {tilt[name]:.1f}° |")
    print(f"\nlargest: {max(before.values()) * 1000:.1f} mm as made, {max(after.values()) * 1000:.2f} mm at rest; "
          f"{sum(t > 0 for t in tilt.values())} of {len(tilt)} models posed anew")


if __name__ == "__main__":
    main()
