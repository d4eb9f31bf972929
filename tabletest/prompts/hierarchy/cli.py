"""`tabletest questions`: the question hierarchy of every scene in a render's metadata or a vignettes file."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from tabletest.config import load_catalog, load_config
from tabletest.errors import UserError
from tabletest.options import CatalogOpt, ConfigOpt, LimitOpt
from tabletest.prompts.hierarchy.generate import FORMS, scene_questions
from tabletest.prompts.hierarchy.pairs import with_pair_questions
from tabletest.prompts.reading import read_records, require
from tabletest.truth.nouns import Nouns
from tabletest.write.jsonl import dumps, write_lines

SCENE_FIX = "give a render's metadata.jsonl (or its folder) or a `tabletest vignettes` JSONL file"


def questions(
    source: Annotated[
        Path,
        typer.Option(
            "--from", help="Scene records: a render's folder or metadata.jsonl, or `tabletest vignettes` JSONL."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file, or - for standard output.")] = Path("-"),
    forms: Annotated[str, typer.Option("--forms", help=f"Comma-separated, from: {', '.join(FORMS)}.")] = ",".join(
        FORMS
    ),
    text_only: Annotated[
        bool, typer.Option("--text-only", help="Only text questions (vignettes and stories), no image questions.")
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seeds trick names, story wording and order.")] = 0,
    limit: LimitOpt = None,
    config: ConfigOpt = None,
    catalog: CatalogOpt = None,
) -> None:
    """Write spatial questions beyond left and right (SPHERE's levels, VSR captions, SpartQA stories) as JSONL."""
    chosen = tuple(f.strip() for f in forms.split(",") if f.strip())
    unknown = [f for f in chosen if f not in FORMS]
    if unknown or not chosen:
        raise UserError(f"--forms {forms!r}: choose from {', '.join(FORMS)}, e.g. --forms questions,stories")
    path = source / "metadata.jsonl" if source.is_dir() else source
    cat, cfg = load_catalog(catalog), load_config(config)

    def records():
        for line, record in read_records(path, "scene records file"):
            require(record, ("id", "objects"), path, line, SCENE_FIX)
            yield record

    def asked(record: dict) -> Iterator[dict]:
        return scene_questions(record, cat, cfg, seed, chosen, text_only)

    scenes = itertools.islice(records(), limit)
    if "questions" in chosen and not text_only:  # a render's counterfactual pairs are also asked of together
        made = with_pair_questions(scenes, asked, Nouns.of(cat))
    else:
        made = (q for r in scenes for q in asked(r))
    count = write_lines(out, (dumps(q) for q in made))
    if str(out) != "-":
        typer.echo(f"wrote {count} questions to {out}", err=True)
