"""The rewards judge as `tabletest score` does, answer by answer, in TRL's and verl's signatures; the RL and
preference exports load with `datasets`, carry the columns the rewards read and each row's family, and their
rejected answers are real hard negatives (wrong here, right in a partner, a view or the opposite frame)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from test_one_judge import answered  # noqa: F401  (the fixture: questions of real records with golds and hedges)

from conftest import REPO
from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.rewards import accuracy_reward, compute_score, format_reward
from tabletest.score.answer import judge_answer, judged_fields
from tabletest.score.lexicon import load_lexicon

LEXICON = load_lexicon(load_catalog())
GOLDEN = REPO / "tests" / "fixtures" / "random-golden"


def truth(question: dict) -> str:
    return json.dumps(judged_fields(question))


def test_every_reward_is_the_one_judges_score_as_strings_and_as_chat_messages(answered):  # noqa: F811
    near = [(q, f"{q['answer'] * 1.15:g} {q['unit']}") for q, _ in answered if q["answer_type"] == "quantity"]  # 15 % off
    answered = answered + near
    questions, responses = [q for q, _ in answered], [r for _, r in answered]
    scores = [judge_answer(q, r, LEXICON).score for q, r in answered]
    truths = [truth(q) for q in questions]
    assert accuracy_reward(completions=responses, ground_truth=truths, prompts=["p"] * len(truths)) == scores
    as_chat = [[{"role": "assistant", "content": r}] for r in responses]
    assert accuracy_reward(completions=as_chat, ground_truth=truths) == scores
    as_parts = [[{"role": "assistant", "content": [{"type": "text", "text": r}]}] for r in responses]
    assert accuracy_reward(completions=as_parts, ground_truth=truths) == scores
    assert [compute_score("tabletest", r, t, {"qid": "x"}) for r, t in zip(responses, truths)] == scores
    assert any(0 < s < 1 for s in scores) and 0 in scores and 1 in scores  # partial credit for lengths, 1s and 0s


@pytest.mark.parametrize(
    ("completion", "answer_format", "reward"),
    [
        ("Yes.", "plain", 1.0),
        ("No.", "plain", 1.0),  # wrong, but in the form asked
        ("Yes and no.", "plain", 0.0),  # a hedge
        ("Perhaps.", "plain", 0.0),  # no answer
        ("<think>The mug stands left of the lamp.</think> <answer>Yes</answer>", "think-answer", 1.0),
        ("<think>The mug stands left.</think><answer>No</answer>", "think-answer", 1.0),
        ("<answer>Yes</answer>", "think-answer", 0.0),  # no reasoning first
        ("<think>a</think><answer>Yes</answer><answer>No</answer>", "think-answer", 0.0),
        ("<think>a</think><answer>Yes</answer> and more", "think-answer", 0.0),
        ("Yes.", "think-answer", 0.0),
    ],
)
def test_format_reward_asks_for_the_form_the_prompt_asked_for(completion, answer_format, reward):
    question = {"qid": "q", "scene_id": "s", "skill": "position", "level": "single", "frame": "viewer",
                "answer_type": "yes/no", "answer": True, "scene_objects": ["mug", "lamp"]}  # fmt: skip
    assert format_reward(completions=[completion], ground_truth=[truth(question)], answer_format=[answer_format]) == [reward]


def test_a_ground_truth_that_is_no_question_is_one_clear_error():
    with pytest.raises(UserError, match="ground_truth 'not json' is not a question's record as JSON"):
        accuracy_reward(completions=["Yes."], ground_truth=["not json"])
    with pytest.raises(UserError, match="record 'q': no field 'scene_id', 'skill', 'level', 'frame', 'scene_objects'"):
        compute_score("tabletest", "Yes.", {"qid": "q", "answer_type": "yes/no", "answer": True})


def test_the_rewards_import_without_torch():
    code = "import sys, tabletest.rewards; print(sorted(m for m in ('torch', 'trl', 'transformers', 'bpy') if m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """The golden random render exported as trl, verl and dpo: hierarchy questions about the images, and the
    study's about the vignettes."""
    import datasets

    out = tmp_path_factory.mktemp("rl")
    made = {}
    for name, extra in {
        "trl": ["--format", "trl", "--questions", "hierarchy", "--split-by", "scene", "--val-fraction", "0.5"],
        "verl": ["--format", "verl", "--questions", "hierarchy", "--reasoning"],
        "dpo": ["--format", "dpo", "--questions", "hierarchy"],
        "dpo-study": ["--format", "dpo", "--modality", "text"],
    }.items():
        command = [sys.executable, "-m", "tabletest.cli", "export", "--dataset", str(GOLDEN), "--out", str(out / name), *extra]
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        made[name] = datasets.load_dataset(str(out / name))
    return made


def test_trl_rows_carry_the_columns_the_rewards_read_and_their_gold_earns_the_full_reward(exports):
    for split, rows in exports["trl"].items():
        assert set(rows.column_names) >= {"prompt", "images", "solution", "ground_truth", "answer_format", "group", "qid"}
        assert all(len(r["images"]) >= 1 and r["prompt"][0]["role"] == "user" for r in rows.select(range(5)))
        assert set(accuracy_reward(completions=rows["solution"], ground_truth=rows["ground_truth"])) == {1.0}
        assert set(format_reward(**{k: rows[k] for k in ("ground_truth", "answer_format")}, completions=rows["solution"])) == {1.0}
    groups = {split: set(rows["group"]) for split, rows in exports["trl"].items()}
    assert not groups["train"] & groups["validation"]  # a family stays on one side


def test_verl_rows_are_in_verls_layout_and_compute_score_reads_them(exports):
    rows = exports["verl"]["train"]
    row = rows[0]
    assert row["data_source"] == "tabletest" and row["reward_model"]["style"] == "rule"
    assert row["prompt"][0]["content"].startswith("<image>") and row["prompt"][0]["content"].endswith("</answer>.")
    assert row["extra_info"]["answer_format"] == "think-answer" and row["extra_info"]["group"]
    golds = [json.loads(r["reward_model"]["ground_truth"]) for r in rows.select(range(0, len(rows), 7))]
    for gold in golds:
        assert compute_score("tabletest", f"<think>x</think><answer>{judge_gold(gold)}</answer>", gold) == 1.0


def judge_gold(question: dict) -> str:
    from tabletest.prompts.hierarchy.record import gold_text

    return gold_text(question)


def test_every_dpo_pair_chooses_the_gold_and_rejects_a_wrong_answer_that_is_right_elsewhere(exports):
    for name in ("dpo", "dpo-study"):
        rows = exports[name]["train"]
        assert len(rows) > 100
        assert {n.split(" ")[0] for n in rows["negative"]} == {"opposite" if name == "dpo" else "mirror"}
        for row in rows:
            assert_hard_negative(row, QUESTIONS[row["qid"]])


def assert_hard_negative(row: dict, question: dict) -> None:
    assert judge_answer(question, row["chosen"][0]["content"], LEXICON).correct, row
    rejected = judge_answer(question, row["rejected"][0]["content"], LEXICON)
    assert rejected.status == "wrong" and not rejected.hedged, (row, rejected)


@pytest.mark.render
def test_a_partners_or_views_answer_is_the_rejected_one_where_it_differs(cli, tmp_path, builtin_assets, one_look):
    out = tmp_path / "family"
    render = cli("render", "--scenes", "random", "--count", "2", "--seed", "3", "--counterfactuals", "swap,move", "--views", "2",
                 "--resolution", "64x48", "--samples", "1", "--assets", str(builtin_assets), "--out", str(out),
                 "--random-config", str(one_look))  # fmt: skip (looks off: the scenes it pins)
    assert render.returncode == 0, render.stderr
    exported = cli("export", "--dataset", str(out), "--format", "dpo", "--questions", "hierarchy", "--out", str(tmp_path / "dpo"))
    assert exported.returncode == 0, exported.stderr
    asked = cli("questions", "--dataset", str(out), "--image-only", "--out", str(tmp_path / "q.jsonl"))
    assert asked.returncode == 0, asked.stderr
    questions = {q["qid"]: q for q in map(json.loads, (tmp_path / "q.jsonl").read_text().splitlines())}
    import datasets

    rows = datasets.load_dataset(str(tmp_path / "dpo"), split="train")
    kinds = {n.split(" ")[0] for n in rows["negative"]}
    assert {"partner:", "view", "scene", "opposite"} <= kinds, kinds
    for row in rows:
        assert_hard_negative(row, questions[row["qid"]])
        assert row["group"] == row["scene_id"][:12]  # rnd3-0000001-swap's family is rnd3-0000001


QUESTIONS: dict[str, dict] = {}


@pytest.fixture(scope="module", autouse=True)
def questions_by_qid(tmp_path_factory):
    """Every question `tabletest questions` asks of the golden render (about its images and its vignettes), by id."""
    out = tmp_path_factory.mktemp("questions") / "q.jsonl"
    for extra in ([], ["--text-only"]):
        command = [sys.executable, "-m", "tabletest.cli", "questions", "--dataset", str(GOLDEN), "--out", str(out), *extra]
        subprocess.run(command, check=True, capture_output=True)
        QUESTIONS.update((q["qid"], q) for q in map(json.loads, out.read_text().splitlines()))
    from tabletest.prompts.battery import PROMPT_TYPES, scene_queries
    from tabletest.prompts.sources import scene_input

    for line in (GOLDEN / "metadata.jsonl").read_text().splitlines():
        for query in scene_queries(scene_input(json.loads(line)), PROMPT_TYPES, "paper", "text", 0):
            QUESTIONS[query["qid"]] = query


def test_two_exports_in_folders_of_one_name_load_their_own_rows(exports, cli, tmp_path):
    """`datasets` keys its cache of a local folder by the folder's name and card: a card that tells the files apart
    keeps a second export from loading the first one's rows."""
    import datasets

    other = tmp_path / "trl"  # the same folder name as the `exports` fixture's trl export
    result = cli("export", "--dataset", str(GOLDEN), "--format", "trl", "--questions", "hierarchy", "--modality", "text",
                 "--out", str(other))  # fmt: skip
    assert result.returncode == 0, result.stderr
    loaded = datasets.load_dataset(str(other), split="train")
    assert "images" not in loaded.column_names and len(loaded) < len(exports["trl"]["train"])
