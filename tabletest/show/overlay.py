"""A scene's labels drawn on its image: each object's name, 2D box, mask outline and 3D box projected with
the scene's camera, hidden objects marked, and its relations in a legend below.

The 3D box is drawn from the record's own numbers (its `camera`, and each object's position, size and yaw), not from the pixels: where it misses the
object, the record or its camera is wrong, which is what a look at the data is for.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from tabletest.config import excerpt
from tabletest.errors import UserError
from tabletest.layout.camera import CameraView
from tabletest.truth.relation_table import BY_KEY
from tabletest.layout.instances import label_of
from tabletest.layout.random_scene import PlacedObject

MIN_WIDTH_PX = 640  # small renders are enlarged to this width first, so names stay legible
PALETTE = ((230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (70, 240, 240),
           (240, 50, 230), (210, 245, 60), (250, 190, 212), (0, 128, 128))
HIDDEN_COLOR = (160, 160, 160)
NOTE_COLOR = (200, 0, 0)
CHANGE_COLOR = (0, 80, 220)  # what a counterfactual partner or another view changed from its scene
LEGEND_LINES = 12
CHANGE_LINES = 6
# Relations in the legend, the rarer and more telling first, as "<a> <words> <b>"; then which way objects face, in the
# relation table's plainest words (what a rotate partner's difference holds)
LEGEND = (
    *((key, key.replace("_", " ")) for key in ("on", "inside", "touching", "next_to", "left_of", "in_front_of")),
    *((key, BY_KEY[key].words[0]) for key in ("facing", "facing_away", "same_way", "opposite_way")),
)
SYMMETRIC = {key for key, _ in LEGEND if BY_KEY[key].symmetric}  # listed in both orders: said once
# The 12 edges of `PlacedObject.box_corners` (bottom four corners, then the top four): two rings and the uprights.
EDGES = ((0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7))


# What the overlay draws from, as (field, shape, whether it must be positive): NaN or an infinity cannot be drawn.
OBJECT_NUMBERS = (
    ("bbox_px", (4,), False), ("position_m", (3,), False), ("size_m", (3,), False), ("yaw_deg", (), False),
)  # fmt: skip
BOX_NUMBERS = (("center_m", (3,), False), ("size_m", (3,), False), ("yaw_deg", (), False))
CAMERA_NUMBERS = (("K", (3, 3), False), ("world_to_camera", (4, 4), False), ("resolution", (2,), True))


def drawable(record: dict) -> None:
    """Refuse, in one line naming the scene and the field, a record with a number the overlay cannot draw
    (NaN, an infinity, a list of the wrong length, an image of no pixels): Pillow would stop with a traceback."""
    for field, value, shape, positive in _numbers_drawn(record):
        if not _finite(value, shape, positive):
            raise UserError(
                f"scene {record['id']}: {field} {excerpt(value)} is not {_shape_words(shape, positive)}, so it cannot be "
                "drawn; restore metadata.jsonl from the render, or render the folder again"
            )


def _numbers_drawn(record: dict) -> Iterator[tuple[str, object, tuple[int, ...], bool]]:
    """Each value the overlay draws from: (field, value, shape, whether it must be positive)."""
    for k, obj in enumerate(record["objects"]):
        for key, shape, positive in OBJECT_NUMBERS:
            yield f"objects[{k}].{key}", obj.get(key), shape, positive
        if isinstance(box := obj.get("box3d"), dict):
            for key, shape, positive in BOX_NUMBERS:
                yield f"objects[{k}].box3d.{key}", box.get(key), shape, positive
    if "camera" in record:
        camera = record["camera"] if isinstance(record["camera"], dict) else {}
        for key, shape, positive in CAMERA_NUMBERS:
            yield f"camera.{key}", camera.get(key), shape, positive
    else:  # the benchmark's camera: the run's config at the record's resolution
        yield "render.resolution", record["render"].get("resolution"), (2,), True


def _finite(value: object, shape: tuple[int, ...], positive: bool) -> bool:
    """Whether `value` is finite numbers (each above 0 where `positive`) nested as `shape` (() is one number)."""
    if not shape:
        number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        return number and (not positive or value > 0)
    return isinstance(value, list) and len(value) == shape[0] and all(_finite(v, shape[1:], positive) for v in value)


def _shape_words(shape: tuple[int, ...], positive: bool) -> str:
    kind = "positive finite" if positive else "finite"
    return f"a {kind} number" if not shape else f"{' x '.join(map(str, shape))} {kind} numbers"


def camera_of(record: dict) -> CameraView | None:
    """The camera the record was shot with, as it names it (`truth.described` gives one to a record from before)."""
    return CameraView.from_record(record["camera"]) if "camera" in record else None


def projected_box(obj: dict, camera: CameraView) -> np.ndarray | None:
    """The object's 3D box corners in pixels (8 × 2): its `box3d`, else its model box where it stands (a record from
    before boxes); None where a corner lies behind the camera."""
    box = obj.get("box3d")
    if isinstance(box, dict):
        (x, y, z), size = box["center_m"], tuple(box["size_m"])
        placed = PlacedObject(label_of(obj), (x, y, z - size[2] / 2), box["yaw_deg"], size)
    else:
        placed = PlacedObject(label_of(obj), tuple(obj["position_m"]), obj["yaw_deg"], tuple(obj["size_m"]))
    corners = placed.box_corners()
    if (camera.to_camera(corners)[:, 2] <= 0).any():
        return None
    return camera.project(corners)


def hidden_names(record: dict) -> set[str]:
    return set((record.get("relations") or {}).get("hidden") or ())


def legend(record: dict, lines: int = LEGEND_LINES) -> list[str]:
    """The scene's relations as short sentences, the most telling first, at most `lines` of them."""
    relations = record.get("relations") or {}
    said = [
        f"{a} {words} {b}"
        for key, words in LEGEND
        for a, b, *_ in relations.get(key) or ()
        if key not in SYMMETRIC or a < b
    ]
    said += [f"{a} between {b} and {c}" for a, b, c in relations.get("between") or ()]
    hidden = sorted(hidden_names(record))
    if hidden:
        said.insert(0, f"hidden (no relation names it): {', '.join(hidden)}")
    if len(said) > lines:
        said = [*said[: lines - 1], f"... and {len(said) - lines + 1} more"]
    return said or ["(no relations)"]


def changes(record: dict, lines: int = CHANGE_LINES) -> list[str]:
    """What a counterfactual partner changed from its scene (its kind, then the relations that now hold and
    no longer hold), or where another view's camera stands; nothing for a scene of its own."""
    if view := record.get("view"):
        camera = record.get("camera") or {}
        where = f": camera at azimuth {camera['azimuth_deg']:.0f}°, elevation {camera['elevation_deg']:.0f}°" if camera else ""
        return [f"view {view['number']} of {view['of']}{where}"]
    change = record.get("counterfactual")
    if not change:
        return []
    said = [
        f"{word}: {a} {words} {b}"
        for side, word in (("became_true", "now"), ("became_false", "no longer"))
        for key, words in LEGEND
        for a, b, *_ in change.get(side, {}).get(key) or ()
        if key not in SYMMETRIC or a < b
    ]
    if len(said) > lines - 1:
        said = [*said[: lines - 2], f"... and {len(said) - lines + 2} more"]
    turned = change.get("turn_deg")
    by = f" by {abs(turned):g}° {'anticlockwise' if turned > 0 else 'clockwise'} seen from above" if isinstance(turned, (int, float)) else ""
    return [f"{change['kind']} of {' and '.join(change['objects'])}{by} (from {change['of']})", *said]


def overlay(
    record: dict, image: Image.Image, mask: np.ndarray | None, camera: CameraView | None, notes: Sequence[str] = ()
) -> Image.Image:
    """The image, enlarged to at least MIN_WIDTH_PX wide, with every label drawn on it and the legend below;
    `notes` (what `tabletest verify` disputes) head the legend in red, then what a partner or view changed
    from its scene in blue (the objects the change names drawn twice as thick)."""
    scale = max(1.0, MIN_WIDTH_PX / image.width)
    size = (round(image.width * scale), round(image.height * scale))
    font = ImageFont.load_default(size=max(12, size[0] // 48))
    changed, named = changes(record), set((record.get("counterfactual") or {}).get("objects", ()))
    rows = [*notes, *changed, *legend(record)]
    line_px = round(font.size * 1.3)
    canvas = Image.new("RGB", (size[0], size[1] + line_px * (len(rows) + 1)), "white")
    canvas.paste(image.convert("RGB").resize(size, Image.Resampling.NEAREST if scale >= 2 else Image.Resampling.BILINEAR))
    draw = ImageDraw.Draw(canvas)
    hidden = hidden_names(record)
    width = max(2, round(scale / 5))
    for position, obj in enumerate(record["objects"]):
        label = label_of(obj)
        color = HIDDEN_COLOR if label in hidden else PALETTE[position % len(PALETTE)]
        thick = width * (2 if label in named else 1)
        if mask is not None:
            _outline(canvas, mask == position + 1, scale, color)
        corners = projected_box(obj, camera) if camera is not None else None
        if corners is not None:
            for i, j in EDGES:
                draw.line([tuple(corners[i] * scale), tuple(corners[j] * scale)], fill=color, width=thick)
        x0, y0, x1, y1 = (c * scale for c in obj["bbox_px"])
        _rectangle(draw, (x0, y0, x1, y1), color, thick, dashed=label in hidden)
        name = label + (" (hidden)" if label in hidden else "")
        _label(draw, (x0, max(0.0, y0 - line_px)), name, color, font)
    colors = [(0, 0, 0), *[NOTE_COLOR] * len(notes), *[CHANGE_COLOR] * len(changed)]
    for k, row in enumerate([f"{record['id']}:", *rows]):
        draw.text((8, size[1] + k * line_px + 2), row, fill=colors[k] if k < len(colors) else (0, 0, 0), font=font)
    return canvas


def side_by_side(images: Sequence[Image.Image], columns: int = 3, gap: int = 8) -> Image.Image:
    """Overlays in a grid, left to right and top to bottom, on white."""
    columns = min(columns, len(images))
    rows = -(-len(images) // columns)
    cell_w, cell_h = max(i.width for i in images), max(i.height for i in images)
    sheet = Image.new("RGB", (columns * cell_w + (columns - 1) * gap, rows * cell_h + (rows - 1) * gap), "white")
    for k, image in enumerate(images):
        sheet.paste(image, ((k % columns) * (cell_w + gap), (k // columns) * (cell_h + gap)))
    return sheet


def _outline(canvas: Image.Image, pixels: np.ndarray, scale: float, color: tuple[int, int, int]) -> None:
    """The mask's edge (its pixels with a neighbour outside it), drawn at the canvas's scale."""
    if not pixels.any():
        return
    padded = np.pad(pixels, 1)
    inner = padded[1:-1, 1:-1] & padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:]
    size = (round(pixels.shape[1] * scale), round(pixels.shape[0] * scale))
    edge = Image.fromarray(((pixels & ~inner) * 255).astype(np.uint8)).resize(size, Image.Resampling.NEAREST)
    canvas.paste(color, (0, 0), edge)


def _rectangle(draw: ImageDraw.ImageDraw, box: tuple[float, ...], color: tuple[int, int, int], width: int, dashed: bool) -> None:
    if not dashed:
        draw.rectangle(box, outline=color, width=width)
        return
    x0, y0, x1, y1 = box
    dash = 6 * width
    for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        length = max(abs(b[0] - a[0]), abs(b[1] - a[1]), 1.0)
        for start in np.arange(0, length, 2 * dash):
            t0, t1 = start / length, min(start + dash, length) / length
            draw.line([(a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0), (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1)],
                      fill=color, width=width)


def _label(draw: ImageDraw.ImageDraw, at: tuple[float, float], text: str, color: tuple[int, int, int], font) -> None:
    """The name on a patch of its colour, readable on any background."""
    left, top, right, bottom = draw.textbbox(at, text, font=font)
    draw.rectangle((left - 2, top - 1, right + 2, bottom + 1), fill=color)
    draw.text(at, text, fill=(255, 255, 255) if sum(color) < 500 else (0, 0, 0), font=font)
