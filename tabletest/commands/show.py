"""`tabletest show`: scenes of a render folder with their labels drawn on them, side by side in one PNG; and
`tabletest gallery`: a static site of a whole folder."""

from __future__ import annotations

import difflib
import os
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from tabletest.commands.options import CatalogOpt, DatasetArg, DatasetOpt, dataset_folder
from tabletest.errors import UserError

if TYPE_CHECKING:
    from tabletest.files.dataset import RenderDataset
    from tabletest.files.records import RenderRecord

FIRST = 4  # scenes shown when no --id is given


def show(
    dataset: Annotated[Path, typer.Option("--dataset", help="A render's output folder (metadata.jsonl, images/).")],
    ids: Annotated[
        Optional[list[str]], typer.Option("--id", help=f"A scene to show (repeatable; default: the first {FIRST}).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="The PNG to write.")] = Path("show.png"),
    columns: Annotated[int, typer.Option(min=1, help="Scenes per row (with --views: a scene's views to a row).")] = 2,
    views: Annotated[bool, typer.Option("--views", help="Each scene with all its views side by side, a scene to a row (in view order).")] = False,
) -> None:
    """Draw each scene's labels on its image: names, 2D boxes, mask outlines, the 3D boxes projected with the
    scene's camera, hidden objects, and its relations below."""
    from tabletest.files.dataset import RenderDataset
    from tabletest.files.lock import reading_lock
    from tabletest.files.paths import output_outside
    from tabletest.show.overlay import side_by_side
    from tabletest.show.pictures import rows_of, save_png, scene_overlay, with_views

    if out.suffix.lower() != ".png":
        raise UserError(f"--out {out} is not a .png file; give e.g. --out show.png")
    output_outside(out, dataset, "--out")
    with reading_lock(dataset, "show"):
        render = RenderDataset.open(dataset)
        records = chosen(render, ids)
        rows = [[scene_overlay(render, record) for record in row] for row in (with_views(render, records) if views else [records])]
    save_png(rows_of(rows) if views else side_by_side(rows[0], columns), out)
    typer.echo(f"showed {sum(map(len, rows))} image(s) -> {out}", err=True)


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


def gallery(
    out: Annotated[Path, typer.Option("--out", "-o", help="The site's folder: new, or an earlier gallery of this render to update.")],
    folder: DatasetArg = None,
    dataset: DatasetOpt = None,
    per_page: Annotated[int, typer.Option("--per-page", min=1, help="Thumbnails per page.")] = 120,
    workers: Annotated[Optional[int], typer.Option("--workers", min=1, help="Processes making thumbnails and details (default: the CPUs).")] = None,
    catalog: CatalogOpt = None,
) -> None:
    """Write a static site of a render folder: thumbnails with filters, and each image's labels, record and questions."""
    from tabletest.config import load_catalog
    from tabletest.files.dataset import RenderDataset
    from tabletest.files.lock import reading_lock
    from tabletest.files.paths import output_outside
    from tabletest.files.verdict import VERIFY_FILE
    from tabletest.show.gallery import MARKER, build

    folder = dataset_folder(folder, dataset, "tabletest gallery --dataset train/ --out train-gallery/")
    output_outside(out, folder, "--out")
    with reading_lock(folder, "make a gallery of"):
        render = RenderDataset.open(folder)
        if out.exists() and not out.is_dir():
            raise UserError(f"--out {out} is not a folder; give a new folder or an earlier gallery")
        if out.is_dir() and any(out.iterdir()) and not any((out / name).is_file() for name in ("index.html", MARKER)):
            raise UserError(f"--out {out} holds other files; give a new folder or an earlier gallery")
        load_catalog(catalog)  # a bad catalog is one line here, not an error in every worker
        report = build(render, out, per_page, workers or os.cpu_count() or 1, catalog)
    if unreadable := report["unreadable_verdicts"]:
        more = f" and {len(unreadable) - 3} more" if len(unreadable) > 3 else ""
        typer.echo(
            f"note: {folder / VERIFY_FILE} holds the disagreements of {', '.join(repr(scene[:80]) for scene in unreadable[:3])}{more} as something else "
            "than lines of text; the gallery shows those scenes as not verified: run tabletest verify again",
            err=True,
        )
    typer.echo(
        f"gallery of {report['scenes']} images ({report['thumbnails_made']} thumbnails made, "
        f"{report['unusable']} missing or unreadable) -> {out / 'index.html'}",
        err=True,
    )
