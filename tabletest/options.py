"""Command-line options shared by every command that selects scenes or reads the configs.

One definition each, so `render`, `vignettes`, `prompts` and `export` spell and check them alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Optional

import typer

from tabletest.layout.selection import Selection, Shard, parse_only

CatalogOpt = Annotated[
    Optional[Path], typer.Option("--catalog", help="Object catalog YAML (default: the built-in 64 objects).")
]
ConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="Render config YAML (default: configs/default.yaml).")]
ObjectsOpt = Annotated[int, typer.Option("--objects", "-n", help="Objects per scene: 1, 2 or 3.")]
ShardOpt = Annotated[
    Optional[str],
    typer.Option(
        "--shard",
        help="Take indices with index % n == i; write i/n, 0 <= i < n, or auto (or auto/n) in a SLURM array task or "
        "Kubernetes indexed job (n: the shard count, else the array's size or $TABLETEST_SHARD_COUNT).",
    ),
]
LimitOpt = Annotated[Optional[int], typer.Option("--limit", min=1, help="Keep at most the first N selected scenes.")]
SampleOpt = Annotated[Optional[int], typer.Option("--sample", min=1, help="A seeded random subset of K scenes.")]
SeedOpt = Annotated[
    int, typer.Option("--seed", min=0, help="Seed for --sample (and, for prompts, the order of answer options).")
]
RenderSeedOpt = Annotated[
    Optional[int],
    typer.Option("--seed", help="Seed for --sample and for Cycles' noise pattern (default from the config: 0)."),
]
OnlyOpt = Annotated[Optional[str], typer.Option("--only", help="Comma-separated names; keep scenes made only of these.")]


DEFAULT_OBJECTS = 2  # `--objects` left out: the study's two-object scenes


def make_selection(
    objects: int | None, shard: str | None, limit: int | None, sample: int | None, seed: int | None, only: str | None
) -> Selection:
    return Selection(
        n_objects=DEFAULT_OBJECTS if objects is None else objects,
        only=parse_only(only),
        sample=sample,
        seed=seed or 0,
        shard=Shard.parse(shard) if shard else None,
        limit=limit,
    )
ScenesOpt = Annotated[
    Literal["benchmark", "random"],
    typer.Option(help="benchmark: the study's scenes (--objects); random: --count randomised training scenes from --random-config."),
]
CountOpt = Annotated[Optional[int], typer.Option(help="--scenes random: how many scenes the set has (ids rnd{seed}-0000000 ...).")]
CounterfactualsOpt = Annotated[
    Optional[str],
    typer.Option(
        help="--scenes random: also make each scene's partners that change one thing (ids <scene>-<kind>): swap, move, "
        "remove, replace, unstack, comma-separated."
    ),
]
ViewsOpt = Annotated[
    Optional[int],
    typer.Option(help="--scenes random: cameras per scene (default 1); views 2.. are ids <scene>-view2 ..., the same objects and lights."),
]
RandomConfigOpt = Annotated[
    Optional[Path], typer.Option(help="--scenes random: the ranges scenes are drawn from (default: configs/random.yaml).")
]
