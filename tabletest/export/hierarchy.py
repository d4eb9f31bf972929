"""The question hierarchy in the evaluation formats (`tabletest export --questions hierarchy`; the training
formats take the questions of `hierarchy_queries` through `Job.queries`).

Evaluation formats get one set per skill: VLMEvalKit a TSV each (`TableTest_<skill>_OpenEnded.tsv`: the
name holds `openended` so that VLMEvalKit types it as a free-answer set, not as multiple choice), lmms-eval
a task each, scored by `tabletest score`'s reader. Questions about several images (a scene and its partner or
view, a sequence's frames) show them all: a list of images in VLMEvalKit's `image` cell, the pictures from
lmms-eval's doc_to_visual, or with `--sequences video` a sequence's video path, as lmms-eval's video tasks give it.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import re
from collections import Counter

from tabletest.export.lmms_eval import group_name, write_tasks
from tabletest.export.run import Job
from tabletest.export.vlmevalkit import OPEN
from tabletest.files.reading import images_asked
from tabletest.files.records import RenderRecord
from tabletest.files.jsonl import atomic_output, dumps

COLUMNS = ["index", "image", "question", "answer", "category", "qid", "scene_id", "level", "frame", "answer_type", "template", "phrasing"]


def _skill_file(question: dict) -> str:
    """A question's set as a dataset, task and file name: its skill (`position+counting` -> `position_counting`,
    `which image` -> `which_image`), its lengths and angles apart (`distance_quantities`): lmms-eval counts a
    task's questions by the metric it totals last, so a task holding both kinds would weigh one by the other's count."""
    kind = f"{question['skill']} quantities" if question["answer_type"] == "quantity" else question["skill"]
    return re.sub(r"[^A-Za-z0-9]+", "_", kind)


def _encoded(job: Job, record: RenderRecord, files: tuple[str, ...]) -> str:
    """The `image` cell of a question's first row in a file: one image's base64, or a Python list of them,
    which VLMEvalKit (`toliststr`) reads as a multi-image question and shows to the model in order."""
    encoded = [base64.b64encode(job.shown(record, f)).decode("ascii") for f in files]
    return encoded[0] if len(encoded) == 1 else repr(encoded)


def export_vlmevalkit_hierarchy(job: Job) -> dict:
    counts: Counter[str] = Counter()
    with contextlib.ExitStack() as stack:
        writers: dict[str, csv.DictWriter] = {}
        prompts = stack.enter_context(atomic_output(job.staging.file("prompts.jsonl")))
        for _, record in job.scenes():
            first_row: dict[tuple[str, tuple[str, ...]], int] = {}
            for q in job.queries(record):
                name = f"TableTest_{_skill_file(q)}_{OPEN}"
                if name not in writers:
                    fh = stack.enter_context(atomic_output(job.staging.file(f"{name}.tsv")))
                    writers[name] = csv.DictWriter(fh, COLUMNS, delimiter="\t", lineterminator="\n")
                    writers[name].writeheader()
                index = counts[name]
                shown = (name, tuple(images_asked(q)))
                image = str(first_row[shown]) if shown in first_row else _encoded(job, record, shown[1])
                first_row.setdefault(shown, index)
                row = {
                    "index": index,
                    "image": image,
                    "question": q["text"],
                    "answer": q["gold"],
                    "category": q["skill"],
                }
                writers[name].writerow({**row, **{k: q[k] for k in COLUMNS[5:]}})
                counts[name] += 1
                prompts.write(dumps(q) + "\n")
    job.write_card(
        "TableTest question hierarchy (VLMEvalKit)",
        f"""Spatial questions beyond left and right, one VLMEvalKit dataset per skill ({", ".join(sorted(counts))}):
copy the TSV files into `$LMUData` and run them by name. `prompts.jsonl` holds the same questions as
`tabletest questions` writes them: turn the predictions into `{{"qid", "response"}}` lines and run
`tabletest score --prompts prompts.jsonl --responses model.jsonl` for accuracy by level, skill, frame and hops.""",
        {"task_categories": ["visual-question-answering"]},
        sum(counts.values()),
    )
    return {"questions": dict(sorted(counts.items()))}


def export_lmms_eval_hierarchy(job: Job) -> dict:
    counts: Counter[str] = Counter()
    with contextlib.ExitStack() as stack:
        files = {}
        for _, record in job.scenes():
            job.place_image(record)
            for q in job.queries(record):
                skill = _skill_file(q)
                if skill not in files:
                    files[skill] = stack.enter_context(atomic_output(job.staging.file(f"data/{skill}.jsonl")))
                row = {**q, "images": images_asked(q), "video": job.video(q, record)}  # every row the same columns
                files[skill].write(dumps(row) + "\n")
                counts[skill] += 1
    group = group_name(job, "tabletest_hierarchy")
    tasks = [f"{group}_{skill}" for skill in sorted(counts)]
    write_tasks(job, group, sorted(counts))
    job.write_card(
        "TableTest question hierarchy (lmms-eval)",
        f"""Spatial questions beyond left and right as an lmms-eval group (`{group}`, one task per skill:
{", ".join(f"`{t}`" for t in tasks)}), scored with `tabletest score`'s reader. TableTest must be installed
where lmms-eval runs; the task files name their data relative to this folder, so it can be moved or copied as a whole.

```bash
lmms-eval --model qwen2_vl --include_path {job.out} --tasks {group} --batch_size 1 --output_path results/
```""",
        {"task_categories": ["visual-question-answering"]},
        sum(counts.values()),
    )
    return {"group": group, "questions": {f"{group}_{s}": n for s, n in sorted(counts.items())}}
