"""Benchmark: direct rendering spends its time in path tracing, and beats the script a user would write.

Renders K scenes through the real supervisor and a worker given all 64 built-in models (it loads its first scene's,
then the others at its second scene), then compares, for the steady part of the run (after those two images, which
pay for the worker start and the model imports), the wall time per image seen by the supervisor with Blender's own
render time for that image.

With --peer it also runs, on the same scenes and settings and in the same run, the real
`tabletest render` command and `scripts/peer_render.py` (reopen the base .blend, import the models,
place, render, for every image: how CLEVR and Objaverse-XL render), alternating them --repeat times,
and prints each one's wall time, its start-up (time to the first image less one steady image), the
ratio, and whether the peer's images are TableTest's, pixel for pixel.
The real command is given `--assets` as a path relative to where it runs, as the default `assets` is.
The runs share a model cache of their own (`$XDG_CACHE_HOME` set to a temporary folder), filled by the
first run as a user's earlier runs would fill theirs; with --cold-cache it is emptied before each
`tabletest render`, as on a machine's very first run.
With --workers 1 2 3 it also times the real command with that many workers sharing the one device
(`--workers N`; on a CPU they split its cores), --repeat times each.
Usage: python scripts/bench_render.py [--images 6] [--resolution 1024x768] [--samples 64] [--engine cycles]
       python scripts/bench_render.py --peer --images 24 --resolution 256x192 --samples 16 --repeat 3 [--cold-cache]
       python scripts/bench_render.py --images 48 --resolution 96x72 --samples 1 --peer --repeat 3 --workers 1 2 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog, load_config
from tabletest.layout.selection import Selection, select_scenes
from tabletest.layout.spec import scene_spec
from tabletest.assets.needed import needed_assets
from tabletest.commands.render import parse_resolution
from tabletest.render.run_options import RenderOptions, run_models, worker_setup, worker_slots
from tabletest.render.supervisor import Supervisor

REPO = Path(__file__).resolve().parents[1]
SAVE_BASE = """
import sys, bpy
from tabletest.config import load_config
from tabletest.render import base_scene, engine
config = load_config()
base_scene.build(config)
engine.configure(bpy.context.scene, {"config": config.model_dump(mode="json"), "resolution": [%d, %d], "engine": %r, "samples": %d, "device": "cpu"})
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


@dataclass(frozen=True)
class Timed:
    wall_s: float
    first_s: float  # command start to the first image on disk
    steady_s: float  # per image, from the first image to the last
    cpu_s: float  # CPU time of the command and its workers: what other jobs' load inflates least

    @property
    def startup_s(self) -> float:
        return self.first_s - self.steady_s


def timed(command: list[str], images: Path, count: int) -> Timed:
    """Run a command; note when its first and last images appear in `images`."""
    seen: list[float] = []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)

    def watch() -> None:
        while proc.poll() is None or len(seen) < count:
            n = len(list(images.glob("*.png"))) if images.is_dir() else 0
            seen.extend([time.perf_counter() - start] * (n - len(seen)))
            if proc.poll() is not None and n == len(seen):
                break
            time.sleep(0.005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    code = proc.wait()
    wall = time.perf_counter() - start
    watcher.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if code or len(seen) != count:
        sys.exit(f"{command[:3]} exited {code} with {len(seen)} of {count} images")
    return Timed(wall, seen[0], (seen[-1] - seen[0]) / max(count - 1, 1), cpu)


def peer_comparison(args, specs, assets: Path, tmp: Path, resolution: tuple[int, int]) -> None:
    base = tmp / "table.blend"
    subprocess.run([sys.executable, "-c", SAVE_BASE % (*resolution, args.engine, args.samples), str(base)], check=True,
                   capture_output=True, cwd=REPO)  # fmt: skip
    ours, theirs = [], []
    for repeat in range(args.repeat):
        out, peer_out = tmp / f"tt-{repeat}", tmp / f"peer-{repeat}"
        peer_out.mkdir()
        jobs = {
            "base_blend": str(base),
            "scenes": [{"out": str(peer_out / f"{s.id}.png"), "seed": s.seed, "objects": [
                {"asset": o.asset, "position_m": list(o.position_m), "yaw_deg": o.yaw_deg} for o in s.objects]}
                for s in specs],
        }  # fmt: skip
        (tmp / "jobs.json").write_text(json.dumps(jobs))
        command = [
            sys.executable, "-m", "tabletest.cli", "render", "--objects", str(args.objects), "--sample", str(args.images),
            "--seed", "1", "--assets", os.path.relpath(assets, REPO), "--resolution", args.resolution,
            "--samples", str(args.samples), "--engine", args.engine, "--device", "cpu", "--quiet", "--out", str(out),
        ]  # fmt: skip
        if args.cold_cache:
            shutil.rmtree(Path(os.environ["XDG_CACHE_HOME"]) / "tabletest" / "models", ignore_errors=True)
        ours.append(timed(command, out / "images", len(specs)))
        theirs.append(timed([sys.executable, str(REPO / "scripts" / "peer_render.py"), str(tmp / "jobs.json")], peer_out, len(specs)))
    same = sum(
        np.array_equal(np.asarray(Image.open(out / "images" / f"{s.id}.png")), np.asarray(Image.open(peer_out / f"{s.id}.png")))
        for s in specs
    )
    for name, runs in (("tabletest render", ours), ("peer script", theirs)):
        wall = statistics.median(r.wall_s for r in runs)
        startup = statistics.median(r.startup_s for r in runs)
        first = statistics.median(r.first_s for r in runs)
        steady = statistics.median(r.steady_s for r in runs)
        cpu = statistics.median(r.cpu_s for r in runs)
        print(f"{name:<17} wall {wall:6.2f} s; first image at {first:.2f} s, start-up {startup:.2f} s; "
              f"{steady:.3f} s/image after it; CPU {cpu:.2f} s  (median of {len(runs)})")  # fmt: skip
    ratio = statistics.median(t.wall_s / o.wall_s for o, t in zip(ours, theirs))
    cpu_ratio = statistics.median(t.cpu_s / o.cpu_s for o, t in zip(ours, theirs))
    print(f"model cache: {'emptied before each tabletest run' if args.cold_cache else 'filled by the first run'}")
    steady_ratio = statistics.median(t.steady_s / o.steady_s for o, t in zip(ours, theirs))
    print(f"TableTest is {ratio:.2f}x faster than the peer script in wall time, {cpu_ratio:.2f}x in CPU time, "
          f"{steady_ratio:.2f}x per image after the first (medians of the paired ratios); "
          f"peer images identical to TableTest's: {same}/{len(specs)}")  # fmt: skip


def workers_sweep(args, assets: Path, tmp: Path, count: int) -> None:
    """The real `tabletest render` with 1, 2, 3... workers sharing one device: images/s, steady and whole."""
    for workers in args.workers:
        runs = []
        for repeat in range(args.repeat):
            out = tmp / f"workers-{workers}-{repeat}"
            command = [
                sys.executable, "-m", "tabletest.cli", "render", "--objects", str(args.objects), "--sample", str(args.images),
                "--seed", "1", "--assets", os.path.relpath(assets, REPO), "--resolution", args.resolution, "--samples", str(args.samples),
                "--engine", args.engine, "--device", args.device, "--workers", str(workers), "--quiet", "--out", str(out),
            ]  # fmt: skip
            runs.append(timed(command, out / "images", count))
        steady = statistics.median(r.steady_s for r in runs)
        wall = statistics.median(r.wall_s for r in runs)
        rate = f"{1 / steady:6.1f}" if steady > 0 else "   all"  # every image landed at once: no steady part to time
        print(f"--workers {workers}: {rate} images/s after the first image, {count / wall:6.1f} images/s "
              f"over the whole run ({wall:.2f} s; median of {len(runs)})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=6)
    parser.add_argument("--objects", type=int, default=3)
    parser.add_argument("--resolution", default="1024x768")
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--engine", default="cycles")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--peer", action="store_true", help="also time `tabletest render` against the peer script")
    parser.add_argument("--repeat", type=int, default=1, help="with --peer: alternate the two this many times")
    parser.add_argument("--cold-cache", action="store_true", help="with --peer: empty the model cache before each tabletest run")
    parser.add_argument("--workers", type=int, nargs="*", help="time the real command with each of these worker counts on one device")
    args = parser.parse_args()
    catalog, config = load_catalog(), load_config()
    config = config.model_copy(update={"render": config.render.model_copy(update={"seed": 1})})  # as `--seed 1`
    resolution = parse_resolution(args.resolution)
    scenes = list(select_scenes(catalog, Selection(args.objects, sample=args.images, seed=1)))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f} at the start")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")  # this run's own model cache (and model verdicts)
        assets, out = Path(tmp) / "assets", Path(tmp) / "out"
        manifest = build_assets(catalog, assets)  # every built-in model: the worker below loads them all
        specs = [scene_spec(s, config, manifest.objects, assets, resolution) for s in scenes]
        needed_assets(catalog, assets, manifest.objects, False)  # checked once, as a user's first run checks them
        options = RenderOptions(out=out, assets=assets, build_missing_assets=False, device=args.device)
        config = config.model_copy(update={"render": config.render.model_copy(update={"engine": args.engine, "samples": args.samples})})
        models = run_models(manifest.objects, assets, float("inf"))  # all 64, as a long run would
        runs = {}
        for cache in ("empty (glTF imports)", "filled by the run before"):
            supervisor = Supervisor(
                setup=worker_setup(config, options, resolution, models),
                slots=worker_slots(options),
                log_dir=out / "logs",
                request=lambda spec: {"op": "render", "spec": spec.to_json(), "out": str(out / f"{spec.id}.png")},
            )  # fmt: skip
            start = time.perf_counter()
            runs[cache] = (list(supervisor.run(specs)), time.perf_counter() - start)
        if args.peer:
            peer_comparison(args, specs, assets, Path(tmp), resolution)
        if args.workers:
            workers_sweep(args, assets, Path(tmp), len(specs))
    print(f"supervisor and worker alone: device {supervisor.started[0]['device']}")
    for cache, (outcomes, total) in runs.items():
        by_id = {o.spec.id: o for o in outcomes}  # delivered as written, maybe out of order: the worker renders them in turn
        first, second = by_id[specs[0].id], by_id[specs[1].id]
        steady = [o for o in outcomes if o is not first and o is not second]
        wall = statistics.mean(o.wall_s for o in steady)
        blender = statistics.mean(o.facts["render_s"] for o in steady)
        print(f"model cache {cache}, the first scene's models, then all {len(models)} at the second: {args.engine}, {args.resolution}, "
              f"{args.samples} samples, {args.objects} objects, {len(outcomes)} images in {total:.1f} s; first image (worker start + "
              f"its models + render) {first.wall_s:.2f} s, second (the other models) {second.wall_s:.2f} s")  # fmt: skip
        print(f"  start-up: the worker's start {first.wall_s - first.facts['busy_s']:.2f} s (Python, import bpy, base scene), "
              f"the first scene's models {first.facts['import_s'] * 1000:.0f} ms and render call {first.facts['render_s'] * 1000:.0f} ms; "
              f"at the second scene the other models {second.facts['import_s']:.2f} s and render call {second.facts['render_s'] * 1000:.0f} ms")  # fmt: skip
        print(f"  steady: wall {wall:.3f} s/image vs Blender render {blender:.3f} s/image -> overhead {100 * (wall / blender - 1):.1f}%; "
              f"{1 / wall:.3f} images/s per worker")  # fmt: skip
        busy = statistics.mean(o.facts["busy_s"] for o in steady)
        print(f"  per image in the worker (medians): model imports {statistics.median(o.facts['import_s'] for o in steady) * 1000:.1f} ms, "
              f"scene set-up {statistics.median(o.facts['setup_s'] for o in steady) * 1000:.1f} ms "
              f"({statistics.median(o.facts['setup_cpu_s'] for o in steady) * 1000:.1f} ms CPU); "
              f"the worker busy {busy * 1000:.1f} ms of the {wall * 1000:.1f} ms wall (mean), "
              f"{(busy - blender) * 1000:.1f} ms of it outside the render call")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.2f} at the end")

if __name__ == "__main__":
    main()
