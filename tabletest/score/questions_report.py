"""The report of the question hierarchy: accuracy per model by level (SPHERE's single / multi / reasoning),
skill, frame of reference, hop count and form, each split by answer kind, with the chance level of each
cell; consistency across each question and its inverse; across the phrasings of one question, where it was
asked in several (`tabletest questions --phrasings all`); and, where the questions were asked of
counterfactual partners or other views, whether answers flip between two images as the truth does.

A cell holds one answer kind (yes/no, a choice of left/right, of in front/behind, of objects, a number,
names, a length or an angle, a map's cell), so its chance level is exact: 1/2 for yes/no, 1/k for a choice
of k, 1/9 for a cell of the 3x3 map; numbers, names, quantities, points and boxes have none. Questions come in balanced inverse pairs, so a responder that
always says `yes` (or `left`) scores exactly chance in every yes/no (left/right) cell. Cells of lengths and
angles also give their mean relative accuracy (MRA) and within-2x rate, and so does each of their
templates.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import typer

from tabletest.errors import UserError
from tabletest.score.escape import markdown_cell, write_csv
from tabletest.score.lexicon import Lexicon
from tabletest.score.questions import ScoredQuestion, is_question_file, score_questions
from tabletest.files.jsonl import atomic_output
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.score.quantities import UNITS
from tabletest.truth.top_down import CELLS

DIMENSIONS = ("level", "skill", "frame", "hops", "form", "modality", "phrasing", "template")
LEVELS = {"single": 0, "multi": 1, "reasoning": 2}


def answer_kind(question: dict) -> str:
    kind = question["answer_type"]
    if kind == "quantity":
        return f"quantity: {UNITS[question['unit']][0]}"
    if kind != "choice":
        return kind
    options = question["options"]
    if all(o in question["scene_objects"] for o in options):
        return "choice: objects"
    return "choice: " + "/".join(options)


def chance(question: dict) -> float | None:
    kind = question["answer_type"]
    if kind == "cell":
        return 1 / len(CELLS)
    return 0.5 if kind == "yes/no" else 1 / len(question["options"]) if kind == "choice" else None


def value(question: dict, dimension: str) -> str | None:
    if dimension == "hops":
        hops = question["derivation"].get("hops")
        return None if hops is None else str(hops)
    if dimension == "frame":
        return question["frame"] or "none"
    if dimension == "phrasing":  # questions written before phrasings were recorded have none
        return None if question.get("phrasing") is None else str(question["phrasing"])
    if dimension == "template":  # per template for quantities only, where MRA differs by what is measured
        return question.get("template") if question["answer_type"] == "quantity" else None
    return question[dimension]


def cells(rows: list[ScoredQuestion]) -> list[dict]:
    """One row per model, dimension, value and answer kind: n, correct, unparsed, accuracy, chance, and for
    quantities the mean MRA and within-2x rate (None for other kinds)."""
    tally: dict[tuple, list] = defaultdict(lambda: [0, 0, 0, 0.0, 0.0, 0.0])
    for row in rows:
        q = row.question
        for dimension in DIMENSIONS:
            v = value(q, dimension)
            if v is None:
                continue
            cell = tally[(row.model, dimension, v, answer_kind(q))]
            cell[0] += 1
            cell[1] += row.judged.status == "correct"
            cell[2] += row.judged.status == "unparsed"
            cell[3] += chance(q) or 0.0
            cell[4] += row.judged.mra or 0.0
            cell[5] += row.judged.within_2x or 0.0
    out = []
    for (model, dimension, v, kind), figures in sorted(tally.items(), key=_order):
        n, correct, unparsed, chances, mra, within = figures
        quantity = kind.startswith("quantity")
        out.append(
            {
                "model": model,
                "dimension": dimension,
                "value": v,
                "answer": kind,
                "n": n,
                "correct": correct,
                "unparsed": unparsed,
                "accuracy": correct / n,
                "chance": chances / n if kind not in ("number", "names", "point", "box") and not quantity else None,
                "mra": mra / n if quantity else None,
                "within_2x": within / n if quantity else None,
            }
        )
    return out


def _order(item: tuple) -> tuple:
    (model, dimension, v, kind), _ = item
    rank = LEVELS.get(v, 9) if dimension == "level" else int(v) if dimension in ("hops", "phrasing") else 0
    return (DIMENSIONS.index(dimension), rank, v, kind, model)


def consistency(rows: list[ScoredQuestion]) -> list[dict]:
    """Per model: of the inverse pairs it answered readably in full, the share answered alike (both right or
    both wrong: a model that holds one belief about the scene answers a question and its inverse alike)."""
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    for row in rows:
        if row.question.get("pair"):
            pairs[(row.model, row.question["pair"])].append(row.judged.status)
    return [{"model": m, "pairs": n, "consistent": k, "share": k / n} for m, (n, k) in _alike(pairs)]


def _alike(groups: dict[tuple[str, str], list[str]]) -> list[tuple[str, tuple[int, int]]]:
    """Per model, of its groups of answers (model, group) -> statuses answered readably in full (two or more),
    how many there are and how many are answered alike (all right or all wrong); by model."""
    per_model: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (model, _), statuses in groups.items():
        if len(statuses) >= 2 and "unparsed" not in statuses:
            per_model[model][0] += 1
            per_model[model][1] += len(set(statuses)) == 1
    return [(m, (n, k)) for m, (n, k) in sorted(per_model.items())]


def phrasing_consistency(rows: list[ScoredQuestion]) -> list[dict]:
    """Per model: of the questions asked in several phrasings (ids ending `-p0`, `-p1`, ...) and answered readably
    in each, the share answered alike in every phrasing (all right or all wrong): a model that does not care
    how a question is put scores 1."""
    asked: dict[tuple[str, str], list[str]] = defaultdict(list)
    for row in rows:
        stem, mark, number = row.question["qid"].rpartition("-p")
        if mark and number.isdigit() and row.question.get("phrasing") == int(number):
            asked[(row.model, stem)].append(row.judged.status)
    return [{"model": m, "questions": n, "alike": k, "share": k / n} for m, (n, k) in _alike(asked)]


def pair_consistency(rows: list[ScoredQuestion]) -> list[dict]:
    """Per model: of the yes/no questions asked of a scene and again of its counterfactual partner or other
    view (the same question, both answers readable), the share whose answer flips exactly as the truth
    does (changes where the gold answer changes, stays where it stays). An oracle scores 1; an answerer
    tossing a coin 1/2 in expectation, whatever the gold answers."""
    asked: dict[tuple, dict[str, ScoredQuestion]] = defaultdict(dict)
    for row in rows:
        q = row.question
        if q["answer_type"] == "yes/no" and row.judged.status != "unparsed":
            root = q.get("scene_of") or q["scene_id"]
            asked[(row.model, root, q["modality"], q["qid"].removeprefix(f"{q['scene_id']}-"))][q["scene_id"]] = row
    per_model: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (model, root, _, _), by_scene in asked.items():
        original = by_scene.get(root)
        for scene_id, other in by_scene.items():
            if original is None or scene_id == root:
                continue
            flips = original.judged.parsed != other.judged.parsed
            truth_flips = original.question["answer"] != other.question["answer"]
            per_model[model][0] += 1
            per_model[model][1] += flips == truth_flips
    return [{"model": m, "pairs": n, "flip_as_truth": k, "share": k / n} for m, (n, k) in sorted(per_model.items())]


def write_question_report(rows: list[ScoredQuestion], unanswered: int, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    table = cells(rows)
    agree = consistency(rows)
    flips = pair_consistency(rows)
    worded = phrasing_consistency(rows)
    written = [out / "report.md", out / "accuracy.csv", out / "consistency.csv", out / "scored.csv"]
    with atomic_output(written[0]) as fh:
        fh.write(markdown(table, agree, unanswered, flips, worded))
    write_csv(written[1], table)
    write_csv(written[2], agree)
    for name, found in (("pair_consistency.csv", flips), ("phrasing_consistency.csv", worded)):
        if found:
            written.append(out / name)
            write_csv(written[-1], found)
    write_csv(
        written[3],
        [
            {
                "model": r.model,
                "qid": r.question["qid"],
                "status": r.judged.status,
                "parsed": r.judged.parsed,
                "gold": _gold(r.question),
                "response": r.response,
                "mra": r.judged.mra,
                "within_2x": r.judged.within_2x,
            }
            for r in rows
        ],
    )
    return written


def _gold(question: dict) -> object:
    """The gold answer as scored.csv shows it: a quantity with its unit (`23 cm`)."""
    return gold_text(question).removesuffix(".") if question["answer_type"] == "quantity" else question["answer"]


QUANTITY_NOTE = (
    "Lengths and angles: correct within 10% of the exact value (an angle: of at least 10°); MRA is the mean "
    "relative accuracy (the share of the thresholds 0.50, 0.45, ..., 0.05 the relative error stays under), "
    "within 2× the share of answers between half and twice the truth. An unread answer scores 0 in each."
)


def markdown(table: list[dict], agree: list[dict], unanswered: int, flips: list[dict] = (), worded: list[dict] = ()) -> str:
    models = sorted({c["model"] for c in table})
    lines = ["# Question hierarchy: accuracy", ""]
    if any(c["mra"] is not None for c in table):
        lines += [QUANTITY_NOTE, ""]
    for dimension in DIMENSIONS:
        rows = [c for c in table if c["dimension"] == dimension]
        if not rows:
            continue
        quantities = any(c["mra"] is not None for c in rows)  # MRA and within-2x columns beside each model's
        names = [n for m in models for n in _columns(markdown_cell(m), quantities)]
        heading = "template (lengths and angles)" if dimension == "template" else dimension
        lines += [f"## By {heading}", "", f"| {dimension} | answer | n | chance | {' | '.join(names)} |"]
        lines.append("|" + " --- |" * (4 + len(names)))
        grouped: dict[tuple, dict] = {}
        for c in rows:
            grouped.setdefault((c["value"], c["answer"]), {"n": c["n"], "chance": c["chance"]})[c["model"]] = c
        for (v, kind), g in grouped.items():
            figures = [f for m in models for f in _figures(g.get(m), quantities)]
            ch = "-" if g["chance"] is None else f"{g['chance']:.2f}"
            lines.append(f"| {markdown_cell(v)} | {markdown_cell(kind)} | {g['n']} | {ch} | {' | '.join(figures)} |")
        lines.append("")
    lines += [
        "## Consistency across a question and its inverse",
        "",
        "| model | pairs | answered alike |",
        "| --- | --- | --- |",
    ]
    lines += [f"| {markdown_cell(a['model'])} | {a['pairs']} | {a['share']:.2f} |" for a in agree]
    if flips:
        lines += [
            "",
            "## Consistency across counterfactual pairs and views (yes/no)",
            "",
            "The same question asked of a scene and of its partner or other view: the share of answers that flip",
            "exactly as the truth does (1 for an oracle, 1/2 in expectation for a coin toss).",
            "",
            "| model | question pairs | flip as the truth | share |",
            "| --- | --- | --- | --- |",
        ]
        lines += [f"| {markdown_cell(f['model'])} | {f['pairs']} | {f['flip_as_truth']} | {f['share']:.2f} |" for f in flips]
    if worded:
        lines += [
            "",
            "## Consistency across phrasings",
            "",
            "Of the questions asked in several phrasings, the share answered alike in every one (all right or all wrong).",
            "",
            "| model | questions | answered alike | share |",
            "| --- | --- | --- | --- |",
        ]
        lines += [f"| {markdown_cell(w['model'])} | {w['questions']} | {w['alike']} | {w['share']:.2f} |" for w in worded]
    if unanswered:
        lines += ["", f"{unanswered} questions had no answer from any model and are left out."]
    return "\n".join(lines) + "\n"


def _columns(model: str, quantities: bool) -> list[str]:
    return [model, f"{model} MRA", f"{model} within 2×"] if quantities else [model]


def _figures(cell: dict | None, quantities: bool) -> list[str]:
    """A model's accuracy, then (in a table of quantities) its MRA and within-2x rate, blank where it has none."""
    keys = ("accuracy", "mra", "within_2x") if quantities else ("accuracy",)
    return ["" if cell is None or cell[k] is None else f"{cell[k]:.2f}" for k in keys]


def score_question_files(prompts: list[Path], responses: list[Path], lexicon: Lexicon, out: Path) -> bool:
    """`tabletest score` on `tabletest questions` files: judge and report them; False for the study's prompts."""
    kinds = {is_question_file(p) for p in prompts}
    if kinds == {False}:
        return False
    if len(kinds) > 1:
        raise UserError(
            "--prompts mixes `tabletest questions` files with `tabletest prompts` files; score each kind in its own run"
        )
    rows, unanswered = score_questions(prompts, responses, lexicon)
    written = write_question_report(rows, unanswered, out)
    typer.echo(
        f"scored {len(rows)} answers to questions; wrote {written[0]} and {len(written) - 1} more files to {out}",
        err=True,
    )
    return True
