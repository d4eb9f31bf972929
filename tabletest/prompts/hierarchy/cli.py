"""`tabletest questions`: the question hierarchy of every scene in a render's metadata or a vignettes file."""

from __future__ import annotations

import contextlib
import itertools
from pathlib import Path
from typing import Annotated, Optional

import typer

from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.options import CatalogOpt, DatasetOpt, LimitOpt
from tabletest.prompts.hierarchy.balance_report import AnswerTally, one_line, report, write_report
from tabletest.prompts.hierarchy.generate import FORMS, drawn_from
from tabletest.prompts.hierarchy.of_render import Asking, RenderQuestions
from tabletest.prompts.hierarchy.record import Coordinates, Phrasings
from tabletest.files.reading import read_records, require
from tabletest.files.records import check_scene_record
from tabletest.truth.described import described
from tabletest.files.jsonl import dumps, write_lines
from tabletest.files.lock import reading_lock
from tabletest.files.paths import output_outside

SCENE_FIX = "give a render's metadata.jsonl (or its folder) or a `tabletest vignettes` JSONL file"


def questions(
    source: Annotated[
        Optional[Path],
        typer.Option(
            "--from", help="Scene records: a render's folder or metadata.jsonl, or `tabletest vignettes` JSONL.",
            show_default=False,
        ),
    ] = None,
    dataset: DatasetOpt = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file, or - for standard output.")] = Path("-"),
    forms: Annotated[str, typer.Option("--forms", help=f"Comma-separated, from: {', '.join(FORMS)}.")] = ",".join(
        FORMS
    ),
    text_only: Annotated[
        bool, typer.Option("--text-only", help="Only text questions (vignettes and stories), no image questions.")
    ] = False,
    image_only: Annotated[
        bool, typer.Option("--image-only", help="Only questions about the images, none about a vignette (what an export ships).")
    ] = False,
    seed: Annotated[
        int,
        typer.Option("--seed", help="Seeds each question's phrasing, trick names, story wording and order, and which questions --balance keeps."),
    ] = 0,
    balance: Annotated[
        bool,
        typer.Option(
            "--balance",
            help="Drop questions whose answer is over-represented in their template (CLEVR's rejection), in their wording, or among those naming the same object in the same place.",
        ),
    ] = False,
    balance_report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Write the answers' balance and a text-only reader's accuracy per cell and template: JSON for a .json path, else Markdown.",
        ),
    ] = None,
    phrasings: Annotated[
        Phrasings,
        typer.Option("--phrasings", help="one: each question in one of its template's phrasings; all: in every one."),
    ] = "one",
    coordinates: Annotated[
        Coordinates,
        typer.Option("--coordinates", help="How questions answered with a point or a box ask for it: pixels, 0-1000, 0-1 or percent of the image."),
    ] = "pixels",
    limit: LimitOpt = None,
    catalog: CatalogOpt = None,
) -> None:
    """Write spatial questions beyond left and right (SPHERE's levels, VSR captions, SpartQA stories) as JSONL."""
    source = scene_records_given(source, dataset)
    chosen = tuple(f.strip() for f in forms.split(",") if f.strip())
    unknown = [f for f in chosen if f not in FORMS]
    if unknown or not chosen:
        raise UserError(f"--forms {forms!r}: choose from {', '.join(FORMS)}, e.g. --forms questions,stories")
    if text_only and image_only:
        raise UserError("--text-only and --image-only leave no question; give one of them")
    path = source / "metadata.jsonl" if source.is_dir() else source
    render = path.parent if path.name == "metadata.jsonl" and (path.parent / "images").is_dir() else None
    for flag, target in (("--out", out), ("--report", balance_report)):
        if target is not None and str(target) != "-":  # never over the render, nor over the records read
            output_outside(target, render or path, flag)
    if balance_report is not None:
        check_report(balance_report, path, out)
    cat = load_catalog(catalog)

    def records():
        for line, record in read_records(path, "scene records file"):
            require(record, ("id", "objects"), path, line, SCENE_FIX)
            check_scene_record(record, path, line, SCENE_FIX)
            yield described(record, render)

    before = AnswerTally(seed) if balance and balance_report is not None else None
    with reading_lock(path.parent, "ask questions of") if path.name == "metadata.jsonl" else contextlib.nullcontext():
        asking = Asking(chosen, seed, text_only, phrasings, balance, image_only, coordinates)
        first = before.through if before else None
        asked = RenderQuestions(lambda: itertools.islice(records(), limit), cat, asking, drawn_from(render), first, render)
        written = AnswerTally(seed) if balance_report is not None else None
        made = asked.all()
        count = write_lines(out, (dumps(q) for q in (written.through(made) if written else made)))
        plan = asked.plan if balance else None
    if str(out) != "-":
        kept = f" (--balance kept {count} of {plan.questions})" if plan else ""
        typer.echo(f"wrote {count} questions to {out}{kept}", err=True)
    if written is not None:
        made_report = report(seed, written, before)
        write_report(balance_report, made_report)
        typer.echo(f"question balance in {balance_report}: {one_line(made_report)}", err=True)


def scene_records_given(source: Path | None, dataset: Path | None) -> Path:
    """The scene records, given as `--dataset DIR` (a render, as every command that reads one takes it) or as
    `--from` (a render or a vignettes file); once."""
    if source is not None and dataset is not None and source != dataset:
        raise UserError(f"the scene records are given twice (--from {source} and --dataset {dataset}); give one, e.g. --dataset out/")
    if source is None and dataset is None:
        raise UserError("no scene records given; give a render as --dataset DIR, or a vignettes file as --from FILE")
    if dataset is not None and not (dataset / "metadata.jsonl").is_file():
        raise UserError(f"--dataset {dataset} is not a render's folder (no metadata.jsonl in it); give one, or a vignettes file as --from FILE")
    return dataset or source


def check_report(target: Path, source: Path, out: Path) -> None:
    """A report path must be a file in a folder that exists, and neither the input nor the output."""
    if str(target) == "-":
        return
    if target.is_dir():
        raise UserError(f"--report {target} is a folder; give a file in it, e.g. --report {target / 'balance.md'}")
    if not target.parent.is_dir():
        raise UserError(
            f"--report {target}: folder {target.parent} does not exist; create it or give a path in an existing folder"
        )
    for flag, taken in (("--from", source), ("--out", out)):
        if str(taken) != "-" and taken.resolve() == target.resolve():
            raise UserError(f"--report {target} is also the {flag} file; give the report a path of its own")
