"""Pictures of scenes: each scene's labels drawn on its image, written as PNGs (for `tabletest show` and for
`tabletest verify --show`, which draws the labels it disputes in red)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image

from tabletest.errors import UserError
from tabletest.files.dataset import RenderDataset
from tabletest.files.jsonl import atomic_bytes
from tabletest.files.paths import record_id
from tabletest.files.records import RenderRecord
from tabletest.files.images import open_image
from tabletest.show.overlay import camera_of, drawable, overlay, side_by_side
from tabletest.truth.described import described


def write_disputed(render: RenderDataset, disputed: dict[str, list[str]], folder: Path) -> int:
    """One overlay per scene `tabletest verify` disputes, `<folder>/<id>.png`, the disputed labels in red."""
    written = 0
    for record in render.records():
        if record.id in disputed:
            picture = scene_overlay(render, record, disputed[record.id])
            save_png(picture, folder / f"{record_id(record.id)}.png")
            written += 1
    return written


def save_png(picture: Image.Image, path: Path) -> None:
    """The picture as a PNG that appears under `path` only when complete."""
    png = io.BytesIO()
    picture.save(png, format="PNG")
    atomic_bytes(path, png.getvalue())


def scene_overlay(render: RenderDataset, record: RenderRecord, notes: list[str] | None = None) -> Image.Image:
    """The scene's labels drawn on its image; a record whose numbers cannot be drawn (its shape is checked as it
    is read), a file it names outside the folder, or an image or mask that does not decode, is refused in one
    line before anything is drawn."""
    drawable(record.raw)
    image = open_image(render.image(record))
    mask = None
    if (mask_path := render.mask(record)) is not None:
        labels = open_image(mask_path)
        if labels.size != image.size:
            raise UserError(
                f"{mask_path} is {labels.width}x{labels.height} pixels, its image {image.width}x{image.height}; "
                "delete both and rerun the same `tabletest render` command to render them again"
            )
        mask = np.asarray(labels)
    return overlay(record.raw, image, mask, camera_of(described(record.raw, render.root)), notes or ())


def with_views(render: RenderDataset, records: list[RenderRecord]) -> list[list[RenderRecord]]:
    """For each record, its scene and every view of it the folder holds, the scene first, in view order (a scene
    asked for twice, or with one of its views, is shown once)."""
    scenes = list(dict.fromkeys(record.made_from if _is_view(record) else record.id for record in records))
    family: dict[str, list[RenderRecord]] = {scene: [] for scene in scenes}
    for record in render.records():
        scene = record.made_from if _is_view(record) else record.id
        if scene in family:
            family[scene].append(record)
    return [sorted(family[scene], key=lambda r: r.raw["view"]["number"] if _is_view(r) else 1) for scene in scenes]


def _is_view(record: RenderRecord) -> bool:
    return isinstance(record.raw.get("view"), dict)


def rows_of(rows: list[list[Image.Image]]) -> Image.Image:
    """Pictures in rows (a scene's views to a row), the rows as long as the longest, shorter ones left blank at the end."""
    width = max(map(len, rows))
    blank = Image.new("RGB", (1, 1), "white")
    return side_by_side([picture for row in rows for picture in [*row, *[blank] * (width - len(row))]], width)
