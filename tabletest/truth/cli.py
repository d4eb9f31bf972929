"""`tabletest vignettes`: the text-only version of every selected scene, streamed as JSONL or text; and
`tabletest verify`: the pixel audit of a render folder's labels."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from tabletest.config import load_catalog
from tabletest.layout.selection import select_scenes
from tabletest.options import CatalogOpt, LimitOpt, ObjectsOpt, OnlyOpt, SampleOpt, SeedOpt, ShardOpt, make_selection
from tabletest.truth.audit import audit, summary
from tabletest.truth.records import vignette_record
from tabletest.write.jsonl import dumps, write_lines


def vignettes(
    objects: ObjectsOpt = 2,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file, or - for standard output.")] = Path("-"),
    format: Annotated[
        Literal["jsonl", "txt"], typer.Option("--format", help="jsonl records, or txt: one vignette per line.")
    ] = "jsonl",
    order: Annotated[
        Literal["left_first", "right_first", "both"], typer.Option("--order", help="Which vignette(s) --format txt prints.")
    ] = "left_first",
    shard: ShardOpt = None,
    limit: LimitOpt = None,
    sample: SampleOpt = None,
    seed: SeedOpt = 0,
    only: OnlyOpt = None,
    catalog: CatalogOpt = None,
) -> None:
    """Write the vignettes, relations and object names of every selected scene (no Blender needed)."""
    cat = load_catalog(catalog)
    selection = make_selection(objects, shard, limit, sample, seed, only)
    records = (vignette_record(scene) for scene in select_scenes(cat, selection))
    if format == "jsonl":
        lines = (dumps(r) for r in records)
    else:
        keys = ("left_first", "right_first") if order == "both" else (order,)
        lines = (r["vignettes"][k] for r in records for k in keys)
    count = write_lines(out, lines)
    if str(out) != "-":
        typer.echo(f"wrote {count} scenes to {out}", err=True)


def verify(
    folder: Annotated[Path, typer.Argument(help="A render folder made with `tabletest render --masks`.")],
) -> None:
    """Audit a render folder against its own pixels: every label, box and file; exit 1 on any disagreement."""
    result = audit(folder)
    for line in summary(result):
        typer.echo(line)
    if result.disagreements:
        raise typer.Exit(1)
