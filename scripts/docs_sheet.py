"""The docs' sheets of random scenes: a render folder's images laid out four by four in id order, with
`--captions` each over a line naming its scene's `on`, `inside` and `touching` pairs.

    tabletest render --scenes random --count 16 --seed 0 --resolution 256x256 --samples 32 --out sheet/
    python scripts/docs_sheet.py sheet/ docs/random-scenes.jpg

    # docs/arrangements.jpg: the render command in docs/guide/training.md ("Objects on, in and beside others"), then
    python scripts/docs_sheet.py sheet/ docs/arrangements.jpg --captions
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabletest.files.dataset import RenderDataset  # noqa: E402

COLUMNS = 4
CAPTION_PX = 16
WORDS = (("on", "on"), ("inside", "in"), ("touching", "touching"))


def caption(relations) -> str:
    """The scene's pairs off the table plane, `touching` once per pair."""
    said, parts = set(), []
    for key, word in WORDS:
        for a, b in getattr(relations, key):
            if key == "touching" and frozenset((a, b)) in said:
                continue
            said.add(frozenset((a, b)))
            parts.append(f"{a} {word} {b}")
    return ", ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("render", type=Path, help="a `tabletest render --scenes random` folder")
    parser.add_argument("out", type=Path, help="the sheet (.jpg or .png)")
    parser.add_argument("--captions", action="store_true", help="a line under each image naming its on, inside and touching pairs")
    args = parser.parse_args()
    dataset = RenderDataset.open(args.render)
    records = sorted(dataset.records(), key=lambda r: r.id)
    first = Image.open(dataset.image(records[0]))
    width, height = first.size
    cell = height + (CAPTION_PX if args.captions else 0)
    rows = -(-len(records) // COLUMNS)
    sheet = Image.new("RGB", (COLUMNS * width, rows * cell), "white")
    draw, font = ImageDraw.Draw(sheet), ImageFont.load_default(size=CAPTION_PX - 4)
    for k, record in enumerate(records):
        x, y = (k % COLUMNS) * width, (k // COLUMNS) * cell
        with Image.open(dataset.image(record)) as image:
            sheet.paste(image.convert("RGB"), (x, y))
        if args.captions:
            draw.text((x + 3, y + height + 1), caption(record.relations), fill="black", font=font)
    sheet.save(args.out, quality=90)
    print(f"{len(records)} scenes -> {args.out} ({sheet.width}x{sheet.height})")


if __name__ == "__main__":
    main()
