"""`tabletest prompts`: the study's query battery as JSONL, for a render (image) or for vignettes (text)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tabletest.commands.options import (
    CatalogOpt,
    LimitOpt,
    ObjectsOpt,
    OnlyOpt,
    SampleOpt,
    SeedOpt,
    ShardOpt,
    make_selection,
)
from tabletest.errors import UserError
from tabletest.prompts.battery import Protocol, parse_types, scene_queries


def prompts(
    ctx: typer.Context,
    dataset: Annotated[
        Path | None,
        typer.Option(
            "--dataset",
            help="A render's output folder (metadata.jsonl): image queries, or its vignettes with --text-only.",
        ),
    ] = None,
    text_only: Annotated[
        bool, typer.Option("--text-only", help="Give the vignette (each order once) in place of the image.")
    ] = False,
    objects: ObjectsOpt = 2,
    protocol: Annotated[
        Protocol, typer.Option("--protocol", help="paper: the study's counts; full: every variation of every scene.")
    ] = "paper",
    types: Annotated[
        str, typer.Option("--types", help="Prompt types to ask, comma-separated, e.g. 1,4,5.")
    ] = "1,2,3,4,5,6,7,8",
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file, or - for standard output.")] = Path("-"),
    shard: ShardOpt = None,
    limit: LimitOpt = None,
    sample: SampleOpt = None,
    seed: SeedOpt = 0,
    only: OnlyOpt = None,
    catalog: CatalogOpt = None,
    inside_true: Annotated[
        bool,
        typer.Option(
            "--inside-true",
            help="Also ask prompt 5 of each object in a container (random scenes with arrangements), where "
            "\"inside of\" is the true answer.",
        ),
    ] = False,
) -> None:
    """Write the eight prompt types of the study as JSONL queries (no Blender needed)."""
    from tabletest.config import load_catalog
    from tabletest.files.jsonl import dumps, write_lines
    from tabletest.files.paths import output_outside
    from tabletest.prompts.sources import dataset_scenes, enumerated_scenes

    chosen_types = parse_types(types)
    if dataset is None and not text_only:
        raise UserError(
            "no scenes to ask about: give --dataset DIR for image queries, or --text-only for vignette queries"
        )
    if dataset is not None and str(out) != "-":
        output_outside(out, dataset, "--out")
    cat = load_catalog(catalog)
    selection = make_selection(objects, shard, limit, sample, seed, only)
    if dataset is None:
        scenes = enumerated_scenes(cat, selection)
    else:
        explicit = ctx.get_parameter_source("objects").name != "DEFAULT"  # typer may vendor its own click
        scenes = dataset_scenes(
            dataset,
            cat,
            lambda n: make_selection(n, shard, None, sample, seed, only),
            limit,
            objects if explicit else None,
        )
    modality = "text" if text_only else "image"
    records = (r for scene in scenes for r in scene_queries(scene, chosen_types, protocol, modality, seed, inside_true))
    count = write_lines(out, (dumps(r) for r in records))
    if str(out) != "-":
        typer.echo(f"wrote {count} {modality} queries to {out}", err=True)
