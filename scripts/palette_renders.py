"""Every colour of each kind's palette as the render shows it: each kind alone on a white table under one neutral
light (the studio HDRI, a 5500 K key light), rendered by the real worker once per colour from one camera, and the
colour each look takes measured in its own pixels (its mask) where the looks of the kind differ.

`python scripts/palette_renders.py --assets ASSETS [--only mug,kettle] [--size 96x72 --samples 4] [--out DIR]`
prints, per kind, each colour's rendered sRGB and Lab, the least CIEDE2000 between two of its colours, and every
colour whose rendered hue its name does not fit (`tabletest.assets.colour_names`). `tests/test_looks.py` runs it
on every kind (tiny), and docs/benchmarks.md quotes it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tabletest.assets.colour_names import Seen, seen_in, separation
from tabletest.assets.variants import load_looks
from tabletest.config import load_catalog

LIGHT = {  # one neutral light and view for every kind: the random config's ranges pinned
    "objects": {"count": [1, 1], "yaw_deg": [25, 25]},
    "table": {"width_m": [1.4, 1.4], "depth_m": [1.0, 1.0], "color_jitter": 0.0,
              "surfaces": [{"name": "white paint", "kind": "painted", "color": [0.68, 0.68, 0.66]}]},
    "camera": {"azimuth_deg": [20, 20], "elevation_deg": [30, 30], "focal_mm": [70, 70], "zoom_out": [1.0, 1.0], "distance_m": [0.2, 3.0]},
    "key_light": {"azimuth_deg": [35, 35], "elevation_deg": [50, 50], "size_m": [1.0, 1.0], "power_w": [160, 160],
                  "temperature_k": [5500, 5500]},
    "world": {"hdris": ["studio"], "rotation_deg": [0, 0], "strength": [0.45, 0.45]},
    "backdrop": {"hdri_probability": 0.0, "colors": [[0.62, 0.62, 0.6]]},
}  # fmt: skip

WORKER = """
import json, sys
from pathlib import Path
from tabletest.render.worker import Worker
from tabletest.write.finish import finish
job = json.loads(Path(sys.argv[1]).read_text())
worker = Worker(job["setup"])
for item in job["items"]:
    finish(worker.render(item["spec"], item["png"], item["mask"]))
    print(item["png"], flush=True)
"""


def neutral_config():
    """The shipped random config with `LIGHT`'s ranges: a palette is judged under one light, from one view."""
    from tabletest.layout.random_config import load_random_config

    shipped = load_random_config().model_dump(mode="json")
    for section, values in LIGHT.items():
        shipped[section] = {**shipped[section], **values}
    shipped["objects"]["repeats"] = {"chance": 0.0, "max": 3}
    shipped["arrangements"] = {**shipped["arrangements"], "stack": 0.0, "contain": 0.0, "touch": 0.0}
    shipped["looks"] = {**shipped["looks"], "colours": True}
    return type(load_random_config()).model_validate(shipped)


def render_palettes(assets: Path, kinds: list[str], out: Path, size: tuple[int, int], samples: int) -> dict[str, dict[str, Seen]]:
    """Each kind's colours as rendered: {kind: {colour: what its pixels show}}, the PNGs and masks left in `out`."""
    from tabletest.assets.manifest import load_manifest
    from tabletest.assets.variants import model_look
    from tabletest.config import load_config
    from tabletest.layout.random_scene import sample_scene
    from tabletest.layout.spec import random_spec
    from tabletest.layout.variants import Variant
    from tabletest.render.run_options import RenderOptions, worker_setup

    config, random_config = load_config(), neutral_config()
    config = config.model_copy(update={"render": config.render.model_copy(update={"samples": samples, "resolution": tuple(size)})})
    entries = load_manifest(assets).objects
    sizes = {name: entry.size_m for name, entry in entries.items()}
    palette = load_looks()
    items, shown = [], []
    for kind in kinds:
        for colour in palette.of(kind).colour_names:
            variants = {kind: (Variant(model_look(kind, 0), colour),)}
            scene = sample_scene(random_config, (kind,), sizes, 0, 0, config.table.height_m, config.camera.sensor_width_mm, size, variants=variants)
            scene = replace(scene, id=f"{kind}-{colour}".replace(" ", "_"))
            spec = random_spec(scene, 0, entries, assets).to_json()
            items.append({"spec": spec, "png": str(out / f"{scene.id}.png"), "mask": str(out / f"{scene.id}.mask.png")})
            shown.append((kind, colour))
    setup = worker_setup(config, RenderOptions(out=out, assets=assets, build_missing_assets=False, device="cpu"), size)
    job = out / "palette-job.json"
    job.write_text(json.dumps({"setup": setup, "items": items}))
    done = subprocess.run([sys.executable, "-c", WORKER, str(job)], capture_output=True, text=True, cwd=REPO, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the palette renders failed:\n{done.stderr[-3000:]}")
    return measured(shown, items)


def measured(shown: list[tuple[str, str]], items: list[dict]) -> dict[str, dict[str, Seen]]:
    """Each look's colour where the looks of its kind differ (its recoloured materials), else in its whole mask."""
    pictures: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for (kind, colour), item in zip(shown, items):
        with Image.open(item["png"]) as image, Image.open(item["mask"]) as mask:
            pictures.setdefault(kind, {})[colour] = (np.asarray(image.convert("RGB")), np.asarray(mask) == 1)
    seen: dict[str, dict[str, Seen]] = {}
    for kind, looks in pictures.items():
        stack = np.stack([rgb.astype(float) for rgb, _ in looks.values()])
        together = np.logical_and.reduce([m for _, m in looks.values()])
        varies = together & (np.ptp(stack, axis=0).max(axis=-1) > 24)  # the pixels a colour changes
        seen[kind] = {colour: seen_in(rgb[varies if varies.sum() >= 8 else mask]) for colour, (rgb, mask) in looks.items()}
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=Path, required=True)
    parser.add_argument("--only", default=None)
    parser.add_argument("--size", default="96x72")
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    palette = load_looks()
    kinds = [k for k in (args.only.split(",") if args.only else load_catalog().names) if palette.of(k).colour_names]
    size = tuple(int(v) for v in args.size.split("x"))
    with tempfile.TemporaryDirectory(prefix="tabletest-palettes-") as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        seen = render_palettes(args.assets, kinds, out, size, args.samples)
    for kind, looks in seen.items():
        closest, pair = separation(looks)
        print(f"{kind}: least CIEDE2000 {closest:.1f} ({' vs '.join(pair)})")
        for colour, look in looks.items():
            fits = "" if look.fits(colour) else f"   <- does not look {colour}: {look.described()}"
            print(f"  {colour:8s} sRGB {look.srgb}  L {look.lch[0]:.0f} C {look.lch[1]:.0f} h {look.lch[2]:.0f}{fits}")


if __name__ == "__main__":
    main()
