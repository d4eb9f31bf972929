"""Command-line options shared by every command that selects scenes or reads the configs.

One definition each, so `render`, `vignettes`, `prompts` and `export` spell and check them alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, Optional

import typer

from tabletest.errors import UserError
from tabletest.files.family import FAMILIES

if TYPE_CHECKING:  # read when a command runs, not when its options are declared (its --help needs none of them)
    from tabletest.config import RenderSettings
    from tabletest.layout.selection import Selection

DEFAULT_ASSETS_DIR = Path("assets")  # the assets folder a command reads or writes when given none

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
        "Kubernetes indexed job (n: the shard count, else the array's size or the variable TABLETEST_SHARD_COUNT).",
    ),
]
LimitOpt = Annotated[Optional[int], typer.Option("--limit", min=1, help="Keep at most the first N selected scenes.")]
SampleOpt = Annotated[Optional[int], typer.Option("--sample", min=1, help="A seeded random subset of K scenes.")]
SeedOpt = Annotated[
    int, typer.Option("--seed", min=0, help="Seeds --sample's subset of scenes and the order of each question's answer options.")
]
RenderSeedOpt = Annotated[
    Optional[int],
    typer.Option(
        "--seed",
        help="Seeds --sample's subset of the benchmark, the random set of --scenes random (its ids rnd{seed}-...) and "
        "Cycles' noise pattern (default from the config: 0).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as one JSON object on standard output, for scripts.")]
OnlyOpt = Annotated[Optional[str], typer.Option("--only", help="Comma-separated names; keep scenes made only of these.")]


DEFAULT_OBJECTS = 2  # `--objects` left out: the study's two-object scenes


def print_json(result: object) -> None:
    """A reporting command's result for scripts: one JSON document on standard output."""
    typer.echo(json.dumps(result, indent=1, ensure_ascii=False))


def make_selection(
    objects: int | None, shard: str | None, limit: int | None, sample: int | None, seed: int | None, only: str | None
) -> Selection:
    from tabletest.layout.selection import Selection, Shard, parse_only

    return Selection(
        n_objects=DEFAULT_OBJECTS if objects is None else objects,
        only=parse_only(only),
        sample=sample,
        seed=seed or 0,
        shard=Shard.parse(shard) if shard else None,
        limit=limit,
    )


def parse_resolution(text: str) -> tuple[int, int]:
    """`1024x768` -> (1024, 768); its bounds are `RenderSettings`' to check (see `with_flags`)."""
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit()):
        raise UserError(f"--resolution {text!r} is not WIDTHxHEIGHT; write e.g. --resolution 1024x768")
    return int(width), int(height)


def with_flags(settings: RenderSettings, overrides: dict, resolution_text: str | None) -> RenderSettings:
    """The config's render settings with the flags' values, checked as the config's own are: here, so that
    `render` and `vignettes` (whose scenes must be the render's) refuse the same values in the same words."""
    from pydantic import ValidationError

    try:
        return settings.model_validate({**settings.model_dump(), **overrides})
    except ValidationError as err:
        problem = err.errors()[0]
        name = str(problem["loc"][0])
        value = resolution_text if name == "resolution" else overrides.get(name)
        raise UserError(f"--{name} {value}: {problem['msg'].removeprefix('Value error, ')}") from None


ScenesOpt = Annotated[
    Literal["benchmark", "random"],
    typer.Option(help="benchmark: the study's scenes (--objects); random: --count randomised training scenes from --random-config."),
]
FamilyOpt = Annotated[
    Literal[tuple(family.name for family in FAMILIES)],
    typer.Option(help="; ".join(f"{family.name}: {family.help}" for family in FAMILIES) + "."),
]  # the scene families `tabletest render` renders (`files.family`)
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
SequenceOpt = Annotated[
    Optional[str],
    typer.Option(
        help="--scenes random: also make each scene's sequence of --frames frames (ids <scene>-f1 ...; the scene is frame 0): "
        "orbit (the camera goes round the table), dolly (it moves towards the objects) or slide (one object slides on the table)."
    ),
]
FramesOpt = Annotated[Optional[int], typer.Option(help="--sequence: frames of each sequence, the scene itself the first (default 8).")]
ViewLayoutOpt = Annotated[
    Optional[str],
    typer.Option(
        help="--views N: where views 2..N stand: random (drawn from the config's camera ranges, the default) or ring "
        "(evenly round the table at the scene camera's distance and elevation).",
    ),
]
RandomConfigOpt = Annotated[
    Optional[Path], typer.Option(help="--scenes random: the ranges scenes are drawn from (default: configs/random.yaml).")
]

# Every command that reads a render folder takes it as `--dataset DIR`; `verify` and `gallery` also take it
# as their first argument, as they always did.
DatasetArg = Annotated[Optional[Path], typer.Argument(help="The render folder (or give it as --dataset DIR).", show_default=False)]
DatasetOpt = Annotated[Optional[Path], typer.Option("--dataset", help="A render's output folder (metadata.jsonl, images/).")]


def dataset_folder(positional: Path | None, option: Path | None, example: str) -> Path:
    """The render folder, given either way; both ways at once must name the same one."""
    if positional is not None and option is not None and positional != option:
        raise UserError(f"the folder is given twice ({positional} and --dataset {option}); give it once, e.g. {example}")
    folder = option or positional
    if folder is None:
        raise UserError(f"no render folder given; give it as --dataset DIR, e.g. {example}")
    return folder
