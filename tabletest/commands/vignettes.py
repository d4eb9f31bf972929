"""`tabletest vignettes`: the text-only version of every selected scene, streamed as JSONL or text."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Optional

import typer

from tabletest.commands.options import (
    DEFAULT_ASSETS_DIR,
    CatalogOpt,
    ConfigOpt,
    CounterfactualsOpt,
    CountOpt,
    LimitOpt,
    ObjectsOpt,
    OnlyOpt,
    RandomConfigOpt,
    SampleOpt,
    ScenesOpt,
    ShardOpt,
    ViewLayoutOpt,
    ViewsOpt,
    SequenceOpt,
    FramesOpt,
    make_selection,
    parse_resolution,
    with_flags,
)


def vignettes(
    objects: ObjectsOpt = 2,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file, or - for standard output.")] = Path("-"),
    format: Annotated[
        Literal["jsonl", "txt"], typer.Option("--format", help="jsonl records, or txt: one vignette per line, after its scene id and a tab.")
    ] = "jsonl",
    order: Annotated[
        Literal["left_first", "right_first", "both"], typer.Option("--order", help="Which vignette(s) --format txt prints.")
    ] = "left_first",
    shard: ShardOpt = None,
    limit: LimitOpt = None,
    sample: SampleOpt = None,
    seed: Annotated[
        int, typer.Option("--seed", help="Seeds --sample's subset of the benchmark and the random set of --scenes random (give the render's --seed to describe its scenes).")
    ] = 0,
    only: OnlyOpt = None,
    catalog: CatalogOpt = None,
    scenes: ScenesOpt = "benchmark",
    count: CountOpt = None,
    random_config: RandomConfigOpt = None,
    counterfactuals: CounterfactualsOpt = None,
    views: ViewsOpt = None,
    view_layout: ViewLayoutOpt = None,
    sequence: SequenceOpt = None,
    frames: FramesOpt = None,
    resolution: Annotated[
        Optional[str], typer.Option(help="--scenes random: the render's WIDTHxHEIGHT (its aspect frames the scenes).")
    ] = None,
    assets: Annotated[
        Path, typer.Option(help="--scenes random: the models whose boxes place the objects (as the render's --assets).")
    ] = DEFAULT_ASSETS_DIR,
    config: ConfigOpt = None,
) -> None:
    """Write the vignettes, relations and object names of every selected scene (no Blender needed)."""
    from tabletest.assets.needed import needed_assets
    from tabletest.config import load_catalog, load_config
    from tabletest.files.jsonl import dumps, write_lines
    from tabletest.layout.random_set import random_set_for
    from tabletest.layout.selection import select_scenes
    from tabletest.truth.records import random_vignette_records, vignette_record

    cat = load_catalog(catalog)
    cfg = load_config(config)
    overrides = {"seed": seed, **({"resolution": parse_resolution(resolution)} if resolution else {})}
    settings = with_flags(cfg.render, overrides, resolution)  # the values `tabletest render` takes, no others
    selection = make_selection(objects, shard, limit, sample, seed, only)
    random_set = random_set_for(
        cat, scenes, count, random_config, seed, selection, sample, counterfactuals, views, view_layout, sequence, frames
    )
    if random_set is None:
        records = (vignette_record(scene) for scene in select_scenes(cat, selection))
    else:
        entries = needed_assets(cat, assets, random_set.pool, assets == DEFAULT_ASSETS_DIR)
        random_set, looks = random_set.with_look_models(cat, assets)
        entries.update(looks)
        records = random_vignette_records(
            random_set,
            {name: entry.size_m for name, entry in entries.items()},
            cfg.table.height_m,
            cfg.camera.sensor_width_mm,
            tuple(settings.resolution),
            {o.name: o.kind for o in cat.objects},
            random_set.contact(entries, assets),
            random_set.meshes(entries, assets),
        )
    if format == "jsonl":
        lines = (dumps(r) for r in records)
    else:
        keys = ("left_first", "right_first") if order == "both" else (order,)
        lines = (f"{r['id']}\t{r['vignettes'][k]}" for r in records for k in keys)
    count = write_lines(out, lines)
    if str(out) != "-":
        typer.echo(f"wrote {count} scenes to {out}", err=True)
