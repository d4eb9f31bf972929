"""`tabletest show`: scenes of a render folder with their labels drawn on them, side by side in one PNG."""

from __future__ import annotations

import difflib
import io
from itertools import islice
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer
from PIL import Image

from tabletest.config import Config
from tabletest.errors import UserError
from tabletest.export.dataset import RenderDataset
from tabletest.show.files import open_image, record_file
from tabletest.show.overlay import camera_of, drawable, overlay, side_by_side
from tabletest.write.jsonl import atomic_bytes
from tabletest.write.paths import output_outside, record_id
from tabletest.write.run_output import last_render_run

FIRST = 4  # scenes shown when no --id is given


def show(
    dataset: Annotated[Path, typer.Option("--dataset", help="A render's output folder (metadata.jsonl, images/).")],
    ids: Annotated[
        Optional[list[str]], typer.Option("--id", help=f"A scene to show (repeatable; default: the first {FIRST}).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="The PNG to write.")] = Path("show.png"),
    columns: Annotated[int, typer.Option(min=1, help="Scenes per row.")] = 2,
) -> None:
    """Draw each scene's labels on its image: names, 2D boxes, mask outlines, the 3D boxes projected with the
    scene's camera, hidden objects, and its relations below."""
    if out.suffix.lower() != ".png":
        raise UserError(f"--out {out} is not a .png file; give e.g. --out show.png")
    output_outside(out, dataset, "--out")
    render = RenderDataset.open(dataset)
    records = chosen(render, ids)
    config = run_config(render)
    pictures = [scene_overlay(render, record, config) for record in records]
    save_png(side_by_side(pictures, columns), out)
    typer.echo(f"showed {len(pictures)} scene(s) -> {out}", err=True)


def chosen(render: RenderDataset, ids: list[str] | None) -> list[dict]:
    """The records asked for, in the order asked; an id the folder does not hold is refused by name."""
    if not ids:
        return list(islice(render.records(), FIRST))
    wanted = set(ids)
    found = {r["id"]: r for r in render.records() if r["id"] in wanted}
    for scene in ids:
        if scene not in found:
            near = difflib.get_close_matches(scene, [r["id"] for r in islice(render.records(), 100_000)], n=1)
            hint = f"did you mean {near[0]}?" if near else f"see the ids in {render.metadata}"
            raise UserError(f"--id {scene}: no such scene in {render.root}; {hint}")
    return [found[scene] for scene in ids]


def run_config(render: RenderDataset) -> Config | None:
    """The config the benchmark's fixed camera comes from (random scenes record their own), if the run kept it."""
    run = last_render_run(render.root)
    try:
        return Config.model_validate(run["config"]) if run else None
    except ValueError:
        return None


def write_disputed(render: RenderDataset, disputed: dict[str, list[str]], folder: Path) -> int:
    """One overlay per scene `tabletest verify` disputes, `<folder>/<id>.png`, the disputed labels in red."""
    config = run_config(render)
    written = 0
    for record in render.records():
        if record["id"] in disputed:
            picture = scene_overlay(render, record, config, disputed[record["id"]])
            save_png(picture, folder / f"{record_id(record['id'])}.png")
            written += 1
    return written


def save_png(picture: Image.Image, path: Path) -> None:
    """The picture as a PNG that appears under `path` only when complete."""
    png = io.BytesIO()
    picture.save(png, format="PNG")
    atomic_bytes(path, png.getvalue())


def scene_overlay(render: RenderDataset, record: dict, config: Config | None, notes: list[str] | None = None) -> Image.Image:
    """The scene's labels drawn on its image; a record whose id, files or numbers cannot be trusted, or an
    image or mask that does not decode, is refused in one line before anything is drawn."""
    record_id(record["id"])
    drawable(record)
    image = open_image(record_file(render, record, "file_name"))
    mask = None
    if (mask_path := record_file(render, record, "mask_file_name")) is not None:
        labels = open_image(mask_path)
        if labels.size != image.size:
            raise UserError(
                f"{mask_path} is {labels.width}x{labels.height} pixels, its image {image.width}x{image.height}; "
                "delete both and rerun the same `tabletest render` command to render them again"
            )
        mask = np.asarray(labels)
    return overlay(record, image, mask, camera_of(record, config), notes or ())
