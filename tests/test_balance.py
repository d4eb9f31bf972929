"""The balance report and `--balance`: the report's figures against a recount of the questions written, every
template near chance once balanced, pairs kept whole, the same bytes for the same seed, a text-only reader
fitted on other scene families only that beats chance where the words give answers away and is marked there
(world knowledge apart), and the report in the LLaVA and hf-chat exports (a resumed one's too)."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from conftest import one_look_random_data, run_cli
from hierarchy_scenes import look_at_camera, obj, random_scene, scene, stacked_scene
from PIL import Image
from test_questions import benchmark_records

from tabletest.config import load_catalog
from tabletest.export import huggingface
from tabletest.files.dataset import RenderDataset
from tabletest.export.run import ExportOptions, run_export
from tabletest.prompts.hierarchy.balance import BINS, MIN_FAMILIES, BalancePlan, QuantityBins, Ranked, cell_of, choose_caps, group_of
from tabletest.prompts.hierarchy import skills
from tabletest.prompts.hierarchy.balance_report import AnswerTally, markdown, one_line, report
from tabletest.prompts.hierarchy.generate import drawn_from, scene_questions
from tabletest.prompts.hierarchy.metric import stated
from tabletest.prompts.hierarchy.pairs import view_questions
from tabletest.truth.scene_facts import SceneGeometry
from tabletest.prompts.hierarchy.record import Asker
from tabletest.prompts.hierarchy.text_keys import answer_key
from tabletest.prompts.hierarchy.text_only import SAMPLE
from tabletest.prompts.hierarchy.closeness import closeness

SCENES = 48  # random-shaped scenes of 2 to 6 objects: about 19,000 questions


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


def gold(question: dict, bins: dict[str, QuantityBins] | None = None) -> str:
    """The gold answer as the report counts it (a tie for the most common answer goes to the first label): a
    quantity's bin among `bins`."""
    if question["answer_type"] == "quantity":
        return str(bins[question["template"]](cell_of(question)))
    answer = question["answer"]
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    return (", ".join(sorted(answer)) or "none") if isinstance(answer, list) else str(answer)


def template(question: dict) -> str:
    return question["template"]


def by_template(questions: list[dict], bins: dict[str, QuantityBins] | None = None) -> dict[str, Counter]:
    counts: dict[str, Counter] = defaultdict(Counter)
    for q in questions:
        counts[q["template"]][gold(q, bins)] += 1
    return counts


def quantity_bins(questions: list[dict]) -> dict[str, QuantityBins]:
    """Each quantity template's bins, from the values of `questions` (those before balancing)."""
    cells: dict[str, Counter] = defaultdict(Counter)
    for q in questions:
        if q["answer_type"] == "quantity":
            cells[q["template"]][cell_of(q)] += 1
    return {t: QuantityBins.of(c) for t, c in cells.items()}


def recount(questions: list[dict], key, bins: dict[str, QuantityBins]) -> dict:
    """n, chance and best constant per group, counted here from the questions themselves (a quantity by its bin)."""
    groups: dict = defaultdict(list)
    for q in questions:
        groups[key(q)].append(q)
    figures = {}
    for name, members in groups.items():
        answers = Counter(gold(q, bins) for q in members)
        yes_no = members[0]["answer_type"] == "yes/no"
        figures[name] = {
            "n": len(members),
            "chance": 0.5 if yes_no else 1 / len(answers),
            "best_constant": max(answers.values()) / len(members),
        }
    return figures


def test_the_reports_figures_are_a_recount_of_the_questions_written(unbalanced):
    questions, made, _ = unbalanced
    bins = quantity_bins(questions)
    section = made["questions"]
    assert section["questions"] == len(questions)
    templates = {g["template"]: g for g in section["templates"]}
    assert set(templates) == {q["template"] for q in questions} and len(templates) > 10
    for name, figures in recount(questions, template, bins).items():
        reported = templates[name]
        assert {k: reported[k] for k in figures} == pytest.approx(figures), name
        assert reported["validation_questions"] == min(figures["n"], SAMPLE) and 0 <= reported["text_prior"] <= 1, name
        if figures["chance"] == 0.5 and reported["answer_type"] == "yes/no":
            assert reported["text_chance"] == 0.5, name
    cells = {(g["skill"], g["answer_type"], g["frame"]): g for g in section["cells"]}
    for cell, figures in recount(questions, lambda q: (q["skill"], q["answer_type"], q["frame"]), bins).items():
        assert {k: cells[cell][k] for k in figures} == pytest.approx(figures), cell
    worst = max(recount(questions, template, bins).values(), key=lambda f: f["best_constant"] - f["chance"])
    assert worst["best_constant"] > worst["chance"] + 0.05  # the stream has something to balance


def test_balance_brings_every_template_within_five_points_of_chance(unbalanced, balanced):
    questions, made, _ = balanced
    bins = quantity_bins(unbalanced[0])
    kept = {q["qid"] for q in questions}
    assert 0.5 * len(unbalanced[0]) < len(questions) < len(unbalanced[0])
    assert [q for q in unbalanced[0] if q["qid"] in kept] == questions  # a subset, in the same order
    for name, figures in recount(questions, template, bins).items():  # the aim is 3 points, 5 the most allowed
        assert figures["best_constant"] <= figures["chance"] + 0.03, (name, figures)
    after = {g["template"]: g for g in made["after"]["templates"]}
    for name, figures in recount(questions, template, bins).items():
        assert {k: after[name][k] for k in figures} == pytest.approx(figures), name
    assert made["before"]["questions"] == len(unbalanced[0])
    before, now = by_template(unbalanced[0], bins), by_template(questions, bins)
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


def test_yes_no_templates_asked_in_pairs_keep_their_pairs_whole_and_lose_little(unbalanced, balanced):
    """A question and its pair share their words: balancing keeps or drops them together, and a template already
    even in each of its wordings loses only what a name asked one way more often than chance would ask it gives
    away (asked of too few scenes to even out, it goes whole)."""
    worded, families = defaultdict(Counter), defaultdict(set)
    for q in unbalanced[0]:
        worded[q["template"]][(group_of(q), answer_key(q["answer"]))] += 1
        families[q["template"]].add(q["scene_id"])
    even = {t for t, c in worded.items() if all(a in ("yes", "no") and c[(g, "yes")] == c[(g, "no")] for g, a in c)}
    even = {t for t in even if len(families[t]) >= MIN_FAMILIES}
    assert len(even) >= 4, even
    kept = {q["qid"] for q in balanced[0]}
    pairs: dict[str, set[bool]] = defaultdict(set)
    for q in unbalanced[0]:
        if q["template"] in even:
            pairs[q["pair"]].add(q["qid"] in kept)
    assert all(len(fates) == 1 for fates in pairs.values())
    for name in even:
        asked = [q for q in unbalanced[0] if q["template"] == name]
        # a template asked a few hundred times (which way objects face: only kinds with a front) has few questions
        # per name, whose chance lean is wider: it may lose more
        assert sum(q["qid"] in kept for q in asked) >= (0.75 if len(asked) >= 500 else 0.6) * len(asked), (name, len(asked))


def test_the_same_seed_writes_the_same_bytes_and_another_seed_keeps_others(scenes, unbalanced, balanced, tmp_path):
    again = run_cli("questions", "--from", str(scenes), "--out", str(tmp_path / "q.jsonl"), "--balance")
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "q.jsonl").read_bytes() == balanced[2].read_bytes()
    generated = unbalanced[0]
    plans = [BalancePlan.of(generated, seed) for seed in (0, 0, 1)]
    kept = [{q["qid"] for q in plan.kept(generated)} for plan in plans]
    assert kept[0] == kept[1] == {q["qid"] for q in balanced[0]}
    assert kept[2] != kept[0] and len(kept[2]) == pytest.approx(len(kept[0]), rel=0.02)


def reader_stream(families: int, name_of, answer_of, **extra) -> list[dict]:
    """Yes/no questions of one template, five per family (scene `f`, or its partner and views with
    `scene_of`), naming `name_of(f, k)` and answered `answer_of(f, k)`."""
    return [
        {"qid": f"s{f}-{k}", "scene_id": f"s{f}-{k}" if extra.get("partners") else f"s{f}", "template": "t", "phrasing": 0,
         "skill": "position", "answer_type": "yes/no", "frame": "viewer", "answer": answer_of(f, k), "objects": [name_of(f, k)],
         "relation": "left", "text": f"Is the {name_of(f, k)} on the left?", **({"scene_of": f"s{f}"} if extra.get("partners") else {})}
        for f in range(families) for k in range(5)
    ]  # fmt: skip


def reads(stream: list[dict]) -> float:
    tally = AnswerTally(0)
    for q in stream:
        tally.add(q)
    return report(0, tally)["questions"]["templates"][0]["text_prior"]


def test_the_text_prior_is_a_reader_fitted_on_other_families_only():
    """A name whose answer holds across families is learnt; one that only its own family asks (with one answer
    there) is not, since its family is never learnt and scored at once, nor are a scene's views and partners
    split from it."""
    assert reads(reader_stream(120, lambda f, k: ["mug", "lamp"][k % 2], lambda f, k: k % 2 == 0)) == 1.0
    own = reader_stream(120, lambda f, k: f"thing{f}", lambda f, k: f % 2 == 0)
    assert reads(own) == pytest.approx(0.5, abs=0.1)
    assert reads(reader_stream(120, lambda f, k: f"thing{f}", lambda f, k: f % 2 == 0, partners=True)) == pytest.approx(0.5, abs=0.1)


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
    assert choose_caps({"yes": 50, "no": 50}) == {"yes": 50, "no": 50}
    assert choose_caps({"yes": 51, "no": 49}) == {"yes": 51, "no": 49}  # 51% is within 2 points
    assert choose_caps({"yes": 80, "no": 20}) == {"yes": 21, "no": 20}  # 21 / 41 = 51.2%
    assert choose_caps({0: 90, 1: 10, 2: 5}) == {0: 6, 1: 6, 2: 5}  # the rare answer stays: 6 / 17 < 1/3 + 2 %
    assert choose_caps({0: 990, 1: 100, 2: 5}) == {0: 108, 1: 100}  # 5 of 1,095 is under 1 %: dropped
    assert choose_caps({0: 400, 1: 400, 2: 380, 3: 2}) == {0: 400, 1: 400, 2: 380}
    assert choose_caps({"a": 5, "b": 5, "c": 5}) == {"a": 5, "b": 5, "c": 5}
    assert choose_caps({"yes": 7}) == {} and choose_caps({0: 7}) == {}  # a lone answer would be given away: it cannot stay
    assert Ranked([100, 10]).largest_cap(2, 0.52) == 10 and Ranked([11, 10]).largest_cap(2, 0.53) == 11
    assert Ranked([9, 5, 5, 1]).kept(3, 6) == 16 and Ranked([9, 5, 5, 1]).kept(4, 4) == 13


def test_answer_keys():
    assert answer_key(True) == "yes" and answer_key(["mug", "fan"]) == ("fan", "mug") and answer_key(0) == 0


@pytest.fixture(scope="module")
def render(tmp_path_factory) -> Path:
    """A render folder of the benchmark fixture's records, with plain stand-in images of their size."""
    folder = tmp_path_factory.mktemp("render")
    (folder / "images").mkdir()
    records = benchmark_records()
    for r in records:
        Image.new("RGB", tuple(r["render"]["resolution"]), (120, 90, 60)).save(folder / r["file_name"])
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
    data = one_look_random_data()  # each kind in its catalog model: looks change no answer these count
    del data["arrangements"]
    (tmp_path / "random.yaml").write_text(yaml.safe_dump(data))
    scenes = tmp_path / "scenes.jsonl"
    made = run_cli(
        "vignettes", "--scenes", "random", "--count", "2000", "--random-config", str(tmp_path / "random.yaml"),
        "--assets", str(builtin_assets), "--out", str(scenes),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    questions, made, _ = ask(scenes, tmp_path, "--balance")
    generated = {g["template"]: g for g in made["before"]["templates"]}
    assert generated["count-kind"]["best_constant"] > 0.45  # unbalanced: "zero" or "one" wins
    for name, figures in recount(questions, template, {}).items():
        assert figures["best_constant"] <= figures["chance"] + 0.05, (name, figures)
    assert set(by_template(questions)["count-kind"]) == {"0", "1", "2", "3"}


def support_questions(scenes: int) -> list[dict]:
    """The support questions (on, in, above, touching) of `scenes` stacked scenes."""
    catalog = load_catalog()
    made = []
    for seed in range(scenes):
        record = stacked_scene(seed)
        ask = Asker(record["id"], "image", [o["name"] for o in record["objects"]], image=record["file_name"])
        skills.support(ask, SceneGeometry.from_record(record, catalog))
        made += ask.made
    return made


def test_support_negatives_read_like_their_positives():
    """Each "no" to "is the x on top of (inside) the y?" is asked of a y that can carry an x that way (a book, a
    bowl: the catalog's support or container) and is the bigger, never as the "yes" turned round ("is the bowl
    inside the egg?", which the names answer)."""
    questions = support_questions(60)
    sizes, carries = {o.name: o.size_m for o in load_catalog().objects}, {"on": "book laptop", "inside": "bowl mug"}
    yes = {(q["scene_id"], q["relation"], *q["objects"]) for q in questions if q["template"] == "support-yes/no" and q["answer"]}
    noes = [q for q in questions if q["template"] == "support-yes/no" and not q["answer"]]
    assert len(noes) > 30
    for q in noes:
        x, y = q["objects"]
        assert (q["scene_id"], q["relation"], y, x) not in yes and y in carries[q["relation"]].split() and sizes[x] < sizes[y], q["text"]


def test_after_balance_the_text_alone_reads_support_answers_at_chance():
    """A text-only reader (words and names, fitted on other scenes) of the balanced support questions of
    stacked scenes scores within 5 points of guessing on each template."""
    questions = support_questions(150)
    kept = list(BalancePlan.of(questions, 0).kept(questions))
    tally = AnswerTally(0)
    for q in kept:
        tally.add(q)
    templates = {g["template"]: g for g in report(0, tally)["questions"]["templates"]}
    assert set(templates) == {"support-yes/no", "support-choice", "touching-yes/no"}
    for name, group in templates.items():
        assert group["validation_questions"] > 150 and group["text_prior"] <= group["text_chance"] + 0.05, (name, group)
        assert not group["text_shortcut"]


def test_the_report_gives_the_text_only_reader_per_template_and_marks_shortcuts_and_size():
    """Where the names alone give the answer the reader beats guessing and the report marks the template (which
    is bigger in real life as world knowledge, by design); where they do not, it is near guessing and unmarked."""
    size = {"egg": 0.06, "apple": 0.08, "mug": 0.12, "bowl": 0.18, "book": 0.25, "laptop": 0.33}
    names = sorted(size)

    def asked(f: int, template: str, x: str, y: str, **fields) -> dict:
        return {"qid": f"s{f}-{template}", "scene_id": f"s{f}", "template": template, "phrasing": 0, "skill": "size",
                "frame": None, "objects": [x, y], "text": f"Is the {x} ... the {y}?", **fields}  # fmt: skip

    pairs = [(f, names[f % 6], names[(f // 6 + f + 1) % 6]) for f in range(300)]
    pairs = [(f, x, y) for f, x, y in pairs if x != y]
    coin = [k % 2 == 0 for k in range(len(pairs))]  # as many yes as no, in a seeded order the names know nothing of
    random.Random(0).shuffle(coin)
    stream = []
    for (f, x, y), heads in zip(pairs, coin):
        stream += [
            asked(f, "size-choice", x, y, answer_type="choice", relation="bigger", options=[x, y], answer=max(x, y, key=size.get)),
            asked(f, "support-yes/no", x, y, answer_type="yes/no", relation="on", answer=size[x] < size[y]),
            asked(f, "position-yes/no", x, y, answer_type="yes/no", relation="left", answer=heads),
        ]
    tally = AnswerTally(0)
    for q in stream:
        tally.add(q)
    made = report(0, tally)
    templates = {g["template"]: g for g in made["questions"]["templates"]}
    assert templates["size-choice"]["world_knowledge"] and templates["size-choice"]["text_prior"] > 0.9
    assert templates["support-yes/no"]["text_shortcut"] and not templates["support-yes/no"]["world_knowledge"]
    assert templates["support-yes/no"]["text_prior"] > 0.9 and templates["support-yes/no"]["text_chance"] == 0.5
    position = templates["position-yes/no"]
    assert not position["text_shortcut"] and abs(position["text_prior"] - 0.5) < 0.1, position
    rows = {line.split(" | ")[0][2:]: line for line in markdown(made).splitlines() if line.startswith("| ")}
    assert "| world knowledge |" in rows["size-choice"] and "| above guess |" in rows["support-yes/no"]
    assert "above guess" not in rows["position-yes/no"]
    assert "the text alone beats guessing on support-yes/no" in one_line(made)


def test_a_trick_count_names_a_kind_the_render_drew_its_scenes_from(tmp_path):
    """A trick kind from outside the render's object pool would be answered 0 by its name alone."""
    (tmp_path / "run.json").write_text(json.dumps({"runs": [{"scenes": {"pool": ["mug", "lamp", "fan", "vase"]}}]}))
    pool = drawn_from(tmp_path)
    assert pool == ("mug", "lamp", "fan", "vase") and drawn_from(None) is None
    record = random_scene(3, 2)
    asked = scene_questions(record, load_catalog(), forms=("questions",), pool=pool)
    tricks = [q["objects"][0] for q in asked if q["template"] == "count-kind" and q["relation"] == "absent"]
    assert tricks and set(tricks) <= set(pool)


def quantities(template: str, values: list[float], name_of=lambda k: "mug") -> list[dict]:
    """Length questions of one template, one scene (family) each, answered `values[k]` metres, naming `name_of(k)`."""
    made = []
    for k, metres in enumerate(values):
        said, name = stated(metres), name_of(k)
        made.append(
            {"qid": f"s{k}-q", "scene_id": f"s{k}", "template": template, "phrasing": 0, "skill": "distance", "level": "single",
             "frame": None, "answer_type": "quantity", "relation": "gap", "answer": said.stated, "unit": said.unit,
             "exact": said.exact, "objects": [name], "pair": None, "text": f"How far is the {name} from the bowl?"}
        )  # fmt: skip
    return made


def median_mra(questions: list[dict]) -> float:
    """What always giving the median value scores (mean relative accuracy)."""
    values = sorted(q["exact"]["value"] for q in questions)
    median = values[len(values) // 2]
    return sum(closeness(median, v, "length").mra for v in values) / len(values)


def test_balance_spreads_a_skewed_quantity_template_over_its_range():
    """A quantity's stated answers are near-unique: balanced as they are, nothing would change. Binned, the kept
    values spread over the template's range, so the typical value is a worse constant guess."""
    rng = random.Random(0)
    typical = [0.2 * math.exp(rng.gauss(0, 0.1)) for _ in range(2000)]  # most gaps near 20 cm, a few from 4 cm to 1 m
    stream = quantities("metric-gap", [*typical, *(math.exp(rng.uniform(math.log(0.04), 0)) for _ in range(1000))])
    plan = BalancePlan.of(stream, 0)
    kept = list(plan.kept(stream))
    shares = [Counter(plan.answer(q) for q in questions) for questions in (stream, kept)]
    assert set(shares[1]) == set(range(BINS)) and len(kept) > 0.25 * len(stream)
    assert max(shares[0].values()) / len(stream) > 0.35 and max(shares[1].values()) / len(kept) <= 1 / BINS + 0.02
    assert median_mra(kept) < median_mra(stream) - 0.2


def test_the_report_gives_quantities_a_numeric_text_baseline_and_marks_world_knowledge():
    """A regression on the words and names beats the median by far where the names tell the value: a world
    knowledge template (how tall a mug is) is marked so, another is marked as a shortcut; where the names tell
    nothing the regression scores about what the median does."""
    sizes = {"egg": 0.06, "apple": 0.08, "mug": 0.12, "bowl": 0.18, "book": 0.25, "laptop": 0.33}
    names = sorted(sizes)
    rng = random.Random(1)
    stream = [
        *quantities("metric-height", [sizes[names[k % 6]] for k in range(300)], lambda k: names[k % 6]),
        *quantities("metric-gap", [2 * sizes[names[k % 6]] for k in range(300)], lambda k: names[k % 6]),
        *quantities("metric-distance-centres", [math.exp(rng.uniform(math.log(0.05), math.log(1.5))) for _ in range(300)], lambda k: names[k % 6]),
    ]
    tally = AnswerTally(0)
    for q in stream:
        tally.add({**q, "qid": f"{q['template']}-{q['qid']}"})
    made = report(0, tally)
    templates = {g["template"]: g for g in made["questions"]["templates"]}
    height, gap, centres = (templates[t] for t in ("metric-height", "metric-gap", "metric-distance-centres"))
    assert height["world_knowledge"] and height["text_prior"] > 0.9 and height["text_chance"] < 0.5
    assert gap["text_shortcut"] and not gap["world_knowledge"] and gap["text_prior"] > gap["text_chance"] + 0.3
    assert not centres["text_shortcut"] and abs(centres["text_prior"] - centres["text_chance"]) < 0.05, centres
    assert made["questions"]["validation_questions"] == 0  # an MRA is no accuracy: the overall text prior leaves quantities out
    table = markdown(made).split("## Quantities")[1]
    rows = {line.split(" | ")[0][2:]: line for line in table.splitlines() if line.startswith("| metric")}
    assert "| world knowledge |" in rows["metric-height"] and "| above guess |" in rows["metric-gap"]
    assert "above guess" not in rows["metric-distance-centres"] and "text MRA" in table
    assert "the text alone beats guessing on metric-gap" in one_line(made)


def test_the_reader_samples_what_balance_kept_evenly():
    """The reader's sample of a template is drawn apart from balance's own draw: sharing it, the sample of a
    balanced template would be its questions of smallest draw, which every answer keeps, and so read the answers
    as they were before balancing."""
    stream = reader_stream(3000, lambda f, k: "mug", lambda f, k: 0 if f % 5 else 1)[::5]  # 80 % zero
    for q in stream:
        q["answer_type"] = "number"
    kept = list(BalancePlan.of(stream, 0).kept(stream))
    tally = AnswerTally(0)
    for q in kept:
        tally.add(q)
    group = report(0, tally)["questions"]["templates"][0]
    assert len(kept) > SAMPLE and group["best_constant"] == pytest.approx(0.5, abs=0.03)
    assert group["text_chance"] == pytest.approx(group["best_constant"], abs=0.04)


def turned_view(seed: int) -> tuple[dict, dict]:
    """A scene and another view of it, turned round its table: four objects (an apple on a book) whose left/right
    and front/behind pairs the turn keeps or turns round at random, with the real size and what stands on what."""
    rng = random.Random(seed)
    names = ["book", "apple", "mug", "lamp"]
    objects = [{**obj(n, 0.1 * i, 0.0, (0.1 + 0.05 * i,) * 3), "size_m": [0.1 + 0.05 * i] * 3} for i, n in enumerate(names)]
    first = scene(f"rnd{seed}-{seed:07d}", objects, camera={**look_at_camera((0.0, -2.2, 1.6), (0.0, 0.0, 0.8)), "azimuth_deg": 0.0})
    second = {**scene(f"{first['id']}-view2", objects, camera={**look_at_camera((1.1, -1.9, 1.6), (0.0, 0.0, 0.8)), "azimuth_deg": 30.0}),
              "view": {"of": first["id"]}}  # fmt: skip
    for record in (first, second):
        record["relations"] = {"on": [["apple", "book"]], "bigger": [[b, a] for a, b in itertools.combinations(names, 2)]}
    for key, converse in (("left_of", "right_of"), ("in_front_of", "behind")):
        first["relations"][key], second["relations"][key] = [], []
        for a, b in itertools.combinations(names, 2):
            turned = rng.random() < 0.3  # a turn keeps most pairs: left stays left
            first["relations"][key].append([a, b])
            second["relations"][key].append([b, a] if turned else [a, b])
        for record in (first, second):
            record["relations"][converse] = [[b, a] for a, b in record["relations"][key]]
    return first, second


def test_a_view_asks_what_still_holds_as_often_yes_as_no_per_relation_and_never_what_cannot_change():
    """Across two views left and right mostly stay, and on, in and which is bigger always do: balanced over every
    relation together, "still to the left of" read yes and "still bigger" was always yes."""
    asked = [q for seed in range(30) for q in view_questions(*turned_view(seed)) if q["template"] == "still-holds"]
    by = Counter((q["scene_id"], q["relation"], q["answer"]) for q in asked)
    assert {q["relation"] for q in asked} == {"left_of", "right_of", "in_front_of", "behind"} and len(asked) > 60
    for view, relation, answer in by:
        assert by[(view, relation, True)] == by[(view, relation, False)], (view, relation)


def touching_scene(seed: int) -> dict:
    """Five small things on the table, some pairs touching: a random record with its relations off the plane."""
    rng = random.Random(seed)
    names = rng.sample(["apple", "egg", "lemon", "strawberry", "tomato", "orange"], 5)
    objects = [obj(n, -0.4 + 0.2 * i, 0.0, (0.06, 0.06, 0.06)) for i, n in enumerate(names)]
    made = scene(f"rnd{seed}-{seed:07d}", objects)
    touching = [[a, b] for a, b in itertools.combinations(names, 2) if rng.random() < 0.3]
    made["relations"] = {"left_of": [], "in_front_of": [], "on": [], "inside": [], "above": [], "touching": [*touching, *([b, a] for a, b in touching)]}
    return made


def test_a_touching_pairs_order_says_nothing_of_its_answer():
    """A touching pair was asked in the order the scene lists its objects, and the pair apart beside it shares
    only one of them: the object listed first (a carrier, any object before the leftmost of several) came
    first in every yes and in few of the noes."""
    catalog, listed_first = load_catalog(), Counter()
    for seed in range(80):
        record = touching_scene(seed)
        order = [o["name"] for o in record["objects"]]
        ask = Asker(record["id"], "image", order, image=record["file_name"])
        skills.support(ask, SceneGeometry.from_record(record, catalog))
        for q in ask.made:
            x, y = q["objects"]
            listed_first[q["answer"], order.index(x) < order.index(y)] += 1
    for answer in (True, False):
        share = listed_first[answer, True] / (listed_first[answer, True] + listed_first[answer, False])
        assert 0.35 < share < 0.65, (answer, listed_first)


def test_a_carrier_hidden_only_by_its_load_is_not_asked_whether_it_is_hidden():
    """A book with an apple on it is partly hidden in nearly every scene that loads it: "is the book partly
    hidden?" would be yes by its name. A mug behind a lamp is asked (beside a visible object), and what hides
    part of the book still is."""
    objects = [
        obj("book", -0.3, 0.0, (0.25, 0.18, 0.05), visible=0.8),
        obj("apple", -0.3, 0.0, (0.08, 0.08, 0.08), visible=1.0),
        obj("mug", 0.3, 0.2, (0.12, 0.08, 0.1), visible=0.6),
        obj("lamp", 0.3, -0.1, (0.2, 0.2, 0.45), visible=1.0),
    ]
    objects[1]["box3d"]["center_m"][2] += 0.05
    for o, by in zip(objects, (["apple"], [], ["lamp"], [])):
        o["covered_by"] = by
    record = scene("rnd9-0000007", objects)
    relations = {"on": [["apple", "book"]], "inside": [], "above": [], "touching": [["apple", "book"], ["book", "apple"]]}
    record["relations"] = {"left_of": [], "in_front_of": [], **relations}
    asked = {q["qid"].split("-img-")[1]: q["answer"] for q in scene_questions(record, load_catalog()) if q["skill"] == "occlusion"}
    assert asked["occl-mug"] is True and False in {asked.get("occl-lamp"), asked.get("occl-apple")}
    assert "occl-book" not in asked and asked["occl-by-book"] == ["apple"]


def worded_stream(families: int, answer_of, wordings: list[str], **fields) -> list[dict]:
    """Questions of one template, a unit (a pair) per family: each of `wordings` (a `{x}` and `{y}` for the names)
    asked of two names drawn from twelve, answered `answer_of(f, k)` for the k-th wording of family f."""
    rng, names = random.Random(5), ["mug", "lamp", "fan", "vase", "book", "bowl", "egg", "apple", "kettle", "plate", "cup", "drill"]
    made = []
    for f in range(families):
        x, y = rng.sample(names, 2)
        for k, words in enumerate(wordings):
            made.append(
                {"qid": f"s{f}-w{k}", "scene_id": f"s{f}", "template": "t", "phrasing": 0, "skill": "position", "level": "single",
                 "frame": "viewer", "answer_type": "yes/no", "relation": "left", "answer": answer_of(f, k), "objects": [x, y],
                 "options": None, "pair": f"s{f}-w0", "text": words.format(x=x, y=y) + " Answer yes or no.", **fields}
            )  # fmt: skip
    return made


def test_balance_evens_the_answers_of_each_wording_as_well_as_of_the_template():
    """A template even as a whole may lean within a wording: "to the left of" mostly no and "in front of" mostly
    yes (the same answer across a change), or a turn asked from the first photo to the second mostly "right".
    Balanced, each wording's answers are even too, as a reader of the words alone would find them."""
    rng = random.Random(2)
    leaning = [rng.random() < 0.7 for _ in range(600)]
    stream = worded_stream(600, lambda f, k: leaning[f] if k == 0 else not leaning[f],
                           ["Is the answer to \"Is the {x} to the left of the {y}?\" the same?",
                            "Is the answer to \"Is the {x} in front of the {y}?\" the same?"])  # fmt: skip
    kept = list(BalancePlan.of(stream, 0).kept(stream))
    worded = defaultdict(Counter)
    for q in kept:
        worded["left" in q["text"]][q["answer"]] += 1
    assert len(kept) > 0.5 * len(stream)
    for counted in worded.values():
        assert max(counted.values()) / sum(counted.values()) <= 0.52, worded


def test_balance_leaves_no_cell_or_wording_with_one_answer():
    """A cell (skill, answer type, frame) whose few questions all give one answer gives it away, however even its
    template: it goes."""
    stream = worded_stream(200, lambda f, k: f % 2 == 0, ["Is the {x} to the left of the {y}?"])
    lone = [{**q, "qid": f"{q['qid']}-on", "frame": None, "relation": "on", "answer": True, "pair": None,
             "text": q["text"].replace("to the left of", "on")} for q in stream[:3]]  # fmt: skip
    mixed = [q for f in range(200) for q in (stream[f], *(lone[f:f + 1]))]
    kept = list(BalancePlan.of(mixed, 0).kept(mixed))
    cells = defaultdict(Counter)
    for q in kept:
        cells[(q["skill"], q["answer_type"], q["frame"])][q["answer"]] += 1
    viewer = cells[("position", "yes/no", "viewer")]
    assert min(viewer.values()) > 80 and max(viewer.values()) / sum(viewer.values()) <= 0.52, viewer
    assert all(len(answers) == 2 for answers in cells.values()), cells


def test_a_name_the_words_do_not_say_is_no_key_nor_read():
    """"What changed between the first image and the second?" names no object: the objects it concerns (two for a
    swap, one for a removal) are no text key, and the reader does not see them."""
    from tabletest.prompts.hierarchy.text_keys import text_keys
    from tabletest.prompts.hierarchy.text_only import said

    asked = {"template": "what-changed", "answer_type": "choice", "relation": "swap", "objects": ["mug", "lamp"],
             "options": ["swapped", "moved"], "answer": "swapped", "text": "What changed? Answer swapped or moved."}  # fmt: skip
    assert text_keys(asked) == [] and said(asked)[1] == ("", "")
    named = {**asked, "text": "Did the mug and the lamps swap? Answer swapped or moved."}
    assert [key[2:] for key in text_keys(named)] == [(0, "mug"), (1, "lamp")] and said(named)[1] == ("mug", "lamp")


def test_the_stronger_reader_reads_the_order_of_the_words():
    """Asked from the first photo to the second and back, a turn's answer is in the order of "first" and
    "second", which the balance report's reader of words cannot see and the stronger one (`ordered_features`,
    scripts/bench_text_prior.py) reads."""
    from tabletest.prompts.hierarchy.text_only import TextReader, ordered_features

    stream = []
    for f in range(300):
        for start, end, answer in (("first", "second", "right"), ("second", "first", "left")):
            stream.append({"qid": f"s{f}-{start}", "scene_id": f"s{f}", "template": "turn-way", "answer_type": "choice",
                           "options": ["left", "right"], "answer": answer, "objects": [], "relation": "turn",
                           "text": f"Between the {start} photo and the {end}, did it go left or right? Answer left or right."})  # fmt: skip
    accuracy = {}
    for name, reader in (("words", TextReader(0)), ("ordered", TextReader(0, ordered_features))):
        for q in stream:
            reader.add(q, q["scene_id"], ("turn-way",))
        n, right, _ = reader.scores()["turn-way"]
        accuracy[name] = right / n
    assert accuracy["words"] == pytest.approx(0.5, abs=0.1) and accuracy["ordered"] > 0.95, accuracy
