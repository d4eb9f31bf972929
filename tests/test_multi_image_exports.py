"""Questions about two images (a scene and its counterfactual partner or other view) in every format that
takes questions, each read as its tool reads it: LLaMA-Factory's ShareGPT `images`, LLaVA-OneVision's
image lists, the Hugging Face chat layout (`datasets`), VLMEvalKit's multi-image TSV cells and
lmms-eval's doc_to_visual. Both pictures are the render's, in order, and every question is there."""

from __future__ import annotations

import ast
import base64
import json
import re
from collections import Counter
from pathlib import Path

import datasets
import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import run_cli
from test_export import assert_same_image, load_lmms_task, pixels

from tabletest.config import load_catalog
from tabletest.export import huggingface
from tabletest.files.dataset import RenderDataset
from tabletest.export.run import ExportOptions, run_export
from tabletest.layout.split import make_split
from tabletest.files.family import made_from
from tabletest.score.lexicon import load_lexicon
from tabletest.score.questions import judge_question

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

LEXICON = load_lexicon(load_catalog())


@pytest.fixture(scope="module")
def pairs(tmp_path_factory, builtin_assets) -> Path:
    """Three random scenes with swap, remove and replace partners and a second view, rendered tiny."""
    out = tmp_path_factory.mktemp("multi") / "render"
    made = run_cli(
        "render", "--scenes", "random", "--count", "3", "--seed", "0", "--resolution", "64x48", "--samples", "1",
        "--counterfactuals", "swap,remove,replace", "--views", "2", "--assets", str(builtin_assets),
        "--out", str(out), "--quiet",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return out


@pytest.fixture(scope="module")
def records(pairs) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (pairs / "metadata.jsonl").read_text().splitlines())}


@pytest.fixture(scope="module")
def two_image_questions(pairs, tmp_path_factory) -> dict[str, dict]:
    """`tabletest questions --from` the render: its questions about two images, by qid."""
    path = tmp_path_factory.mktemp("questions") / "q.jsonl"
    asked = run_cli("questions", "--from", str(pairs), "--out", str(path))
    assert asked.returncode == 0, asked.stderr
    questions = [json.loads(line) for line in path.read_text().splitlines()]
    together = {q["qid"]: q for q in questions if q["modality"] == "images"}
    assert {q["skill"] for q in together.values()} >= {"which image", "what changed", "viewpoint"}
    return together


def export(render: Path, fmt: str, out: Path, *args: str) -> None:
    result = run_cli("export", "--dataset", str(render), "--format", fmt, "--questions", "hierarchy", "--out", str(out), *args)
    assert result.returncode == 0, result.stderr


def names(record: dict) -> tuple[str, ...]:
    return tuple(o["name"] for o in record["objects"])


def pictures_of(records: dict[str, dict], record_id: str) -> list[dict]:
    """The records whose images a question about `record_id` and its scene shows, in order."""
    return [records[made_from(records[record_id])], records[record_id]]


def test_sharegpt_has_an_image_token_per_image(pairs, records, two_image_questions, tmp_path):
    export(pairs, "sharegpt", tmp_path / "sharegpt")
    rows = datasets.load_dataset("json", data_files=str(tmp_path / "sharegpt" / "train.jsonl"), cache_dir=str(tmp_path / "hf"))["train"]
    two = {row["id"]: row for row in rows if len(row["images"]) == 2}
    assert set(two) == set(two_image_questions), "every question about two images, with both images"
    for row in rows:
        assert row["messages"][0]["content"].count("<image>") == len(row["images"]), "LLaMA-Factory matches each <image> to an image"
    for qid, row in two.items():
        for name, record in zip(row["images"], pictures_of(records, two_image_questions[qid]["scene_id"])):
            assert (tmp_path / "sharegpt" / name).read_bytes() == (pairs / record["file_name"]).read_bytes()


def llava_next_samples(data_path: str) -> list[dict]:
    """LLaVA-NeXT's `train.py` (LazySupervisedDataset): `<base>{a,b}.json` is the files a.json and b.json."""
    base, files = re.match(r"^(.*)\{(.*)\}\.json$", data_path).groups()
    return [sample for name in files.split(",") for sample in json.loads(Path(f"{base}{name}.json").read_text())]


def test_llava_keeps_one_image_per_sample_and_puts_two_image_samples_beside_them(pairs, records, two_image_questions, tmp_path):
    out = tmp_path / "llava"
    export(pairs, "llava", out)
    single = json.loads((out / "train.json").read_text())
    assert all(isinstance(s["image"], str) and s["conversations"][0]["value"].count("<image>") == 1 for s in single), (
        "LLaVA's own training code opens one image per sample"
    )
    samples = llava_next_samples(f"{out}/{{train,train_multi_image}}.json")
    multi = {s["id"]: s for s in samples[len(single):]}
    assert set(multi) == set(two_image_questions)
    for qid, sample in multi.items():
        assert sample["conversations"][0]["value"].startswith("<image>\n<image>\n")
        assert sample["conversations"][0]["value"].count("<image>") == len(sample["image"]) == 2
        for name, record in zip(sample["image"], pictures_of(records, two_image_questions[qid]["scene_id"])):
            assert_same_image(out / name, pairs, record)  # LLaVA-NeXT opens os.path.join(image_folder, name)
    card = (out / "README.md").read_text()
    assert "{train,train_multi_image}.json" in card


def test_hf_chat_rows_are_conversations_about_their_images(pairs, records, two_image_questions, tmp_path):
    out = tmp_path / "chat"
    export(pairs, "hf-chat", out, "--shard-size", "4")
    assert len(list((out / "data").glob("train-*.parquet"))) > 1
    ds = datasets.load_dataset(str(out), split="train", cache_dir=str(tmp_path / "hf"))
    assert ds.features["images"].feature == datasets.Image(), "a sequence of pictures"
    asked: Counter[str] = Counter()
    for row in ds:
        messages = row["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant"] * len(row["question_ids"])
        shown = [[part["type"] for part in m["content"]].count("image") for m in messages]
        assert shown[0] == len(row["images"]) and sum(shown) == shown[0], "the first turn shows every picture"
        pictured = pictures_of(records, row["scene_id"]) if len(row["images"]) == 2 else [records[row["scene_id"]]]
        for image, record in zip(row["images"], pictured, strict=True):
            assert_same_image(image, pairs, record)
        if len(row["images"]) == 2:
            for qid, user, answer in zip(row["question_ids"], messages[::2], messages[1::2]):
                question = two_image_questions[qid]
                assert user["content"][-1]["text"] == question["text"]
                assert judge_question(question, answer["content"][0]["text"], LEXICON).status == "correct"
        asked.update(row["question_ids"])
    assert max(asked.values()) == 1 and set(two_image_questions) <= set(asked)
    assert max(len(row["question_ids"]) for row in ds) == 16, "long conversations are cut into rows of 16 questions"
    assert {row["scene_id"] for row in ds if len(row["images"]) == 1} == set(records)


def vlmevalkit_rows(tsv: Path) -> pd.DataFrame:
    """A TSV as VLMEvalKit's ImageBaseDataset reads it: an `image` of at most 64 characters is the index of the row
    that holds the picture(s), and a cell that reads as a list (`toliststr`) is several pictures."""
    data = pd.read_csv(tsv, sep="\t")
    data["index"] = data["index"].astype(str)
    cells = dict(zip(data["index"], data["image"].astype(str)))
    resolved = {k: cells[v] if len(v) <= 64 else v for k, v in cells.items()}
    data["image"] = [ast.literal_eval(c) if c.startswith("[") and c.endswith("]") else [c] for c in map(resolved.get, data["index"])]
    return data


def test_vlmevalkit_cells_hold_both_pictures_in_order(pairs, records, two_image_questions, tmp_path):
    out = tmp_path / "vlmevalkit"
    export(pairs, "vlmevalkit", out)
    assert not list(out.glob("* *")), "dataset names without spaces: they are given to run.py --data"
    seen = set()
    for tsv in out.glob("TableTest_*_OpenEnded.tsv"):
        for _, line in vlmevalkit_rows(tsv).iterrows():
            if line["qid"] in two_image_questions:
                question = two_image_questions[line["qid"]]
                assert line["question"] == question["text"] and len(line["image"]) == 2
                for encoded, record in zip(line["image"], pictures_of(records, question["scene_id"])):
                    assert_same_image(base64.b64decode(encoded), pairs, record)
                seen.add(line["qid"])
            else:
                assert len(line["image"]) == 1
                assert_same_image(base64.b64decode(line["image"][0]), pairs, records[line["scene_id"]])
    assert seen == set(two_image_questions)


def test_lmms_eval_shows_both_pictures(pairs, records, two_image_questions, tmp_path, monkeypatch):
    out = tmp_path / "lmms"
    export(pairs, "lmms-eval", out)
    task_files = list(out.glob("tabletest_hierarchy_*_which_image.yaml"))
    assert len(task_files) == 1, sorted(p.name for p in out.glob("*.yaml"))
    task = load_lmms_task(task_files[0], tmp_path / "cache", monkeypatch)
    docs = task.dataset[task.config["test_split"]]
    assert docs.num_rows == sum(q["skill"] == "which image" for q in two_image_questions.values())
    for doc in docs:
        shown = task.config["doc_to_visual"](doc)
        assert [pixels(image).shape for image in shown] == [(48, 64, 3)] * 2
        for image, record in zip(shown, pictures_of(records, doc["scene_id"])):
            assert_same_image(image, pairs, record)
        assert task.config["process_results"](doc, [doc["gold"]]) == {"accuracy": 1.0, "unparsed": 0.0}


def test_an_object_split_keeps_a_replace_partner_with_its_scene(pairs, records, tmp_path):
    """A replace partner brings in another object: held out, it takes its scene and views to validation."""
    brought_in = {
        name
        for r in records.values()
        if r.get("counterfactual", {}).get("kind") == "replace"
        for name in set(names(r)) - {n for other in records.values() if other["id"] == made_from(r) for n in names(other)}
    }
    pool = {n for r in records.values() for n in names(r)} - brought_in
    # a seed that holds out an object only a replace partner shows (the split draws from every object shown)
    seed = next(s for s in range(200) if set(make_split("object", 0.1, s, pool | brought_in).held_out) <= brought_in)
    out = tmp_path / "sharegpt"
    export(pairs, "sharegpt", out, "--split-by", "object", "--val-fraction", "0.1", "--seed", str(seed))
    split_of = {}
    for split in ("train", "validation"):
        for line in (out / f"{split}.jsonl").read_text().splitlines():
            split_of[json.loads(line)["images"][-1]] = split
    held_out = set(json.loads((out / ".tabletest-export.json").read_text())["split"]["held_out_objects"])
    assert held_out <= brought_in and "validation" in split_of.values() and "train" in split_of.values()
    for record in records.values():
        split = split_of[record["file_name"]]
        assert split == split_of[records[made_from(record) or record["id"]]["file_name"]], record["id"]
        if split == "train":
            assert not set(names(record)) & held_out, record["id"]


def test_a_resumed_hf_chat_export_equals_a_whole_one(pairs, tmp_path, monkeypatch):
    """Killed mid-shard and run again, the export keeps its closed shards and writes the rest as a whole run
    would: a partner whose scene is in a kept shard still gets its questions about both."""
    out, whole = tmp_path / "chat", tmp_path / "whole"
    real_file, calls = RenderDataset.file, []

    def dies_on_the_twentieth(self, relative):
        calls.append(relative)
        if len(calls) == 20:
            raise KeyboardInterrupt  # a kill mid-shard
        return real_file(self, relative)

    options = ExportOptions(shard_size=2, questions="hierarchy")
    monkeypatch.setattr(RenderDataset, "file", dies_on_the_twentieth)
    with pytest.raises(KeyboardInterrupt):
        run_export("hf-chat", huggingface.export_hf_chat, pairs, out, options, load_catalog())
    monkeypatch.setattr(RenderDataset, "file", real_file)
    kept = sorted(p.name for p in (tmp_path / ".chat.partial" / "data").glob("*.parquet"))
    assert len(kept) >= 2
    assert run_export("hf-chat", huggingface.export_hf_chat, pairs, out, options, load_catalog())["resumed"]
    run_export("hf-chat", huggingface.export_hf_chat, pairs, whole, options, load_catalog())
    shards = sorted(p.name for p in (whole / "data").iterdir())
    assert shards == sorted(p.name for p in (out / "data").iterdir())
    for name in shards:
        assert pq.read_table(out / "data" / name).equals(pq.read_table(whole / "data" / name)), name
