"""One judge: `tabletest score`, the lmms-eval hook and VLMEvalKit's prediction files judge every answer alike,
answer by answer; a hedge scores as the worst of the values it names in each of them; and a record none of
them can judge is refused in one line by each, never judged by accident."""

from __future__ import annotations

import csv
import json

import pytest
from test_questions import RANDOM, benchmark_records
from test_score_parse import query

from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.export.lmms_task_utils import process_results
from tabletest.prompts.hierarchy.generate import scene_questions
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.score.answer import judge_answer
from tabletest.score.lexicon import load_lexicon
from tabletest.truth.top_down import CELLS

CATALOG = load_catalog()
LEXICON = load_lexicon(CATALOG)


def hedges(question: dict) -> list[str]:
    """Answers that name the gold and something else besides, as a model gaming a reward would."""
    kind, answer = question["answer_type"], question["answer"]
    if kind == "yes/no":
        return ["Yes and no.", "No. Or yes."]
    if kind == "number":
        denied = [f"Not {answer}.", f"There aren't {answer}."]  # a denied number is no answer, as a denied option is none
        return [f"{answer} or {answer + 1}", f"{answer}, {answer + 2}, {answer + 3}", f"{answer}.5", *denied] + [f"-{answer}"] * (answer > 0)
    if kind == "quantity":
        unit = {"cm": "cm", "m": "m", "deg": "degrees"}[question["unit"]]
        stated = question["answer"]
        return [f"0 {unit} or {stated * 2 + 20:g} {unit}", f"between 1 and {stated * 2 + 20:g} {unit}", f"{stated:g} {unit} ± 400 {unit}"]
    if kind == "names":
        others = [o for o in question["scene_objects"] if o not in answer]
        return [" and ".join(f"the {n}" for n in [*answer, others[0]]) + "."] if others else []
    if kind == "cell":
        other = next(c for c in CELLS if c != answer)
        return [f"{answer.capitalize()} or {other}.", f"The {other} cell, or the {answer} one."]
    if kind == "point":
        return [f"{gold_text(question)} or (-5, -5)", f"[{-5}, {-5}], {gold_text(question)}"]
    if kind == "box":
        return [f"{gold_text(question)} [0, 0, 1, 1]"]
    others = [o for o in question["options"] if o != answer]
    joined = " or ".join(f"the {o}" if o in question["scene_objects"] else o for o in [answer, *others])
    return [f"{joined[0].upper()}{joined[1:]}."]


@pytest.fixture(scope="module")
def answered() -> list[tuple[dict, str]]:
    """Questions of real records, each with its gold answer, its hedges and another option's answer."""
    pairs = []
    for record in RANDOM[:4] + benchmark_records()[:2]:
        for question in scene_questions(record, CATALOG, seed=0):
            pairs += [(question, gold_text(question))] + [(question, hedge) for hedge in hedges(question)]
    return pairs


def test_every_hedge_scores_as_its_worst_value_and_every_gold_as_correct(answered):
    for question, response in answered:
        judged = judge_answer(question, response, LEXICON)
        if response == gold_text(question):
            assert judged.correct and judged.score == 1.0, (question["qid"], response, judged)
        else:
            assert not judged.correct and judged.score < 0.5, (question["qid"], response, judged)


def test_score_and_the_harness_hooks_judge_every_answer_alike(answered, cli, tmp_path):
    """The same answers through the lmms-eval hook, `tabletest score` on a responses file and `tabletest score` on
    VLMEvalKit's prediction file: every status, MRA and within-2x equal the one judge's."""
    questions = {q["qid"]: q for q, _ in answered}
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions.values()))
    by_model: dict[str, dict[str, str]] = {}
    for question, response in answered:  # one answer per question and model: the n-th answer to a question is model n
        model = next(f"m{n}" for n in range(99) if question["qid"] not in by_model.setdefault(f"m{n}", {}))
        by_model[model][question["qid"]] = response
    for model, responses in by_model.items():
        with (tmp_path / f"{model}.jsonl").open("w") as fh:
            fh.writelines(json.dumps({"qid": qid, "response": r}) + "\n" for qid, r in responses.items())
        with (tmp_path / f"vlmeval{model}_TableTest_all_OpenEnded.tsv").open("w", newline="") as fh:
            writer = csv.writer(fh, delimiter="\t")
            writer.writerow(["index", "question", "answer", "qid", "prediction"])
            writer.writerows([i, questions[qid]["text"], "", qid, r] for i, (qid, r) in enumerate(responses.items()))
    files = [str(p) for p in sorted(tmp_path.glob("m*.jsonl")) + sorted(tmp_path.glob("*.tsv"))]
    result = cli("score", "--prompts", str(tmp_path / "questions.jsonl"), *sum((["--responses", f] for f in files), []),
                 "--out", str(tmp_path / "report"))  # fmt: skip
    assert result.returncode == 0, result.stderr
    with (tmp_path / "report" / "scored.csv").open() as fh:
        scored = {(row["model"], row["qid"]): row for row in csv.DictReader(fh)}
    for model, responses in by_model.items():
        for qid, response in responses.items():
            judged = judge_answer(questions[qid], response, LEXICON)
            hook = process_results(questions[qid], [response])
            assert hook["accuracy"] == float(judged.correct) and hook.get("mra") == judged.mra, (qid, response)
            for name in (model, f"vlmeval{model}"):
                row = scored[(name, qid)]
                assert row["status"] == judged.status, (name, qid, response, row, judged)
                if judged.mra is not None:
                    assert float(row["mra"]) == judged.mra and float(row["within_2x"]) == judged.within_2x


STUDY_ANSWERS = [("True.", "correct"), ("True and false.", "wrong"), ("A", "correct"), ("A or B", "wrong"), ("A. B.", "wrong")]


def test_a_study_query_is_judged_alike_by_score_the_hook_and_a_prediction_file(cli, tmp_path):
    record = query(1, relation="left", truth=True)
    (tmp_path / "prompts.jsonl").write_text(json.dumps(record) + "\n")
    for n, (response, _) in enumerate(STUDY_ANSWERS):
        with (tmp_path / f"m{n}_TableTest_MCQ.tsv").open("w", newline="") as fh:
            csv.writer(fh, delimiter="\t").writerows([["index", "qid", "A", "B", "prediction"], [0, record["qid"], "True", "False", response]])
    files = sum((["--responses", str(p)] for p in sorted(tmp_path.glob("*.tsv"))), [])
    result = cli("score", "--prompts", str(tmp_path / "prompts.jsonl"), *files, "--out", str(tmp_path / "report"))
    assert result.returncode == 0, result.stderr
    with (tmp_path / "report" / "scored.csv").open() as fh:
        statuses = {row["model"]: row["status"] for row in csv.DictReader(fh)}
    assert statuses == {f"m{n}": status for n, (_, status) in enumerate(STUDY_ANSWERS)}
    for response, status in STUDY_ANSWERS[:2]:  # a letter is an option only in a prediction file, which names the options
        assert judge_answer(record, response, LEXICON).status == status
        assert process_results(record, [response])["accuracy"] == float(status == "correct")


QUANTITY = {
    "qid": "s0-img-distance-cm-mug-lamp", "scene_id": "s0", "text": "How far apart are the mug and the lamp?",
    "skill": "distance", "level": "single", "frame": None, "answer_type": "quantity", "answer": 23, "unit": "cm",
    "exact": {"value": 0.23172, "unit": "m"}, "objects": ["mug", "lamp"], "scene_objects": ["mug", "lamp"],
}  # fmt: skip


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({**QUANTITY, "exact": {"value": 0, "unit": "m"}, "answer": 0}, "the exact length 0 m is not above 0"),
        ({**QUANTITY, "exact": {"value": -0.23, "unit": "m"}, "answer": -23}, "the exact length -0.23 m is not above 0"),
        ({k: v for k, v in QUANTITY.items() if k != "unit"}, "unit None is none of cm, m, deg"),
        ({k: v for k, v in QUANTITY.items() if k != "scene_objects"}, "no field 'scene_objects'"),
        ({**QUANTITY, "answer_type": "points"}, "answer_type 'points' is none of"),
        ({**query(1, relation="left", truth=True), "answer": {"names": None}}, "the answer's truth None is not true or false"),
        ({**query(4, object_order="AB", relation_order="left_first"), "answer": {"relation": "up"}}, "relation 'up' is neither"),
        ({**query(2), "variation": {}}, "variation.option_order None is not an order"),
        ({**query(6, relation="left"), "prompt_type": 9}, "prompt_type 9 is none of 1-8"),
        ([], "is list, not a JSON object"),
    ],
)
def test_a_record_no_judge_can_judge_is_refused_by_each_in_one_line(record, message, cli, tmp_path):
    with pytest.raises(UserError, match=message.replace("(", r"\(")):
        judge_answer(record, "23 cm", LEXICON)
    with pytest.raises(UserError, match=message.replace("(", r"\(")):
        process_results(record, ["23 cm"])
    if isinstance(record, dict) and "qid" in record:
        (tmp_path / "q.jsonl").write_text(json.dumps(record) + "\n")
        (tmp_path / "r.jsonl").write_text(json.dumps({"qid": record["qid"], "response": "23 cm"}) + "\n")
        result = cli("score", "--prompts", str(tmp_path / "q.jsonl"), "--responses", str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "rep"))
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


def test_a_number_the_answer_denies_is_not_read_and_the_one_it_gives_is(answered):
    """"Not 4, but 3" answers 3; "it is not 3" answers nothing."""
    numbers = [q for q, response in answered if q["answer_type"] == "number" and response == gold_text(q)]
    assert numbers
    for question in numbers:
        gold = question["answer"]
        for response, right in ((f"Not {gold + 1}, but {gold}.", True), (f"It isn't {gold + 1}; it is {gold}.", True),
                                (f"It is not {gold}.", False), (f"{gold + 1}, not {gold}.", False)):  # fmt: skip
            assert judge_answer(question, response, LEXICON).correct is right, (question["qid"], response)
