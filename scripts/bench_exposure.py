"""Benchmark random scenes' exposure: how much of the table each image clips, from a render folder made
with `--masks` (the table is what neither an object's mask nor the backdrop covers: no object, and a
depth).

    tabletest render --scenes random --count 40 --seed 9 --resolution 128x96 --samples 8 --masks --out r9
    python scripts/bench_exposure.py r9

Prints, per scene, the table's surface, the key light's power and the HDRI's strength, the median and
99th percentile of the table pixels' brightest channel (0-255) and the share of them at 255; then how
many scenes clip more than 1% and more than half of their table.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from PIL import Image


def table_pixels(folder: Path, record: dict) -> np.ndarray:
    """The brightest channel of every table pixel of a record's image."""
    image, mask, depth = (np.asarray(Image.open(folder / record[f])) for f in ("file_name", "mask_file_name", "depth_file_name"))
    return image[..., :3][(mask == 0) & (depth > 0)].max(axis=1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    args = parser.parse_args()
    shares = []
    for line in (args.folder / "metadata.jsonl").read_text().splitlines():
        record = json.loads(line)
        table, scene = table_pixels(args.folder, record), record["scene"]
        shares.append(float((table >= 255).mean()))
        print(f"{record['id']} {scene['table']['surface']:12s} key {scene['key_light']['power_w']:7.2f} W  "
              f"{scene['world']['hdri']:9s} {scene['world']['strength']:.4f}  table median {np.median(table):5.1f} "
              f"p99 {np.percentile(table, 99):5.1f}  clipped {shares[-1]:6.1%}")
    print(f"{len(shares)} scenes: {sum(s > 0.01 for s in shares)} clip more than 1% of their table, "
          f"{sum(s > 0.5 for s in shares)} more than half; largest share {max(shares):.1%}")


if __name__ == "__main__":
    main()
