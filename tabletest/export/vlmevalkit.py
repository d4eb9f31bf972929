"""VLMEvalKit datasets: one TSV per kind of question, in the column layout its custom datasets read.

- `TableTest_YN.tsv` (prompt 1): `index`, `image`, `question`, `answer` (`Yes` when the statement is true).
- `TableTest_MCQ.tsv` (prompts 4, 5, one correct relation each): the relations offered as options
  `A`-`D` in the order the question names them, `answer` the letter of the true one.
- `TableTest_VQA.tsv` (prompts 2, 3, 6, 7, 8): the question as the study words it, `answer` its gold
  text. Prompts 2 and 3 list their options in the question and have two correct ones, which a
  single-letter multiple choice would not score fairly.

`image` is the base64 PNG on a scene's first row in a file and, on its later rows, the `index` of
that row (VLMEvalKit's own way of sharing one image between questions). Every row also has `qid`,
so VLMEvalKit's predictions can be scored with `tabletest score --prompts prompts.jsonl`.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import string
from collections import Counter

from tabletest.export.run import Job
from tabletest.write.jsonl import atomic_output, dumps

KINDS = {1: "YN", 4: "MCQ", 5: "MCQ", 2: "VQA", 3: "VQA", 6: "VQA", 7: "VQA", 8: "VQA"}
LETTERS = string.ascii_uppercase[:4]
EXTRA = ["category", "qid", "scene_id", "prompt_type"]
COLUMNS = {
    "YN": ["index", "image", "question", "answer", *EXTRA],
    "MCQ": ["index", "image", "question", *LETTERS, "answer", *EXTRA],
    "VQA": ["index", "image", "question", "answer", *EXTRA],
}


def row(query: dict, kind: str) -> dict:
    """The TSV fields of one query, except `index` and `image`."""
    fields = {
        "question": query["text"],
        "category": f"p{query['prompt_type']}",
        "qid": query["qid"],
        "scene_id": query["scene_id"],
        "prompt_type": query["prompt_type"],
    }
    if kind == "YN":
        return {**fields, "answer": "Yes" if query["answer"]["truth"] else "No"}
    if kind == "MCQ":
        options = query["options"]
        return {
            **fields,
            **dict(zip(LETTERS, options)),
            "answer": LETTERS[options.index(query["answer"]["relation"])],
        }
    return {**fields, "answer": query["gold"]}


def export_vlmevalkit(job: Job) -> dict:
    kinds = sorted({KINDS[t] for t in job.options.types})
    counts: Counter[str] = Counter()
    with contextlib.ExitStack() as stack:
        writers = {}
        for kind in kinds:
            fh = stack.enter_context(atomic_output(job.staging.file(f"TableTest_{kind}.tsv")))
            writers[kind] = csv.DictWriter(fh, COLUMNS[kind], delimiter="\t", lineterminator="\n")
            writers[kind].writeheader()
        prompts = stack.enter_context(atomic_output(job.staging.file("prompts.jsonl")))
        for _, record in job.scenes():
            encoded = base64.b64encode(job.dataset.image(record).read_bytes()).decode("ascii")
            first_row: dict[str, int] = {}
            for query in job.queries(record):
                kind = KINDS[query["prompt_type"]]
                index = counts[kind]
                image = str(first_row[kind]) if kind in first_row else encoded
                first_row.setdefault(kind, index)
                writers[kind].writerow({"index": index, "image": image, **row(query, kind)})
                counts[kind] += 1
                prompts.write(dumps(query) + "\n")
    names = ", ".join(f"`TableTest_{kind}`" for kind in kinds)
    job.write_card(
        "TableTest (VLMEvalKit)",
        f"""The TableTest study's questions as VLMEvalKit custom datasets ({names}): copy the TSV files into
`$LMUData` (default `~/LMUData`) and run them by name.

```bash
cp {job.out}/TableTest_*.tsv ~/LMUData/
python run.py --data {" ".join(f"TableTest_{kind}" for kind in kinds)} --model Qwen2-VL-7B-Instruct --mode infer
```

`prompts.jsonl` holds the same questions as `tabletest prompts` writes them, so the predictions can be scored
with the study's lenient reading: turn the prediction file into `{{"qid", "response"}}` lines and run
`tabletest score --prompts prompts.jsonl --responses model.jsonl`.""",
        {"task_categories": ["visual-question-answering"]},
        sum(counts.values()),
    )
    return {"questions": {f"TableTest_{kind}": counts[kind] for kind in kinds}}
