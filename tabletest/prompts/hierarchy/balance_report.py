"""How well a question stream's gold answers can be guessed without looking at the scene, per cell (skill, answer
type, frame), per answer type and per template: the answers' spread, chance, the best constant answer, and what
a text-only reader reaches (`text_only`: a logistic regression on the question's words and the objects it
names, fitted on some scene families and scored on the others). A template the reader beats guessing on by
more than `SHORTCUT` is marked, and so is one that asks what the objects' names alone tell (real size: world
knowledge, by design). A quantity's answers are the bins `--balance` evens out (`balance.QuantityBins`), so
its chance and best constant tell how flat its values spread over its range; its text prior is a regression's
mean relative accuracy, its guess the median's. Counting streams; the reader holds a fixed sample of each
template, and a quantity's values are counted in log-spaced cells, so memory grows with the distinct groups,
answers and templates, never with the number of questions.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from tabletest.prompts.hierarchy.balance import BINS, TAILS, QuantityBins, cell_of
from tabletest.prompts.hierarchy.text_keys import KNOWN_BY_NAME, answer_label, answer_of
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
        self.units: dict[str, str] = {}  # per quantity template, the unit of its exact values
        self.reader = TextReader(seed)

    def add(self, question: dict) -> None:
        """Count a question: a quantity by its template and cell, binned once its template's values are in; the
        text-only reader's overall figure is of the other questions (a quantity's is an MRA, no accuracy)."""
        cell = (question["skill"], question["answer_type"], question["frame"])
        template, quantity = question["template"], question["answer_type"] == "quantity"
        answer = Valued(template, cell_of(question)) if quantity else answer_of(question)
        self.cells[cell][answer] += 1
        self.templates[template][answer] += 1
        self.template_cells[template][cell] = None
        self.phrasings[template].add(question["phrasing"])
        if quantity:
            self.units[template] = question["exact"]["unit"]
        family = question.get("scene_of") or question["scene_id"]  # a scene with its views and partners
        self.reader.add(question, family, (cell, template, (question["answer_type"],), *(() if quantity else (None,))))

    def through(self, questions: Iterable[dict]) -> Iterator[dict]:
        """The questions, unchanged, each added on its way through."""
        for question in questions:
            self.add(question)
            yield question

    def bins(self) -> dict[str, QuantityBins]:
        """Each quantity template's bins, from its values counted here (as `--balance` fixes them from its first pass)."""
        cells: dict[str, Counter] = defaultdict(Counter)
        for template in self.units:
            for valued, n in self.templates[template].items():
                cells[template][valued.cell] += n
        return {template: QuantityBins.of(counted) for template, counted in cells.items()}

    def summary(self, bins: dict[str, QuantityBins] | None = None) -> dict:
        """The report section of what was added: every cell, answer type and template, those whose best constant
        is furthest above chance first; a quantity in `bins` (those of the questions before balancing), else in
        its own."""
        binning = Binning({**self.bins(), **(bins or {})}, self.units)
        scored = defaultdict(lambda: [0, 0, 0.0], self.reader.scores())
        cells = [{**named(cell), **group(binning.of(answers, binning.place), cell[1], scored[cell])} for cell, answers in self.cells.items()]
        templates = []
        for template, answers in self.templates.items():
            of = self.template_cells[template]
            figures = group(binning.of(answers, binning.span), next(iter(of))[1], scored[template])
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


class Valued(NamedTuple):
    """A quantity's answer as counted: its template and the log-spaced cell of its exact value."""

    template: str
    cell: int


@dataclass(frozen=True)
class Binning:
    """The quantity templates' bins and units: what a counted value reads as in the report."""

    bins: dict[str, QuantityBins]
    units: dict[str, str]

    def of(self, answers: Counter, label: Callable[[Valued], str]) -> Counter:
        """The answers, each quantity counted as the `label` of its bin."""
        made: Counter = Counter()
        for answer, n in answers.items():
            made[label(answer) if isinstance(answer, Valued) else answer] += n
        return made

    def span(self, value: Valued) -> str:
        """Its bin as the values it holds: `12–17 cm`, `1.1–1.6 m`, `10–15 deg` (an end bin: `< 12 cm`, `≥ 1.6 m`)."""
        bins, unit = self.bins[value.template], self.units[value.template]
        b = bins(value.cell)
        low, high = (_stated(v, unit) for v in bins.span(b))
        return f"< {high}" if b == 0 else f"≥ {low}" if b == BINS - 1 else f"{low}–{high}"

    def place(self, value: Valued) -> str:
        """Its bin's place in its template's range (a cell holds several templates, each with its own range)."""
        return f"bin {self.bins[value.template](value.cell) + 1} of {BINS}"


def _stated(value: float, unit: str) -> str:
    """A value in SI to two significant figures, centimetres below a metre."""
    shown, unit = (value * 100, "cm") if unit == "m" and value < 1 else (value, unit)
    return f"{float(f'{shown:.2g}'):g} {unit}"


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
    generated, kept = before.summary(), after.summary(before.bins())
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
        "- **guess**: what the reader would score without the words: 50% for yes/no, the better of one over the "
        "options of a choice and always its most common option's place, else the best constant;",
        f"- **text reveals**: *above guess* where the text prior beats the guess by more than {SHORTCUT:.0%}; "
        "*world knowledge* where the objects' names tell the answer by design (which is bigger in real life, how "
        "tall, long or wide an object is);",
        f"- **quantities** (a length or an angle): the answers are {BINS} bins of equal width in log value between "
        f"the template's {TAILS:.0%} and {1 - TAILS:.0%} quantiles before balancing (the end bins hold the values "
        "beyond), which `--balance` evens out; **flat** is one over the bins, **fullest bin** the share of the fullest "
        "(how far from flat the values spread over the range); **text MRA** is the mean relative accuracy (as "
        "`tabletest score` scores it) of a ridge regression of the log value on the same words and names, fitted on "
        "the other scene families, and **median MRA** that of the other families' median value, the best constant; "
        "text reveals compares the two.",
        "- **points and boxes**: counted by the third of the image across and down their point (a box's centre) lies "
        "in; their text prior is how often the reader's answer lands (the centre of the image cell it reads from the "
        "words, for a box one of the other families' median size there), judged as `tabletest score` judges it, and "
        "their guess how often the other families' most common cell's does.",
        "",
        "Text prior per answer type: "
        + "; ".join(_type_prior(t) for t in after["answer_types"])
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
    for title, quantity in (("Templates", False), ("Quantities", True)):
        chosen = [_of_type(section["templates"], quantity) for section in (after, before) if section is not None]
        if chosen[-1]:
            names = QUANTITY_FIGURES if quantity else FIGURES
            lines += ["", f"## {title}", "", *_table(("template", *keys), chosen[0], chosen[1] if before else None, names)]
    return "\n".join(lines) + "\n"


FIGURES = ("chance", "best constant", "text prior", "guess", "answers")
QUANTITY_FIGURES = ("flat", "fullest bin", "text MRA", "median MRA", "bins")


def _of_type(templates: list[dict], quantity: bool) -> list[dict]:
    return [g for g in templates if (g["answer_type"] == "quantity") == quantity]


def _type_prior(figures: dict) -> str:
    """An answer type's text prior and guess: a quantity's as MRAs."""
    if figures["answer_type"] == "quantity":
        return f"quantity text MRA {_percent(figures['text_prior'])} (median {_percent(figures['text_chance'])})"
    return f"{figures['answer_type']} {_percent(figures['text_prior'])} (guess {_percent(figures['text_chance'])})"


def _table(keys: tuple[str, ...], after: list[dict], before: list[dict] | None, names: tuple[str, ...] = FIGURES) -> list[str]:
    """Rows in `before`'s order where there is one (a group balancing dropped shows 0 kept), else `after`'s;
    `names` heads the figures' columns and the answers'."""
    kept = {tuple(g[k] for k in keys): g for g in after}
    wordings = any("phrasings" in g for g in before or after)  # templates: how many phrasings their questions came in
    figures = ("chance", "best_constant", "text_prior", "text_chance")
    columns = [k.replace("_", " ") for k in keys] + [*(["phrasings"] if wordings else []), "n", *(["kept"] if before else [])]
    columns += [*names[:4], *(["text reveals"] if wordings else []), names[4]]
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
