"""How well a question stream's gold answers can be guessed without looking at the scene, per cell (skill, answer
type, frame), per answer type and per template: the answers' spread, chance, the best constant answer, and what
a text-only reader reaches (`text_only`: a logistic regression on the question's words and the objects it
names, fitted on some scene families and scored on the others). A template the reader beats guessing on by
more than `SHORTCUT` is marked, and so is one that asks what the objects' names alone tell (real size: world
knowledge, by design). Counting streams; the reader holds a fixed sample of each template, so memory grows
with the distinct groups, answers and templates, never with the number of questions.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

from tabletest.prompts.hierarchy.text_keys import KNOWN_BY_NAME, answer_key, answer_label
from tabletest.prompts.hierarchy.text_only import FOLDS, SAMPLE, TextReader
from tabletest.files.jsonl import atomic_output

SHOWN_ANSWERS = 3  # the most common answers a group lists, with their shares
SHORTCUT = 0.05  # a text-only reader this far above chance marks its template
Cell = tuple[str, str, str | None]  # skill, answer type, frame


class AnswerTally:
    """Counts of a stream of questions, fed one at a time, from which `summary()` makes a report section."""

    def __init__(self, seed: int) -> None:
        self.cells: dict[Cell, Counter] = defaultdict(Counter)
        self.templates: dict[str, Counter] = defaultdict(Counter)
        self.template_cells: dict[str, dict[Cell, None]] = defaultdict(dict)  # a wording may serve several skills
        self.phrasings: dict[str, set[int]] = defaultdict(set)  # the distinct phrasings each template was asked in
        self.reader = TextReader(seed)

    def add(self, question: dict) -> None:
        cell = (question["skill"], question["answer_type"], question["frame"])
        template, answer = question["template"], answer_key(question["answer"])
        self.cells[cell][answer] += 1
        self.templates[template][answer] += 1
        self.template_cells[template][cell] = None
        self.phrasings[template].add(question["phrasing"])
        family = question.get("scene_of") or question["scene_id"]  # a scene with its views and partners
        self.reader.add(question, family, (cell, template, (question["answer_type"],), None))

    def through(self, questions: Iterable[dict]) -> Iterator[dict]:
        """The questions, unchanged, each added on its way through."""
        for question in questions:
            self.add(question)
            yield question

    def summary(self) -> dict:
        """The report section of what was added: every cell, answer type and template, those whose best constant
        is furthest above chance first."""
        scored = defaultdict(lambda: [0, 0, 0.0], self.reader.scores())
        cells = [{**named(cell), **group(answers, cell[1], scored[cell])} for cell, answers in self.cells.items()]
        templates = []
        for template, answers in self.templates.items():
            of = self.template_cells[template]
            figures = group(answers, next(iter(of))[1], scored[template])
            templates.append({"template": template, **named(*of), "phrasings": len(self.phrasings[template]), **figures, **marks(template, figures)})
        types = sorted({cell[1] for cell in self.cells})
        return {
            "questions": sum(sum(answers.values()) for answers in self.cells.values()),
            "validation_questions": scored[None][0],
            "text_prior": accuracy(scored[None]),
            "answer_types": [{"answer_type": t, "validation_questions": scored[(t,)][0], **reading(scored[(t,)])} for t in types],
            "cells": sorted(cells, key=lambda g: (g["skill"], g["answer_type"], str(g["frame"]))),
            "templates": sorted(templates, key=lambda g: (g["chance"] - g["best_constant"], g["template"])),
        }


def marks(template: str, figures: dict) -> dict:
    """Whether the text-only reader beats guessing by more than SHORTCUT, and whether the template asks world
    knowledge (then it is expected to)."""
    prior, guess = figures["text_prior"], figures["text_chance"]
    return {"text_shortcut": prior is not None and prior > guess + SHORTCUT, "world_knowledge": template in KNOWN_BY_NAME}


def named(*cells: Cell) -> dict:
    """The cells' skill, answer type and frame, each of several joined by `, ` (a frame of none left out)."""
    fields = [[v for v in dict.fromkeys(c[i] for c in cells) if v is not None] for i in range(3)]
    return {key: ", ".join(values) or None for key, values in zip(("skill", "answer_type", "frame"), fields)}


def chance(answers: Counter, answer_type: str) -> float:
    """A guess's accuracy: one half for yes/no, else one over the distinct gold answers."""
    return 0.5 if answer_type == "yes/no" else 1 / len(answers)


def group(answers: Counter, answer_type: str, scored: list[float]) -> dict:
    n = sum(answers.values())
    ranked = sorted(answers.items(), key=lambda item: (-item[1], answer_label(item[0])))
    return {
        "n": n,
        "distinct": len(answers),
        "answers": [[answer_label(a), round(k / n, 4)] for a, k in ranked[:SHOWN_ANSWERS]],
        "chance": chance(answers, answer_type),
        "best_constant": ranked[0][1] / n,
        **reading(scored),
        "validation_questions": scored[0],
    }


def reading(scored: list[float]) -> dict:
    """The text-only reader's accuracy and what guessing scores, on the questions it was scored on."""
    return {"text_prior": accuracy(scored), "text_chance": scored[2] / scored[0] if scored[0] else None}


def accuracy(scored: list[float]) -> float | None:
    """The text-only reader's accuracy on the questions it was scored on; None where the group has none."""
    return scored[1] / scored[0] if scored[0] else None


def report(seed: int, after: AnswerTally, before: AnswerTally | None = None) -> dict:
    """The report of the questions written (`after`), beside those generated before balancing (`before`)."""
    head = {"seed": seed, "text_prior_split": {"by": "family", "folds": FOLDS, "seed": seed, "sample_per_template": SAMPLE}}
    if before is None:
        return {**head, "questions": after.summary()}
    generated, kept = before.summary(), after.summary()
    written = {g["template"]: g["n"] for g in kept["templates"]}
    kept_of = {g["template"]: (written.get(g["template"], 0), g["n"]) for g in generated["templates"]}
    shares = {t: {"kept": k, "of": n, "share": k / n} for t, (k, n) in kept_of.items()}
    return {**head, "before": generated, "after": kept, "kept": shares}


def write_report(path: Path, made: dict) -> None:
    """JSON for a `.json` path, else Markdown."""
    with atomic_output(path) as fh:
        fh.write(json.dumps(made, indent=1) + "\n" if path.suffix == ".json" else markdown(made))


def markdown(made: dict) -> str:
    """A table of cells and one of templates (furthest above chance first); with `before`, each figure as
    before → after, and the share of each template's questions kept."""
    after, before = made.get("after") or made["questions"], made.get("before")
    split = made["text_prior_split"]
    lines = [
        "# Question balance",
        "",
        f"{after['questions']} questions of {len(after['templates'])} templates in {len(after['cells'])} cells.",
        "",
        "- **chance**: 50% for yes/no, else one over the distinct gold answers of the group;",
        "- **best constant**: the share of the group's most common gold answer (what always giving it scores);",
        "- **text prior**: the accuracy of a text-only reader, a logistic regression per template on the question's "
        "words and the objects it names, each with each word (a story's text left out), fitted on the other scene families "
        f"({split['folds']} folds by family, seed {split['seed']}; at most {split['sample_per_template']} questions "
        "of a template): what a model that reads only the question can reach;",
        "- **guess**: what the reader would score without the words: 50% for yes/no, one over the options of a "
        "choice, else the best constant;",
        f"- **text reveals**: *above guess* where the text prior beats the guess by more than {SHORTCUT:.0%}; "
        "*world knowledge* where the objects' names tell the answer by design (which is bigger in real life).",
        "",
        "Text prior per answer type: "
        + "; ".join(f"{t['answer_type']} {_percent(t['text_prior'])} (guess {_percent(t['text_chance'])})" for t in after["answer_types"])
        + ".",
    ]
    if before is not None:
        kept = after["questions"] / before["questions"] if before["questions"] else 0.0
        lines += [
            "",
            f"Balanced (`--balance`, seed {made['seed']}): kept {after['questions']} of {before['questions']} "
            f"questions ({kept:.1%}). Each figure reads before → after; answers are those kept.",
        ]
    keys = ("skill", "answer_type", "frame")
    lines += ["", "## Cells (skill, answer type, frame)", "", *_table(keys, after["cells"], before and before["cells"])]
    lines += ["", "## Templates", "", *_table(("template", *keys), after["templates"], before and before["templates"])]
    return "\n".join(lines) + "\n"


def _table(keys: tuple[str, ...], after: list[dict], before: list[dict] | None) -> list[str]:
    """Rows in `before`'s order where there is one (a group balancing dropped shows 0 kept), else `after`'s."""
    kept = {tuple(g[k] for k in keys): g for g in after}
    wordings = any("phrasings" in g for g in after)  # templates: how many phrasings their questions came in
    figures = ("chance", "best_constant", "text_prior", "text_chance")
    columns = [k.replace("_", " ") for k in keys] + [*(["phrasings"] if wordings else []), "n", *(["kept"] if before else [])]
    columns += ["chance", "best constant", "text prior", "guess", *(["text reveals"] if wordings else []), "answers"]
    rows = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    for first in before or after:
        now = kept.get(tuple(first[k] for k in keys)) if before else first
        cells = [_escape(str(first[k]) if first[k] is not None else "–") for k in keys]
        if wordings:
            cells.append(str(first["phrasings"]))
        if before:
            share = now["n"] / first["n"] if now else 0.0
            cells += [f"{first['n']} → {now['n'] if now else 0}", f"{share:.0%}"]
        else:
            cells.append(str(first["n"]))
        for figure in figures:
            shown = _percent(now and now[figure])
            cells.append(f"{_percent(first[figure])} → {shown}" if before else shown)
        if wordings:
            cells.append(_reveals(now or first))
        cells.append(_escape(_answers(now)) if now else "–")
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _reveals(template: dict) -> str:
    if template["world_knowledge"]:
        return "world knowledge"
    return "above guess" if template["text_shortcut"] else ""


def _answers(group: dict) -> str:
    shown = ", ".join(f"{label} {share:.0%}" for label, share in group["answers"])
    more = group["distinct"] - len(group["answers"])
    return f"{shown} (+{more} more)" if more else shown


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def one_line(made: dict) -> str:
    """The worst template (best constant furthest above chance) of the questions written, and the templates whose
    text alone gives their answers away."""
    section = made.get("after") or made["questions"]
    questions = f"{section['questions']} questions"
    if "before" in made:
        questions = f"kept {section['questions']} of {made['before']['questions']} questions"
    total = f"{questions}, {len(section['templates'])} templates"
    if not section["templates"]:
        return total
    worst = section["templates"][0]
    prior = "" if worst["text_prior"] is None else f", text prior {worst['text_prior']:.1%}"
    figures = f"best constant {worst['best_constant']:.1%} vs chance {worst['chance']:.1%}{prior}"
    revealing = [g["template"] for g in section["templates"] if g["text_shortcut"] and not g["world_knowledge"]]
    shortcuts = f"; the text alone beats guessing on {', '.join(revealing)}" if revealing else ""
    return f"{total}; worst template {worst['template']}: {figures}{shortcuts}"
