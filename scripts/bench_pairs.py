"""Benchmark counterfactual pairs: how many partners of each kind a random set gets, whether `tabletest
verify` finds any disagreement among them, how far a change reaches into the other pixels, and what a
partner costs the worker beyond its render call.

    python scripts/bench_pairs.py --scenes 2000 --resolution 64x48 --samples 1
    python scripts/bench_pairs.py --scenes 0 --timing 48      # the worker's set-up per kind only
    python scripts/bench_pairs.py --scenes 5000 --kinds unstack --dense --timing 0

`--dense` draws the scenes from the shipped random config with 4 to 6 objects, each stood on or put into
another whenever one can carry it (stack and contain 0.5 each), so that partners of every kind, unstack
above all (a scene needs a carried object), come often enough to count a thousand.

Part one runs the real `tabletest render --scenes random --counterfactuals <every kind> --masks` and
then `tabletest verify` on it. Part two renders the first `--timing` scenes and their partners through
the supervisor and one worker given every model (it loads them at its second image), each scene followed
by a second view and its partners, and prints the worker's set-up (from the spec to the render call) and
render call per kind of image, after the first two images.
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
import time
from collections import Counter, defaultdict
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tabletest.assets.builtin.build import build_assets  # noqa: E402
from tabletest.assets.manifest import load_manifest  # noqa: E402
from tabletest.config import load_catalog, load_config  # noqa: E402
from tabletest.layout.counterfactuals import KINDS  # noqa: E402
from tabletest.layout.random_config import load_random_config  # noqa: E402
from tabletest.layout.random_set import make_random_set  # noqa: E402
from tabletest.layout.spec import random_spec  # noqa: E402
from tabletest.render.cli import parse_resolution  # noqa: E402
from tabletest.render.run_options import RenderOptions, run_models, worker_setup, worker_slots  # noqa: E402
from tabletest.render.supervisor import Supervisor  # noqa: E402
from tabletest.truth.pairs import set_scenes  # noqa: E402
from tabletest.truth.records import placed_relations  # noqa: E402
from tabletest.files.run_output import read_runs  # noqa: E402


def dense_config(folder: Path) -> Path:
    """The shipped random config with more objects, carried by one another as often as they can be."""
    shipped = load_random_config().model_dump()
    dense = {
        **shipped,
        "objects": {**shipped["objects"], "count": [4, 6]},
        "arrangements": {**shipped["arrangements"], "stack": 0.5, "contain": 0.5, "touch": 0.0},
    }
    path = folder / "dense.yaml"
    path.write_text(yaml.safe_dump(dense, sort_keys=False))
    return path


def render_and_verify(args, assets: Path, out: Path) -> None:
    command = [sys.executable, "-m", "tabletest.cli", "render", "--scenes", "random", "--count", str(args.scenes), "--seed", str(args.seed),
               "--counterfactuals", args.kinds, "--resolution", args.resolution, "--samples", str(args.samples), "--masks",
               "--assets", str(assets), "--out", str(out), "--quiet"]  # fmt: skip
    if args.dense:
        command += ["--random-config", str(dense_config(out.parent))]
    start = time.perf_counter()
    rendered = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - start
    if rendered.returncode:
        sys.exit(rendered.stderr[-2000:])
    records = [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]
    made = Counter(r["counterfactual"]["kind"] for r in records if "counterfactual" in r)
    not_made = read_runs(out)[-1].get("not_made", {})
    print(f"render: {args.scenes} scenes + {sum(made.values())} partners = {len(records)} images in {wall:.0f} s "
          f"({args.resolution}, {args.samples} sample(s), masks{', --dense' if args.dense else ''})")  # fmt: skip
    for kind in args.kinds.split(","):
        print(f"  {kind:<8} {made[kind]:>6} partners made, {not_made.get(kind, 0):>6} scenes allowed none")
    start = time.perf_counter()
    verified = subprocess.run([sys.executable, "-m", "tabletest.cli", "verify", str(out)], capture_output=True, text=True, cwd=REPO)
    print(f"verify ({time.perf_counter() - start:.0f} s, exit {verified.returncode}):")
    for line in verified.stdout.splitlines():
        if "counterfactual" in line or "disagreement" in line or line.startswith("  DISAGREES"):
            print(f"  {line.strip()}")


def worker_timing(args, assets: Path, out: Path) -> None:
    catalog, config, rconfig = load_catalog(), load_config(), load_random_config()
    resolution = parse_resolution(args.resolution)
    config = config.model_copy(update={"render": config.render.model_copy(update={"samples": args.samples, "resolution": resolution})})
    random_set = make_random_set(catalog, rconfig, 0, args.timing, None, None, None, None, ",".join(KINDS), 2)
    entries = load_manifest(assets).objects
    sizes = {n: e.size_m for n, e in entries.items()}
    contact = random_set.contact(entries, assets)
    relations_of = placed_relations(resolution, rconfig.relations, {o.name: o.kind for o in catalog.objects}, contact)
    shapes = contact.shapes if contact else None
    paired = list(set_scenes(random_set, sizes, config.table.height_m, config.camera.sensor_width_mm, resolution, shapes, relations_of))
    specs = [random_spec(s, config.render.seed, entries, assets) for s in paired]
    options = RenderOptions(out=out, assets=assets, build_missing_assets=False, device=args.device)
    models = run_models(entries, assets, float("inf"))
    supervisor = Supervisor(
        setup=worker_setup(config, options, resolution, models), slots=worker_slots(options), log_dir=out / "logs",
        request=lambda spec: {"op": "render", "spec": spec.to_json(), "out": str(out / f"{spec.id}.png")},
    )  # fmt: skip
    outcomes = list(supervisor.run(specs))
    by_kind = defaultdict(list)
    for outcome in outcomes[2:]:  # the second image loads the models the first did not need
        scene = outcome.spec.random
        kind = scene.change.kind if scene.change else "view" if scene.view else "original"
        by_kind[kind].append(outcome.facts)
    print(f"worker, {len(outcomes)} images ({args.timing} scenes, a second view of each and their partners), {supervisor.started[0]['device']}; medians after the first two images:")
    for kind in ("original", "view", *KINDS):
        facts = by_kind.get(kind)
        if facts:
            setup = statistics.median(f["setup_s"] for f in facts) * 1000
            render = statistics.median(f["render_s"] for f in facts) * 1000
            busy = statistics.median(f["busy_s"] - f["render_s"] for f in facts) * 1000
            print(f"  {kind:<8} {len(facts):>4} images: set-up {setup:5.1f} ms, busy outside the render call {busy:5.1f} ms, render call {render:6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=2000, help="random scenes rendered with every kind of partner and verified")
    parser.add_argument("--timing", type=int, default=48, help="scenes (and their partners) timed in the worker")
    parser.add_argument("--resolution", default="64x48")
    parser.add_argument("--samples", type=int, default=1)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--kinds", default=",".join(KINDS), help="the kinds of partner rendered and verified")
    parser.add_argument("--dense", action="store_true", help="scenes of 4 to 6 objects that stack and contain often")
    parser.add_argument("--seed", type=int, default=0, help="the random set's seed (another seed: other scenes)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f} at the start")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        assets = Path(tmp) / "assets"
        build_assets(load_catalog(), assets)
        if args.scenes:
            render_and_verify(args, assets, Path(tmp) / "pairs")
        if args.timing:
            worker_timing(args, assets, Path(tmp) / "timing")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
