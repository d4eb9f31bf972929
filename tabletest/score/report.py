"""The report folder: report.md (the paper's tables, biases, tests, consistency), CSVs and PNG plots."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import yaml

from tabletest.score.collect import Scored, Scoring
from tabletest.score.escape import markdown_cell, write_csv
from tabletest.score.plots import MODALITY_TITLE, density_figure
from tabletest.score.tables import (
    ALL_MODELS,
    Row,
    accuracy,
    biases,
    by_variation,
    consistency,
    factor_tests,
    interaction_tests,
    model_tests,
    models_of,
    paper_table3_rows,
    per_object,
    table3,
    unanswered,
    unknown_words,
)
from tabletest.files.jsonl import atomic_output

ADEQUATE = 0.90  # the paper's bar for humanlike performance on a trivial task
MAX_LEVELS_SHOWN = 4
EXAMPLES = 12
SUGGESTIONS = "synonyms_suggested.yaml"


def write_report(scoring: Scoring, out: Path, inputs: dict[str, list[Path]], suggest_at: int = 5) -> list[Path]:
    """Write every output under `out`; return the paths written."""
    rows = scoring.rows
    out.mkdir(parents=True, exist_ok=True)
    tables = {
        "accuracy": accuracy(rows),
        "unanswered": unanswered(rows, scoring.unanswered),
        "variations": by_variation(rows),
        "table3": table3(rows),
        "biases": biases(rows),
        "consistency": consistency(rows),
        "per_object": per_object(rows),
        "factor_tests": factor_tests(rows) + interaction_tests(rows),
        "model_tests": model_tests(rows),
        "unknown_words": unknown_words(rows, suggest_at),
    }
    written = [_write_csv(out / f"{name}.csv", table) for name, table in tables.items()]
    written.append(_write_suggestions(out / SUGGESTIONS, tables["unknown_words"], suggest_at))
    written.append(_write_csv(out / "scored.csv", _scored_rows(rows)))
    plots = _plots(tables, out)
    written += plots
    report = out / "report.md"
    with atomic_output(report) as fh:
        fh.write(_markdown(rows, tables, plots, inputs, suggest_at))
    return [report, *written]


def _scored_rows(rows: list[Scored]) -> list[Row]:
    return [
        {
            "model": r.model,
            "qid": r.qid,
            "status": r.outcome.status,
            "world": r.outcome.world or "",
            "parsed": r.outcome.parsed,
            "response": r.response,
        }
        for r in rows
    ]


def _write_csv(path: Path, table: list[Row]) -> Path:
    """A table with its fractions to 6 significant digits, written as every report CSV is (`write_csv`)."""
    return write_csv(path, [{k: f"{v:.6g}" if isinstance(v, float) else v for k, v in r.items()} for r in table])


def _plots(tables: dict[str, list[Row]], out: Path) -> list[Path]:
    overall = {(r["model"], r["modality"], r["prompt_type"]): r["accuracy"] for r in tables["accuracy"]}
    paths = []
    for modality in sorted({r["modality"] for r in tables["per_object"]}):
        chosen = [r for r in tables["per_object"] if r["modality"] == modality and r["model"] != ALL_MODELS]
        path = out / f"density_{modality}.png"
        density_figure(chosen, {(m, p): a for (m, mod, p), a in overall.items() if mod == modality}, modality, path)
        paths.append(path)
    return paths


def fraction(value: float | None) -> str:
    """The paper's style: .93, 1.00."""
    if value is None:
        return "—"
    text = f"{value:.2f}"
    return text.removeprefix("0")


def p_value(p: float) -> str:
    return "< .001" if p < 0.001 else fraction(p) if p >= 0.01 else f"{p:.3f}"[1:]


def _table(header: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(map(markdown_cell, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(markdown_cell, row)) + " |" for row in body]
    return "\n".join(lines) + "\n"


def _statistic(row: Row) -> str:
    if row["test"] == "wilcoxon":
        return f"Wilcoxon z = {abs(row['z']):.2f} ({row['nonzero_pairs']} of {row['blocks']} differ)"
    return f"Friedman χ² = {row['statistic']:.2f}"


def _markdown(
    rows: list[Scored], tables: dict[str, list[Row]], plots: list[Path], inputs: dict[str, list[Path]], suggest_at: int
) -> str:
    models = models_of(rows)
    parts = ["# TableTest report\n"]
    parts.append(
        f"{len(rows)} answers from {len(models)} model(s) ({', '.join(map(markdown_cell, models))}); "
        + "; ".join(f"{role}: {', '.join(markdown_cell(p) for p in paths)}" for role, paths in inputs.items())
        + ".\n"
    )
    parts.append(_accuracy_section(tables["accuracy"], models, tables["model_tests"]))
    parts.append(_unanswered_section(tables["unanswered"]))
    parts.append(_unparsed_section(rows))
    parts.append(_unknown_words_section(tables["unknown_words"], suggest_at))
    parts.append(_table3_section(tables["table3"], models))
    parts.append(_factor_section(tables["variations"], tables["factor_tests"]))
    parts.append(_bias_section(tables["biases"], tables["model_tests"]))
    parts.append(_consistency_section(tables["consistency"]))
    parts.append("## Accuracy over objects A (the paper's Figures 2 and 3)\n")
    parts.append(
        "Density of each model's accuracy per object A (all scenes whose left object it is), one panel per\n"
        "prompt; dashed lines mark overall accuracy. A humanlike model piles up at 1.0.\n"
    )
    parts += [f"![{MODALITY_TITLE.get(p.stem.split('_', 1)[1], p.stem)}]({p.name})\n" for p in plots]
    parts.append(
        "## Files\n\n"
        "`accuracy.csv` (Table 2, long form, with wrong and unparsed counts), `unanswered.csv`,\n"
        "`variations.csv` (accuracy at every level of every factor), `table3.csv`, `biases.csv`,\n"
        "`consistency.csv`, `per_object.csv`, `unknown_words.csv` and `synonyms_suggested.yaml`,\n"
        "`factor_tests.csv` and `model_tests.csv` (every test run), `scored.csv` (each answer: status,\n"
        "the world it describes, what it was read as saying).\n"
    )
    return "\n".join(parts)


def _accuracy_section(table: list[Row], models: list[str], tests: list[Row]) -> str:
    prompts = sorted({r["prompt_type"] for r in table})
    cells = {(r["model"], r["modality"], r["prompt_type"]): r["accuracy"] for r in table}
    body = []
    for modality in sorted({r["modality"] for r in table}, key=lambda m: m != "image"):
        body.append([f"**{MODALITY_TITLE.get(modality, modality)}**"] + [""] * len(prompts))
        for model in models:
            row = [model]
            for p in prompts:
                value = cells.get((model, modality, p))
                row.append(f"**{fraction(value)}**" if value is not None and value >= ADEQUATE else fraction(value))
            body.append(row)
    text = (
        "## Accuracy by model, prompt and modality (the paper's Table 2)\n\n"
        f"Share of answers judged correct; bold: at least {ADEQUATE:.2f}, the bar for a trivial task. "
        "Unparsed answers count as not correct (see below).\n\n"
    )
    text += _table(["Model", *map(str, prompts)], body)
    chosen = [r for r in tests if r["measure"] == "accuracy"]
    if chosen:
        text += "\nDo the models differ? Per-object-A accuracy compared across models:\n\n"
        text += _table(
            ["Modality", "Prompt", "Models", "Test", "p"],
            [
                [
                    MODALITY_TITLE.get(r["modality"], r["modality"]),
                    str(r["prompt_type"]),
                    r["models"],
                    _statistic(r),
                    p_value(r["p"]),
                ]
                for r in chosen
            ],
        )
    return text


def _unanswered_section(table: list[Row]) -> str:
    text = "## Unanswered queries\n\n"
    if not table:
        return text + "Every query was answered by every model.\n"
    text += (
        "Queries in the prompts files that a model has no answer to. They are left out of that model's "
        "numbers (not counted as wrong); check that every responses file is complete.\n\n"
    )
    return text + _table(
        ["Model", "Modality", "Prompt", "Unanswered", "Queries"],
        [
            [
                r["model"],
                MODALITY_TITLE.get(r["modality"], r["modality"]),
                str(r["prompt_type"]),
                str(r["unanswered"]),
                str(r["queries"]),
            ]
            for r in table
        ],
    )


def _unparsed_section(rows: list[Scored]) -> str:
    unparsed = [r for r in rows if r.outcome.status == "unparsed"]
    text = "## Unparsed answers\n\n"
    if not unparsed:
        return text + "Every answer was read.\n"
    counts: dict[tuple, int] = defaultdict(int)
    for r in unparsed:
        counts[(r.model, r.modality, r.prompt_type)] += 1
    text += (
        f"{len(unparsed)} answer(s) could not be read; they count as not correct. If an answer names an object "
        "in words the lookup table lacks, add them with `--synonyms`.\n\n"
    )
    text += _table(
        ["Model", "Modality", "Prompt", "Unparsed"],
        [[m, mod, str(p), str(n)] for (m, mod, p), n in sorted(counts.items())],
    )
    text += "\nExamples:\n\n"
    text += _table(
        ["qid", "model", "answer", "why"],
        [[r.qid, r.model, _cell(r.response), r.outcome.parsed] for r in unparsed[:EXAMPLES]],
    )
    return text


def _write_suggestions(path: Path, table: list[Row], at_least: int) -> Path:
    """The suggested words as a `--synonyms` file: object -> words, the catalog's spelling."""
    words: dict[str, list[str]] = defaultdict(list)
    for r in table:
        if r["suggested"]:
            words[str(r["object"])].append(str(r["word"]))
    header = (
        f"# Words models used at least {at_least} times for an object that the lookup table lacks (report.md).\n"
        "# Check each one, delete the ones that do not name the object, then score again with\n"
        f"# `tabletest score ... --synonyms {path.name}`.\n"
    )
    with atomic_output(path) as fh:
        fh.write(header + (yaml.safe_dump(dict(words), sort_keys=False, allow_unicode=True) if words else "{}\n"))
    return path


def _unknown_words_section(table: list[Row], at_least: int) -> str:
    text = "## Words the lookup table lacks\n\n"
    if not table:
        return text + "Every blank of prompts 6 and 7 was filled with a known object name.\n"
    suggested = [r for r in table if r["suggested"]]
    text += (
        "Answers to prompts 6 and 7 that fill a blank with a word the lookup table does not know are unread "
        "(above), not wrong. The study added an alternative to its table when one model used it "
        f"{at_least} or more times (`--suggest-at`); {len(suggested)} word(s) reach that here and are written to "
        f"`{SUGGESTIONS}`, ready for `--synonyms` once checked (all words in `unknown_words.csv`).\n\n"
    )
    return text + _table(
        ["Object", "Word", "Uses", "Most by one model", "Suggested"],
        [
            [
                str(r["object"]),
                str(r["word"]),
                str(r["uses"]),
                f"{r['most_by_one_model']} ({r['model']})",
                "yes" if r["suggested"] else "",
            ]
            for r in table[: EXAMPLES * 2]
        ],
    )


def _cell(text: str) -> str:
    """A response, shortened for a table (`_table` escapes it)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= 80 else flat[:77] + "..."


def _table3_section(table: list[Row], models: list[str]) -> str:
    if not table:
        return ""
    cells = {(r["model"], r["modality"], r["prompt_type"], r["query"]): r["accuracy"] for r in table}
    paper = paper_table3_rows()
    columns = [*models, ALL_MODELS]
    text = (
        "## Prompts 4 and 5 by variation (the paper's Table 3)\n\n"
        "Rows 1-4 of each prompt are the paper's Table 3 rows, in its order, beside the share correct it reports "
        "(its three models pooled); rows marked — are variations the paper's Table 3 does not show. The paper "
        "protocol asks every prompt-4 row, but for prompt 5 it asks Table 1's four variations, which include only "
        "Table 3's rows 3 and 4: rows 1 and 2 need `tabletest prompts --protocol full` (all eight), and "
        "read *not asked* otherwise.\n\n"
    )
    for modality in sorted({r["modality"] for r in table}, key=lambda m: m != "image"):
        body = []
        for ptype in (4, 5):
            asked = [r["query"] for r in table if r["modality"] == modality and r["prompt_type"] == ptype]
            if not asked:
                continue
            in_paper = [(query, row) for (p, query), row in sorted(paper.items(), key=lambda kv: kv[1]) if p == ptype]
            for query, (number, share) in in_paper:
                shown = [cells.get((m, modality, ptype, query)) for m in columns]
                values = [_percent(v) for v in shown] if query in asked else ["not asked"] * len(columns)
                reported = _percent(share) if modality == "image" else "—"  # the paper's Table 3 is of images
                body.append([f"Prompt {ptype}", str(number), query, reported, *values])
            for query in dict.fromkeys(asked):
                if (ptype, query) not in paper:
                    values = [_percent(cells.get((m, modality, ptype, query))) for m in columns]
                    body.append([f"Prompt {ptype}", "—", query, "—", *values])
        text += f"{MODALITY_TITLE.get(modality, modality)}:\n\n"
        text += _table(["", "Paper row", "Query", "Paper", *columns], body) + "\n"
    return text


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def _factor_section(variations: list[Row], tests: list[Row]) -> str:
    levels: dict[tuple, dict[str, float]] = defaultdict(dict)
    for r in variations:
        levels[(r["model"], r["modality"], r["prompt_type"], r["factor"])][r["level"]] = r["accuracy"]
    test_of = {(r["model"], r["modality"], r["prompt_type"], r["factor"]): r for r in tests}
    body = []
    for key, accuracy_at in sorted(
        levels.items(), key=lambda kv: (kv[0][1] != "image", kv[0][2], kv[0][3], kv[0][0] == ALL_MODELS, kv[0][0])
    ):
        model, modality, ptype, factor = key
        if len(accuracy_at) > MAX_LEVELS_SHOWN:
            shown = f"{len(accuracy_at)} levels (variations.csv)"
        else:
            shown = ", ".join(f"{level} {fraction(a)}" for level, a in sorted(accuracy_at.items()))
        test = test_of.get(key)
        body.append(
            [
                MODALITY_TITLE.get(modality, modality),
                str(ptype),
                factor,
                model,
                shown,
                _statistic(test) if test else "—",
                p_value(test["p"]) if test else "—",
            ]
        )
    interactions = [
        [
            MODALITY_TITLE.get(r["modality"], r["modality"]),
            str(r["prompt_type"]),
            r["factor"],
            _statistic(r),
            p_value(r["p"]),
        ]
        for r in tests
        if r["levels"] == "interaction" and r["model"] == ALL_MODELS
    ]
    return (
        "## Accuracy by variation factor\n\n"
        "Each factor should make no difference. Tests compare per-object-A accuracy between the levels "
        "(Wilcoxon signed-rank for two levels, Friedman for more), per model and pooled; z is given as a "
        "magnitude, as the paper does (the CSV keeps scipy's signed value), with how many of the objects A "
        "scored at both levels differ between them: the signed-rank test ranks only those. The 24 option "
        "orders of prompts 2 and 3 are too many levels for the objects A that saw each one; their test is on "
        "`answer_position`, where the first acceptable option stands in the list.\n\n"
        + _table(["Modality", "Prompt", "Factor", "Model", "Accuracy by level", "Test", "p"], body)
        + "\nInteractions, all models pooled (does one factor's effect differ between the other's levels? "
        "per model in factor_tests.csv):\n\n" + _table(["Modality", "Prompt", "Factors", "Test", "p"], interactions)
    )


def _bias_section(table: list[Row], tests: list[Row]) -> str:
    if not table:
        return ""
    shares = {(r["model"], r["modality"], r["prompt_type"], r["choice"]): (r["share"], r["n"]) for r in table}
    keys = sorted(
        {(m, mod, p) for m, mod, p, _ in shares}, key=lambda k: (k[1] != "image", k[2], k[0] == ALL_MODELS, k[0])
    )
    body = [
        [
            MODALITY_TITLE.get(mod, mod),
            str(p),
            m,
            fraction(shares[(m, mod, p, "left")][0]),
            fraction(shares[(m, mod, p, "AB order")][0]),
            str(shares[(m, mod, p, "left")][1]),
        ]
        for m, mod, p in keys
    ]
    text = (
        "## Biases in choosing options (prompts 2 and 3)\n\n"
        "Share of chosen options that use *left*, and that name the objects in the order [A, B]. "
        "An unbiased model sits at .50 on both.\n\n"
        + _table(["Modality", "Prompt", "Model", "Left", "[A, B] order", "Choices read"], body)
    )
    chosen = [r for r in tests if r["measure"] != "accuracy"]
    if chosen:
        text += "\nDo the biases differ between models?\n\n" + _table(
            ["Measure", "Modality", "Prompt", "Test", "p"],
            [
                [
                    r["measure"],
                    MODALITY_TITLE.get(r["modality"], r["modality"]),
                    str(r["prompt_type"]),
                    _statistic(r),
                    p_value(r["p"]),
                ]
                for r in chosen
            ],
        )
    return text


def _consistency_section(table: list[Row]) -> str:
    body = [
        [
            r["model"],
            MODALITY_TITLE.get(r["modality"], r["modality"]),
            str(r["units"]),
            f"{r['answers_per_unit']:.1f}",
            fraction(r["consistent_true"]),
            fraction(r["consistent_mirror"]),
            fraction(r["inconsistent"]),
        ]
        for r in table
    ]
    return (
        "## Consistency across equivalent queries\n\n"
        "Per scene and pair of objects, all of a model's answers (every prompt type and variation) should "
        "describe one world. *All true*: every answer fits the scene. *All mirrored*: every answer fits the "
        "scene with A and B swapped (coherent, but wrong). *Inconsistent*: the answers disagree, or one fits "
        "neither (an irrelevant relation, a misnamed object, no readable answer).\n\n"
        + _table(["Model", "Modality", "Scene pairs", "Answers each", "All true", "All mirrored", "Inconsistent"], body)
    )
