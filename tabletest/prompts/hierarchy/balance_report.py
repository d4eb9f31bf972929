"""How well a question stream's gold answers can be guessed without looking at the scene, per cell (skill, answer
type, frame) and per template: the answers' spread, chance, the best constant answer, and a text-only prior.

The prior is the most common answer per (template, objects named, relation asked where the question's words say
it: "bigger" or "smaller") on the training scenes, else per template, else overall, scored on the validation scenes (a scene split, as `tabletest export --split-by scene` makes
it, that keeps a scene's views and counterfactual partners with it: they repeat most of its answers): a model that reads only the question would reach about its accuracy. Everything streams: memory grows
with the distinct groups, keys and answers, never with the number of questions.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Iterator
from pathlib import Path

from tabletest.export.split import TRAIN, Split
from tabletest.prompts.hierarchy.balance import answer_key, answer_label
from tabletest.files.jsonl import atomic_output

PRIOR_VAL_FRACTION = 0.2
SHOWN_ANSWERS = 3  # the most common answers a group lists, with their shares
Cell = tuple[str, str, str | None]  # skill, answer type, frame


class AnswerTally:
    """Counts of a stream of questions, fed one at a time, from which `summary()` makes a report section."""

    def __init__(self, seed: int) -> None:
        self.split = Split(by="scene", val_fraction=PRIOR_VAL_FRACTION, seed=seed)
        self.cells: dict[Cell, Counter] = defaultdict(Counter)
        self.templates: dict[str, Counter] = defaultdict(Counter)
        self.template_cells: dict[str, dict[Cell, None]] = defaultdict(dict)  # a wording may serve several skills
        self.phrasings: dict[str, set[int]] = defaultdict(set)  # the distinct phrasings each template was asked in
        self.trained: dict[tuple[str, tuple], Counter] = defaultdict(Counter)  # (template, what the question says)
        self.trained_templates: dict[str, Counter] = defaultdict(Counter)
        self.trained_overall: Counter = Counter()
        self.held_out: Counter = Counter()  # (cell, template, what it says, its options, answer) of the validation scenes
        self._scene: tuple[str, str] = ("", TRAIN)  # the last scene's split: a scene's questions come together

    def add(self, question: dict) -> None:
        cell = (question["skill"], question["answer_type"], question["frame"])
        template, answer = question["template"], answer_key(question["answer"])
        self.cells[cell][answer] += 1
        self.templates[template][answer] += 1
        self.template_cells[template][cell] = None
        self.phrasings[template].add(question["phrasing"])
        said = read_alone(question)
        if self._split_of(question.get("scene_of") or question["scene_id"]) == TRAIN:  # a scene with its views and partners
            self.trained[template, said][answer] += 1
            self.trained_templates[template][answer] += 1
            self.trained_overall[answer] += 1
        else:
            self.held_out[cell, template, said, offered(question), answer] += 1

    def through(self, questions: Iterable[dict]) -> Iterator[dict]:
        """The questions, unchanged, each added on its way through."""
        for question in questions:
            self.add(question)
            yield question

    def _split_of(self, scene_id: str) -> str:
        if self._scene[0] != scene_id:
            self._scene = (scene_id, self.split.of(scene_id, ()))
        return self._scene[1]

    def predict(self, template: str, said: tuple, options: tuple = ()) -> Hashable | None:
        """The text-only prior's answer, fitted on the training scenes only; of a choice, one of its options (the
        first where training never gave any of them)."""
        fitted = (self.trained.get((template, said)), self.trained_templates.get(template), self.trained_overall)
        for counts in fitted:
            if counts and options:
                counts = Counter({a: n for a, n in counts.items() if a in options})
            if counts:
                return majority(counts)
        return options[0] if options else None

    def summary(self) -> dict:
        """The report section of what was added: every cell and every template, those furthest above chance first."""
        scored: dict[Hashable, list[int]] = defaultdict(lambda: [0, 0])  # group -> validation questions, right
        for (cell, template, said, options, answer), n in self.held_out.items():
            right = n if self.predict(template, said, options) == answer else 0
            for key in (cell, template, None):
                scored[key][0] += n
                scored[key][1] += right
        cells = [{**named(cell), **group(answers, cell[1], scored[cell])} for cell, answers in self.cells.items()]
        templates = []
        for template, answers in self.templates.items():
            of = self.template_cells[template]
            answer_type = next(iter(of))[1]
            figures = group(answers, answer_type, scored[template])
            templates.append({"template": template, **named(*of), "phrasings": len(self.phrasings[template]), **figures})
        return {
            "questions": sum(sum(answers.values()) for answers in self.cells.values()),
            "validation_questions": scored[None][0],
            "text_prior": accuracy(scored[None]),
            "cells": sorted(cells, key=lambda g: (g["skill"], g["answer_type"], str(g["frame"]))),
            "templates": sorted(templates, key=lambda g: (g["chance"] - g["best_constant"], g["template"])),
        }


def offered(question: dict) -> tuple:
    """A choice's options as answers are counted (none for other questions)."""
    return tuple(answer_key(o) for o in question.get("options") or ()) if question["answer_type"] == "choice" else ()


def read_alone(question: dict) -> tuple:
    """What a reader of the question alone knows of it beyond its template: the objects it names, and the relation
    where its words state it and it is not one of the options ("Which is smaller ...?"; not "kind" or "absent",
    which a count never says, nor the "left" of "left or right?", which is its answer)."""
    asked = question["text"].rsplit("\n\n", 1)[-1]  # a text question's context is no part of the question
    relation, options = question["relation"], question.get("options") or ()
    stated = re.search(rf"\b{re.escape(relation)}\b", asked) and not any(relation in option for option in options)
    return (*question["objects"], relation if stated else "")


def named(*cells: Cell) -> dict:
    """The cells' skill, answer type and frame, each of several joined by `, ` (a frame of none left out)."""
    fields = [[v for v in dict.fromkeys(c[i] for c in cells) if v is not None] for i in range(3)]
    return {key: ", ".join(values) or None for key, values in zip(("skill", "answer_type", "frame"), fields)}


def majority(counts: Counter) -> Hashable:
    """The most common answer; a tie goes to the first by label, whatever order the stream came in."""
    return min(counts.items(), key=lambda item: (-item[1], answer_label(item[0])))[0]


def chance(answers: Counter, answer_type: str) -> float:
    """A guess's accuracy: one half for yes/no, else one over the distinct gold answers."""
    return 0.5 if answer_type == "yes/no" else 1 / len(answers)


def group(answers: Counter, answer_type: str, scored: list[int]) -> dict:
    n = sum(answers.values())
    ranked = sorted(answers.items(), key=lambda item: (-item[1], answer_label(item[0])))
    return {
        "n": n,
        "distinct": len(answers),
        "answers": [[answer_label(a), round(k / n, 4)] for a, k in ranked[:SHOWN_ANSWERS]],
        "chance": chance(answers, answer_type),
        "best_constant": ranked[0][1] / n,
        "text_prior": accuracy(scored),
        "validation_questions": scored[0],
    }


def accuracy(scored: list[int]) -> float | None:
    """The text prior's accuracy on the validation questions; None where the group has none."""
    return scored[1] / scored[0] if scored[0] else None


def report(seed: int, after: AnswerTally, before: AnswerTally | None = None) -> dict:
    """The report of the questions written (`after`), beside those generated before balancing (`before`)."""
    head = {"seed": seed, "text_prior_split": after.split.describe()}
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
        f"- **text prior**: the accuracy on the validation scenes ({split['val_fraction']:.0%} of the scenes, seed "
        f"{split['seed']}) of the most common answer per template, objects named and relation the words state on the "
        "training scenes (else per template, else overall): what a model that reads only the question can reach.",
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
    columns = [k.replace("_", " ") for k in keys] + [*(["phrasings"] if wordings else []), "n", *(["kept"] if before else []), "chance", "best constant"]
    rows = ["| " + " | ".join([*columns, "text prior", "answers"]) + " |", "|" + " --- |" * (len(columns) + 2)]
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
        for figure in ("chance", "best_constant", "text_prior"):
            shown = _percent(now and now[figure])
            cells.append(f"{_percent(first[figure])} → {shown}" if before else shown)
        cells.append(_escape(_answers(now)) if now else "–")
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _answers(group: dict) -> str:
    shown = ", ".join(f"{label} {share:.0%}" for label, share in group["answers"])
    more = group["distinct"] - len(group["answers"])
    return f"{shown} (+{more} more)" if more else shown


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def one_line(made: dict) -> str:
    """The worst template (best constant furthest above chance) of the questions written."""
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
    return f"{total}; worst template {worst['template']}: {figures}"
