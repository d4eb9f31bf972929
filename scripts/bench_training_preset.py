"""Benchmark: Cycles' quality settings for random training scenes, by time and by error against a
1,024-sample reference of the same scenes.

Renders N random scenes (seed 0) through the real supervisor and worker once per candidate setting
(samples, adaptive sampling threshold, light path bounces, denoiser prefilter) and once as the
reference (1,024 samples, Blender's default bounces, the accurate prefilter), then prints for each
candidate the mean wall and CPU time of Blender's render call per image (relative to today's in CPU time) and the mean PSNR and SSIM of its images
against the reference's. The reference is kept in --reference (rendered again only if missing).

    python scripts/bench_training_preset.py --scenes 16 --resolution 512x512 --reference ref512/

SSIM is scikit-image's (`pip install -e '.[bench]'`).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_assets_build import cpu_model  # scripts/ is on the path when a script runs
from PIL import Image
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog, load_config
from tabletest.layout.random_config import load_random_config
from tabletest.layout.random_set import make_random_set
from tabletest.layout.spec import random_spec
from tabletest.commands.render import parse_resolution
from tabletest.render.run_options import RenderOptions, worker_setup, worker_slots
from tabletest.render.supervisor import Supervisor

TODAY = {"samples": 32}  # the documented training command's samples, with the engine's defaults
REFERENCE = {
    "samples": 1024, "adaptive_threshold": 0.002, "denoising_prefilter": "ACCURATE",
    "max_bounces": 12, "diffuse_bounces": 4, "glossy_bounces": 4, "transmission_bounces": 12, "transparent_max_bounces": 8,
}  # fmt: skip
SHORT_PATHS = {"max_bounces": 2, "diffuse_bounces": 1, "glossy_bounces": 1, "transmission_bounces": 2}
CANDIDATES = {
    "32 samples (today)": TODAY,
    "64 samples": {"samples": 64},
    "16 samples": {"samples": 16},
    "8 samples": {"samples": 8},
    "32 samples, accurate prefilter": {**TODAY, "denoising_prefilter": "ACCURATE"},
    "16 samples, accurate prefilter": {"samples": 16, "denoising_prefilter": "ACCURATE"},
    "32 samples, threshold 0.05": {**TODAY, "adaptive_threshold": 0.05},
    "16 samples, threshold 0.05": {"samples": 16, "adaptive_threshold": 0.05},
    "32 samples, short paths": {**TODAY, **SHORT_PATHS},
    "16 samples, short paths": {"samples": 16, **SHORT_PATHS},
    "32 samples, not denoised": {**TODAY, "use_denoising": False},
}


def render_all(specs, setup: dict, settings: dict, out: Path, assets: Path) -> list[tuple[float, float]]:
    """Render every spec with these Cycles settings into `out`; return the wall and CPU time of Blender's
    render call per image (CPU time: what the render costs, however busy the machine is)."""
    out.mkdir(parents=True, exist_ok=True)
    cycles = {k: v for k, v in settings.items() if k != "samples"}
    supervisor = Supervisor(
        setup={**setup, "samples": settings["samples"], "cycles": cycles},
        slots=worker_slots(RenderOptions(out=out, assets=assets, build_missing_assets=False, device="cpu")),
        log_dir=out / "logs",
        request=lambda spec: {"op": "render", "spec": spec.to_json(), "out": str(out / f"{spec.id}.png")},
        item_timeout=6 * 3600.0,  # a 1,024-sample reference on a busy CPU
    )
    outcomes = list(supervisor.run(spec for spec in specs if not (out / f"{spec.id}.png").is_file()))
    failed = [o.error for o in outcomes if not o.ok]
    if failed:
        raise SystemExit(f"render failed: {failed[0]}")
    return [(o.facts["render_s"], o.facts["render_cpu_s"]) for o in outcomes]


def pixels(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=16)
    parser.add_argument("--resolution", default="512x512")
    parser.add_argument("--reference", type=Path, required=True, help="folder for the reference renders (kept)")
    parser.add_argument("--only", nargs="*", help="candidate names to run (default: all)")
    args = parser.parse_args()
    resolution = parse_resolution(args.resolution)
    catalog, config, random_config = load_catalog(), load_config(), load_random_config()
    config = config.model_copy(update={"render": config.render.model_copy(update={"resolution": resolution})})
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f} at the start; {args.scenes} random scenes (seed 0) at {args.resolution}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        assets = Path(tmp) / "assets"
        entries = build_assets(catalog, assets).objects
        random_set = make_random_set(catalog, random_config, 0, args.scenes, None, None, None, None)
        contact = random_set.contact(entries, assets)
        sizes = {name: entry.size_m for name, entry in entries.items()}
        scenes = random_set.scenes(sizes, config.table.height_m, config.camera.sensor_width_mm, resolution, set(),
                                   contact.shapes if contact is not None else None)  # fmt: skip
        specs = [random_spec(scene, config.render.seed, entries, assets) for scene in scenes]
        options = RenderOptions(out=Path(tmp), assets=assets, build_missing_assets=False, device="cpu")
        setup = worker_setup(config, options, resolution, [(n, str(assets / e.file)) for n, e in sorted(entries.items())])
        reference = args.reference
        if not all((reference / f"{s.id}.png").is_file() for s in specs):  # what is there is kept
            start = time.perf_counter()
            times = render_all(specs, setup, REFERENCE, reference, assets)
            print(f"reference ({REFERENCE}): {statistics.mean(t for t, _ in times):.1f} s/image, "
                  f"{statistics.mean(c for _, c in times):.1f} CPU s/image, {time.perf_counter() - start:.0f} s in all")  # fmt: skip
        truth = {s.id: pixels(reference / f"{s.id}.png") for s in specs}
        print(f"{'setting':<34} {'s/image':>8} {'CPU s':>7} {'x today':>8} {'PSNR dB':>8} {'SSIM':>7}")
        base = None
        for name, settings in CANDIDATES.items():
            if args.only and name not in args.only:
                continue
            out = Path(tmp) / "candidates" / name.replace(" ", "_").replace(",", "")
            times = render_all(specs, setup, settings, out, assets)
            psnr = [peak_signal_noise_ratio(truth[s.id], pixels(out / f"{s.id}.png"), data_range=255) for s in specs]
            ssim = [structural_similarity(truth[s.id], pixels(out / f"{s.id}.png"), channel_axis=2, data_range=255) for s in specs]
            wall, cpu = statistics.mean(t for t, _ in times), statistics.mean(c for _, c in times)
            base = base or cpu
            print(f"{name:<34} {wall:8.2f} {cpu:7.2f} {cpu / base:8.2f} {statistics.mean(psnr):8.2f} {statistics.mean(ssim):7.4f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
