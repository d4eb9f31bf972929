"""`tabletest show`: scenes of a render folder with their labels drawn on them, side by side in one PNG."""

from __future__ import annotations

import difflib
from itertools import islice
from pathlib import Path
from typing import Annotated, Optional

import typer

from tabletest.errors import UserError
from tabletest.files.dataset import RenderDataset
from tabletest.files.lock import reading_lock
from tabletest.files.paths import output_outside
from tabletest.files.records import RenderRecord
from tabletest.show.overlay import side_by_side
from tabletest.show.pictures import run_config, save_png, scene_overlay

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
    with reading_lock(dataset, "show"):
        render = RenderDataset.open(dataset)
        records = chosen(render, ids)
        config = run_config(render)
        pictures = [scene_overlay(render, record, config) for record in records]
    save_png(side_by_side(pictures, columns), out)
    typer.echo(f"showed {len(pictures)} scene(s) -> {out}", err=True)


def chosen(render: RenderDataset, ids: list[str] | None) -> list[RenderRecord]:
    """The records asked for, in the order asked; an id the folder does not hold is refused by name."""
    if not ids:
        return list(islice(render.records(), FIRST))
    wanted = set(ids)
    found = {r.id: r for r in render.records() if r.id in wanted}
    for scene in ids:
        if scene not in found:
            near = difflib.get_close_matches(scene, [r.id for r in islice(render.records(), 100_000)], n=1)
            hint = f"did you mean {near[0]}?" if near else f"see the ids in {render.metadata}"
            raise UserError(f"--id {scene}: no such scene in {render.root}; {hint}")
    return [found[scene] for scene in ids]
