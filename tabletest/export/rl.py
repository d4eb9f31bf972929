"""Datasets for reinforcement learning with verifiable rewards and for preference training, one row a question.

- `trl`: TRL's prompt-only conversational rows for `GRPOTrainer` (`prompt`, `images`), with the columns
  `tabletest.rewards` reads: `ground_truth` (the question's record as the judge reads it, JSON) and
  `answer_format`.
- `verl`: verl's Parquet rows (`data_source`, `prompt` with an `<image>` per picture, `images`, `ability`,
  `reward_model: {style: rule, ground_truth}`, `extra_info`), scored by `tabletest.rewards.compute_score`.
- `dpo`: preference rows for TRL's `DPOTrainer` (`prompt`, `chosen`, `rejected`, `images`). The rejected
  answer is a real hard negative, never a random string: the answer the same question has in the scene's
  counterfactual partner or other view, or from the opposite frame (an observer facing the other way, the
  study's mirror world); a question with neither is left out.

Every row carries `group`, its scene family (the scene, its views and partners), so a trainer can sample a
family together or keep it on one side of a split; the split itself (`--split-by`) already keeps families whole.
With `--modality text` the questions are about each scene's description in words (its vignette), no image.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import pyarrow as pa

from tabletest.export.huggingface import IMAGE, _embedded, _final_names, _ParquetShard, declared, loadable, picture_name
from tabletest.export.instruct import question_tally, write_balance
from tabletest.export.run import Job
from tabletest.export.shards import close_all, pending, split_shards
from tabletest.files.reading import images_asked
from tabletest.files.records import RenderRecord
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.rewards import MAP_ANSWER, THINK_ANSWER, THINK_MAP_ANSWER
from tabletest.config import load_catalog
from tabletest.score.answer import is_question, judge_answer, judged_fields
from tabletest.score.lexicon import Lexicon, load_lexicon

THINK_INSTRUCTION = "Think it through inside <think> </think>, then give only your final answer inside <answer> </answer>."
THINK_MAP_INSTRUCTION = "Think it through inside <think> </think>, then write the map inside <map> </map>, then give only your final answer inside <answer> </answer>."
DATA_SOURCE = "tabletest"
ABILITY = "spatial reasoning"
FLIP = {"left": "right", "right": "left", "in front": "behind", "behind": "in front", "front": "behind"}
OPPOSITE_FRAMES = ("viewer", "person", "object", "intrinsic")  # an observer who can face the other way

MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string())])
ABOUT = [  # what every row says of its question besides the prompt
    ("qid", pa.string()),
    ("scene_id", pa.string()),
    ("group", pa.string()),
    ("category", pa.string()),  # the hierarchy's skill, or the study's prompt type (p1 ... p8)
    ("template", pa.string()),
    ("answer_type", pa.string()),
    ("answer_format", pa.string()),
]
Family = list[tuple[RenderRecord, list[dict]]]  # a scene, its views and partners, each with its questions


def export_trl(job: Job) -> dict:
    columns = [("prompt", pa.list_(MESSAGE)), ("solution", pa.string()), ("ground_truth", pa.string()), *ABOUT]
    return _export(job, "TableTest (TRL, GRPO)", columns, _trl_rows, _trl_card)


def export_verl(job: Job) -> dict:
    extra = pa.struct([("split", pa.string()), ("index", pa.int64()), *ABOUT])  # index: the question's in its image
    reward = pa.struct([("style", pa.string()), ("ground_truth", pa.string())])
    columns = [("data_source", pa.string()), ("prompt", pa.list_(MESSAGE)), ("ability", pa.string()),
               ("reward_model", reward), ("extra_info", extra)]  # fmt: skip
    return _export(job, "TableTest (verl)", columns, _verl_rows, _verl_card)


def export_dpo(job: Job) -> dict:
    columns = [("prompt", pa.list_(MESSAGE)), ("chosen", pa.list_(MESSAGE)), ("rejected", pa.list_(MESSAGE)),
               ("negative", pa.string()), *ABOUT]  # fmt: skip
    return _export(job, "TableTest (DPO)", columns, _dpo_rows, _dpo_card)


def _export(job: Job, title: str, fields: list, rows_of, card) -> dict:
    with_images = job.options.modality == "image"
    names = [("images", pa.list_(IMAGE))] * with_images
    features = {"images": [{"_type": "Image"}]} if with_images else {}
    schema = pa.schema([*names, *fields], metadata={"huggingface": json.dumps({"info": {"features": features}})})
    shards = split_shards(job, lambda split, i: f"data/{split}-{i:05d}.parquet", lambda p: _Rows(p, schema))
    tally = question_tally(job)
    for split, family in pending(_tallied(_families(job), tally), shards):
        rows = [row for record, queries in family for row in rows_of(job, family, record, queries, split)]
        shards[split].add(rows, sum(len(i["bytes"]) for row in rows for i in row.get("images", ())) + 1024 * len(rows))
    files = {split: _final_names(job, names) for split, names in close_all(shards).items()}
    counts = {s: sum(_Rows.count(job.staging.path / f) for f in files[s]) for s in files}
    data_files = [{"split": s, "path": f"data/{s}-*"} for s in job.split.names if files[s]]
    feature_list = [*([{"name": "images", "list": "image"}] if with_images else []), *_features(fields)]
    body = card(job, files) + write_balance(job, tally)
    header = {"task_categories": ["visual-question-answering"], **declared(data_files, feature_list, job.staging.path)}
    job.write_card(title, body, header, sum(counts.values()))
    return {"shards": files, "rows": counts}


def _tallied(families: Iterator[tuple[str, Family]], tally) -> Iterator[tuple[str, Family]]:
    """The families, their questions added to the balance report's tally (a resumed export's skipped ones too)."""
    for split, family in families:
        if tally is not None:
            for _, queries in family:
                for query in queries:
                    tally.add(query)
        yield split, family


def _families(job: Job) -> Iterator[tuple[str, Family]]:
    """The render's scene families in order, each scene's questions asked as the export asks them: a view or
    partner comes right after its scene, in its split."""
    family: Family = []
    family_split = ""
    for split, record in job.scenes():
        if family and record.made_from is None:
            yield family_split, family
            family = []
        family.append((record, list(job.queries(record))))
        family_split = split
    if family:
        yield family_split, family


class _Rows(_ParquetShard):
    """A shard written one scene family's rows at a time, so that a resumed export skips whole families."""

    def write(self, rows: list[dict]) -> None:
        for row in rows:
            super().write(row)

    @staticmethod
    def count(path: Path) -> int:
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows


def _prompt_text(job: Job, query: dict) -> str:
    if not job.options.reasoning:
        return query["text"]
    return f"{query['text']} {THINK_MAP_INSTRUCTION if 'map' in query else THINK_INSTRUCTION}"


def _answer_format(job: Job, query: dict | None = None) -> str:
    """The form a row's prompt asks for: with --map-first, a question about an image answers after its map."""
    mapped = query is not None and "map" in query
    if job.options.reasoning:
        return THINK_MAP_ANSWER if mapped else THINK_ANSWER
    return MAP_ANSWER if mapped else "plain"


def _about(job: Job, record: RenderRecord, query: dict) -> dict:
    return {
        "qid": query["qid"],
        "scene_id": record.id,
        "group": record.made_from or record.id,
        "category": query.get("skill") or f"p{query['prompt_type']}",
        "template": query.get("template"),
        "answer_type": query.get("answer_type") or "study",
        "answer_format": _answer_format(job, query),
    }


def _images(job: Job, record: RenderRecord, query: dict) -> dict:
    if job.options.modality != "image":
        return {}
    files = images_asked(query)
    return {"images": [_embedded(job.shown(record, f), picture_name(f)) for f in files]}


def _ground_truth(query: dict) -> str:
    return json.dumps(judged_fields(query), sort_keys=True)


def _trl_rows(job: Job, family: Family, record: RenderRecord, queries: list[dict], split: str) -> list[dict]:
    return [
        {
            **_images(job, record, q),
            "prompt": [{"role": "user", "content": _prompt_text(job, q)}],
            "solution": q["gold"],
            "ground_truth": _ground_truth(q),
            **_about(job, record, q),
        }
        for q in queries
    ]


def _verl_rows(job: Job, family: Family, record: RenderRecord, queries: list[dict], split: str) -> list[dict]:
    rows = []
    for index, q in enumerate(queries):
        images = _images(job, record, q)
        shown = "<image>" * len(images.get("images", ()))
        rows.append({
            **images,
            "data_source": DATA_SOURCE,
            "prompt": [{"role": "user", "content": shown + _prompt_text(job, q)}],
            "ability": ABILITY,
            "reward_model": {"style": "rule", "ground_truth": _ground_truth(q)},
            "extra_info": {"split": split, "index": index, **_about(job, record, q)},
        })  # fmt: skip
    return rows


def _dpo_rows(job: Job, family: Family, record: RenderRecord, queries: list[dict], split: str) -> list[dict]:
    rows = []
    for q in queries:
        negative = hard_negative(q, record, family)
        if negative is None:
            continue
        rejected, kind = negative
        rows.append({
            **_images(job, record, q),
            "prompt": [{"role": "user", "content": _prompt_text(job, q)}],
            "chosen": [{"role": "assistant", "content": q["gold"]}],
            "rejected": [{"role": "assistant", "content": _after_map(q, rejected)}],
            "negative": kind,
            **_about(job, record, q),
        })  # fmt: skip
    return rows


def _after_map(query: dict, answer: str) -> str:
    """A rejected answer after the question's own map (with --map-first; a partner's answer loses its own map), so
    that chosen and rejected differ in their answers alone."""
    if "map" not in query:
        return answer
    return f"{query['map']}\n{answer.split(chr(10), 1)[-1] if answer.startswith('<map>') else answer}"


def hard_negative(query: dict, record: RenderRecord, family: Family) -> tuple[str, str] | None:
    """(a wrong answer that is right elsewhere, where it is right): the same question's answer in another member of
    the family, else the answer from the opposite frame; None where neither exists. Each is judged against the
    question first: a length that moved by less than the judge's margin is no negative."""
    key = _key(query["qid"], record.id)
    for other, questions in family:
        if other.id == record.id:
            continue
        for asked in questions:
            if _key(asked["qid"], other.id) == key and _wrong_here(asked["gold"], query):
                return asked["gold"], f"{_member(other)} {other.id}"
    opposite = opposite_frame(query)
    if opposite is None or not _wrong_here(opposite, query):
        return None
    return opposite, "opposite frame" if is_question(query) else "mirror world"


def _member(record: RenderRecord) -> str:
    """What a member of a family is to its scene: `scene`, `view`, `frame` or `partner: <kind>`."""
    if record.made_from is None:
        return "scene"
    kind = record.raw.get("counterfactual", {}).get("kind")
    return f"partner: {kind}" if kind else "frame" if "sequence" in record.raw else "view"


def _key(qid: str, record_id: str) -> str:
    """A question's id without its scene's: the same question asked of another scene of the family."""
    return qid[len(record_id) :]


def _wrong_here(answer: str, query: dict) -> bool:
    judged = judge_answer(query, answer, _lexicon())
    return judged.status == "wrong" and not judged.hedged


@lru_cache(maxsize=1)
def _lexicon() -> Lexicon:
    return load_lexicon(load_catalog())


def opposite_frame(query: dict) -> str | None:
    """The gold answer as an observer facing the other way would give it (left for right, behind for in front, an
    hour six hours round), for a question of one side in a frame with a front; the study's mirror world (the two
    objects swapped) for its prompts. None where no such answer exists (a length, a count, names)."""
    if not is_question(query):
        return _mirrored(query)
    frame, relation, kind, answer = query.get("frame"), query.get("relation"), query["answer_type"], query["answer"]
    if frame not in OPPOSITE_FRAMES:
        return None
    if relation == "clock" and kind == "number":
        return gold_text({**query, "answer": (answer + 5) % 12 + 1})
    if relation not in FLIP:
        return None
    if kind == "yes/no":
        return gold_text({**query, "answer": not answer})
    options = query.get("options") or []
    if kind == "choice" and len(options) == 2:
        return gold_text({**query, "answer": options[1 - options.index(answer)]})
    return None


def _mirrored(query: dict) -> str:
    """The study's gold in the mirror world, where objects A and B stand the other way round."""
    from tabletest.export.queries import gold  # the study's gold text

    answer, kind = dict(query["answer"]), query["prompt_type"]
    a, b = query["objects"]["A"], query["objects"]["B"]
    if kind == 1:
        answer["truth"] = not answer["truth"]
    elif kind in (2, 3):
        answer["options"] = [o for o in query["options"] if o not in answer["options"]]
    elif kind in (4, 5, 8):
        answer["relation"] = FLIP[answer["relation"]]
    elif kind == 6:
        answer["names"] = list(reversed(answer["names"]))
    else:
        answer["names"] = [{a: b, b: a}.get(name, name) for name in answer["names"]]
    return gold({**query, "answer": answer})


def _features(fields: list[tuple[str, pa.DataType]]) -> list[dict]:
    from tabletest.export.records import hf_features

    return hf_features(fields)


def _mapped_format(job: Job) -> str:
    """With --map-first, the form of the rows that answer after the scene's map."""
    if not job.options.map_first:
        return ""
    return f", `{THINK_MAP_ANSWER if job.options.reasoning else MAP_ANSWER}` where a question about an image asks for the scene's map first"


def _trl_card(job: Job, files: dict) -> str:
    images = ", images=ds[0][\"images\"]" if job.options.modality == "image" else ""
    return f"""Questions about where everyday objects stand on a table, one row a question, as a prompt-only
conversational dataset for TRL's `GRPOTrainer`: `prompt` (the question as a user turn{', its pictures in `images`' if images else ''}),
`solution` (a gold answer, for reading) and the columns `tabletest.rewards` reads, `ground_truth` (the question
as the judge reads it) and `answer_format` (`{_answer_format(job)}`{_mapped_format(job)}). `group` names each row's scene family.

```python
import datasets
from trl import GRPOConfig, GRPOTrainer
from tabletest.rewards import accuracy_reward, format_reward

ds = datasets.load_dataset("{loadable(job.out)}", split="{job.split.names[0]}")
trainer = GRPOTrainer(model="Qwen/Qwen2.5-VL-3B-Instruct", reward_funcs=[accuracy_reward, format_reward],
                      args=GRPOConfig(output_dir="grpo"), train_dataset=ds)
```"""


def _verl_card(job: Job, files: dict) -> str:
    split = job.split.names[0]
    listed = ",".join(f"{job.out.resolve().as_posix()}/{f}" for f in files[split])
    return f"""Questions about where everyday objects stand on a table, one row a question, in verl's Parquet
layout: `data_source` (`{DATA_SOURCE}`), `prompt` (an `<image>` per picture, then the question), `images`,
`ability`, `reward_model` (`style: rule`, `ground_truth`: the question as the judge reads it) and
`extra_info` (the row's split, its question's index among its image's, id, scene family `group` and
`answer_format`). Score with TableTest's
judge:

```bash
python -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_files="[{listed}]" \\
    custom_reward_function.path=$(python -c "import tabletest.rewards as r; print(r.__file__)") \\
    custom_reward_function.name=compute_score ...
```"""


def _dpo_card(job: Job, files: dict) -> str:
    return f"""Preference pairs about where everyday objects stand on a table, for TRL's `DPOTrainer`: `prompt`,
`chosen` (the gold answer), `rejected` (a hard negative: the answer the same question has in the scene's
counterfactual partner or other view, or from the opposite frame, as `negative` says), and `images`.
Questions with no such answer (a length, most counts) are left out. `group` names each row's scene family.

```python
import datasets
from trl import DPOConfig, DPOTrainer

ds = datasets.load_dataset("{loadable(job.out)}", split="{job.split.names[0]}")
trainer = DPOTrainer(model="Qwen/Qwen2.5-VL-3B-Instruct", args=DPOConfig(output_dir="dpo"), train_dataset=ds)
```"""
