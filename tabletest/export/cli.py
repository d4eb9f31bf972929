"""`tabletest export`: a render (and its prompts) as files that VLM training and evaluation tools load as they are."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated, Literal, Optional

import typer

from tabletest.config import load_catalog
from tabletest.errors import UserError, not_one_of
from tabletest.layout.split import check_fraction
from tabletest.options import CatalogOpt
from tabletest.prompts.battery import parse_types

QUESTIONS = {"variations", "types", "questions", "balance", "coordinates", "marks"}
MAP_FIRST = {"map_first"}  # training formats: an answer after its scene's map
HIERARCHY = {"vlmevalkit": "hierarchy:export_vlmevalkit_hierarchy", "lmms-eval": "hierarchy:export_lmms_eval_hierarchy"}
SPLITS = {"split_by", "val_fraction"}
SHARDS = {"shard_size", "shard_mb"}
RL = {"modality", "reasoning"}  # the reinforcement-learning and preference formats' own
# format -> (module:function, the format's own options); modules load on use, so other commands stay quick
FORMATS = {
    "imagefolder": ("huggingface:export_imagefolder", SPLITS),
    "parquet": ("huggingface:export_parquet", SPLITS | SHARDS),
    "webdataset": ("wds:export_webdataset", SPLITS | SHARDS),
    "llava": ("instruct:export_llava", QUESTIONS | SPLITS | MAP_FIRST),
    "sharegpt": ("instruct:export_sharegpt", QUESTIONS | SPLITS | MAP_FIRST),
    "hf-chat": ("huggingface:export_hf_chat", QUESTIONS | SPLITS | SHARDS | MAP_FIRST),
    "vlmevalkit": ("vlmevalkit:export_vlmevalkit", QUESTIONS),
    "lmms-eval": ("lmms_eval:export_lmms_eval", QUESTIONS),
    "coco": ("coco:export_coco", SPLITS | {"segmentation"}),
    "trl": ("rl:export_trl", QUESTIONS | SPLITS | SHARDS | RL | MAP_FIRST),
    "verl": ("rl:export_verl", QUESTIONS | SPLITS | SHARDS | RL | MAP_FIRST),
    "dpo": ("rl:export_dpo", QUESTIONS | SPLITS | SHARDS | {"modality"} | MAP_FIRST),
}
EVALUATION = {"vlmevalkit", "lmms-eval"}  # every scene is a test item


def export(
    ctx: typer.Context,
    dataset: Annotated[Path, typer.Option("--dataset", help="A render's output folder (metadata.jsonl, images/).")],
    fmt: Annotated[str, typer.Option("--format", help=f"One of: {', '.join(FORMATS)}.")],
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", help="Export folder: new, empty, or an earlier export to replace (files it did not write are kept)."
        ),
    ],
    variations: Annotated[
        Literal["all", "paper", "one"],
        typer.Option(help="Questions per scene: every variation, the study's protocol, or one per prompt type."),
    ] = "paper",
    types: Annotated[
        str, typer.Option("--types", help="Prompt types to ask, comma-separated, e.g. 1,4,5.")
    ] = "1,2,3,4,5,6,7,8",
    split_by: Annotated[
        Literal["object", "scene", "appearance", "look"] | None,
        typer.Option(
            "--split-by",
            help="Hold out a validation split: unseen objects, random scenes, or (random scenes) unseen tables and HDRIs, or unseen object looks.",
        ),
    ] = None,
    val_fraction: Annotated[
        float | None, typer.Option("--val-fraction", help="Share of objects (or scenes) held out; default 0.1.")
    ] = None,
    questions: Annotated[
        Literal["study", "hierarchy"],
        typer.Option(help="study: the paper's prompt types; hierarchy: `tabletest questions` (per skill in eval sets)."),
    ] = "study",
    balance: Annotated[
        bool,
        typer.Option("--balance", help="With --questions hierarchy: drop questions whose answer their template, their wording, or their names over-represent."),
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seeds the train/val split, the answer options' order, each question's phrasing and answer wording, and which questions --balance keeps.")] = 0,
    shard_size: Annotated[
        int, typer.Option("--shard-size", min=1, help="Most images per shard (parquet, webdataset), or images whose questions a shard holds (hf-chat).")
    ] = 1000,
    shard_mb: Annotated[
        float, typer.Option("--shard-mb", min=0.001, help="Most MB per shard (parquet, webdataset, hf-chat).")
    ] = 500.0,
    assets: Annotated[
        Path | None,
        typer.Option(
            "--assets", help="Assets folder the render used, for the card's credits (default: from run.json)."
        ),
    ] = None,
    segmentation: Annotated[
        bool | None,
        typer.Option("--segmentation/--no-segmentation", help="COCO: RLE masks (default: when the render has masks)."),
    ] = None,
    modality: Annotated[
        Literal["image", "text"],
        typer.Option(help="trl, verl, dpo: questions about each image, or (text) about each scene's description in words."),
    ] = "image",
    reasoning: Annotated[
        bool,
        typer.Option("--reasoning", help="trl, verl: ask for reasoning in <think> </think>, then the answer in <answer> </answer>."),
    ] = False,
    coordinates: Annotated[
        Literal["pixels", "0-1000", "0-1", "percent"],
        typer.Option(
            "--coordinates",
            help="With --questions hierarchy: points and boxes in pixels (Qwen2.5-VL), 0-1000 (Qwen2-VL, InternVL), 0-1, or percent (Molmo); x right, y down from the top-left.",
        ),
    ] = "pixels",
    marks: Annotated[
        Optional[Literal["numbers", "boxes"]],
        typer.Option("--marks", help="With --questions hierarchy: a copy of each image with numbered marks (or boxes) on its objects, marked/<id>.png, and questions about them (needs a render with --masks)."),
    ] = None,
    map_first: Annotated[
        bool,
        typer.Option("--map-first", help="With --questions hierarchy: each answer about an image after a map of its objects seen from above (<map>JSON</map>), for map-then-answer training."),
    ] = False,
    catalog: CatalogOpt = None,
) -> None:
    """Export a render to a training or evaluation format (no Blender needed)."""
    from tabletest.export.run import ExportOptions, run_export

    if fmt not in FORMATS:
        raise not_one_of("--format", fmt, list(FORMATS), "parquet")
    target, own = FORMATS[fmt]
    given = {
        name
        for name in QUESTIONS | SPLITS | SHARDS | RL | MAP_FIRST | {"segmentation"}
        if ctx.get_parameter_source(name).name != "DEFAULT"
    }
    if given - own:
        name = min(given - own)
        why = " (an evaluation set: every scene is a test item)" if fmt in EVALUATION and name in SPLITS else ""
        option = "--" + name.replace("_", "-")
        raise UserError(f"{option} does not apply to --format {fmt}{why}; drop it")
    if balance and questions != "hierarchy":
        raise UserError("--balance balances the question hierarchy's answers; add --questions hierarchy, or drop it")
    hierarchy_only = [f"--{n.replace('_', '-')}" for n in ("coordinates", "marks", "map_first") if n in given]
    if hierarchy_only and questions != "hierarchy":
        raise UserError(f"{hierarchy_only[0]} shapes the question hierarchy's questions; add --questions hierarchy, or drop it")
    options = ExportOptions(
        variations=variations,
        types=parse_types(types),
        split_by=split_by,
        val_fraction=check_fraction(val_fraction, split_by),
        seed=seed,
        shard_size=shard_size,
        shard_mb=shard_mb,
        assets=assets,
        segmentation=segmentation,
        evaluation=fmt in EVALUATION,
        questions=questions,
        balance=balance,
        modality=modality,
        reasoning=reasoning,
        coordinates=coordinates,
        marks=marks,
        map_first=map_first,
    )
    if questions == "hierarchy":
        target = HIERARCHY.get(fmt, target)
    module, function = target.split(":")
    exporter = getattr(importlib.import_module(f"tabletest.export.{module}"), function)
    summary = run_export(fmt, exporter, dataset, out, options, load_catalog(catalog))
    images, scenes = sum(summary["images"].values()), sum(summary["scenes"].values())
    splits = ", ".join(f"{n} {split}" for split, n in summary["images"].items())
    families = f" of {scenes} scenes (with their views and partners)" if scenes != images else ""
    kept = f"; kept {summary['kept']} other file{'s' * (summary['kept'] != 1)} already there" if summary["kept"] else ""
    done = f"exported {images} images{families} ({splits}) as {fmt} to {out} in {summary['wall_s']:.1f} s"
    typer.echo(done + kept, err=True)
    if "held_out_reach" in summary:  # a held-out object or look takes every scene that shows it: say what that came to
        typer.echo(summary["held_out_reach"], err=True)
    if "group" in summary:  # lmms-eval: the name to run, its own so that exports can share an --include_path
        typer.echo(f"lmms-eval group: {summary['group']} (--include_path {out} --tasks {summary['group']})", err=True)
