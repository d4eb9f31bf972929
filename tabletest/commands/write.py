"""`tabletest merge`: shard folders in, one dataset out; `tabletest schema`: the record formats as JSON Schema."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from tabletest.commands.options import CatalogOpt
from tabletest.errors import UserError


def merge(
    parts: Annotated[
        Optional[list[Path]], typer.Argument(metavar="PART", help="Shard folders (render outputs), e.g. OUT/parts/*.", show_default=False)
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="The merged dataset's folder (new, or an earlier merge of the same parts).")] = ...,
    datasets: Annotated[
        Optional[list[Path]], typer.Option("--dataset", help="A shard folder, as every command that reads a render takes it (repeatable).")
    ] = None,
    jobs: Annotated[Optional[int], typer.Option(min=1, help="Processes that check the images decode (default: one per core).")] = None,
    catalog: CatalogOpt = None,
) -> None:
    """Merge shard folders into one dataset: refuses mismatched, overlapping, missing or broken parts;
    hard-links the images (copies across file systems); safe to kill and rerun."""
    from tabletest.config import load_catalog
    from tabletest.write.merge import merge_parts

    given = [*(parts or ()), *(datasets or ())]
    if not given:
        raise UserError("no parts given; name the shard folders, e.g. tabletest merge out/parts/* --out merged/")
    summary = merge_parts(load_catalog(catalog), given, out, jobs)
    how = f"{summary.linked} hard-linked" + (f", {summary.copied} copied (another file system)" if summary.copied else "")
    kept = f", {summary.kept} already in place" if summary.kept else ""
    typer.echo(f"merged {summary.parts} part(s), {summary.images} images ({how}{kept}) -> {out}", err=True)


def schema(
    kind: Annotated[
        str,
        typer.Argument(
            metavar="KIND",
            help="benchmark-record, random-record, vignette, prompt, question or response.",
        ),
    ],
) -> None:
    """Print the JSON Schema of a record format (the same files ship in the package, tabletest/schemas/)."""
    from tabletest.write.schema import schema_text

    typer.echo(schema_text(kind), nl=False)
