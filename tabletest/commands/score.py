"""`tabletest score`: judge model responses against their prompts and write the report folder."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tabletest.commands.options import CatalogOpt

if TYPE_CHECKING:
    from tabletest.score.collect import Scoring


def score(
    prompts: Annotated[
        list[Path], typer.Option("--prompts", metavar="FILE", help="Prompts JSONL from `tabletest prompts` (repeatable).")
    ],
    responses: Annotated[
        list[Path],
        typer.Option(
            "--responses",
            metavar="PATH",
            help='Responses JSONL, {"qid", "response"[, "model"]} per line, or a VLMEvalKit prediction file '
            "(<model>_TableTest_<kind>.xlsx or .tsv), or a VLMEvalKit output folder (outputs/<model>/: the newest "
            "prediction file of each dataset in it) (repeatable; one file per model or a model field).",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Report folder: report.md, CSV files, PNG plots.")] = Path(
        "report"
    ),
    synonyms: Annotated[
        Path | None,
        typer.Option("--synonyms", help="Extra YAML of accepted object words, added to configs/synonyms.yaml."),
    ] = None,
    suggest_at: Annotated[
        int,
        typer.Option(
            "--suggest-at",
            min=1,
            help="Suggest for --synonyms the unknown words one model used this many times (the study: 5).",
        ),
    ] = 5,
    catalog: CatalogOpt = None,
) -> None:
    """Score model responses to the prompts: accuracy tables, biases, tests, consistency and plots."""
    from tabletest.config import load_catalog
    from tabletest.score.collect import score_responses
    from tabletest.score.lexicon import load_lexicon
    from tabletest.score.predictions import in_folders
    from tabletest.score.questions_report import score_question_files

    lexicon = load_lexicon(load_catalog(catalog), synonyms)
    responses = in_folders(responses)
    if score_question_files(prompts, responses, lexicon, out):
        return
    scoring = score_responses(prompts, responses, lexicon)
    from tabletest.score.report import write_report  # scipy and matplotlib: loaded only when a report is made

    written = write_report(scoring, out, {"prompts": prompts, "responses": responses}, suggest_at)
    typer.echo(
        f"scored {len(scoring.rows)} answers; wrote {written[0]} and {len(written) - 1} more files to {out}", err=True
    )
    if scoring.unanswered:
        typer.echo(_unanswered_warning(scoring, written[0]), err=True)


def _unanswered_warning(scoring: Scoring, report: Path) -> str:
    per_model: Counter[str] = Counter()
    for (model, _, _), n in scoring.unanswered.items():
        per_model[model] += n
    counts = ", ".join(f"{model} {n} of {scoring.queries}" for model, n in sorted(per_model.items()))
    return f"warning: unanswered queries: {counts}; see {report}"
