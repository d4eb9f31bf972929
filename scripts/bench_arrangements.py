"""Benchmark random scenes off the table plane: how often each arrangement happens, what placement costs,
and whether the placed scenes are physically plausible, measured on the exact meshes.

    python scripts/bench_arrangements.py --count 10000 --simulate 2000 --jobs 2

For `--count` scenes of the shipped random config (pure Python, as `tabletest vignettes` draws them):
the share of scenes with each relation; placement CPU time per scene (median, 90th percentile) and its
growth with the number of objects (1 to 8, `--per-count` scenes each); with python-fcl, the deepest
interpenetration of any two meshes and the gap under every carried object; with MuJoCo, how far every
object of an arrangement (carried, carrier, touching) moves in 2 s of simulation, for the first
`--simulate` scenes that have one. Objects whose model MuJoCo moves even standing alone on the table
(a round or narrow base) are listed and left out of that count, so it measures the arrangements.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench_assets_build import cpu_model  # scripts/ is on the path when a script runs

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

ASSETS = REPO / "assets"
RESOLUTION = (512, 384)
MOVE_LIMIT_M = 0.005


def _setup(config_path: str | None, count: int, seed: int, objects: int | None = None):
    from tabletest.assets.manifest import load_manifest
    from tabletest.config import load_catalog, load_config
    from tabletest.layout.random_config import load_random_config
    from tabletest.layout.random_set import make_random_set

    catalog, config, rconfig = load_catalog(), load_config(), load_random_config(config_path)
    if objects is not None:  # validated again, so the digest (and with it the scenes) follows the new count
        data = rconfig.model_dump(mode="json")
        data["objects"]["count"] = [objects, objects]
        rconfig = type(rconfig).model_validate(data)
    scenes = make_random_set(catalog, rconfig, seed, count, None, None, None, None)
    entries = load_manifest(ASSETS).objects
    return scenes, config, entries


def _chunk(args: tuple) -> dict:
    """Sample scenes `start::step` of the set, timing placement, and measure each with relations off the plane."""
    from physics import plausibility
    from tabletest.layout.random_scene import sample_scene
    from tabletest.truth.contact import contact_relations

    config_path, count, seed, start, step, simulate, steady = args
    scenes, config, entries = _setup(config_path, count, seed)
    contact = scenes.contact(entries, ASSETS)
    sizes = {n: e.size_m for n, e in entries.items()}
    top = config.table.height_m
    out = {"cpu_s": [], "kinds": {k: 0 for k in ("on", "inside", "touching", "any", "levels2")}, "deepest": 0.0, "deep": 0,
           "gaps": [], "moved": [], "simulated": 0, "checked": 0}
    for index in range(start, count, step):
        t0 = time.process_time()
        scene = sample_scene(scenes.config, scenes.pool, sizes, seed, index, top, 36.0, RESOLUTION, contact.shapes)
        out["cpu_s"].append(time.process_time() - t0)
        rel, _ = contact_relations(scene.objects, contact.shapes, scenes.config.arrangements, 0.04, top)
        carried = [tuple(p) for p in rel["on"] + rel["inside"]]
        for key in ("on", "inside", "touching"):
            out["kinds"][key] += bool(rel[key])
        out["kinds"]["any"] += bool(carried or rel["touching"])
        lifted = {a for a, _ in carried}
        out["kinds"]["levels2"] += any(b in lifted for _, b in carried)
        if not (carried or rel["touching"]):
            continue
        out["checked"] += 1
        simulated = out["simulated"] < simulate
        result = plausibility(scene.objects, contact.shapes, carried, top, 2.0 if simulated else 0.0)
        out["deepest"] = max(out["deepest"], result.deepest_overlap_m)
        out["deep"] += result.overlaps_over_1mm
        out["gaps"] += list(result.carried_gaps_m)
        if simulated:
            out["simulated"] += 1
            arranged = {n for pair in carried for n in pair} | {n for pair in rel["touching"] for n in pair}
            out["moved"] += [(scene.id, n, m) for n, m in result.moved_m.items() if n in arranged and n in steady]
    return out


def steady_models() -> tuple[set[str], list[tuple[str, float]]]:
    """The models MuJoCo leaves in place standing alone on the table, and those it moves (with how far)."""
    from tabletest.assets.manifest import load_manifest
    from tabletest.layout.arrangements import Shape
    from physics import simulate
    from tabletest.layout.random_scene import PlacedObject

    steady, moving = set(), []
    for name, entry in load_manifest(ASSETS).objects.items():
        shape = {name: Shape(entry.size_m, str(ASSETS / entry.file), entry.sha256)}
        moved = simulate([PlacedObject(name, (0.0, 0.0, 0.75), 0.0, entry.size_m)], shape, [], 0.75, 2.0)[name]
        if moved < MOVE_LIMIT_M:
            steady.add(name)
        else:
            moving.append((name, moved))
    return steady, moving


def cost_by_objects(config_path: str | None, per_count: int) -> list[tuple[int, float]]:
    from tabletest.layout.random_scene import sample_scene

    rows = []
    for n in range(1, 9):
        scenes, config, entries = _setup(config_path, per_count, 1, objects=n)
        contact = scenes.contact(entries, ASSETS)
        sizes = {k: e.size_m for k, e in entries.items()}
        times = []
        for i in range(per_count):
            t0 = time.process_time()
            sample_scene(scenes.config, scenes.pool, sizes, 1, i, config.table.height_m, 36.0, RESOLUTION, contact.shapes)
            times.append(time.process_time() - t0)
        rows.append((n, statistics.median(times)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--simulate", type=int, default=2000, help="scenes with an arrangement to simulate (per job)")
    parser.add_argument("--per-count", type=int, default=200, help="scenes per object count for the cost curve")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--random-config", default=None)
    args = parser.parse_args()
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f} at start")
    started = time.perf_counter()
    steady, moving = steady_models()
    print("models MuJoCo moves standing alone on the table: " + (", ".join(f"{n} {m * 1000:.0f} mm" for n, m in sorted(moving, key=lambda x: -x[1])) or "none"))
    work = [(args.random_config, args.count, args.seed, k, args.jobs, args.simulate, steady) for k in range(args.jobs)]
    with ProcessPoolExecutor(args.jobs) as pool:
        parts = list(pool.map(_chunk, work))
    cpu = sorted(t for p in parts for t in p["cpu_s"])
    kinds = {k: sum(p["kinds"][k] for p in parts) for k in parts[0]["kinds"]}
    gaps = [g for p in parts for g in p["gaps"]]
    moved = [m for p in parts for m in p["moved"]]
    n = args.count
    print(f"{n} scenes (seed {args.seed}): with on {kinds['on'] / n:.1%}, inside {kinds['inside'] / n:.1%}, touching "
          f"{kinds['touching'] / n:.1%}, any of them {kinds['any'] / n:.1%}, two levels {kinds['levels2'] / n:.1%}")
    print(f"placement CPU per scene: median {statistics.median(cpu) * 1000:.1f} ms, 90th percentile {cpu[int(0.9 * len(cpu))] * 1000:.1f} ms")
    checked = sum(p["checked"] for p in parts)
    print(f"fcl on {checked} scenes with an arrangement: deepest interpenetration {max(p['deepest'] for p in parts) * 1000:.2f} mm, "
          f"{sum(p['deep'] for p in parts)} pairs deeper than 1 mm; {len(gaps)} carried objects, largest gap to the carrier "
          f"{max(gaps, default=0) * 1000:.2f} mm, {sum(g > 0.002 for g in gaps)} above 2 mm")
    far = sorted((m for m in moved if m[2] >= MOVE_LIMIT_M), key=lambda m: -m[2])
    simulated = sum(p["simulated"] for p in parts)
    print(f"MuJoCo, 2 s on {simulated} of them: {len(moved)} arranged objects (of steady models), {len(far)} moved 5 mm or more; "
          f"largest {max((m[2] for m in moved), default=0) * 1000:.1f} mm")
    for scene_id, name, m in far[:10]:
        print(f"  {scene_id} {name}: {m * 1000:.1f} mm")
    for objects, median in cost_by_objects(args.random_config, args.per_count):
        print(f"  {objects} objects: median placement CPU {median * 1000:.1f} ms")
    print(f"wall {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
