"""Exports, each loaded back with the library its users load it with: counts, fields, and that every image
and every answer still belongs to its own scene. One tiny render (with masks) serves most tests, a tiny random
one with partners and views those of the fields only such scenes have."""

from __future__ import annotations

import base64
import csv
import importlib.util
import inspect
import io
import json
import os
import re
import shutil
import subprocess
import sys
import types
from collections import Counter
from pathlib import Path

import datasets
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import webdataset as wds
import yaml
from conftest import run_cli
from PIL import Image
from pycocotools import mask as coco_mask
from pycocotools.coco import COCO
from typer.testing import CliRunner

from tabletest.assets.builtin.build import build_assets
from tabletest.assets.manifest import load_manifest, save_manifest
from tabletest.assets.objaverse.lock import Lock, Locked, save_lock
from tabletest.cli import app
from tabletest.config import load_catalog
from tabletest.export import huggingface
from tabletest.files.dataset import RenderDataset
from tabletest.export.queries import queries
from tabletest.export.records import columnar
from tabletest.files.rle import encode
from tabletest.export.run import ExportOptions, run_export
from tabletest.prompts.battery import SceneInput
from tabletest.score.judge import judge
from tabletest.score.lexicon import load_lexicon

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

NAMES = ("mug", "banana", "lamp", "apple")
TINY = ["--engine", "cycles", "--samples", "1", "--resolution", "64x48", "--masks", "--quiet"]
LEXICON = load_lexicon(load_catalog())


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    """The built-in models of the four objects."""
    folder = tmp_path_factory.mktemp("export-assets") / "assets"
    build_assets(load_catalog(), folder, list(NAMES), jobs=1)
    return folder


@pytest.fixture(scope="module")
def render(tmp_path_factory, assets) -> Path:
    """12 two-object and 6 three-object scenes of four objects in one folder, with masks."""
    out = tmp_path_factory.mktemp("export") / "render"
    for extra in (["--objects", "2"], ["--objects", "3", "--limit", "6"]):
        result = run_cli("render", "--out", str(out), "--assets", str(assets), "--only", ",".join(NAMES), *TINY, *extra)
        assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def records(render) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (render / "metadata.jsonl").read_text().splitlines())}


@pytest.fixture(scope="module")
def prompts(render, tmp_path_factory) -> dict[str, dict]:
    """The render's queries as `tabletest prompts` writes them (the paper protocol), by qid."""
    path = tmp_path_factory.mktemp("prompts") / "prompts.jsonl"
    result = CliRunner().invoke(app, ["prompts", "--dataset", str(render), "--out", str(path)])
    assert result.exit_code == 0, result.output
    return {q["qid"]: q for q in map(json.loads, path.read_text().splitlines())}


def export(render: Path, fmt: str, out: Path, *args: str) -> dict:
    """Run `tabletest export`; return the summary it recorded."""
    result = CliRunner().invoke(app, ["export", "--dataset", str(render), "--format", fmt, "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    assert not (out.parent / f".{out.name}.partial").exists()
    return json.loads((out / ".tabletest-export.json").read_text())


def pixels(image) -> np.ndarray:
    if isinstance(image, (bytes, Path)):
        image = Image.open(io.BytesIO(image) if isinstance(image, bytes) else image)
    return np.asarray(image.convert("RGB"))


def assert_same_image(image, render: Path, record: dict) -> None:
    assert np.array_equal(pixels(image), pixels(render / record["file_name"])), record["id"]


def scene_of(qid: str) -> str:
    return "-".join(qid.split("-")[:2])


def assert_answer_fits(answer: str, qid: str, prompts: dict[str, dict]) -> None:
    """The answer is right about the scene the qid names, read as `tabletest score` reads answers."""
    assert judge(prompts[qid], answer, LEXICON).status == "correct", (qid, answer)


def load(builder: str, **kwargs) -> datasets.DatasetDict:
    datasets.disable_progress_bars()
    return datasets.load_dataset(builder, **kwargs)


def card_load(out: Path, cache: Path) -> datasets.DatasetDict:
    """The export loaded as its card says: `datasets.load_dataset("<path>")`, which reads the card's columns."""
    (path,) = re.findall(r'datasets\.load_dataset\("([^"]+)"\)', (out / "README.md").read_text())
    return load(path, cache_dir=str(cache))


def test_imagefolder_loads_with_datasets_with_images_masks_and_fields(render, records, tmp_path):
    out = tmp_path / "imagefolder"
    export(render, "imagefolder", out)
    ds = card_load(out, tmp_path / "cache")["train"]
    assert ds.num_rows == len(records) == 18
    assert {"image", "mask", "id", "index", "objects", "relations", "vignettes", "render"} <= set(ds.column_names)
    for row in ds:
        record = records[row["id"]]
        assert_same_image(row["image"], render, record)
        assert set(np.unique(np.asarray(row["mask"]))) <= set(range(len(record["objects"]) + 1))
        assert [o["name"] for o in row["objects"]] == [o["name"] for o in record["objects"]]
        assert row["relations"]["table_side"] == [list(p) for p in record["relations"]["table_side"].items()]
        assert row["vignettes"] == record["vignettes"]
        depth = record["depth_file_name"]  # the depth pass goes with the mask, at the path its record names
        assert (out / depth).read_bytes() == (render / depth).read_bytes()


def test_parquet_shards_embed_images_and_load_by_their_card(render, records, tmp_path):
    out = tmp_path / "parquet"
    summary = export(render, "parquet", out, "--shard-size", "5")
    names = sorted(p.name for p in (out / "data").iterdir())
    assert (
        names
        == [f"train-{i:05d}-of-00004.parquet" for i in range(4)]
        == [Path(n).name for n in summary["shards"]["train"]]
    )
    card = (out / "README.md").read_text()
    assert card.startswith("---\n") and yaml.safe_load(card.split("---\n")[1])["configs"][0]["data_files"] == [
        {"split": "train", "path": "data/train-*"}
    ]
    ds = card_load(out, tmp_path / "cache")["train"]
    assert ds.num_rows == 18 and ds.features["image"] == datasets.Image() and ds.features["mask"] == datasets.Image()
    assert sorted(ds["id"]) == sorted(records)
    for row in ds:
        assert_same_image(row["image"], render, records[row["id"]])
        assert np.array_equal(
            np.asarray(row["mask"]), np.asarray(Image.open(render / records[row["id"]]["mask_file_name"]))
        )


def test_webdataset_shards_read_back_with_webdataset_per_split(render, records, tmp_path):
    out = tmp_path / "wds"
    summary = export(render, "webdataset", out, "--shard-size", "4", "--split-by", "scene", "--val-fraction", "0.3")
    seen = {}
    for split in ("train", "validation"):
        shards = sorted(str(p) for p in (out / split).glob("shard-*.tar"))
        assert [Path(s).name for s in shards] == [f"shard-{i:06d}.tar" for i in range(len(shards))]
        for sample in wds.WebDataset(shards, shardshuffle=False).decode("pil"):
            record, key = records[sample["__key__"]], sample["__key__"]
            members = {"file_name": f"{key}.png", "mask_file_name": f"{key}.mask.png", "depth_file_name": f"{key}.depth.png"}
            assert sample["json"] == columnar({**record, **members})  # every file the record names is in its sample
            assert {f"{key}.{extension}" for extension in sample if extension.endswith("png")} == set(members.values())
            assert_same_image(sample["png"], render, record)
            mask = np.asarray(sample["mask.png"])[..., 0]  # decode("pil") gives RGB; the values stay 0..n
            assert np.array_equal(mask, np.asarray(Image.open(render / record["mask_file_name"])))
            seen[sample["__key__"]] = split
        for sample in wds.WebDataset(shards, shardshuffle=False):  # the depth's 16 bits, from its raw bytes
            depth = Image.open(io.BytesIO(sample["depth.png"]))
            assert np.array_equal(np.asarray(depth), np.asarray(Image.open(render / records[sample["__key__"]]["depth_file_name"])))
    assert sorted(seen) == sorted(records)
    assert Counter(seen.values()) == summary["scenes"] and 0 < summary["scenes"]["validation"] < 18
    loaded = card_load(out, tmp_path / "cache")  # Hugging Face datasets, as the card says
    for split in ("train", "validation"):
        for row in loaded[split]:
            record = records[row["__key__"]]
            assert seen[row["__key__"]] == split
            sides = [list(pair) for pair in record["relations"]["table_side"].items()]
            assert row["json"]["relations"]["table_side"] == sides
            assert_same_image(row["png"], render, record)


def test_webdataset_size_limit_closes_shards(render, tmp_path):
    out = tmp_path / "wds"
    export(render, "webdataset", out, "--shard-mb", "0.001")
    assert len(list(out.glob("shard-*.tar"))) == 18  # every sample is larger than the limit: one per shard


def test_llava_holds_out_objects_and_answers_each_scene(render, records, prompts, tmp_path):
    out = tmp_path / "llava"
    summary = export(render, "llava", out, "--split-by", "object", "--val-fraction", "0.25")
    (held,) = summary["split"]["held_out_objects"]
    total = 0
    for split in ("train", "validation"):
        ds = load("json", data_files=str(out / f"{split}.json"), cache_dir=str(tmp_path / "cache"))["train"]
        for row in ds:
            scene = scene_of(row["id"])
            human, gpt = row["conversations"]
            assert (human["from"], gpt["from"]) == ("human", "gpt") and human["value"].startswith("<image>\n")
            assert row["image"] == f"images/{scene}.png" and human["value"][8:] == prompts[row["id"]]["text"]
            assert_same_image(out / row["image"], render, records[scene])
            assert_answer_fits(gpt["value"], row["id"], prompts)
            shows_held = held in [o["name"] for o in records[scene]["objects"]]
            assert shows_held == (split == "validation"), (split, scene)
        total += ds.num_rows
    assert total == len(prompts)


@pytest.mark.parametrize("variations", ["one", "all"])
def test_variations_set_the_questions_per_scene(render, records, tmp_path, variations):
    out = tmp_path / variations
    summary = export(render, "llava", out, "--variations", variations)
    samples = json.loads((out / "train.json").read_text())
    assert len(samples) == summary["samples"]["train"]
    per_scene = Counter(scene_of(s["id"]) for s in samples)
    if variations == "one":
        assert set(per_scene.values()) == {8}
    else:
        result = CliRunner().invoke(app, ["prompts", "--dataset", str(render), "--protocol", "full", "--out", "-"])
        assert len(samples) == len(result.stdout.splitlines())
    assert set(per_scene) == set(records)


def test_sharegpt_loads_as_llama_factory_reads_its_dataset_info(render, records, prompts, tmp_path):
    out = tmp_path / "sharegpt"
    export(render, "sharegpt", out, "--split-by", "scene", "--val-fraction", "0.5")
    info = json.loads((out / "dataset_info.json").read_text())
    assert set(info) == {"tabletest_train", "tabletest_validation"}
    total = 0
    for entry in info.values():
        assert entry["formatting"] == "sharegpt"
        columns, tags = entry["columns"], entry["tags"]
        ds = load("json", data_files=str(out / entry["file_name"]), cache_dir=str(tmp_path / "cache"))["train"]
        for row in ds:
            user, assistant = row[columns["messages"]]
            assert user[tags["role_tag"]] == tags["user_tag"] and assistant[tags["role_tag"]] == tags["assistant_tag"]
            content = user[tags["content_tag"]]
            assert content.count("<image>") == len(row[columns["images"]]) == 1
            assert_same_image(out / row[columns["images"]][0], render, records[scene_of(row["id"])])
            assert_answer_fits(assistant[tags["content_tag"]], row["id"], prompts)
        total += ds.num_rows
    assert total == len(prompts)


def vlmevalkit_images(data: pd.DataFrame) -> dict[str, str]:
    """VLMEvalKit's reading of the `image` column: base64, or the index of the row that holds it."""
    image_map = dict(zip(data["index"].astype(str), data["image"].astype(str)))
    return {k: image_map[v] if len(v) <= 64 else v for k, v in image_map.items()}


def test_vlmevalkit_tsvs_read_as_vlmevalkit_reads_them(render, records, prompts, tmp_path):
    out = tmp_path / "vlmevalkit"
    export(render, "vlmevalkit", out)
    assert sorted(p.name for p in out.glob("*.tsv")) == ["TableTest_MCQ.tsv", "TableTest_OpenEnded.tsv"]
    total = 0
    for kind, prompt_types in (("MCQ", {1, 4, 5}), ("OpenEnded", {2, 3, 6, 7, 8})):
        data = pd.read_csv(out / f"TableTest_{kind}.tsv", sep="\t")  # VLMEvalKit's load() of a .tsv
        assert list(data.columns[:3]) == ["index", "image", "question"] and "answer" in data
        # VLMEvalKit's build_dataset: `A` and `B` make a custom TSV a multiple-choice set it scores itself;
        # DATASET_TYPE calls a custom name with "openended" in it open questions, any other multiple choice
        assert ("A" in data and "B" in data) == (kind == "MCQ") == ("openended" not in f"TableTest_{kind}".lower())
        assert set(data["prompt_type"]) == prompt_types
        images = vlmevalkit_images(data)
        for _, line in data.iterrows():
            record = records[line["scene_id"]]
            assert_same_image(base64.b64decode(images[str(line["index"])]), render, record)
            query = prompts[line["qid"]]
            assert line["question"] == query["text"]
            if line["prompt_type"] == 1:
                statement = re.search(r": the (.+) is to the (left|right) of the (.+)$", line["question"])
                x, relation, y = statement.groups()
                holds = [x, y] in record["relations"][f"{relation}_of"]
                assert (line["A"], line["B"], line[line["answer"]]) == ("True", "False", str(holds))
            elif kind == "MCQ":
                options = [line[c] for c in "ABCD" if not pd.isna(line[c])]
                assert options == query["options"]
                x, y = query["answer"]["names"]
                chosen = line[line["answer"]]
                assert [x, y] in record["relations"][f"{chosen}_of"]
            else:
                assert_answer_fits(line["answer"], line["qid"], prompts)
        assert data["scene_id"].nunique() == 18 and (data["image"].astype(str).str.len() > 64).sum() == 18
        total += len(data)
    assert total == len(prompts) == len((out / "prompts.jsonl").read_text().splitlines())


def vlmevalkit_predictions(tsv: Path, folder: Path, model: str, suffix: str, answer) -> Path:
    """A prediction file as VLMEvalKit's inference writes it: the dataset's rows without `image`, plus
    `prediction`, named `<model>_<dataset>.<suffix>` (xlsx by default, tsv under PRED_FORMAT=tsv)."""
    data = pd.read_csv(tsv, sep="\t")
    data.pop("image")
    data["prediction"] = [str(answer(line)) for _, line in data.iterrows()]
    path = folder / f"{model}_{tsv.stem}.{suffix}"
    if suffix == "xlsx":  # vlmeval.smp.dump's dump_xlsx
        with pd.ExcelWriter(path, engine="xlsxwriter", engine_kwargs={"options": {"strings_to_formulas": False}}) as w:
            data.to_excel(w, index=False)
    else:  # dump_tsv
        data.to_csv(path, sep="\t", index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)
    return path


LETTER_STYLES = ("{}", "{}. {}", "({})", "Answer: {}", "The answer is {}.", "The correct answer is: {}")


def letter_answer(line, wrong: bool = False) -> str:
    """A model's answer to a lettered question, in one of the ways models write a letter."""
    letters = [c for c in "ABCD" if not pd.isna(line[c])]
    letter = line["answer"] if not wrong else next(c for c in letters if c != line["answer"])
    return LETTER_STYLES[line["index"] % len(LETTER_STYLES)].format(letter, line[letter])


@pytest.mark.parametrize("suffix", ["xlsx", "tsv"])
def test_vlmevalkit_prediction_files_score_every_question(render, tmp_path, suffix):
    out = tmp_path / "vlmevalkit"
    export(render, "vlmevalkit", out)
    files = []
    for model, wrong in (("Gold-VLM", False), ("Contrary-VLM", True)):
        folder = tmp_path / "outputs" / model
        folder.mkdir(parents=True)
        mcq, open_ended = out / "TableTest_MCQ.tsv", out / "TableTest_OpenEnded.tsv"
        files.append(vlmevalkit_predictions(mcq, folder, model, suffix, lambda line, w=wrong: letter_answer(line, w)))
        files.append(vlmevalkit_predictions(open_ended, folder, model, suffix, lambda line: line["answer"]))
    report = tmp_path / "report"
    responses = [arg for f in files for arg in ("--responses", str(f))]
    prompts_file = str(out / "prompts.jsonl")
    result = CliRunner().invoke(app, ["score", "--prompts", prompts_file, *responses, "--out", str(report)])
    assert result.exit_code == 0, result.output
    rows = {(r["model"], int(r["prompt_type"])): r for r in pd.read_csv(report / "accuracy.csv").to_dict("records")}
    for ptype in range(1, 9):
        assert rows[("Gold-VLM", ptype)]["accuracy"] == 1.0, ptype
        contrary = rows[("Contrary-VLM", ptype)]
        assert contrary["accuracy"] == (0.0 if ptype in (1, 4, 5) else 1.0) and contrary["unparsed"] == 0, ptype
    assert "unanswered" not in result.output


def test_score_reads_the_newest_run_in_a_vlmevalkit_output_folder(cli, render, tmp_path):
    """Two runs of one model leave two prediction files per dataset (`T<date>_G<hash>/`), beside the judge's
    own files: given the model's folder, score reads the newest of each dataset and nothing else."""
    out = tmp_path / "vlmevalkit"
    export(render, "vlmevalkit", out)
    model_folder = tmp_path / "outputs" / "Gold-VLM"
    for run, wrong, mtime in (("T20261101_Gaaa", True, 1_000_000), ("T20261102_Gbbb", False, 2_000_000)):
        folder = model_folder / run
        folder.mkdir(parents=True)
        for tsv, answer in (
            (out / "TableTest_MCQ.tsv", lambda line, w=wrong: letter_answer(line, w)),
            (out / "TableTest_OpenEnded.tsv", lambda line, w=wrong: "I cannot tell." if w else line["answer"]),
        ):
            written = vlmevalkit_predictions(tsv, folder, "Gold-VLM", "xlsx", answer)
            os.utime(written, (mtime, mtime))
        (folder / "Gold-VLM_TableTest_MCQ_exact_matching_result.xlsx").write_bytes(b"not read")
    report = tmp_path / "report"
    args = ["score", "--prompts", str(out / "prompts.jsonl"), "--responses", str(model_folder), "--out", str(report)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    accuracy = pd.read_csv(report / "accuracy.csv")
    assert "Gold-VLM" in set(accuracy["model"]) and (accuracy["accuracy"] == 1.0).all()
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("score", "--prompts", str(out / "prompts.jsonl"), "--responses", str(empty))
    assert result.returncode == 2 and "no VLMEvalKit prediction file" in result.stderr
    assert len(result.stderr.splitlines()) == 1


class LmmsTask:
    """lmms-eval 0.7.3's ConfigurableTask, as far as a task's data goes (api/task.py, `download`):
    `datasets.load_dataset(path=dataset_path, **dataset_kwargs)`, relative paths read from the working
    directory."""

    def __init__(self, config: dict) -> None:
        self.config = config
        kwargs = dict(config["dataset_kwargs"])
        self.dataset = load(config["dataset_path"], cache_dir=kwargs.pop("cache_dir"), **kwargs)


def load_lmms_task(path: Path, cache: Path, monkeypatch) -> LmmsTask:
    """A task file loaded as lmms-eval 0.7.3 loads it: `!function utils.x` is x from utils.py beside the
    YAML (utils.py, `import_function`); a config with `class` is built by calling it with the config
    when its constructor takes `config` (tasks/__init__.py, `_load_task`), else as a ConfigurableTask."""
    spec = importlib.util.spec_from_file_location(f"tabletest_task_utils_{id(path)}", path.parent / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor(
        "!function", lambda loader, node: getattr(utils, loader.construct_scalar(node).split(".")[1])
    )
    config = yaml.load(path.read_text(), Loader=Loader)
    config["dataset_kwargs"]["cache_dir"] = str(cache)
    lmms_eval = types.ModuleType("lmms_eval.api.task")
    lmms_eval.ConfigurableTask = LmmsTask
    for name in ("lmms_eval", "lmms_eval.api", "lmms_eval.api.task"):
        monkeypatch.setitem(sys.modules, name, lmms_eval)
    if "class" not in config:
        return LmmsTask(config)
    assert "config" in inspect.signature(config["class"].__init__).parameters
    return config["class"](config=config)


def test_lmms_eval_tasks_load_their_data_and_score_with_the_studys_reader(
    render, records, prompts, tmp_path, monkeypatch
):
    exported = tmp_path / "lmms"
    summary = export(render, "lmms-eval", exported)
    out = tmp_path / "moved" / "elsewhere"  # a moved export reads its own data, from any working directory
    out.parent.mkdir()
    exported.rename(out)
    monkeypatch.chdir(out.parent)
    name = summary["group"]
    assert name.startswith(f"tabletest_{render.name.lower()}_")
    group = yaml.safe_load((out / f"{name}.yaml").read_text())
    assert group["group"] == name and group["task"] == [f"{name}_p{t}" for t in range(1, 9)]
    by_type = Counter(q["prompt_type"] for q in prompts.values())
    for ptype in range(1, 9):
        task = load_lmms_task(out / f"{name}_p{ptype}.yaml", tmp_path / "cache", monkeypatch)
        config = task.config
        assert config["task"] == f"{name}_p{ptype}" and config["output_type"] == "generate_until"
        docs = task.dataset[config["test_split"]]
        assert docs.num_rows == by_type[ptype] == summary["questions"][f"{name}_p{ptype}"]
        for doc in docs:
            assert doc["prompt_type"] == ptype
            (image,) = config["doc_to_visual"](doc)
            assert_same_image(image, render, records[doc["scene_id"]])
            assert config["doc_to_text"](doc, {"pre_prompt": "", "post_prompt": ""}) == prompts[doc["qid"]]["text"]
            gold = doc[config["doc_to_target"]]
            assert config["process_results"](doc, [gold]) == {"accuracy": 1.0, "unparsed": 0.0}
            assert config["process_results"](doc, ["I cannot tell."])["accuracy"] == 0.0


def test_two_lmms_eval_exports_under_one_include_path_share_no_name(cli, render, tmp_path):
    """lmms-eval keeps one task per name across its --include_path: each export's group and tasks are its own,
    and the same export made again (elsewhere) keeps its names."""
    include = tmp_path / "include"
    whole = export(render, "lmms-eval", include / "all")
    part = export(render, "lmms-eval", include / "some", "--types", "1,2")
    again = export(render, "lmms-eval", tmp_path / "again")
    assert whole["group"] != part["group"] and again["group"] == whole["group"]
    names = [re.search(r"^(?:group|task): (\S+)$", p.read_text(), re.MULTILINE).group(1) for p in include.rglob("*.yaml")]
    assert len(names) == len(set(names)) == 1 + 8 + 1 + 2
    said = cli("export", "--dataset", str(render), "--format", "lmms-eval", "--out", str(tmp_path / "said"))
    assert f"lmms-eval group: {whole['group']} (--include_path" in said.stderr


def test_lmms_eval_hooks_stop_the_run_when_the_tabletest_installed_is_pypis(render, tmp_path):
    """PyPI's `tabletest` (an unrelated package) has the same import name: the hooks must say so, not let
    lmms-eval log a failed import and exit 0."""
    out = tmp_path / "lmms"
    export(render, "lmms-eval", out)
    other = tmp_path / "other" / "tabletest"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("VERSION = '1.1.0'\n")
    env = {**os.environ, "PYTHONPATH": str(other.parent)}
    run = subprocess.run([sys.executable, "-c", "import utils"], cwd=out, env=env, capture_output=True, text=True)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "another package" in run.stderr and "pip uninstall -y tabletest" in run.stderr
    ours = subprocess.run([sys.executable, "-c", "import utils"], cwd=out, capture_output=True, text=True)
    assert ours.returncode == 0, ours.stderr


def test_coco_reads_with_pycocotools_boxes_and_masks_of_each_scene(render, records, tmp_path):
    out = tmp_path / "coco"
    export(render, "coco", out)
    coco = COCO(str(out / "annotations" / "instances_train.json"))
    catalog = load_catalog()
    assert [c["name"] for c in coco.loadCats(coco.getCatIds())] == list(catalog.names)
    assert len(coco.getImgIds()) == 18 and len(coco.getAnnIds()) == 12 * 2 + 6 * 3
    for image in coco.loadImgs(coco.getImgIds()):
        record = records[image["scene_id"]]
        assert_same_image(out / "images" / image["file_name"], render, record)
        assert (image["width"], image["height"]) == (64, 48)
        masks = np.asarray(Image.open(render / record["mask_file_name"]))
        annotations = coco.loadAnns(coco.getAnnIds(imgIds=image["id"]))
        assert [coco.loadCats(a["category_id"])[0]["name"] for a in annotations] == [
            o["name"] for o in record["objects"]
        ]
        for position, (annotation, obj) in enumerate(zip(annotations, record["objects"])):
            x0, y0, x1, y1 = obj["bbox_px"]
            assert annotation["amodal_bbox"] == pytest.approx([x0, y0, x1 - x0, y1 - y0], abs=1e-3)
            assert annotation["bbox"] == list(coco_mask.toBbox(annotation["segmentation"]))
            assert np.array_equal(coco.annToMask(annotation), masks == position + 1)
            assert annotation["area"] == int((masks == position + 1).sum()) > 0


def test_coco_gold_scores_one_with_hidden_and_partly_hidden_objects(render, records, tmp_path):
    """COCO's conventions: an object the image does not show has no annotation (it could never be matched),
    a partly hidden one the box of what shows; so the gold annotations, scored as detections, get AP 1.0."""
    from pycocotools.cocoeval import COCOeval

    hidden = tmp_path / "hidden"
    shutil.copytree(render, hidden)
    first, second = [r for r in records.values() if r["n_objects"] == 3][:2]
    for record, cover in ((first, "whole"), (second, "half")):
        path = hidden / record["mask_file_name"]
        masks = np.array(Image.open(path))
        ys, xs = np.nonzero(masks == 2)
        gone = np.ones(len(ys), bool) if cover == "whole" else xs < np.median(xs)
        masks[ys[gone], xs[gone]] = 0
        Image.fromarray(masks).save(path)
    out = tmp_path / "coco"
    export(hidden, "coco", out)
    gold = COCO(str(out / "annotations" / "instances_train.json"))
    by_scene = {i["scene_id"]: i["id"] for i in gold.loadImgs(gold.getImgIds())}
    assert [a["slot"] for a in gold.loadAnns(gold.getAnnIds(imgIds=by_scene[first["id"]]))] == ["left", "right"]
    (half,) = [a for a in gold.loadAnns(gold.getAnnIds(imgIds=by_scene[second["id"]])) if a["slot"] == "middle"]
    assert half["bbox"][2] < half["amodal_bbox"][2]
    for kind in ("segm", "bbox"):
        found = gold.loadRes([{**a, "score": 1.0} for a in gold.loadAnns(gold.getAnnIds())])
        evaluation = COCOeval(gold, found, kind)
        evaluation.evaluate(), evaluation.accumulate(), evaluation.summarize()
        assert evaluation.stats[0] == pytest.approx(1.0), kind


def test_coco_without_masks_gives_boxes_or_one_line_asking_for_masks(render, tmp_path, cli):
    bare = tmp_path / "bare"
    bare.mkdir()
    lines = (render / "metadata.jsonl").read_text().splitlines()
    (bare / "metadata.jsonl").write_text(
        "".join(
            json.dumps({k: v for k, v in json.loads(line).items() if k != "mask_file_name"}) + "\n" for line in lines
        )
    )
    shutil.copytree(render / "images", bare / "images")  # a copy: a link out of the folder is refused
    result = cli("export", "--dataset", str(bare), "--format", "coco", "--out", str(tmp_path / "seg"), "--segmentation")
    assert (
        result.returncode == 2 and "tabletest render --masks" in result.stderr and len(result.stderr.splitlines()) == 1
    )
    assert not (tmp_path / "seg").exists() and not (tmp_path / ".seg.partial").exists()
    export(bare, "coco", tmp_path / "boxes")
    coco = COCO(str(tmp_path / "boxes" / "annotations" / "instances_train.json"))
    assert len(coco.getAnnIds()) == 42 and all("segmentation" not in a for a in coco.loadAnns(coco.getAnnIds()))


def test_rle_encoding_matches_pycocotools():
    rng = np.random.default_rng(0)
    for trial in range(200):
        h, w = rng.integers(1, 60, 2)
        mask = rng.random((h, w)) < [0.5, 0.0, 1.0, 0.02][trial % 4]
        expected = coco_mask.encode(np.asfortranarray(mask.astype(np.uint8)))
        assert encode(mask) == {"size": [int(h), int(w)], "counts": expected["counts"].decode()}


def test_gold_answers_are_read_as_correct_for_every_variation():
    scene = SceneInput("3obj-000000", 0, ("wine bottle", "mug", "teapot"), {"left_first": "", "right_first": ""})
    answered = list(queries(scene, tuple(range(1, 9)), "all", seed=5))
    assert {q["prompt_type"] for q in answered} == set(range(1, 9))
    for query in answered:
        assert judge(query, query["gold"], LEXICON).status == "correct", query


def test_interrupted_export_leaves_no_output_and_resumes_after_its_closed_shards(render, tmp_path, monkeypatch):
    out, clean = tmp_path / "parquet", tmp_path / "clean"
    real_image, calls = RenderDataset.image, []

    def dies_on_the_eighth(self, record):
        calls.append(record.id)
        if len(calls) == 8:
            raise KeyboardInterrupt  # a kill mid-shard
        return real_image(self, record)

    monkeypatch.setattr(RenderDataset, "image", dies_on_the_eighth)
    options = ExportOptions(shard_size=3)
    with pytest.raises(KeyboardInterrupt):
        run_export("parquet", huggingface.export_parquet, render, out, options, load_catalog())
    monkeypatch.setattr(RenderDataset, "image", real_image)
    partial = tmp_path / ".parquet.partial"
    assert not out.exists() and sorted(p.name for p in (partial / "data").iterdir()) == [
        ".train-00002.parquet.tmp",
        "train-00000.parquet",
        "train-00001.parquet",
    ]
    kept = {name: (partial / "data" / name).stat().st_ino for name in ("train-00000.parquet", "train-00001.parquet")}
    (partial / ".train.json.999.tmp").write_text("[")  # as a SIGKILL would leave a half-written file behind

    summary = export(render, "parquet", out, "--shard-size", "3")
    assert summary["resumed"] is True and not partial.exists()
    assert not list(out.rglob("*.tmp"))
    for name, inode in kept.items():  # what was complete was not written again
        assert (out / "data" / name.replace(".parquet", "-of-00006.parquet")).stat().st_ino == inode
    export(render, "parquet", clean, "--shard-size", "3")
    for path in sorted((clean / "data").iterdir()):
        assert pq.read_table(out / "data" / path.name).equals(pq.read_table(path))


def test_an_export_replaces_an_earlier_one_in_the_same_folder(render, tmp_path):
    out = tmp_path / "again"
    export(render, "webdataset", out, "--shard-size", "100")
    export(render, "webdataset", out, "--shard-size", "5")
    assert sorted(p.name for p in out.glob("shard-*.tar")) == [f"shard-{i:06d}.tar" for i in range(4)]


def with_objaverse_model(render: Path, tmp_path: Path, name: str, uid: str) -> tuple[Path, Path]:
    """The render as if its `name` were Objaverse model `uid` (the others built in), and an assets folder
    whose lock credits that model: (render folder, assets folder)."""
    dataset = tmp_path / "objaverse-render"
    dataset.mkdir()
    for folder in ("images", "masks", "depth"):
        shutil.copytree(render / folder, dataset / folder)  # a copy: a link out of the folder is refused
    lines = []
    for line in (render / "metadata.jsonl").read_text().splitlines():
        record = json.loads(line)
        for obj in record["objects"]:
            if obj["name"] == name:
                obj.update(source="objaverse", uid=uid)
        lines.append(json.dumps(record) + "\n")
    (dataset / "metadata.jsonl").write_text("".join(lines))
    assets = tmp_path / "assets"
    build_assets(load_catalog(), assets, [name], jobs=1)
    manifest = load_manifest(assets)
    manifest.objects[name] = manifest.objects[name].model_copy(update={"source": "objaverse", "uid": uid})
    save_manifest(assets, manifest)
    locked = Locked(
        uid=uid,
        sha256="0" * 64,
        bytes=1,
        license="by",
        title="Blue Mug",
        author="Ada Potter",
        url="https://sketchfab.com/3d-models/" + uid,
    )
    save_lock(assets, Lock(objects={name: locked}))
    return dataset, assets


def test_a_render_mixing_built_in_and_objaverse_models_loads_in_every_format_datasets_reads(render, tmp_path):
    """Built-in models have `uid` null, Objaverse ones a string. Held out by object, the Objaverse model is in
    the validation split only, so a schema inferred per split would disagree; the cards declare it."""
    split = ("--split-by", "object", "--val-fraction", "0.25")
    (held,) = export(render, "llava", tmp_path / "probe", *split)["split"]["held_out_objects"]
    uid = "b" * 32
    dataset, assets = with_objaverse_model(render, tmp_path, held, uid)
    for fmt in ("imagefolder", "parquet", "webdataset"):
        out = tmp_path / fmt
        export(dataset, fmt, out, *split, "--assets", str(assets))
        loaded = card_load(out, tmp_path / f"cache-{fmt}")
        uids = set()
        for name in ("train", "validation"):
            for row in loaded[name]:
                for obj in (row["json"] if fmt == "webdataset" else row)["objects"]:
                    assert obj["uid"] == (uid if obj["name"] == held else None), (fmt, name, obj)
                    uids.add(obj["uid"])
        assert uids == {uid, None}, fmt


@pytest.mark.parametrize("fmt", ["parquet", "imagefolder", "webdataset"])
def test_a_card_loads_its_export_from_a_folder_named_like_a_builder(render, tmp_path, monkeypatch, fmt):
    monkeypatch.chdir(tmp_path)
    export(render, fmt, Path(fmt))  # `--out parquet`, as typed
    assert card_load(tmp_path / fmt, tmp_path / "cache")["train"].num_rows == 18


def test_card_credits_the_objaverse_models_a_render_used(render, tmp_path, cli):
    """A render whose mug came from Objaverse: the card lists its author and licence from the assets' lock."""
    dataset, assets = with_objaverse_model(render, tmp_path, "mug", "a" * 32)
    export(dataset, "imagefolder", tmp_path / "credited", "--assets", str(assets))
    card = (tmp_path / "credited" / "README.md").read_text()
    assert "| mug | Blue Mug | Ada Potter | [CC BY 4.0](https://creativecommons.org/licenses/by/4.0/) |" in card
    assert yaml.safe_load(card.split("---\n")[1])["license"] == "other"

    result = cli(
        "export",
        "--dataset",
        str(dataset),
        "--format",
        "imagefolder",
        "--out",
        str(tmp_path / "uncredited"),
        "--assets",
        str(tmp_path),
    )
    assert result.returncode == 2 and "--assets" in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "tfrecord"], "--format 'tfrecord' is not one of"),
        (["--format", "llama"], "; did you mean --format llava?"),
        (["--format", "llava", "--split-by", "scene", "--val-fraction", "1"], "--val-fraction 1.0 is outside (0, 1)"),
        (["--format", "llava", "--split-by", "object", "--val-fraction", "0"], "--val-fraction 0.0 is outside (0, 1)"),
        (["--format", "vlmevalkit", "--split-by", "scene"], "--split-by does not apply to --format vlmevalkit (an"),
        (["--format", "llava", "--split-by", "object", "--val-fraction", "0.9"], "leaves train with no scene (of 18"),
        (["--format", "parquet", "--variations", "one"], "--variations does not apply to --format parquet"),
        (["--format", "llava", "--shard-size", "5"], "--shard-size does not apply to --format llava"),
    ],
)
def test_bad_options_get_one_line(cli, render, tmp_path, args, message):
    result = cli("export", "--dataset", str(render), "--out", str(tmp_path / "out"), *args)
    assert result.returncode == 2 and result.stderr.startswith("error: ") and message in result.stderr
    assert len(result.stderr.splitlines()) == 1 and not (tmp_path / "out").exists()


def test_a_folder_that_is_not_a_render_or_an_occupied_out_gets_one_line(cli, render, tmp_path):
    result = cli("export", "--dataset", str(tmp_path), "--format", "coco", "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and "has no metadata.jsonl" in result.stderr and len(result.stderr.splitlines()) == 1
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "notes.txt").write_text("mine")
    result = cli("export", "--dataset", str(render), "--format", "coco", "--out", str(occupied))
    assert result.returncode == 2 and "already exists and holds other files" in result.stderr
    assert len(result.stderr.splitlines()) == 1 and (occupied / "notes.txt").read_text() == "mine"


def test_a_folder_mixed_before_the_settings_guard_is_not_exported(cli, render, tmp_path):
    mixed = tmp_path / "mixed"
    shutil.copytree(render, mixed)
    records = [json.loads(line) for line in (mixed / "metadata.jsonl").read_text().splitlines()]
    records[3]["render"] = {**records[3]["render"], "engine": "workbench", "resolution": [256, 192]}
    (mixed / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = cli("export", "--dataset", str(mixed), "--format", "imagefolder", "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert (
        "mixes renders (metadata.jsonl line 4: config.render.engine: cycles → workbench; "
        "config.render.resolution: [64, 48] → [256, 192]); export a folder made with one set of settings"
    ) in result.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / ".out.partial").exists()


@pytest.fixture(scope="module")
def pairs(tmp_path_factory, assets) -> Path:
    """Two random scenes of the four objects with swap and move partners and a second view, with masks: seed 1
    makes one partner of each kind and a scene of three bananas (`instance` banana#1 ...)."""
    out = tmp_path_factory.mktemp("pairs") / "render"
    made = run_cli(
        "render", "--scenes", "random", "--count", "2", "--seed", "1", "--only", ",".join(NAMES),
        "--counterfactuals", "swap,move", "--views", "2", "--assets", str(assets), "--out", str(out), *TINY,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return out


def without_nulls(value):
    """A loaded value as its record holds it: Arrow gives every field it declares, null where a record has none."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


@pytest.mark.parametrize("fmt", ["parquet", "imagefolder"])
def test_parquet_and_imagefolder_keep_every_field_of_partners_and_views_and_the_depth(pairs, tmp_path, fmt):
    records = {r["id"]: r for r in map(json.loads, (pairs / "metadata.jsonl").read_text().splitlines())}
    assert {r["counterfactual"]["kind"] for r in records.values() if "counterfactual" in r} == {"swap", "move"}
    assert any("view" in r for r in records.values())
    assert any("instance" in o for r in records.values() for o in r["objects"])
    out = tmp_path / fmt
    export(pairs, fmt, out)
    ds = card_load(out, tmp_path / "cache")["train"]
    assert sorted(ds["id"]) == sorted(records)
    for row in ds:
        record = records[row["id"]]
        fields = {key: value for key, value in row.items() if key not in ("image", "mask", "depth")}
        expected = {key: value for key, value in columnar(record).items() if not key.endswith("file_name")}
        assert without_nulls(fields) == without_nulls(expected), row["id"]
        assert_same_image(row["image"], pairs, record)
        for name in ("mask", "depth"):  # the depth is 16-bit millimetres
            assert np.array_equal(np.asarray(row[name]), np.asarray(Image.open(pairs / record[f"{name}_file_name"])))


def test_webdataset_loaded_by_its_card_keeps_every_field_of_partners_and_views(pairs, tmp_path):
    records = {r["id"]: r for r in map(json.loads, (pairs / "metadata.jsonl").read_text().splitlines())}
    out = tmp_path / "wds"
    export(pairs, "webdataset", out)
    ds = card_load(out, tmp_path / "cache")["train"]
    assert sorted(ds["__key__"]) == sorted(records)
    for row in ds:
        key = row["__key__"]
        members = {f"{name}file_name": f"{key}.{name.replace('_', '.')}png" if records[key][f"{name}file_name"] else None for name in ("", "mask_", "depth_")}
        assert without_nulls(row["json"]) == without_nulls(columnar({**records[key], **members})), key


def test_an_export_over_an_earlier_one_keeps_the_files_a_user_added(render, tmp_path):
    out = tmp_path / "if"
    export(render, "imagefolder", out)
    (out / "notes.txt").write_text("mine")
    (out / "images" / "extra.png").write_bytes(b"my picture")
    summary = export(render, "imagefolder", out, "--split-by", "scene", "--val-fraction", "0.3")
    assert (out / "notes.txt").read_text() == "mine" and (out / "images" / "extra.png").read_bytes() == b"my picture"
    assert summary["kept"] == 2
    assert [p.name for p in (out / "images").iterdir()] == ["extra.png"]  # the earlier export's own files went
    assert not (out / "metadata.parquet").exists() and not (out / "masks").exists()
    loaded = card_load(out, tmp_path / "cache")
    assert loaded["train"].num_rows + loaded["validation"].num_rows == 18
    assert not (tmp_path / ".if.replaced").exists()


def test_a_changed_file_where_the_new_export_writes_is_refused_and_the_export_resumes(cli, render, tmp_path):
    out, partial = tmp_path / "wds", tmp_path / ".wds.partial"
    export(render, "webdataset", out, "--shard-size", "5")
    (out / "README.md").write_text("my notes on this export\n")
    again = ("export", "--dataset", str(render), "--format", "webdataset", "--out", str(out), "--shard-size", "5")
    result = cli(*again)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert "README.md is not a file the earlier export wrote (added or changed since)" in result.stderr
    assert (out / "README.md").read_text() == "my notes on this export\n" and len(list(out.glob("shard-*.tar"))) == 4
    shards = {p.name: p.stat().st_ino for p in partial.glob("shard-*.tar")}
    assert len(shards) == 4
    (out / "README.md").rename(tmp_path / "my-notes.md")
    summary = export(render, "webdataset", out, "--shard-size", "5")
    assert summary["resumed"] is True and summary["kept"] == 0
    assert {p.name: p.stat().st_ino for p in out.glob("shard-*.tar")} == shards  # closed shards were kept


def test_an_export_over_one_that_lists_no_files_keeps_every_file_it_does_not_write(render, tmp_path):
    """An earlier export without a file list proves no file its own: the new one replaces those at the paths
    it writes, and keeps the rest."""
    out = tmp_path / "wds"
    export(render, "webdataset", out, "--shard-size", "5")
    (out / ".tabletest-export.files.jsonl").unlink(missing_ok=True)
    (out / "notes.txt").write_text("mine")
    summary = export(render, "webdataset", out, "--shard-size", "10")
    assert (out / "notes.txt").read_text() == "mine" and summary["kept"] == 3
    assert sorted(p.name for p in out.glob("shard-*.tar")) == [f"shard-{i:06d}.tar" for i in range(4)]
    assert len(list(wds.WebDataset(str(out / "shard-000000.tar"), shardshuffle=False))) == 10  # the new export's


def test_an_export_killed_while_replacing_an_earlier_one_is_settled_by_the_next(render, tmp_path):
    out = tmp_path / "wds"
    export(render, "webdataset", out, "--shard-size", "5")
    (out / "notes.txt").write_text("mine")
    out.rename(tmp_path / ".wds.replaced")  # as a kill between the two renames of the swap leaves it
    export(render, "webdataset", out, "--shard-size", "10")
    assert (out / "notes.txt").read_text() == "mine" and not (tmp_path / ".wds.replaced").exists()
    assert sorted(p.name for p in out.glob("shard-*.tar")) == ["shard-000000.tar", "shard-000001.tar"]


def copied(render: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    """A copy of the render (a link out of the folder is refused), and its metadata lines."""
    copy = tmp_path / "copy"
    shutil.copytree(render, copy)
    return copy, (copy / "metadata.jsonl").read_text().splitlines(keepends=True)


def test_a_record_appended_twice_is_refused_naming_both_lines(cli, render, tmp_path):
    twice, lines = copied(render, tmp_path)
    (twice / "metadata.jsonl").write_text("".join(lines) + lines[2])
    result = cli("export", "--dataset", str(twice), "--format", "webdataset", "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    scene = json.loads(lines[2])["id"]
    said = f"metadata.jsonl lines 3 and 19 both hold the record of {scene}; delete line 19 if it repeats line 3"
    assert said in result.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / ".out.partial").exists()


@pytest.mark.parametrize(
    ("fmt", "field", "damage", "problem"),
    [
        ("imagefolder", "file_name", "cut", "is cut short"),
        ("parquet", "file_name", "resized", "is 32x24, not the 64x48 its record gives"),
        ("webdataset", "mask_file_name", "flipped", "is damaged (its IDAT chunk"),
        ("imagefolder", "depth_file_name", "resized", "is 32x24, not the 64x48 its record gives"),
    ],
)
def test_a_damaged_or_wrongly_sized_picture_is_refused_before_it_ships(
    cli, render, tmp_path, fmt, field, damage, problem
):
    copy, lines = copied(render, tmp_path)
    name = json.loads(lines[4])[field]
    path = copy / name
    data = path.read_bytes()
    if damage == "cut":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":
        path.write_bytes(data[:-40] + bytes([data[-40] ^ 0xFF]) + data[-39:])  # a byte in the last IDAT chunk
    else:
        with Image.open(path) as image:
            image.resize((32, 24)).save(path)
    result = cli("export", "--dataset", str(copy), "--format", fmt, "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert f"{name} {problem}" in result.stderr and "rerun the same `tabletest render` command" in result.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / ".out.partial").exists()


@pytest.mark.parametrize("number", ["NaN", "9" * 5000])
def test_webdataset_refuses_a_record_holding_a_number_json_cannot_in_one_line(cli, render, tmp_path, number):
    copy, lines = copied(render, tmp_path)
    record = json.loads(lines[1])
    record["objects"][0]["yaw_deg"] = "NUMBER"
    lines[1] = json.dumps(record).replace('"NUMBER"', number) + "\n"
    (copy / "metadata.jsonl").write_text("".join(lines))
    result = cli("export", "--dataset", str(copy), "--format", "webdataset", "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert "metadata.jsonl: line 2" in result.stderr and "yaw_deg" in result.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / ".out.partial").exists()


def test_a_field_a_record_model_gains_is_a_column_of_every_export_without_a_column_list():
    """The exports' columns are read off the record models: a new field, nested or not, reaches them as its type."""
    from pydantic import create_model

    from tabletest.export.records import model_fields
    from tabletest.files.records import Closed, RandomRecord

    tilt = create_model("Tilt", __base__=Closed, pitch_deg=(float, ...), axis=(list[float], ...))
    extended = create_model("Extended", __base__=RandomRecord, tilt=(tilt | None, None), tags=(list[str], []))
    columns = dict(model_fields(extended))
    assert columns["tilt"] == pa.struct([("pitch_deg", pa.float64()), ("axis", pa.list_(pa.float64()))])
    assert columns["tags"] == pa.list_(pa.string())
    assert {name for name, _ in model_fields(RandomRecord)} < set(columns)
