"""One real example under each command's help (`tabletest render --help` ends with it), so a newcomer can
start from a line that works instead of assembling one from the options; and each command listed by its help's
first sentence, whole and on one line (typer would list its first paragraph with the docstring's line breaks,
and click without rich cut it at 45 characters)."""

from __future__ import annotations

import re

import typer

FIRST_SENTENCE = re.compile(r".+?[.!?](?=\s+[A-Z(`]|$)")

EXAMPLES = {
    "catalog": "tabletest catalog",
    "vignettes": "tabletest vignettes --objects 3 --limit 4 --format txt",
    "render": "tabletest render --objects 3 --limit 4 --out out/",
    "kernels": "tabletest kernels --arch 80,90",
    "prompts": "tabletest prompts --dataset out/ --out prompts.jsonl",
    "questions": "tabletest questions --dataset out/ --out questions.jsonl",
    "score": "tabletest score --prompts prompts.jsonl --responses responses.jsonl --out report/",
    "export": "tabletest export --dataset out/ --format lmms-eval --out exports/lmms",
    "merge": "tabletest merge parts/shard-* --out merged/",
    "verify": "tabletest verify --dataset train/",
    "schema": "tabletest schema random-record",
    "show": "tabletest show --dataset train/ --id rnd0-0000007 --out show.png",
    "gallery": "tabletest gallery --dataset train/ --out train-gallery/",
    "assets build": "tabletest assets build --assets assets/",
    "assets list": "tabletest assets list",
    "assets check": "tabletest assets check",
    "assets sheet": "tabletest assets sheet sheet.png",
    "assets fetch": "tabletest assets fetch --only mug,lamp",
    "assets import": "tabletest assets import my_models/   # my_models/mug.glb replaces the built-in mug",
    "assets credits": "tabletest assets credits --format markdown",
    "slurm render": "tabletest slurm render --out /shared/run --tasks 16 --gpus-per-task 1 --objects 2",
    "slurm status": "tabletest slurm status /shared/run",
    "slurm resubmit": "tabletest slurm resubmit /shared/run",
}


def with_example(command: typer.core.click.Command, path: str) -> typer.core.click.Command:
    """`command` with its example (and, for a group, each sub-command's) as the help's last line, and listed by
    its help's first sentence."""
    if path in EXAMPLES:
        command.epilog = f"Example: {EXAMPLES[path]}"
    if command.help:
        command.short_help = first_sentence(command.help)
    for name, sub in getattr(command, "commands", {}).items():
        with_example(sub, f"{path} {name}")
    return command


def first_sentence(text: str) -> str:
    """The first sentence of a help text, its line breaks made spaces."""
    flat = " ".join(text.split())
    found = FIRST_SENTENCE.match(flat)
    return found.group(0) if found else flat
