"""VLMEvalKit datasets: two TSVs in the column layouts its custom datasets read.

VLMEvalKit turns a TSV in `$LMUData` that it does not know into a multiple-choice dataset when it has
`A` and `B` columns (scored by `run.py --judge exact_matching`), and into an open one otherwise, which
it runs but cannot score (`evaluate` raises NotImplementedError). So:

- `TableTest_MCQ.tsv` (prompts 1, 4, 5: one correct answer each): prompt 1 offers `A` True and `B` False,
  prompts 4 and 5 the relations as options in the order the question names them; `answer` is the
  letter of the correct one. VLMEvalKit scores these itself.
- `TableTest_OpenEnded.tsv` (prompts 2, 3, 6, 7, 8): the question as the study words it, `answer` its
  gold text. Prompts 2 and 3 have two correct options of four, which a single-letter answer key
  cannot score fairly. The name holds `openended` so that VLMEvalKit (`DATASET_TYPE`) and the model
  classes that word prompts per dataset type treat it as open questions, not as options.

Every question, in both files, is scored by `tabletest score --prompts prompts.jsonl --responses`
VLMEvalKit's own prediction files (`tabletest.score.predictions` maps letters back to their options).
`image` is the base64 PNG on a scene's first row in a file and, on its later rows, the `index` of
that row (VLMEvalKit's own way of sharing one image between questions).
"""

from __future__ import annotations

import base64
import contextlib
import csv
import shlex
import string
from collections import Counter
from pathlib import Path

from tabletest.export.run import Job
from tabletest.files.jsonl import atomic_output, dumps

OPEN = "OpenEnded"
KINDS = {1: "MCQ", 4: "MCQ", 5: "MCQ", 2: OPEN, 3: OPEN, 6: OPEN, 7: OPEN, 8: OPEN}
LETTERS = string.ascii_uppercase[:4]
TRUE_FALSE = ["True", "False"]
EXTRA = ["category", "qid", "scene_id", "prompt_type"]
COLUMNS = {
    "MCQ": ["index", "image", "question", *LETTERS, "answer", *EXTRA],
    OPEN: ["index", "image", "question", "answer", *EXTRA],
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
    if kind == OPEN:
        return {**fields, "answer": query["gold"]}
    answer = query["answer"]
    if query["prompt_type"] == 1:
        options, correct = TRUE_FALSE, TRUE_FALSE[not answer["truth"]]
    else:
        options, correct = query["options"], answer["relation"]
    return {**fields, **dict(zip(LETTERS, options)), "answer": LETTERS[options.index(correct)]}


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
            encoded = base64.b64encode(job.picture(record, job.dataset.image(record))).decode("ascii")
            first_row: dict[str, int] = {}
            for query in job.queries(record):
                kind = KINDS[query["prompt_type"]]
                index = counts[kind]
                image = str(first_row[kind]) if kind in first_row else encoded
                first_row.setdefault(kind, index)
                writers[kind].writerow({"index": index, "image": image, **row(query, kind)})
                counts[kind] += 1
                prompts.write(dumps(query) + "\n")
    job.write_card(
        "TableTest (VLMEvalKit)",
        card_body(job.out, [f"TableTest_{kind}" for kind in kinds]),
        {"task_categories": ["visual-question-answering"]},
        sum(counts.values()),
    )
    return {"questions": {f"TableTest_{kind}": counts[kind] for kind in kinds}}


def card_body(out: Path, names: list[str]) -> str:
    """How to run the datasets in VLMEvalKit and score every question, VLMEvalKit's way and the study's."""
    where = shlex.quote(str(out.resolve()))
    model = "Qwen2-VL-7B-Instruct"
    commands = [f"cp {where}/TableTest_*.tsv ~/LMUData/"]
    if "TableTest_MCQ" in names:
        commands.append(f"python run.py --data TableTest_MCQ --model {model} --judge exact_matching")
    if f"TableTest_{OPEN}" in names:
        commands.append(f"python run.py --data TableTest_{OPEN} --model {model} --mode infer")
    commands.append(f"tabletest score --prompts {where}/prompts.jsonl --responses outputs/{model}/ --out report/")
    body = "\n".join(commands)
    return f"""The TableTest study's questions as VLMEvalKit custom datasets ({", ".join(f"`{n}`" for n in names)}).
Copy the TSV files into `$LMUData` (default `~/LMUData`) and run them by name from VLMEvalKit's folder:

```bash
{body}
```

`TableTest_MCQ` (prompts 1, 4 and 5 as lettered options) is scored by VLMEvalKit itself
(`--judge exact_matching`): its `..._acc.csv` has the accuracy per prompt (`category` p1, p4, p5).
`TableTest_{OPEN}` (prompts 2, 3, 6, 7 and 8) VLMEvalKit runs but cannot score (`--mode infer`; its
predictions are in the run's folder `outputs/{model}/T<date>_G<hash>/`). Given the model's folder,
`tabletest score` reads the newest prediction file of each dataset in it, as VLMEvalKit writes them
(`.xlsx`, or `.tsv` under `PRED_FORMAT=tsv`), reads an answer
given as a letter as that option, and scores every question with the study's reading of answers."""
