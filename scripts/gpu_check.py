"""The GPU path in one call: on a machine with an NVIDIA GPU, every step a render box depends on, timed,
under one overall deadline, into one JSON summary.

Steps (each bounded by what is left of the deadline; one that fails or runs out is recorded and the
next one still runs):
  devices      nvidia-smi's GPUs, Blender's devices per type, Cycles' kernel for each GPU (`tabletest kernels --check`)
  first-image  the first 3-object benchmark image, from a cold start (the time a user waits)
  benchmark-1  the study's settings (1024x768, 64 samples), 48 scenes, one worker: images/s
  benchmark-2  the same with two workers on the GPU
  random       the training preset (512x512, 16 samples, accurate prefilter) with masks, then `tabletest verify`
  pairs-views  random scenes with every counterfactual kind and a second view, then `tabletest verify`
  short        the short-render regime (96x72, 1 sample) against the reload-per-image peer (scripts/bench_render.py)
  composite    --mode composite over --composite-scenes three-object scenes, projected to all 249,984

    python scripts/gpu_check.py --out gpu-check.json                  # 540 s deadline, work under a temp folder
    python scripts/gpu_check.py --deadline 300 --only devices,first-image,benchmark-1 --assets assets/

The summary names the machine, the GPU, Blender, each step's command, exit code, seconds, and its
figures (from the run's run.json or the verdict); a step that failed keeps the last lines it printed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from tabletest.files.run_output import read_runs

REPO = Path(__file__).resolve().parents[1]
TABLETEST = [sys.executable, "-m", "tabletest.cli"]
ALL_THREE_OBJECT_SCENES = 249_984
STEPS = ("devices", "first-image", "benchmark-1", "benchmark-2", "random", "pairs-views", "short", "composite")
DEVICES = """
import json, bpy
from tabletest.render.engine import available_devices
print(json.dumps({"blender": bpy.app.version_string, "devices": available_devices()}))
"""


class Check:
    def __init__(self, work: Path, deadline_s: float, assets: list[str], composite_scenes: int) -> None:
        self.work = work
        self.composite_scenes = composite_scenes
        self.ends = time.monotonic() + deadline_s
        self.assets = assets
        self.steps: dict[str, dict] = {}

    def left(self) -> float:
        return self.ends - time.monotonic()

    def run(self, name: str, command: list[str], cap_s: float) -> dict:
        """Run one command within what is left of the deadline (and its own cap); record what happened."""
        budget = min(cap_s, self.left())
        step = self.steps.setdefault(name, {"commands": []})
        step["commands"].append(shlex.join(command))
        if budget < 5:
            step.update(status="skipped: the deadline was reached")
            return step
        started = time.monotonic()
        try:
            done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=budget, check=False)
        except subprocess.TimeoutExpired as stop:
            output = stop.stdout.decode(errors="replace") if isinstance(stop.stdout, bytes) else stop.stdout or ""
            step.update(status=f"timed out after {budget:.0f} s", tail=output.splitlines()[-12:])
        else:
            step.update(rc=done.returncode, stdout=done.stdout)
            if done.returncode != 0 or step.get("status", "ok") != "ok":  # a step of two commands fails with either
                step.update(status="failed", tail=(done.stdout + done.stderr).strip().splitlines()[-12:])
            else:
                step["status"] = "ok"
        step["seconds"] = round(step.get("seconds", 0) + time.monotonic() - started, 2)
        return step

    def render(self, name: str, out: str, args: list[str], cap_s: float) -> dict:
        step = self.run(name, [*TABLETEST, "render", "--out", str(self.work / out), "--quiet", *self.assets, *args], cap_s)
        if runs := read_runs(self.work / out):
            step["run"] = {key: runs[-1].get(key) for key in ("status", "device", "denoiser", "blender", "workers", "timings")}
        step.pop("stdout", None)
        return step

    def verify(self, name: str, out: str, cap_s: float) -> None:
        step = self.run(f"{name}-verify", [*TABLETEST, "verify", str(self.work / out), *self.assets], cap_s)
        verdict = next((line for line in step.pop("stdout", "").splitlines() if "disagreement" in line), None)
        step["verdict"] = verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("gpu-check.json"), help="the JSON summary")
    parser.add_argument("--deadline", type=float, default=540, help="seconds for every step together")
    parser.add_argument("--only", default=",".join(STEPS), help=f"steps to run, of {','.join(STEPS)}")
    parser.add_argument("--assets", help="a built assets folder (default: the built-in models, built on first use)")
    parser.add_argument("--work", type=Path, help="where the renders go (default: a temporary folder, removed)")
    parser.add_argument("--composite-scenes", type=int, default=5000, help="three-object scenes to compose")
    args = parser.parse_args()
    wanted = [step.strip() for step in args.only.split(",") if step.strip()]
    if unknown := [step for step in wanted if step not in STEPS]:
        raise SystemExit(f"error: --only names {', '.join(unknown)}; the steps are {', '.join(STEPS)}")
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as scratch:
        work = args.work or Path(scratch)
        check = Check(work, args.deadline, ["--assets", args.assets] if args.assets else [], args.composite_scenes)
        started = datetime.now(timezone.utc)
        for step in wanted:
            STEP_RUNNERS[step](check)
        summary = {
            "date": started.isoformat(timespec="seconds"),
            "host": {"machine": platform.node(), "cores": os.cpu_count(), "python": platform.python_version()},
            "gpus": _nvidia_smi(),
            "deadline_s": args.deadline,
            "seconds": round(args.deadline - check.left(), 1),
            "steps": check.steps,
        }
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    failed = [name for name, step in check.steps.items() if step.get("status") != "ok"]
    print(f"{len(check.steps) - len(failed)} of {len(check.steps)} steps ok{': not ' + ', '.join(failed) if failed else ''} -> {args.out}")


def _nvidia_smi() -> list[str]:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,compute_cap,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line.strip() for line in out.splitlines() if line.strip()]


def devices(check: Check) -> None:
    step = check.run("devices", [sys.executable, "-c", DEVICES], 60)
    lines = step.pop("stdout", "").strip().splitlines()
    if step.get("rc") == 0 and lines:
        step.update(json.loads(lines[-1]))
    kernels = check.run("kernels", [*TABLETEST, "kernels", "--check"], 30)
    kernels["states"] = kernels.pop("stdout", "").strip().splitlines()


def first_image(check: Check) -> None:
    check.render("first-image", "first", ["--objects", "3", "--limit", "1"], 300)


def benchmark(workers: int):
    def run(check: Check) -> None:
        check.render(f"benchmark-{workers}", f"bench{workers}", ["--objects", "3", "--limit", "48", "--workers", str(workers)], 240)

    return run


def random_preset(check: Check) -> None:
    preset = ["--scenes", "random", "--count", "96", "--seed", "0", "--resolution", "512x512", "--samples", "16",
              "--denoise-prefilter", "accurate", "--masks", "--workers", "2"]
    check.render("random", "random", preset, 240)
    check.verify("random", "random", 120)


def pairs_and_views(check: Check) -> None:
    family = ["--scenes", "random", "--count", "16", "--seed", "1", "--counterfactuals", "swap,move,remove,replace,unstack",
              "--views", "2", "--masks", "--resolution", "256x256", "--samples", "16", "--workers", "2"]
    check.render("pairs-views", "pairs", family, 180)
    check.verify("pairs-views", "pairs", 120)


def short_renders(check: Check) -> None:
    command = [sys.executable, "scripts/bench_render.py", "--images", "48", "--resolution", "96x72", "--samples", "1",
               "--device", "auto", "--peer", "--repeat", "1"]
    step = check.run("short", command, 240)
    step["report"] = step.pop("stdout", "").strip().splitlines()[-14:]  # all but the machine line


def composite(check: Check) -> None:
    step = check.render("composite", "composite", ["--objects", "3", "--mode", "composite", "--limit", str(check.composite_scenes),
                                                   "--layer-cache", str(check.work / "layers")], 420)
    timings = (step.get("run") or {}).get("timings") or {}
    if timings.get("images_rendered") and timings.get("wall_s"):
        per_image = timings["wall_s"] / timings["images_rendered"]
        step["projected_all_three_object_scenes_min"] = round(per_image * ALL_THREE_OBJECT_SCENES / 60, 1)


STEP_RUNNERS = {
    "devices": devices,
    "first-image": first_image,
    "benchmark-1": benchmark(1),
    "benchmark-2": benchmark(2),
    "random": random_preset,
    "pairs-views": pairs_and_views,
    "short": short_renders,
    "composite": composite,
}


if __name__ == "__main__":
    main()
