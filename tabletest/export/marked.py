"""A copy of an image with numbered marks on its objects (set-of-marks prompting), drawn where `truth.marks`
places them: a dark disc ringed in white with its number in white, legible on any table; with the `boxes` style,
each marked object's visible extent outlined too, in a colour of its own. Exports ship it as `marked/<id>.png`
beside the clean image."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from tabletest.truth.marks import Mark
from tabletest.truth.seen import Seen

FILL, RING, TEXT = (20, 20, 20), (255, 255, 255), (255, 255, 255)
BOX_COLOURS = ((255, 64, 64), (64, 160, 255), (255, 200, 0), (80, 220, 120), (220, 90, 255), (255, 140, 40))


def marked(image: Image.Image, marks: list[Mark], seen: dict[str, Seen], style: str) -> Image.Image:
    """The image with its marks drawn (and, with `boxes`, each marked object's box)."""
    out = image.convert("RGB")
    draw = ImageDraw.Draw(out)
    if style == "boxes":
        line = max(1, round(marks[0].radius / 6)) if marks else 1
        for m in marks:
            x0, y0, x1, y1 = seen[m.label].box
            draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=BOX_COLOURS[(m.number - 1) % len(BOX_COLOURS)], width=line)
    for m in marks:
        x, y, r = m.centre[0], m.centre[1], m.radius
        ring = max(1.0, r / 7)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=RING)
        draw.ellipse((x - r + ring, y - r + ring, x + r - ring, y + r - ring), fill=FILL)
        font = ImageFont.load_default(size=max(8, round(r * (1.25 if m.number < 10 else 0.95))))
        draw.text((x, y), str(m.number), fill=TEXT, font=font, anchor="mm")
    return out


def marked_png(image_png: bytes, mask: np.ndarray, marks: list[Mark], seen: dict[str, Seen], style: str) -> bytes:
    """The marked copy of a PNG, as PNG bytes."""
    with Image.open(io.BytesIO(image_png)) as image:
        copy = marked(image, marks, seen, style)
    out = io.BytesIO()
    copy.save(out, format="PNG")
    return out.getvalue()
