"""How well `tabletest verify` tells an object's colour from its pixels, on real renders with looks.

`python scripts/bench_look_colours.py RENDER [RENDER ...]` judges every object of each render (rendered with
`--masks` and a random config with `looks.colours: true`) three ways, as `verify/audit_looks.colour_problem` does:
as recorded (each disagreement is a false one), with its record naming every other colour of its kind's palette
(a recoloured record), and with its pixels recoloured to every other colour of its palette (linear RGB times new
colour / named colour, channel by channel, as the render tints a look). It prints how many of each were judged and
caught, and the closest calls.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabletest.assets.variants import load_looks
from tabletest.verify.audit_looks import MIN_PIXELS, colour_problem


def _linear(srgb: np.ndarray) -> np.ndarray:
    s = srgb / 255.0
    return np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4)


def _srgb(linear: np.ndarray) -> np.ndarray:
    s = np.where(linear <= 0.0031308, linear * 12.92, 1.055 * np.clip(linear, 0, None) ** (1 / 2.4) - 0.055)
    return np.clip(np.rint(s * 255), 0, 255)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("renders", type=Path, nargs="+")
    args = parser.parse_args()
    palette = load_looks()
    counts = {"judged": 0, "false": 0, "records": 0, "records caught": 0, "pixels": 0, "pixels caught": 0}
    false = []
    for root in args.renders:
        for line in (root / "metadata.jsonl").read_text().splitlines():
            record = json.loads(line)
            with Image.open(root / record["file_name"]) as image, Image.open(root / record["mask_file_name"]) as mask:
                rgb, labels = np.asarray(image.convert("RGB")).astype(float), np.asarray(mask)
            for position, obj in enumerate(record["objects"]):
                look, pixels = obj.get("variant") or {}, rgb[labels == position + 1]
                colours = palette.of(obj["name"])
                if look.get("colour") not in colours.colour_names or len(pixels) < MIN_PIXELS:
                    continue
                counts["judged"] += 1
                if problem := colour_problem(obj, pixels):
                    counts["false"] += 1
                    false.append(f"{record['id']} {obj['name']}: {problem}")
                named = colours.colours.get(look["colour"]) or colours.own.rgb
                for other in colours.colour_names:
                    if other == look["colour"]:
                        continue
                    renamed = {**obj, "variant": {**look, "colour": other, "look": f"{obj['name']}/{look['model']}/{other}"}}
                    counts["records"] += 1
                    counts["records caught"] += colour_problem(renamed, pixels) is not None
                    target = colours.colours.get(other) or colours.own.rgb
                    factor = np.array(target) / np.maximum(np.array(named), 0.01)
                    counts["pixels"] += 1
                    counts["pixels caught"] += colour_problem(obj, _srgb(np.clip(_linear(pixels) * factor, 0, 1))) is not None
    print(json.dumps(counts))
    for line in false:
        print("false:", line)


if __name__ == "__main__":
    main()
