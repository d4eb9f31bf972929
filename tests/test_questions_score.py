"""Scoring the question hierarchy: the reader for every answer type, an oracle that answers from the scene
records scores 1.0 in every cell, always-"yes" and always-"left" responders score chance, and the
`tabletest questions` / `tabletest score` commands end to end."""

from __future__ import annotations

import csv
import json

import pytest
from test_questions import RANDOM, benchmark_records, expected, vignette_records

from tabletest.config import load_catalog
from tabletest.prompts.hierarchy.generate import scene_questions
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.score.lexicon import load_lexicon
from tabletest.score.questions import judge_question, score_questions
from tabletest.score.questions_report import cells, consistency

LEXICON = load_lexicon(load_catalog())
WORDS = ["none", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
UNITS = {"cm": ["cm", "centimetres"], "m": ["m", "metres"], "deg": ["degrees", "°"]}


def q(answer_type: str, answer, options=None, scene=("mug", "lamp", "banana")) -> dict:
    return {"answer_type": answer_type, "answer": answer, "options": options, "scene_objects": list(scene)}


@pytest.mark.parametrize(
    ("question", "response", "status"),
    [
        (q("yes/no", True), "Yes, it is.", "correct"),
        (q("yes/no", True), "It is not.", "unparsed"),
        (q("yes/no", False), "No.", "correct"),
        (q("yes/no", False), "That is true.", "wrong"),
        (q("number", 3), "There are three.", "correct"),
        (q("number", 3), "3 objects", "correct"),
        (q("number", 0), "There are no mugs on the table.", "correct"),
        (q("number", 0), "None.", "correct"),
        (q("number", 2), "Yes.", "unparsed"),
        (q("choice", "left", ["left", "right"]), "It is on the left.", "correct"),
        (q("choice", "left", ["left", "right"]), "It is not to the right.", "correct"),
        (q("choice", "left", ["left", "right"]), "Left or right?", "wrong"),  # a hedge: the worse of the two
        (q("choice", "left", ["left", "right"]), "That's right, it is to the right.", "wrong"),
        (q("choice", "behind", ["in front", "behind"]), "Behind it.", "correct"),
        (q("choice", "in front", ["in front", "behind"]), "In front of the lamp.", "correct"),
        (q("choice", "mug", ["mug", "lamp"]), "The cup.", "correct"),
        (q("choice", "mug", ["mug", "lamp"]), "The mug, not the lamp.", "correct"),
        (q("choice", "mug", ["mug", "lamp"]), "The lamp is.", "wrong"),
        (q("choice", "on top of", ["on top of", "under"]), "On top of.", "correct"),
        (q("choice", "under", ["on top of", "under"]), "It is underneath the book.", "correct"),
        (q("choice", "holding", ["inside", "holding"]), "The bowl is holding it.", "correct"),
        (q("choice", "inside", ["inside", "holding"]), "Holding.", "wrong"),
        (q("choice", "below", ["above", "below"]), "Below.", "correct"),
        (q("names", ["mug", "lamp"]), "The lamp and the coffee cup.", "correct"),
        (q("names", ["mug"]), "The mug and the banana.", "wrong"),
        (q("names", ["mug"]), "I cannot tell.", "unparsed"),
        (q("yes/no", True), "", "unparsed"),
    ],
)
def test_reader_handles_every_answer_type(question, response, status):
    assert judge_question(question, response, LEXICON).status == status


def quantity(truth_m: float, unit: str = "cm") -> dict:
    stated = round(truth_m * 100, 1) if unit == "cm" else truth_m
    return {**q("quantity", stated), "unit": unit, "exact": {"value": truth_m, "unit": "deg" if unit == "deg" else "m"}}


@pytest.mark.parametrize(
    ("question", "response"),
    [
        (q("yes/no", True), "Yes and no."),
        (q("yes/no", True), "Yes. Or no."),
        (q("yes/no", False), "True, or false."),
        (q("number", 1), "1, 2, 3, 4, 5"),
        (q("number", 5), "-5"),
        (q("number", 5), "5.5"),
        (q("number", 5), "5 or 11 o'clock"),
        (q("number", 11), "5 or 11 o'clock"),
        (q("number", 2), "Two, maybe three."),
        (q("choice", "right", ["left", "right"]), "It did not go to the right."),
        (q("choice", "left", ["left", "right"]), "Left, or perhaps right."),
        (q("choice", "in front", ["in front", "behind"]), "It is in front or behind."),
        (q("choice", "mug", ["mug", "lamp"]), "The mug or the lamp."),
        (quantity(0.234), "0 cm or 47 cm"),
        (quantity(0.234), "between 1 and 46 cm"),
        (quantity(0.234), "-977 to 1024 cm"),
        (quantity(0.234), "23 cm, 50 cm, 80 cm"),
        (quantity(0.234), "23 cm ± 400 cm"),
        (quantity(0.234), "23 cm, or 47"),
        (quantity(14, "deg"), "0 to 28 degrees"),
    ],
)
def test_a_hedge_scores_as_the_worst_of_the_values_it_names(question, response):
    judged = judge_question(question, response, LEXICON)
    assert judged.status == "wrong", judged
    if question["answer_type"] == "quantity":
        assert judged.mra == 0.0 or judged.mra < 0.5 and not judged.within_2x, judged


@pytest.mark.parametrize(
    ("question", "response"),
    [
        (q("yes/no", True), "Yes, that is correct."),
        (q("yes/no", False), "No, it is not."),
        (q("number", 5), "5 o'clock."),
        (q("number", 2), "Two. The one on the left is red."),
        (q("choice", "left", ["left", "right"]), "It did not go to the right."),
        (q("choice", "left", ["left", "right"]), "It isn't on the right, it is on the left."),
        (quantity(0.234), "About 23 cm (0.23 m)."),
        (quantity(0.234), "<think>It could be 10 cm or 40 cm; the mug is wider.</think><answer>23 cm</answer>"),
    ],
)
def test_one_committed_answer_is_still_read_as_it_is_meant(question, response):
    assert judge_question(question, response, LEXICON).status == "correct"


def spoken(question: dict, answer, k: int) -> str:
    """An answer in the way people write them, varied by k: words or digits, synonyms, sentences."""
    kind = question["answer_type"]
    if kind == "yes/no":
        return ["Yes, it is.", "True."][k % 2] if answer else ["No, it is not.", "False."][k % 2]
    if kind == "number":
        return f"There are {WORDS[answer] if k % 2 else answer}."
    if kind == "quantity":
        return f"{['About', 'Roughly'][k % 2]} {answer} {UNITS[question['unit']][k % 2]}."
    if kind == "names":
        return " and ".join(f"the {n}" for n in answer).capitalize() + "." if answer else "None."
    if answer in question["scene_objects"]:
        return f"The {'cup' if answer == 'mug' else answer} is."
    return f"It is {answer} of it." if answer in ("left", "right") else f"It is {answer}."


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hierarchy-score")
    records = RANDOM + benchmark_records()
    asked = [(r, x) for r in records for x in scene_questions(r, load_catalog(), seed=0)]
    write(folder / "questions.jsonl", [x for _, x in asked])
    write(
        folder / "oracle.jsonl",
        [{"qid": x["qid"], "response": spoken(x, expected(r, x), i)} for i, (r, x) in enumerate(asked)],
    )
    write(folder / "always-yes.jsonl", [{"qid": x["qid"], "response": "Yes."} for _, x in asked])
    write(folder / "always-left.jsonl", [{"qid": x["qid"], "response": "Left."} for _, x in asked])
    rows, unanswered = score_questions(
        [folder / "questions.jsonl"],
        [folder / "oracle.jsonl", folder / "always-yes.jsonl", folder / "always-left.jsonl"],
        LEXICON,
    )
    return folder, rows, unanswered


def test_oracle_scores_one_in_every_cell(scored):
    _, rows, unanswered = scored
    assert unanswered == 0
    oracle = [c for c in cells(rows) if c["model"] == "oracle"]
    assert {c["dimension"] for c in oracle} == {"level", "skill", "frame", "hops", "form", "modality", "phrasing", "template"}
    assert {c["value"] for c in oracle if c["dimension"] == "level"} == {"single", "multi", "reasoning"}
    assert all(c["accuracy"] == 1.0 for c in oracle), [c for c in oracle if c["accuracy"] < 1]
    assert consistency(rows)[2]["share"] == 1.0  # oracle


def test_always_yes_and_always_left_score_chance_in_every_cell_they_can_answer(scored):
    _, rows, _ = scored
    table = cells(rows)
    yes = [c for c in table if c["model"] == "always-yes" and c["answer"] == "yes/no"]
    left = [c for c in table if c["model"] == "always-left" and c["answer"] == "choice: left/right"]
    assert yes and left
    assert all(c["accuracy"] == c["chance"] == 0.5 for c in yes + left)
    others = [c for c in table if c["model"] == "always-yes" and c["answer"] != "yes/no"]
    assert all(c["accuracy"] == 0 and c["unparsed"] == c["n"] for c in others)  # "yes" answers no other question
    agree = {a["model"]: a["share"] for a in consistency(rows)}
    assert agree["always-yes"] == 0.0  # yes to a question and to its inverse


def test_questions_and_score_commands_end_to_end(cli, tmp_path):
    bench = tmp_path / "render"
    bench.mkdir()
    write(bench / "metadata.jsonl", benchmark_records()[:3])
    made = cli("questions", "--from", str(bench), "--out", str(tmp_path / "q.jsonl"))
    assert made.returncode == 0, made.stderr
    questions = [json.loads(line) for line in (tmp_path / "q.jsonl").read_text().splitlines()]
    assert {x["modality"] for x in questions} == {"image", "text"} and {x["form"] for x in questions} == {
        "question", "caption", "story"
    }  # fmt: skip
    write(tmp_path / "oracle.jsonl", [{"qid": x["qid"], "response": gold_text(x)} for x in questions])
    done = cli(
        "score",
        "--prompts",
        str(tmp_path / "q.jsonl"),
        "--responses",
        str(tmp_path / "oracle.jsonl"),
        "--out",
        str(tmp_path / "rep"),
    )
    assert done.returncode == 0, done.stderr
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "## By level" in report and "## By hops" in report and "Consistency" in report
    with open(tmp_path / "rep" / "accuracy.csv") as fh:
        assert {float(r["accuracy"]) for r in csv.DictReader(fh)} == {1.0}


def test_command_refuses_bad_input_in_one_line(cli, tmp_path):
    write(tmp_path / "v.jsonl", vignette_records()[:1])
    bad = cli("questions", "--from", str(tmp_path / "v.jsonl"), "--forms", "questions,riddles")
    assert bad.returncode == 2 and bad.stderr.startswith("error: --forms") and bad.stderr.count("\n") == 1
    made = cli(
        "questions", "--from", str(tmp_path / "v.jsonl"), "--forms", "stories", "--out", str(tmp_path / "q.jsonl")
    )
    assert made.returncode == 0 and {
        json.loads(x)["form"] for x in (tmp_path / "q.jsonl").read_text().splitlines()
    } == {"story"}
    write(tmp_path / "bare.jsonl", [{"id": "rnd0-0000000", "objects": [{"name": "mug"}]}])
    bare = cli("questions", "--from", str(tmp_path / "bare.jsonl"))
    assert bare.returncode == 2 and "line 1 is not a random vignette: objects.0 {'name': 'mug'}: Input should be a valid string" in bare.stderr
    assert bare.stderr.count("\n") == 1
    write(tmp_path / "study.jsonl", [{"qid": "x", "scene_id": "2obj-000000", "prompt_type": 1}])
    write(tmp_path / "r.jsonl", [{"qid": "x", "response": "yes"}])
    mixed = cli(
        "score",
        "--prompts",
        str(tmp_path / "q.jsonl"),
        "--prompts",
        str(tmp_path / "study.jsonl"),
        "--responses",
        str(tmp_path / "r.jsonl"),
    )
    assert mixed.returncode == 2 and "mixes" in mixed.stderr and mixed.stderr.count("\n") == 1


def test_has_front_is_validated_and_false_by_default(tmp_path):
    from tabletest.config import load_catalog as load
    from tabletest.errors import UserError

    path = tmp_path / "objects.yaml"
    path.write_text("objects:\n  - {name: mug, kind: artifact, group: kitchen, size_m: 0.12}\n")
    assert load(path).objects[0].has_front is False
    path.write_text("objects:\n  - {name: mug, kind: artifact, group: kitchen, size_m: 0.12, has_front: maybe}\n")
    with pytest.raises(UserError, match=r"objects\[0\] \('mug'\)\.has_front"):
        load(path)
    assert {"teddy bear", "laptop", "camera"} <= {o.name for o in load_catalog().objects if o.has_front}
    assert not load_catalog().by_name("mug").has_front


@pytest.fixture
def question_file(cli, tmp_path) -> list[dict]:
    """Questions about three benchmark scenes, written by `tabletest questions` to q.jsonl."""
    bench = tmp_path / "render"
    bench.mkdir()
    write(bench / "metadata.jsonl", benchmark_records()[:3])
    assert cli("questions", "--from", str(bench), "--out", str(tmp_path / "q.jsonl")).returncode == 0
    return [json.loads(line) for line in (tmp_path / "q.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    "tamper, message",
    [
        (lambda x: x.update(answer_type="essay"), "answer_type 'essay' is none of yes/no, number, choice, names"),
        (lambda x: x.update(answer_type="choice", options=None), "a choice question needs options"),
        (lambda x: x.update(answer_type="choice", options=["up", "down"]), "a choice question needs options"),
        (lambda x: x.update(answer_type="number", answer="three"), "the answer 'three' is not a number answer"),
        (lambda x: x.update(answer_type="names", answer=[1]), "the answer is not a list of names"),
        (lambda x: x.update(qid=["a", "b"]), "qid ['a', 'b'] is not a string"),
        (lambda x: x.update(scene_objects=None), "scene_objects is not a list of names"),
    ],
)
def test_a_question_that_cannot_be_judged_is_named_in_one_line(cli, tmp_path, question_file, tamper, message):
    tamper(question_file[4])
    write(tmp_path / "bad.jsonl", question_file)
    write(tmp_path / "r.jsonl", [{"qid": x["qid"], "response": "yes"} for x in question_file if isinstance(x["qid"], str)])
    result = cli("score", "--prompts", str(tmp_path / "bad.jsonl"), "--responses", str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "rep"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: {tmp_path / 'bad.jsonl'}: line 5: {message}"), result.stderr


def test_a_line_too_long_to_be_a_record_is_refused_without_reading_it_all(cli, tmp_path, question_file):
    write(tmp_path / "r.jsonl", [{"qid": question_file[0]["qid"], "response": "yes"}])
    with open(tmp_path / "long.jsonl", "w") as fh:
        fh.write(json.dumps(question_file[0]) + "\n" + '{"qid": "' + "x" * (17 << 20) + '"}\n')
    result = cli("score", "--prompts", str(tmp_path / "long.jsonl"), "--responses", str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "rep"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr[:300]
    assert result.stderr.startswith(f"error: {tmp_path / 'long.jsonl'}: line 2 is longer than 16 MiB"), result.stderr[:300]


def test_model_names_and_answers_cannot_break_the_report_or_run_in_a_spreadsheet(cli, tmp_path, question_file):
    model = "evil | model\nname"
    answers = [{"qid": x["qid"], "model": model, "response": "=HYPERLINK(\"http://x\")" if i % 2 else "-3"} for i, x in enumerate(question_file)]
    write(tmp_path / "r.jsonl", answers)
    result = cli("score", "--prompts", str(tmp_path / "q.jsonl"), "--responses", str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "rep"))
    assert result.returncode == 0, result.stderr
    report = (tmp_path / "rep" / "report.md").read_text()
    for block in report.split("\n\n"):  # every row of every table has as many cells as its header
        rows = [line for line in block.splitlines() if line.startswith("|")]
        assert len({row.replace("\\|", "").count("|") for row in rows}) <= 1, rows
    assert "evil \\| model name" in report
    with open(tmp_path / "rep" / "scored.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["response"] for r in rows} == {"'=HYPERLINK(\"http://x\")", "-3"}  # a plain number stays a number
    assert {r["model"] for r in rows} == {model}
