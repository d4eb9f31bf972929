"""Lengths and angles with exact answers: reading a number with its unit from free text, judging it (relative
error, VSI-Bench's MRA, SpatialVLM's within-2x), the report's MRA and within-2x columns, and the lmms-eval hook."""

from __future__ import annotations

import csv
import json

import pytest

from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.prompts.hierarchy.record import INSTRUCTION, gold_text
from tabletest.score.lexicon import load_lexicon
from tabletest.prompts.hierarchy.closeness import closeness
from tabletest.score.quantities import read_numbers, read_quantities
from tabletest.score.questions import Judged, ScoredQuestion, judge_question, score_questions
from tabletest.score.questions_report import cells, consistency, markdown

LEXICON = load_lexicon(load_catalog())


@pytest.mark.parametrize(
    ("response", "asked", "metres_or_degrees"),
    [
        ("23 cm.", "cm", 0.23),
        ("1.2 m.", "m", 1.2),
        ("40 degrees.", "deg", 40),
        ("23", "cm", 0.23),  # no unit: the asked one
        ("About 0.5.", "m", 0.5),
        ("230mm", "m", 0.23),
        ("1,200 millimetres", "m", 1.2),
        ("roughly 23 centimeters", "m", 0.23),
        ("approximately 1.5 meters", "cm", 1.5),
        ("~30cm", "cm", 0.3),
        ("It is about 2 metres tall.", "m", 2),
        ("twenty-three centimetres", "cm", 0.23),
        ("About twenty three cm.", "cm", 0.23),
        ("one hundred and five centimetres", "cm", 1.05),
        ("a hundred and five", "cm", 1.05),
        ("one point two metres", "m", 1.2),
        ("half a metre", "cm", 0.5),
        ("a half metre", "m", 0.5),
        ("a metre and a half", "m", 1.5),
        ("one and a half metres", "m", 1.5),
        ("two and a half feet", "m", 0.762),
        ("a quarter of a metre", "cm", 0.25),
        ("three quarters of a metre", "m", 0.75),
        ("a metre", "cm", 1.0),
        ("12 in.", "cm", 0.3048),
        ("12 inches", "cm", 0.3048),
        ("an inch", "cm", 0.0254),
        ('12"', "cm", 0.3048),
        ("1 foot", "m", 0.3048),
        ("3 ft", "m", 0.9144),
        ("3 feet", "m", 0.9144),
        ("3'", "m", 0.9144),
        ("5'6\"", "m", 1.6764),
        ("5 ft 6 in", "m", 1.6764),
        ("1 m 20 cm", "m", 1.2),
        ("The 2 objects are 30 cm apart.", "cm", 0.3),
        ("3 objects, each 10 cm", "cm", 0.1),
        ("The taller one is 12.", "cm", 0.12),
        ("45°", "deg", 45),
        ("approximately 45 °", "deg", 45),
        ("thirty-five degrees clockwise", "deg", 35),
        ("The camera turned by about 90 deg between the photos.", "deg", 90),
        ("-30 degrees", "deg", -30),
        ("Distance - 30 cm", "cm", 0.3),  # a dash apart from the number is no sign
        ("30-ish cm", "cm", 0.3),
        ("minus thirty degrees", "deg", -30),
        ("zero degrees", "deg", 0),
        ("It is 2 m tall and turned 30 degrees.", "deg", 30),  # the number with a unit of the asked kind
        ("'30'", "cm", 0.3),  # a number in quotes, not feet
        ('"30"', "cm", 0.3),  # nor inches
        ("30 in the first photo", "cm", 0.3),  # "in" before a word is no inch
    ],
)
def test_reads_a_number_with_its_unit(response, asked, metres_or_degrees):
    assert read_quantities(response, asked) == pytest.approx((metres_or_degrees,))


@pytest.mark.parametrize(
    ("response", "asked", "values"),
    [
        ("20-25 cm", "cm", (0.20, 0.25)),
        ("20 - 25 cm", "cm", (0.20, 0.25)),
        ("20 -25 cm", "cm", (0.20, 0.25)),  # a dash touching the second number joins, it is no sign
        ("20 to 25 centimetres", "cm", (0.20, 0.25)),
        ("between 20 and 25 centimetres", "m", (0.20, 0.25)),  # the lone 20 takes the range's unit, not the asked one
        ("20 cm to 25 cm", "m", (0.20, 0.25)),
        ("between 0.5 and 1 m", "m", (0.5, 1.0)),
        ("twenty or thirty", "cm", (0.20, 0.30)),
        ("0 cm or 47 cm", "cm", (0.0, 0.47)),
        ("-977 to 1024 cm", "cm", (-9.77, 10.24)),
        ("0 to 28 degrees", "deg", (0, 28)),
        ("23 cm, 50 cm, 80 cm", "cm", (0.23, 0.50, 0.80)),
        ("23 cm ± 400 cm", "cm", (-3.77, 4.23)),
        ("23 +/- 4 cm", "m", (0.19, 0.27)),
        ("23 cm plus or minus 4 cm", "cm", (0.19, 0.27)),
        ("23 cm, or maybe 47", "cm", (0.23, 0.47)),  # a lone number beside one with a unit is a value too
        ("About 23cm (0.23 m).", "m", (0.23, 0.23)),
        ("1 m 20 cm, or 1 m", "m", (1.2, 1.0)),
        ("Object 2 is 30 cm from object 1.", "cm", (0.3,)),  # numbers that name objects are no values
    ],
)
def test_reads_every_value_an_answer_names_and_a_range_as_its_two_ends(response, asked, values):
    assert read_quantities(response, asked) == pytest.approx(values)


@pytest.mark.parametrize(
    ("response", "values"),
    [
        ("3", (3,)),
        ("There are three.", (3,)),
        ("1, 2, 3, 4, 5", (1, 2, 3, 4, 5)),
        ("5 or 11 o'clock", (5, 11)),
        ("-5", (-5,)),
        ("5.5", (5.5,)),
        ("The one on the left: 2 mugs.", (2,)),  # "the one" is no count
        ("The 1st photo shows 2.", (2,)),
        ("None.", ()),
    ],
)
def test_reads_every_number_of_a_count_or_an_hour(response, values):
    assert read_numbers(response) == pytest.approx(values)


@pytest.mark.parametrize(
    ("response", "asked"),
    [
        ("30 degrees", "cm"),  # a unit of another kind
        ("2 m", "deg"),
        ("No idea.", "cm"),
        ("", "m"),
        ("none", "cm"),
        ("It did not turn.", "deg"),
        ("3 photos", "cm"),  # a count of something else
        ("It is the 2nd.", "cm"),
        ("The first one.", "cm"),
        ("50%", "m"),
        ("in 2 photos", "deg"),
    ],
)
def test_reads_nothing_where_no_quantity_of_the_asked_kind_is_said(response, asked):
    assert read_quantities(response, asked) == ()


@pytest.mark.parametrize(
    ("answer", "mra"),
    [
        (1.0, 1.0),
        (1.04, 1.0),  # 4 %: under every threshold, the last 0.05
        (0.96, 1.0),
        (1.12, 0.8),  # 12 %: under 0.50 ... 0.15, not 0.10 or 0.05
        (1.25, 0.5),  # exactly 0.25 is not under 0.25: 0.50 ... 0.30
        (0.7, 0.4),  # 30 %: 0.50, 0.45, 0.40, 0.35
        (0.55, 0.1),  # 45 %: 0.50 only
        (0.5, 0.0),  # 50 % is under no threshold
        (2.0, 0.0),
    ],
)
def test_mra_is_the_share_of_thresholds_the_relative_error_stays_under(answer, mra):
    assert closeness(answer, 1.0, "length").mra == pytest.approx(mra)
    assert closeness(answer * 0.2, 0.2, "length").mra == pytest.approx(mra)  # relative, whatever the scale


@pytest.mark.parametrize(
    ("answer", "within"), [(0.5, True), (2.0, True), (1.3, True), (0.49, False), (2.01, False), (0.0, False), (-1.0, False)]
)
def test_within_2x_is_half_to_twice_the_truth(answer, within):
    assert closeness(answer * 0.3, 0.3, "length").within_2x is within


@pytest.mark.parametrize(
    ("answer", "truth", "correct", "mra", "within"),
    [
        (-28, -30, True, 0.9, True),  # 6.7 % off
        (30, -30, False, 1.0, True),  # the wrong way round: wrong, yet the magnitude is right
        (36, 40, False, 0.8, True),  # 10 % off is not correct
        (36.5, 40, True, 0.9, True),  # 8.75 %: under 0.50 ... 0.10
        (5, 0, False, 0.0, True),  # no turn: errors against 10°; 5° and 0° are both under it
        (0.4, 0, True, 1.0, True),
        (25, 0, False, 0.0, False),
    ],
)
def test_angles_are_judged_against_at_least_ten_degrees(answer, truth, correct, mra, within):
    near = closeness(answer, truth, "angle")
    assert (near.correct, near.mra, near.within_2x) == (correct, pytest.approx(mra), within)


def quantity(qid: str, template: str, unit: str, exact: float, answer: float, skill: str = "distance") -> dict:
    texts = {
        "cm": "How far apart are the mug and the lamp, centre to centre, in centimetres?",
        "m": "How tall is the vase, in metres?",
        "deg": "About how many degrees did the camera turn around the table between the first and the second photo?",
    }
    return {
        "qid": qid, "scene_id": qid.split("-img")[0], "family": "hierarchy", "form": "question", "modality": "image",
        "image": f"images/{qid}.png", "context": None, "text": f"{texts[unit]} {INSTRUCTION['quantity']}",
        "template": template, "phrasing": 0, "skill": skill, "level": "single", "frame": None, "relation": template,
        "answer_type": "quantity", "options": None, "answer": answer, "unit": unit,
        "exact": {"value": exact, "unit": "deg" if unit == "deg" else "m"},
        "objects": ["mug", "lamp"], "scene_objects": ["mug", "lamp", "vase"],
        "derivation": {"facts": [], "rules": [], "hops": None}, "pair": None,
    }  # fmt: skip


QUESTIONS = [
    quantity("s0-img-distance-cm-mug-lamp", "distance-cm", "cm", 0.23172, 23),
    quantity("s1-img-distance-cm-mug-lamp", "distance-cm", "cm", 0.4449, 44),
    quantity("s0-img-height-m-vase", "height-m", "m", 1.23, 1.2, skill="size"),
    quantity("s1-img-height-m-vase", "height-m", "m", 0.315, 0.3, skill="size"),
    quantity("s0-img-turn-deg", "turn-deg", "deg", 41.3, 41, skill="viewpoint"),
    quantity("s1-img-turn-deg", "turn-deg", "deg", -28.7, -29, skill="viewpoint"),
    quantity("s2-img-turn-deg", "turn-deg", "deg", 0.4, 0, skill="viewpoint"),
]
YES_NO = {
    **QUESTIONS[0], "qid": "s0-img-position-mug-lamp", "template": "position-yes/no", "answer_type": "yes/no",
    "answer": True, "text": "Is the mug to the left of the lamp? Answer yes or no.", "unit": None, "exact": None,
}  # fmt: skip


def test_gold_text_says_the_answer_with_its_unit_and_reads_exactly_right():
    assert [gold_text(q) for q in QUESTIONS[:3]] + [gold_text(QUESTIONS[5])] == ["23 cm.", "44 cm.", "1.2 m.", "-29 degrees."]
    for question in QUESTIONS:
        judged = judge_question(question, gold_text(question), LEXICON)
        assert (judged.status, judged.mra, judged.within_2x) == ("correct", 1.0, 1.0), question["qid"]


def test_a_quantity_answer_is_judged_against_the_exact_value():
    question = QUESTIONS[0]  # 23.172 cm
    judged = judge_question(question, "The mug and the lamp are about 25 centimetres apart.", LEXICON)
    assert (judged.status, judged.parsed, judged.within_2x) == ("correct", "25 cm", 1.0)
    assert judged.mra == pytest.approx(0.9)  # 7.9 % off
    assert judge_question(question, "0.3 m", LEXICON).status == "wrong"
    for unread in ("It is 30 degrees.", "", None, "I cannot tell."):
        assert (judge_question(question, unread, LEXICON).status, judge_question(question, unread, LEXICON).mra) == ("unparsed", 0.0)


def write(path, rows) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def read_csv(path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_the_report_gives_mra_and_within_2x_beside_accuracy(cli, tmp_path):
    """An oracle (gold_text) scores 1 in each; a responder that says twice the truth is within 2x and never close."""
    write(tmp_path / "q.jsonl", [*QUESTIONS, YES_NO])
    twice = [{"qid": q["qid"], "model": "twice", "response": f"{2 * q['exact']['value'] * (100 if q['unit'] == 'cm' else 1):.3f} {q['unit']}"} for q in QUESTIONS[:5]]
    oracle = [{"qid": q["qid"], "model": "oracle", "response": gold_text(q)} for q in [*QUESTIONS, YES_NO]]
    write(tmp_path / "r.jsonl", twice + oracle + [{"qid": YES_NO["qid"], "model": "twice", "response": "No."}])
    done = cli("score", "--prompts", str(tmp_path / "q.jsonl"), "--responses", str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "rep"))
    assert done.returncode == 0, done.stderr
    table = read_csv(tmp_path / "rep" / "accuracy.csv")
    by = {(r["model"], r["dimension"], r["value"], r["answer"]): r for r in table}
    for template, kind in (("distance-cm", "length"), ("height-m", "length"), ("turn-deg", "angle")):
        oracle_row = by[("oracle", "template", template, f"quantity: {kind}")]
        assert (oracle_row["accuracy"], oracle_row["mra"], oracle_row["within_2x"], oracle_row["chance"]) == ("1.0", "1.0", "1.0", "")
    for template in ("distance-cm", "height-m"):
        row = by[("twice", "template", template, "quantity: length")]
        assert (float(row["accuracy"]), float(row["mra"]), float(row["within_2x"])) == (0.0, 0.0, 1.0)
    yes_no = by[("oracle", "skill", "distance", "yes/no")]
    assert (yes_no["accuracy"], yes_no["chance"], yes_no["mra"], yes_no["within_2x"]) == ("1.0", "0.5", "", "")
    assert not [r for r in table if r["dimension"] == "template" and r["answer"] == "yes/no"]  # templates: quantities only
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "## By template (lengths and angles)" in report
    assert "| template | answer | n | chance | oracle | oracle MRA | oracle within 2× | twice | twice MRA | twice within 2× |" in report
    assert "| distance-cm | quantity: length | 2 | - | 1.00 | 1.00 | 1.00 | 0.00 | 0.00 | 1.00 |" in report
    assert "| distance | yes/no | 1 | 0.50 | 1.00 |  |  | 0.00 |  |  |" in report
    scored = {(r["model"], r["qid"]): r for r in read_csv(tmp_path / "rep" / "scored.csv")}
    first = scored[("twice", QUESTIONS[0]["qid"])]
    assert (first["gold"], first["parsed"], first["status"], first["within_2x"]) == ("23 cm", "46.34 cm", "wrong", "1.0")
    assert scored[("oracle", QUESTIONS[4]["qid"])]["gold"] == "41 degrees"


def test_a_report_without_quantities_keeps_its_tables():
    rows = [ScoredQuestion("m", YES_NO, Judged("correct", "true"), "Yes.")]
    table = cells(rows)
    assert {c["dimension"] for c in table} == {"level", "skill", "frame", "form", "modality", "phrasing"}
    text = markdown(table, consistency(rows), 0)
    assert "MRA" not in text and "| skill | answer | n | chance | m |" in text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"unit": "km"}, "unit 'km' is none of cm, m, deg"),
        ({"unit": None}, "unit None is none of cm, m, deg"),
        ({"exact": None}, 'exact None is not {"value": <number>, "unit": "m"}'),
        ({"exact": {"value": 0.23, "unit": "cm"}}, "exact {'unit': 'cm', 'value': 0.23} is not"),
        ({"exact": {"value": "0.23", "unit": "m"}}, "exact {'unit': 'm', 'value': '0.23'} is not"),
        ({"exact": {"value": 0, "unit": "m"}}, "the exact length 0 m is not above 0"),
        ({"answer": "23"}, "the answer '23' is not a quantity answer"),
        ({"answer": True}, "the answer True is not a quantity answer"),
        ({"answer": 30}, "the answer 30 cm is 10% or more off its exact value 0.23172 m, so its gold answer would score wrong"),
        ({"unit": "deg"}, """exact {'unit': 'm', 'value': 0.23172} is not {"value": <number>, "unit": "deg"}"""),
        ({"answer_type": "quantities"}, "answer_type 'quantities' is none of yes/no, number, choice, names, quantity"),
    ],
)
def test_a_quantity_record_that_cannot_be_judged_is_refused(tmp_path, change, message):
    write(tmp_path / "q.jsonl", [QUESTIONS[1], {**QUESTIONS[0], **change}])
    write(tmp_path / "r.jsonl", [{"qid": QUESTIONS[0]["qid"], "response": "23 cm"}])
    with pytest.raises(UserError) as raised:
        score_questions([tmp_path / "q.jsonl"], [tmp_path / "r.jsonl"], LEXICON)
    assert str(raised.value).startswith(f"{tmp_path / 'q.jsonl'}: line 2: {message}")


def test_the_command_names_a_bad_quantity_record_in_one_line(cli, tmp_path):
    write(tmp_path / "q.jsonl", [QUESTIONS[0], {**QUESTIONS[1], "exact": {"value": 0.4449}}])
    write(tmp_path / "r.jsonl", [{"qid": QUESTIONS[0]["qid"], "response": "23 cm"}])
    result = cli("score", "--prompts", str(tmp_path / "q.jsonl"), "--responses", str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "rep"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: {tmp_path / 'q.jsonl'}: line 2: exact {{'value': 0.4449}} is not"), result.stderr


def test_lmms_eval_hook_scores_mra_and_within_2x_of_quantities():
    from tabletest.export.lmms_eval import task_config
    from tabletest.export.lmms_task_utils import process_results

    assert process_results(QUESTIONS[0], ["About 46 cm."]) == {"accuracy": 0.0, "unparsed": 0.0, "mra": 0.0, "within_2x": 1.0}
    assert process_results(QUESTIONS[4], ["41 degrees"]) == {"accuracy": 1.0, "unparsed": 0.0, "mra": 1.0, "within_2x": 1.0}
    assert process_results(YES_NO, ["Yes."]) == {"accuracy": 1.0, "unparsed": 0.0}  # other questions give none
    metrics = {m["metric"]: m for m in task_config("t", "data/t.jsonl")["metric_list"]}
    assert {metrics[m]["aggregation"] for m in ("mra", "within_2x")} == {"mean"}
    assert metrics["mra"]["higher_is_better"] and metrics["within_2x"]["higher_is_better"]
