"""The questions guide's pictures of questions answered with a place in the image, from a real render with masks:
one scene's gold answers drawn on its image (each point-object and free-space point, its box, the free region a
free-space point must land in, shaded) beside its marked copy as `tabletest export --marks` draws it, and the
questions with their golds and the scene's map printed below.

    tabletest render --scenes random --count 4 --seed 0 --resolution 512x384 --samples 16 --masks --out docs4/
    python scripts/grounding_figures.py --dataset docs4/ --id rnd0-0000002 --out docs/examples/grounding-rnd0-0000002.png
"""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from tabletest.config import load_catalog
from tabletest.export.marked import marked_png
from tabletest.files.dataset import RenderDataset
from tabletest.prompts.hierarchy.generate import drawn_from
from tabletest.prompts.hierarchy.maps import map_text
from tabletest.prompts.hierarchy.of_render import Asking, RenderQuestions
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.truth.described import described
from tabletest.truth.locations import in_region
from tabletest.truth.marks import place_marks
from tabletest.truth.seen import seen_objects

COLOURS = ((255, 60, 60), (60, 170, 255), (255, 210, 0), (90, 230, 120), (230, 100, 255), (255, 150, 40))
SHOWN = ("point-object", "box-object", "point-free", "fit-yes/no", "map-cell", "mark-which", "mark-position-yes/no")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--id", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    catalog, render = load_catalog(), RenderDataset.open(args.dataset)
    record = next(r for r in render.records() if r.id == args.id)
    raw = described(record.raw, render.root)
    asking = Asking(("questions",), image_only=True, marks="numbers", phrasings="one")
    asked = RenderQuestions(lambda: [raw], catalog, asking, drawn_from(render.root), root=render.root).of(raw, None)
    image = Image.open(render.image(record)).convert("RGB")
    drawing = image.copy()
    draw = ImageDraw.Draw(drawing, "RGBA")
    width, height = image.size
    free = [q for q in asked if q["template"] == "point-free"]
    xs, ys = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    for k, q in enumerate(free[:2]):  # the first two free-space questions' regions, shaded
        inside = np.vectorize(lambda x, y: in_region(q["region"], (x, y)))(xs, ys)
        colour = ((120, 220, 90), (240, 120, 200))[k]
        shade = Image.new("RGBA", image.size, (*colour, 0))
        shade.putalpha(Image.fromarray((inside * 90).astype(np.uint8)))
        drawing.paste(Image.alpha_composite(drawing.convert("RGBA"), shade).convert("RGB"))
        draw = ImageDraw.Draw(drawing, "RGBA")
        _dot(draw, q["answer"], colour)
    named = list(dict.fromkeys(q["objects"][0] for q in asked if q["template"] == "point-object"))
    for q in (q for q in asked if q["template"] == "box-object"):  # each object's box and point in a colour of its own
        draw.rectangle(q["answer"], outline=COLOURS[named.index(q["objects"][0]) % len(COLOURS)], width=2)
    for q in (q for q in asked if q["template"] == "point-object"):
        _dot(draw, q["answer"], COLOURS[named.index(q["objects"][0]) % len(COLOURS)])
    mask = np.asarray(Image.open(render.mask(record)))
    seen = seen_objects(record.raw, mask)
    png = io.BytesIO()
    image.save(png, format="PNG")
    marked = Image.open(io.BytesIO(marked_png(png.getvalue(), mask, place_marks(record.id, mask, seen), seen, "numbers")))
    both = Image.new("RGB", (2 * width + 8, height), (255, 255, 255))
    both.paste(drawing, (0, 0))
    both.paste(marked, (width + 8, 0))
    both.save(args.out)
    for q in asked:
        if q["template"] in SHOWN:
            print(json.dumps({"template": q["template"], "text": q["text"], "gold": gold_text(q)}))
    print(map_text(raw, catalog))


def _dot(draw: ImageDraw.ImageDraw, point: list[float], colour: tuple[int, int, int]) -> None:
    x, y = point
    draw.ellipse((x - 5, y - 5, x + 5, y + 5), fill=colour, outline=(255, 255, 255), width=2)


if __name__ == "__main__":
    main()
