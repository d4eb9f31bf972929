"""What many looks of a kind cost a render worker: its render call, its set-up per scene, its imports and
its memory, with about 1, 8 and 32 looks per kind (random config `looks`).

Each variant draws the same random scenes (all 64 kinds, the shipped random config but for `looks`) and
renders them twice in a worker of its own, in this process's Python, at 96x72 and one sample on the CPU,
where what Cycles does around the path tracing shows. A colour look costs no model; a model look is built
once into the assets folder (not timed here) and imported by the worker the first time a scene shows it,
so the first pass pays for every model's first showing (its import, and Cycles taking in its mesh) and the
second pass is what a worker's scenes cost once it holds their models.

    python scripts/bench_looks.py --images 40 --repeat 3

With `--repeat N` the variants run in turn N times, and each figure is the median of the runs' medians.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RESOLUTION = (96, 72)
VARIANTS = {  # name: (models per kind, colours)
    "1 look per kind (looks off)": (1, False),
    "colours only": (1, True),
    "about 8 looks per kind": (2, True),
    "about 32 looks per kind": (8, True),
}


def scene_specs(models: int, colours: bool, count: int, assets: Path) -> tuple[list, float]:
    """The variant's scene specs, and its looks per kind on average."""
    from tabletest.assets.manifest import load_manifest
    from tabletest.assets.needed import needed_looks
    from tabletest.config import load_catalog, load_config
    from tabletest.layout.random_config import load_random_config
    from tabletest.layout.random_set import make_random_set
    from tabletest.layout.spec import random_spec

    catalog, config, random_config = load_catalog(), load_config(), load_random_config()
    looks = random_config.looks.model_copy(update={"models": models, "colours": colours})
    random_set = make_random_set(catalog, random_config.model_copy(update={"looks": looks}), 0, count, None, None, None, None)
    entries = dict(load_manifest(assets).objects)
    entries.update(needed_looks(catalog, assets, random_set.model_looks()))
    sizes = {name: entry.size_m for name, entry in entries.items()}
    scenes = random_set.scenes(sizes, config.table.height_m, config.camera.sensor_width_mm, RESOLUTION, set(), random_set.shapes(entries, assets))
    per_kind = statistics.mean(len(v) for _, v in random_set.variants) if random_set.variants else 1.0
    return [random_spec(scene, config.render.seed, entries, assets) for scene in scenes], per_kind


def run_variant(name: str, count: int, assets: Path, out: Path) -> None:
    """In this process: one worker, nothing preloaded, each scene rendered once; JSON of what each cost."""
    from tabletest.config import load_config
    from tabletest.render.run_options import RenderOptions, worker_setup
    from tabletest.render.worker import Worker

    models, colours = VARIANTS[name]
    config = load_config()
    config = config.model_copy(update={"render": config.render.model_copy(update={"samples": 1, "resolution": RESOLUTION})})
    specs, per_kind = scene_specs(models, colours, count, assets)
    worker = Worker(worker_setup(config, RenderOptions(out=out, assets=assets, build_missing_assets=False, device="cpu"), RESOLUTION, []))
    out.mkdir(parents=True, exist_ok=True)
    first = [worker.render(spec.to_json(), str(out / f"{spec.id}.png")) for spec in specs]
    again = [worker.render(spec.to_json(), str(out / f"{spec.id}.png")) for spec in specs]
    print(json.dumps({
        "per_kind": per_kind,
        "first": {key: [f[key] for f in first[1:]] for key in ("render_s", "setup_s")},  # the very first call builds everything
        "again": {key: [f[key] for f in again] for key in ("render_s", "setup_s")},
        "import_s": sum(f["import_s"] for f in first + again),
        "models": len(worker.assets),
        "rss_mb": _rss_mb(),
    }))


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--assets", type=Path, help="built-in models (default: built into a temporary folder)")
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:
        run_variant(args.variant, args.images, args.assets, args.out)
        return
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f} at the start; {args.images} random scenes at 96x72, 1 sample, CPU")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        assets = args.assets
        if assets is None:
            from tabletest.assets.builtin.build import build_assets
            from tabletest.config import load_catalog

            assets = Path(tmp) / "assets"
            build_assets(load_catalog(), assets)
        runs: dict[str, list[dict]] = {name: [] for name in VARIANTS}
        for _ in range(args.repeat):
            for index, name in enumerate(VARIANTS):
                done = subprocess.run(
                    [sys.executable, __file__, "--variant", name, "--images", str(args.images), "--assets", str(assets), "--out", str(Path(tmp) / str(index))],
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
        base = None
        for name, got in runs.items():
            medians = {
                (run, key): statistics.median(statistics.median(g[run][key]) for g in got) * 1000
                for run in ("first", "again") for key in ("render_s", "setup_s")
            }  # fmt: skip
            base = base or medians
            cells = "  ".join(
                f"{run} {word} {medians[run, key]:6.1f} ms ({medians[run, key] / base[run, key]:.2f}x)"
                for run in ("first", "again") for key, word in (("render_s", "render call"), ("setup_s", "set-up"))
            )
            print(f"{name:<28} {got[0]['per_kind']:5.1f} looks/kind  {cells}  imports {statistics.median(g['import_s'] for g in got):5.2f} s  "
                  f"{got[0]['models']} models held  worker RSS {statistics.median(g['rss_mb'] for g in got):.0f} MB")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
