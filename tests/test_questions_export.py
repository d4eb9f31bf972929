"""Exports of the question hierarchy: every worded gold is read as correct, one evaluation set per skill."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image
from test_questions import benchmark_records

from tabletest.config import load_catalog
from tabletest.export.hierarchy_queries import answer_wordings, hierarchy_queries
from tabletest.export.run import ExportOptions, run_export
from tabletest.prompts.hierarchy.generate import scene_questions
from tabletest.score.lexicon import load_lexicon
from tabletest.score.questions import judge_question
from tabletest.truth.nouns import Nouns

CATALOG = load_catalog()
REPO = Path(__file__).resolve().parent.parent
LEXICON = load_lexicon(CATALOG)


@pytest.fixture(scope="module")
def render(tmp_path_factory):
    """A render folder of the benchmark fixture's records, with plain stand-in images of their size."""
    folder = tmp_path_factory.mktemp("render")
    (folder / "images").mkdir()
    records = benchmark_records()[:3]
    for r in records:
        Image.new("RGB", tuple(r["render"]["resolution"]), (120, 90, 60)).save(folder / r["file_name"])
    (folder / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


def test_every_answer_wording_is_read_as_correct():
    records = benchmark_records()[:2]
    for q in (q for r in records for q in scene_questions(r, CATALOG)):
        for wording in answer_wordings(q, Nouns.of(load_catalog())):
            assert judge_question(q, wording, LEXICON).status == "correct", (q["qid"], wording)


def test_a_choice_of_words_is_answered_in_sentences_a_person_says_and_the_scorer_reads():
    """Every option that names no object (left, in front, above, the first image, what changed) is worded as a
    bare word and as a whole sentence, never "It is moved." or "It is left."; each is read as correct."""
    from tabletest.prompts.hierarchy.pairs import CHANGED, WHICH
    from tabletest.prompts.hierarchy.stories import OPTIONS

    offered = {tuple(options) for options in OPTIONS.values()} | {tuple(WHICH), tuple(CHANGED.values())}
    for options in offered:
        for answer in options:
            q = {"qid": "q", "answer_type": "choice", "options": list(options), "answer": answer, "scene_objects": ["mug", "lamp"],
                 "text": f"Which? Answer {' or '.join(options)}."}  # fmt: skip
            wordings = answer_wordings(q)
            assert len(wordings) == 2 and wordings[0] == f"{answer.capitalize()}.", wordings
            for wording in wordings:
                assert judge_question(q, wording, LEXICON).status == "correct", (answer, wording)
                assert not re.fullmatch(rf"It is {answer}\.", wording), wording
            if options == tuple(CHANGED.values()):
                assert re.fullmatch(r"(One object|Two objects) (was |were )?\w+ .+\.", wordings[1]), wordings[1]


def exported(record: dict, variations: str) -> list[dict]:
    """A record's questions as the export words their answers."""
    asked = [q for q in scene_questions(record, CATALOG, 0, ("questions", "captions")) if q["modality"] == "image"]
    return list(hierarchy_queries(record["id"], asked, variations, 0, Nouns.of(CATALOG)))


def test_every_answer_wording_obeys_its_questions_instruction():
    """A training target must answer as the question asks: "Yes."/"No." to "Answer yes or no.", a number to
    "Answer with a number.", one of the offered options to "Answer X or Y."."""
    records = benchmark_records()[:3]
    checked = 0
    for q in (q for r in records for q in exported(r, "all")):
        text, gold = q["text"], q["gold"]
        if text.endswith("Answer yes or no."):
            assert re.match(r"(Yes|No)\b", gold), (text, gold)
        elif text.endswith("Answer with a number in centimetres."):
            assert re.fullmatch(r"(About )?\d+(\.\d+)? (cm|centimetres)\.", gold), (text, gold)
        elif text.endswith("Answer with a number."):
            assert re.fullmatch(r"\d+\.?|[A-Z][a-z]+\.", gold), (text, gold)
        elif text.endswith("(left, middle, right), or centre."):  # a map's cell: its row and column, or the centre
            assert re.fullmatch(r"((Top|Middle|Bottom) (left|middle|right)|Centre)\.|It is in the (.+ cell|centre)\.", gold), (text, gold)
        elif (offered := re.search(r"Answer (.+) or (.+)\.$", text)) is not None:
            options = {o.removeprefix("the ") for o in re.split(r", | or ", offered.group(0)[len("Answer "):-1])}
            assert any(o.lower() in gold.lower() for o in options), (text, gold)
        checked += 1
    assert checked > 100


def test_variations_choose_how_many_wordings(render):
    record = benchmark_records()[0]
    every, paper, one = (exported(record, variations) for variations in ("all", "paper", "one"))
    assert len(every) > len(paper) > len(one) == len({q["skill"] for q in paper})
    assert {q["modality"] for q in every} == {"image"} and len({q["qid"] for q in every}) == len(every)
    assert paper == exported(record, "paper")  # seeded
    assert len({q["text"].split(",")[0] for q in every if q["frame"] == "viewer" and q["skill"] == "position"}) > 1


@pytest.mark.parametrize("fmt", ["llava", "vlmevalkit", "lmms-eval"])
def test_hierarchy_exports(render, tmp_path, fmt):
    from tabletest.commands import export as cli

    module, function = cli.HIERARCHY.get(fmt, cli.FORMATS[fmt][0]).split(":")
    exporter = getattr(__import__(f"tabletest.export.{module}", fromlist=[function]), function)
    options = ExportOptions(variations="paper", questions="hierarchy", evaluation=fmt != "llava")
    out = tmp_path / "out"
    run_export(fmt, exporter, render, out, options, CATALOG)
    if fmt == "llava":
        samples = json.loads((out / "train.json").read_text())
        assert samples and all((out / s["image"]).is_file() for s in samples)
        assert all(s["conversations"][0]["value"].startswith("<image>\n") for s in samples)
        return
    if fmt == "vlmevalkit":
        questions = {json.loads(x)["qid"]: json.loads(x) for x in (out / "prompts.jsonl").read_text().splitlines()}
        sets = {(q["skill"], q["answer_type"] == "quantity") for q in questions.values()}  # lengths apart
        tsvs = sorted(p.name for p in out.glob("TableTest_*.tsv"))
        assert len(tsvs) == len(sets) >= 4 and "TableTest_distance_quantities_OpenEnded.tsv" in tsvs
        assert all(name.endswith("_OpenEnded.tsv") for name in tsvs)  # VLMEvalKit's DATASET_TYPE: VQA, not MCQ
        for path in out.glob("TableTest_*.tsv"):
            table = pd.read_csv(path, sep="\t")
            for _, row in table.iterrows():
                q = questions[row["qid"]]
                assert judge_question(q, row["answer"], LEXICON).status == "correct"
                assert row["category"] == q["skill"]
        return
    import importlib.util

    spec = importlib.util.spec_from_file_location("lmms_utils", out / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    group = json.loads((out / ".tabletest-export.json").read_text())["group"]
    assert group.startswith("tabletest_hierarchy_render")
    tasks = sorted(p.stem for p in out.glob(f"{group}_*.yaml"))
    assert f"{group}_position" in tasks and f"{group}_counting" in tasks
    for data in (out / "data").glob("*.jsonl"):
        for line in data.read_text().splitlines():
            doc = json.loads(line)
            numeric = {"mra": 1.0, "within_2x": 1.0} if doc["answer_type"] == "quantity" else {}
            assert utils.process_results(doc, [doc["gold"]]) == {"accuracy": 1.0, "unparsed": 0.0, **numeric}
            assert utils.process_results(doc, ["I do not know"])["accuracy"] == 0.0
            assert utils.doc_to_visual(doc)[0].size == (256, 192)  # the stand-in, at its record's resolution


@pytest.fixture(scope="module")
def copies(tmp_path_factory) -> Path:
    """The golden random render's six records four times over (ids and images of their own): 24 scene families,
    enough for `--balance` to keep templates asked of at least 20."""
    src, folder = REPO / "tests" / "fixtures" / "random-golden", tmp_path_factory.mktemp("copies")
    (folder / "images").mkdir()
    lines = []
    for copy in range(4):
        for record in map(json.loads, (src / "metadata.jsonl").read_text().splitlines()):
            index = record["index"] + 1000 * copy
            name = f"rnd6-{index:07d}"
            shutil.copy(src / record["file_name"], folder / "images" / f"{name}.png")
            kept = {k: v for k, v in record.items() if k not in ("mask_file_name", "depth_file_name")}
            lines.append(json.dumps({**kept, "id": name, "index": index, "file_name": f"images/{name}.png"}))
    (folder / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    return folder


@pytest.mark.parametrize("balance", [False, True])
def test_an_export_holds_the_questions_the_questions_command_asks(cli, render, copies, tmp_path, balance):
    """One pipeline: an export's questions are `tabletest questions --forms questions,captions --image-only` on the
    same render, with the same --seed and --balance (each with its gold answer added)."""
    flags = ["--seed", "3", *(["--balance"] if balance else [])]
    render = copies if balance else render
    asked = cli("questions", "--dataset", str(render), "--forms", "questions,captions", "--image-only", "--out", str(tmp_path / "q.jsonl"), *flags)
    assert asked.returncode == 0, asked.stderr
    made = cli("export", "--dataset", str(render), "--format", "vlmevalkit", "--questions", "hierarchy", "--out", str(tmp_path / "v"), *flags)
    assert made.returncode == 0, made.stderr
    questions = [json.loads(line) for line in (tmp_path / "q.jsonl").read_text().splitlines()]
    shipped = [json.loads(line) for line in (tmp_path / "v" / "prompts.jsonl").read_text().splitlines()]
    assert questions and [{k: v for k, v in q.items() if k != "gold"} for q in shipped] == questions


def test_questions_flag_only_for_question_formats(cli, render, tmp_path):
    bad = cli(
        "export", "--dataset", str(render), "--format", "coco", "--questions", "hierarchy", "--out", str(tmp_path / "c")
    )
    assert bad.returncode == 2 and "--questions does not apply to --format coco" in bad.stderr
