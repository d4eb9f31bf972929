"""The balance report and `--balance`: the report's figures against a recount of the questions written, every
template near chance once balanced, even templates untouched, the same bytes for the same seed, a text prior
fitted on training scenes only, and the report in the LLaVA and hf-chat exports (a resumed one's too)."""

from __future__ import annotations

import json
import random
import re
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from conftest import REPO, run_cli
from hierarchy_scenes import random_scene
from PIL import Image
from test_questions import benchmark_records

from tabletest.config import load_catalog
from tabletest.export import huggingface
from tabletest.export.dataset import RenderDataset
from tabletest.export.run import ExportOptions, run_export
from tabletest.export.split import Split
from tabletest.prompts.hierarchy.balance import BalancePlan, Ranked, answer_key, choose_caps
from tabletest.prompts.hierarchy.balance_report import AnswerTally, markdown, report

SCENES = 80  # random-shaped scenes of 2 to 6 objects: about 20,000 questions, in about a second


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("scenes") / "scenes.jsonl"
    path.write_text("".join(json.dumps(random_scene(seed, 2 + seed % 5)) + "\n" for seed in range(SCENES)))
    return path


def ask(scenes: Path, out: Path, *args: str) -> tuple[list[dict], dict, Path]:
    """`tabletest questions` with `--report` as JSON: the questions written, the report, and the questions' file."""
    path, report_path = out / "q.jsonl", out / "r.json"
    made = run_cli("questions", "--from", str(scenes), "--out", str(path), "--report", str(report_path), *args)
    assert made.returncode == 0, made.stderr
    assert "worst template" in made.stderr.splitlines()[-1]
    questions = [json.loads(line) for line in path.read_text().splitlines()]
    return questions, json.loads(report_path.read_text()), path


@pytest.fixture(scope="module")
def unbalanced(scenes, tmp_path_factory) -> tuple[list[dict], dict, Path]:
    return ask(scenes, tmp_path_factory.mktemp("unbalanced"))


@pytest.fixture(scope="module")
def balanced(scenes, tmp_path_factory) -> tuple[list[dict], dict, Path]:
    return ask(scenes, tmp_path_factory.mktemp("balanced"), "--balance")


def gold(question: dict) -> str:
    """The gold answer as the report labels it (a tie for the most common answer goes to the first label)."""
    answer = question["answer"]
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    return (", ".join(sorted(answer)) or "none") if isinstance(answer, list) else str(answer)


def template(question: dict) -> str:
    return question["template"]


def by_template(questions: list[dict]) -> dict[str, Counter]:
    counts: dict[str, Counter] = defaultdict(Counter)
    for q in questions:
        counts[q["template"]][gold(q)] += 1
    return counts


def recount(questions: list[dict], key) -> dict:
    """n, chance and best constant per group, counted here from the questions themselves."""
    groups: dict = defaultdict(list)
    for q in questions:
        groups[key(q)].append(q)
    figures = {}
    for name, members in groups.items():
        answers = Counter(gold(q) for q in members)
        yes_no = members[0]["answer_type"] == "yes/no"
        figures[name] = {
            "n": len(members),
            "chance": 0.5 if yes_no else 1 / len(answers),
            "best_constant": max(answers.values()) / len(members),
        }
    return figures


def text_prior(questions: list[dict], seed: int = 0) -> dict:
    """The text prior's accuracy per template, fitted here: majority per (template, objects, relation said) on the training
    scenes, else per template, else overall, scored on the validation scenes."""
    split = Split(by="scene", val_fraction=0.2, seed=seed)
    train = [q for q in questions if split.of(q["scene_id"], ()) == "train"]

    def majority(qs, options=None):  # of a choice, the most common of its options
        counts = Counter(gold(q) for q in qs if options is None or gold(q) in options)
        return min(counts, key=lambda a: (-counts[a], a)) if counts else None

    def said(q):  # the objects, and the relation where the question's own words state it and it is no option
        asked, options = q["text"].split("\n\n")[-1], q.get("options") or []
        stated = re.search(rf"\b{re.escape(q['relation'])}\b", asked) and not [o for o in options if q["relation"] in o]
        return (*q["objects"], q["relation"] if stated else "")

    keyed, templates = defaultdict(list), defaultdict(list)
    for q in train:
        keyed[q["template"], said(q)].append(q)
        templates[q["template"]].append(q)
    overall = majority(train)
    scored = defaultdict(lambda: [0, 0])
    for q in (q for q in questions if split.of(q["scene_id"], ()) != "train"):
        template = q["template"]
        options = q["options"] if q["answer_type"] == "choice" else None
        fitted = (keyed.get((template, said(q)), []), templates.get(template, []), train)
        guess = next((m for qs in fitted if (m := majority(qs, options))), options[0] if options else None)
        scored[template][0] += 1
        scored[template][1] += (guess or overall) == gold(q)
    return {t: right / n for t, (n, right) in scored.items()}


def test_the_reports_figures_are_a_recount_of_the_questions_written(unbalanced):
    questions, made, _ = unbalanced
    section = made["questions"]
    assert section["questions"] == len(questions)
    templates = {g["template"]: g for g in section["templates"]}
    assert set(templates) == {q["template"] for q in questions} and len(templates) > 10
    prior = text_prior(questions)
    for name, figures in recount(questions, template).items():
        reported = templates[name]
        assert {k: reported[k] for k in figures} == pytest.approx(figures), name
        assert reported["text_prior"] == pytest.approx(prior.get(name)), name
    cells = {(g["skill"], g["answer_type"], g["frame"]): g for g in section["cells"]}
    for cell, figures in recount(questions, lambda q: (q["skill"], q["answer_type"], q["frame"])).items():
        assert {k: cells[cell][k] for k in figures} == pytest.approx(figures), cell
    worst = max(recount(questions, template).values(), key=lambda f: f["best_constant"] - f["chance"])
    assert worst["best_constant"] > worst["chance"] + 0.05  # the stream has something to balance


def test_balance_brings_every_template_within_five_points_of_chance(unbalanced, balanced):
    questions, made, _ = balanced
    kept = {q["qid"] for q in questions}
    assert 0.5 * len(unbalanced[0]) < len(questions) < len(unbalanced[0])
    assert [q for q in unbalanced[0] if q["qid"] in kept] == questions  # a subset, in the same order
    for name, figures in recount(questions, template).items():  # the aim is 3 points, 5 the most allowed
        assert figures["best_constant"] <= figures["chance"] + 0.03, (name, figures)
    after = {g["template"]: g for g in made["after"]["templates"]}
    for name, figures in recount(questions, template).items():
        assert {k: after[name][k] for k in figures} == pytest.approx(figures), name
    assert made["before"]["questions"] == len(unbalanced[0])
    before, now = by_template(unbalanced[0]), by_template(questions)
    for name, share in made["kept"].items():
        assert (share["kept"], share["of"]) == (sum(now.get(name, Counter()).values()), sum(before[name].values()))


def test_the_markdown_report_has_a_row_per_cell_and_template_before_and_after(balanced):
    made = balanced[1]
    rows = [line for line in markdown(made).splitlines() if line.startswith("| ") and "→" in line]
    assert len(rows) == len(made["before"]["cells"]) + len(made["before"]["templates"])
    for group in made["before"]["templates"]:
        kept = made["kept"][group["template"]]
        assert f"| {group['template']} | " in markdown(made)
        assert f"| {kept['of']} → {kept['kept']} | {kept['share']:.0%} |" in markdown(made)


def test_yes_no_templates_asked_in_pairs_lose_nothing(unbalanced, balanced):
    counts = by_template(unbalanced[0])
    even = {t for t, c in counts.items() if set(c) == {"yes", "no"} and c["yes"] == c["no"]}
    assert len(even) >= 5, even
    kept = {q["qid"] for q in balanced[0]}
    for q in unbalanced[0]:
        if q["template"] in even:
            assert q["qid"] in kept, q["qid"]


def test_the_same_seed_writes_the_same_bytes_and_another_seed_keeps_others(scenes, unbalanced, balanced, tmp_path):
    again = run_cli("questions", "--from", str(scenes), "--out", str(tmp_path / "q.jsonl"), "--balance")
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "q.jsonl").read_bytes() == balanced[2].read_bytes()
    generated = unbalanced[0]
    plans = [BalancePlan.of(generated, seed) for seed in (0, 0, 1)]
    kept = [{q["qid"] for q in generated if plan.keeps(q)} for plan in plans]
    assert kept[0] == kept[1] == {q["qid"] for q in balanced[0]}
    assert kept[2] != kept[0] and len(kept[2]) == pytest.approx(len(kept[0]), rel=0.02)


def test_the_text_prior_is_fitted_on_training_scenes_only():
    """Where training and validation disagree, the prior answers as training does: wrong on every validation
    question of a key both saw, right where it falls back to a template's training majority."""
    split = Split(by="scene", val_fraction=0.2, seed=0)
    ids = [f"scene-{i}" for i in range(200)]
    train = [i for i in ids if split.of(i, ()) == "train"]
    held = [i for i in ids if split.of(i, ()) == "validation"]

    def question(scene, template, objects, answer):
        return {"qid": f"{scene}-{template}", "scene_id": scene, "template": template, "phrasing": 0, "skill": "position",
                "answer_type": "yes/no", "frame": "viewer", "answer": answer, "objects": objects, "relation": "left",
                "text": "Is the mug to the left of the lamp?"}  # fmt: skip

    stream = [question(s, "t", ["mug", "lamp"], True) for s in train[:3]]
    stream += [question(train[3], "t", ["fan", "vase"], False)]
    stream += [question(s, "t", ["mug", "lamp"], False) for s in held[:5]]  # more of them than training has
    stream += [question(s, "t", ["apple", "cup"], True) for s in held[5:7]]  # a key training never saw
    stream += [question(held[7], "u", ["mug"], False)]  # a template training never saw: the overall majority
    random.Random(0).shuffle(stream)
    tally = AnswerTally(0)
    for q in stream:
        tally.add(q)
    made = report(0, tally)
    templates = {g["template"]: g for g in made["questions"]["templates"]}
    assert templates["t"]["text_prior"] == pytest.approx(2 / 7) and templates["t"]["validation_questions"] == 7
    assert templates["u"]["text_prior"] == 0.0
    assert made["questions"]["text_prior"] == pytest.approx(2 / 8)


@pytest.mark.parametrize(
    "report_path, message",
    [("missing/r.md", r"folder .*missing does not exist; create it"), (".", r"is a folder; give a file in it")],
)
def test_a_bad_report_path_is_one_line_and_leaves_the_output_alone(scenes, tmp_path, report_path, message):
    out = tmp_path / "q.jsonl"
    out.write_text("earlier\n")
    made = run_cli(
        "questions", "--from", str(scenes), "--out", str(out), "--report", str(tmp_path / report_path), "--balance"
    )
    assert made.returncode != 0 and "Traceback" not in made.stderr
    assert len(made.stderr.strip().splitlines()) == 1 and re.search(message, made.stderr), made.stderr
    assert out.read_text() == "earlier\n"


def test_cap_selection_on_hand_made_counts():
    assert choose_caps({"yes": 50, "no": 50}, yes_no=True) == {"yes": 50, "no": 50}
    assert choose_caps({"yes": 51, "no": 49}, yes_no=True) == {"yes": 51, "no": 49}  # 51% is within 2 points
    assert choose_caps({"yes": 80, "no": 20}, yes_no=True) == {"yes": 21, "no": 20}  # 21 / 41 = 51.2%
    assert choose_caps({0: 90, 1: 10, 2: 5}, yes_no=False) == {0: 6, 1: 6, 2: 5}  # the rare answer stays: 6 / 17 < 1/3 + 2 %
    assert choose_caps({0: 990, 1: 100, 2: 5}, yes_no=False) == {0: 108, 1: 100}  # 5 of 1,095 is under 1 %: dropped
    assert choose_caps({0: 400, 1: 400, 2: 380, 3: 2}, yes_no=False) == {0: 400, 1: 400, 2: 380}
    assert choose_caps({"a": 5, "b": 5, "c": 5}, yes_no=False) == {"a": 5, "b": 5, "c": 5}
    assert choose_caps({"yes": 7}, yes_no=True) == {}  # chance is one half: a lone answer cannot stay
    assert choose_caps({0: 7}, yes_no=False) == {0: 7}  # one answer, chance 1: nothing to balance
    assert Ranked([100, 10]).largest_cap(2, 0.52) == 10 and Ranked([11, 10]).largest_cap(2, 0.53) == 11
    assert Ranked([9, 5, 5, 1]).kept(3, 6) == 16 and Ranked([9, 5, 5, 1]).kept(4, 4) == 13


def test_answer_keys():
    assert answer_key(True) == "yes" and answer_key(["mug", "fan"]) == ("fan", "mug") and answer_key(0) == 0


@pytest.fixture(scope="module")
def render(tmp_path_factory) -> Path:
    """A render folder of the benchmark fixture's records, with small stand-in images."""
    folder = tmp_path_factory.mktemp("render")
    (folder / "images").mkdir()
    records = benchmark_records()
    for r in records:
        Image.new("RGB", (32, 24), (120, 90, 60)).save(folder / r["file_name"])
    (folder / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


def reported_count(export: Path) -> int:
    """The number of questions `question_balance.md` counts (its first sentence)."""
    first = (export / "question_balance.md").read_text().splitlines()[2]
    return int(re.match(r"(\d+) questions", first).group(1))


def test_the_llava_export_reports_the_balance_of_its_samples(render, tmp_path):
    out = tmp_path / "llava"
    made = run_cli("export", "--dataset", str(render), "--format", "llava", "--questions", "hierarchy", "-o", str(out))
    assert made.returncode == 0, made.stderr
    samples = json.loads((out / "train.json").read_text())
    assert reported_count(out) == len(samples) > 100
    assert "(question_balance.md)" in (out / "README.md").read_text()


def test_a_resumed_hf_chat_export_reports_every_shard(render, tmp_path, monkeypatch):
    out, whole = tmp_path / "chat", tmp_path / "whole"
    real_file, calls = RenderDataset.file, []

    def dies_on_the_seventh(self, relative):
        calls.append(relative)
        if len(calls) == 7:
            raise KeyboardInterrupt  # a kill after two shards of two images each
        return real_file(self, relative)

    options = ExportOptions(shard_size=2, questions="hierarchy")
    monkeypatch.setattr(RenderDataset, "file", dies_on_the_seventh)
    with pytest.raises(KeyboardInterrupt):
        run_export("hf-chat", huggingface.export_hf_chat, render, out, options, load_catalog())
    monkeypatch.setattr(RenderDataset, "file", real_file)
    assert len(list((tmp_path / ".chat.partial" / "data").glob("*.parquet"))) == 2
    assert run_export("hf-chat", huggingface.export_hf_chat, render, out, options, load_catalog())["resumed"]
    run_export("hf-chat", huggingface.export_hf_chat, render, whole, options, load_catalog())
    assert (out / "question_balance.md").read_text() == (whole / "question_balance.md").read_text()
    shards = [pq.read_table(shard) for shard in (out / "data").glob("*.parquet")]
    rows = [ids for table in shards for ids in table["question_ids"].to_pylist()]
    assert reported_count(out) == sum(map(len, rows)) > 100


def test_a_2000_scene_training_set_balanced_keeps_every_template_near_chance_and_its_rare_counts(tmp_path, builtin_assets):
    """`tabletest vignettes --scenes random --count 2000` (every object apart on the table, so it takes seconds)
    asked and balanced: each template's best constant answer within 5 points of chance over what is kept, and
    the counts of several of a kind (2, 3) kept rather than balanced away."""
    data = yaml.safe_load((REPO / "configs" / "random.yaml").read_text())
    del data["arrangements"]
    (tmp_path / "random.yaml").write_text(yaml.safe_dump(data))
    scenes = tmp_path / "scenes.jsonl"
    made = run_cli(
        "vignettes", "--scenes", "random", "--count", "2000", "--random-config", str(tmp_path / "random.yaml"),
        "--assets", str(builtin_assets), "--out", str(scenes),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    before, _, _ = ask(scenes, tmp_path)
    assert recount(before, template)["count-kind"]["best_constant"] > 0.45  # unbalanced: "zero" or "one" wins
    questions, _, _ = ask(scenes, tmp_path, "--balance")
    for name, figures in recount(questions, template).items():
        assert figures["best_constant"] <= figures["chance"] + 0.05, (name, figures)
    assert set(by_template(questions)["count-kind"]) == {"0", "1", "2", "3"}


def test_a_scenes_views_and_partners_fall_in_its_split_for_the_text_prior():
    """A view or partner repeats most of its scene's answers: split apart from it, the prior would score its
    memory of the scene, not of the words."""
    split = Split(by="scene", val_fraction=0.2, seed=0)
    scene = next(s for s in (f"rnd0-{i:07d}" for i in range(1000)) if split.of(s, ()) == "train" and split.of(f"{s}-view2", ()) != "train")

    def question(scene_id, **extra):
        return {"qid": f"{scene_id}-img-pos", "scene_id": scene_id, "template": "t", "phrasing": 0, "skill": "position",
                "answer_type": "yes/no", "frame": "viewer", "answer": True, "objects": ["mug", "lamp"], "relation": "left",
                "text": "Is the mug to the left of the lamp?", **extra}  # fmt: skip

    tally = AnswerTally(0)
    for q in (question(scene), question(f"{scene}-view2", scene_of=scene), question(f"{scene}-swap", scene_of=scene)):
        tally.add(q)
    assert tally.summary()["validation_questions"] == 0  # all three trained on, none scored
