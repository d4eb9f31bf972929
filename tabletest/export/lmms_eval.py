"""An lmms-eval task group: `<group>_p1` ... `<group>_p8`, one per prompt type, scored as the study does.

The group is named after the dataset (`tabletest_<render folder>_<6 hex digits of the export's digest>`):
lmms-eval keeps one task of a name across everything under `--include_path`, so two exports there
must not share names (it would run one of them, silently).

Layout of the export folder (pass it to lmms-eval with `--include_path`):
`<group>.yaml` (the group), `<group>_p<N>.yaml` (a task each), `utils.py` (hooks, from
`lmms_task_utils.py`), `data/p<N>.jsonl` (the battery's queries with their gold text) and `images/`.
The task files name their data relative to their own folder (`data/p1.jsonl`), so the folder can move.
lmms-eval itself would hand that path to `datasets.load_dataset("json", data_files=...)`, which reads
it from the working directory (and, with an absolute path, an export that moved fails with a
FileNotFoundError lmms-eval logs before it exits 0). So each task names `utils.TableTestTask` as its
`class`: lmms-eval builds it with the task's config, and it resolves the data from the task's folder.
"""

from __future__ import annotations

import contextlib
import re
import shutil
from collections import Counter
from pathlib import Path

import yaml

from tabletest.export.run import Job
from tabletest.files.jsonl import atomic_output, dumps

UTILS = Path(__file__).with_name("lmms_task_utils.py")


class Function(str):
    """A hook in utils.py, written as lmms-eval's `!function utils.<name>` tag."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(Function, lambda dumper, name: dumper.represent_scalar("!function", f"utils.{name}"))


def task_config(task: str, data: str) -> dict:
    """One task; `data` is the data file's path relative to the task file."""
    return {
        "task": task,
        "class": Function("TableTestTask"),
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": data}},
        "test_split": "test",
        "output_type": "generate_until",
        "doc_to_visual": Function("doc_to_visual"),
        "doc_to_text": Function("doc_to_text"),
        "doc_to_target": "gold",
        "generation_kwargs": {"max_new_tokens": 64, "temperature": 0, "do_sample": False},
        "process_results": Function("process_results"),
        "metric_list": [
            {"metric": "accuracy", "aggregation": "mean", "higher_is_better": True},
            {"metric": "unparsed", "aggregation": "mean", "higher_is_better": False},
            # lengths and angles only: the docs of other questions give none, so they are left out of the mean
            {"metric": "mra", "aggregation": "mean", "higher_is_better": True},
            {"metric": "within_2x", "aggregation": "mean", "higher_is_better": True},
        ],
        "lmms_eval_specific_kwargs": {"default": {"pre_prompt": "", "post_prompt": ""}},
        "metadata": {"version": 0.1},
    }


def group_name(job: Job, kind: str = "tabletest") -> str:
    """`<kind>_<render folder>_<digest>`: distinct per dataset and export options, the same on every export of them."""
    folder = re.sub(r"[^a-z0-9]+", "_", job.dataset.root.resolve().name.lower()).strip("_") or "render"
    return f"{kind}_{folder}_{job.digest[:6]}"


def _write_yaml(path: Path, config: dict) -> None:
    path.write_text(yaml.dump(config, Dumper=_Dumper, sort_keys=False), encoding="utf-8")


def write_tasks(job: Job, group: str, names: list[str]) -> None:
    """One task file per name (`<group>_<name>.yaml`, its data in `data/<name>.jsonl`), the group file
    that averages them, and the hooks (`utils.py`) they call."""
    for name in names:
        _write_yaml(job.staging.file(f"{group}_{name}.yaml"), task_config(f"{group}_{name}", f"data/{name}.jsonl"))
    config = {
        "group": group,
        "task": [f"{group}_{name}" for name in names],
        "aggregate_metric_list": [{"metric": "accuracy", "aggregation": "mean", "weight_by_size": True}],
        "metadata": {"version": 0.1},
    }
    _write_yaml(job.staging.file(f"{group}.yaml"), config)
    shutil.copyfile(UTILS, job.staging.file("utils.py"))


def export_lmms_eval(job: Job) -> dict:
    types = job.options.types
    counts: Counter[int] = Counter()
    with contextlib.ExitStack() as stack:
        files = {t: stack.enter_context(atomic_output(job.staging.file(f"data/p{t}.jsonl"))) for t in types}
        for _, record in job.scenes():
            job.place_image(record)
            for query in job.queries(record):
                files[query["prompt_type"]].write(dumps(query) + "\n")
                counts[query["prompt_type"]] += 1
    group = group_name(job)
    write_tasks(job, group, [f"p{t}" for t in types])
    job.write_card(
        "TableTest (lmms-eval)",
        f"""The TableTest study's eight prompt types as an lmms-eval group (`{group}`, tasks `{group}_p1` ...
`{group}_p8`), scored with the study's lenient reading of answers (`accuracy`, and `unparsed`: answers
that could not be read, counted as wrong). TableTest must be installed where lmms-eval runs. The group
is named after this dataset, so several exports can share one `--include_path`.

```bash
lmms-eval --model qwen2_vl --model_args pretrained=Qwen/Qwen2-VL-7B-Instruct \\
    --include_path {job.out} --tasks {group} --batch_size 1 --log_samples --output_path results/
```

The task files name their data relative to this folder, so it can be moved or copied as a whole.""",
        {"task_categories": ["visual-question-answering"]},
        sum(counts.values()),
    )
    return {"group": group, "questions": {f"{group}_p{t}": counts[t] for t in types}}
