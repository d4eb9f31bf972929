"""`tabletest score` end to end: an oracle, a biased model, the statistics against scipy, bad input."""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from pathlib import Path

import pytest
import yaml
from scipy import stats as scipy_stats
from test_prompts import write_render  # pytest puts tests/ on sys.path
from typer.testing import CliRunner

from tabletest.commands.main import app
from tabletest.errors import UserError
from tabletest.score.stats import friedman, wilcoxon

EIGHT = "tomato,banana,mug,wine bottle,lamp,teapot,kettle,book"
SIXTEEN = EIGHT + ",apple,lemon,carrot,egg,candle,vase,globe,hammer"


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def make_prompts(path: Path, *args: str) -> list[dict]:
    result = cli("prompts", *args, "--out", str(path))
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_responses(path: Path, records: list[dict], answer, model: str | None = None) -> Path:
    with open(path, "w") as fh:
        for record in records:
            line = {"qid": record["qid"], "response": answer(record)}
            if model:
                line["model"] = model
            fh.write(json.dumps(line) + "\n")
    return path


def read_csv(path: Path) -> list[dict]:
    with open(path) as fh:
        return list(csv.DictReader(fh))


def oracle(record: dict) -> str:
    gold = record["answer"]
    return {
        1: lambda: "True." if gold["truth"] else "False.",
        2: lambda: gold["options"][0],
        3: lambda: gold["options"][-1],
        4: lambda: f"It is to the {gold['relation']}.",
        5: lambda: gold["relation"],
        6: lambda: ", ".join(gold["names"]),
        7: lambda: f"The {gold['names'][0]}.",
        8: lambda: gold["relation"],
    }[record["prompt_type"]]()


@pytest.fixture(scope="module")
def battery(tmp_path_factory) -> tuple[Path, list[Path], list[dict]]:
    """Image and text queries for 56 two-object scenes and 3 three-object scenes."""
    tmp = tmp_path_factory.mktemp("battery")
    files = [
        tmp / "image.jsonl",
        tmp / "text.jsonl",
        tmp / "three.jsonl",
    ]
    records = make_prompts(files[0], "--dataset", str(write_render(tmp / "render", only=tuple(EIGHT.split(",")))))
    records += make_prompts(files[1], "--text-only", "--only", EIGHT)
    records += make_prompts(files[2], "--dataset", str(write_render(tmp / "render3", 3, limit=3)))
    return tmp, files, records


def score(tmp: Path, prompts: list[Path], *responses: Path, out: str = "report") -> Path:
    args = [
        "score",
        *(a for p in prompts for a in ("--prompts", str(p))),
        *(a for r in responses for a in ("--responses", str(r))),
    ]
    result = cli(*args, "--out", str(tmp / out))
    assert result.exit_code == 0, result.output
    return tmp / out


def test_an_oracle_scores_one_everywhere_and_is_fully_consistent(battery):
    tmp, files, records = battery
    report = score(tmp, files, write_responses(tmp / "oracle.jsonl", records, oracle), out="oracle")
    accuracy = read_csv(report / "accuracy.csv")
    assert {(r["modality"], r["prompt_type"]) for r in accuracy} == {
        (m, str(p)) for m in ("image", "text") for p in range(1, 9)
    }
    assert all(float(r["accuracy"]) == 1.0 and r["unparsed"] == "0" for r in accuracy)
    assert sum(int(r["n"]) for r in accuracy if r["model"] == "oracle") == len(records)
    assert all(float(r["accuracy"]) == 1.0 for r in read_csv(report / "variations.csv"))
    consistency = read_csv(report / "consistency.csv")
    assert {r["modality"] for r in consistency} == {"image", "text"}
    assert all(float(r["consistent_true"]) == 1.0 for r in consistency)
    text = (report / "report.md").read_text()
    assert "| oracle | **1.00** | **1.00** | **1.00** | **1.00** | **1.00** | **1.00** | **1.00** | **1.00** |" in text
    assert "Every answer was read." in text
    for plot in ("density_image.png", "density_text.png"):
        data = (report / plot).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 20_000
        assert f"]({plot})" in text


def test_a_model_that_always_says_left_and_picks_b_before_a_shows_those_biases(battery):
    tmp, files, records = battery

    def lefty(record: dict) -> str:
        a, b = record["objects"]["A"], record["objects"]["B"]
        return f"The {b} is to the left of the {a}" if record["prompt_type"] in (2, 3) else "left"

    two_objects = [r for r in records if r["scene_id"].startswith("2obj")]
    report = score(tmp, files[:2], write_responses(tmp / "lefty.jsonl", two_objects, lefty, "lefty"), out="lefty")
    biases = read_csv(report / "biases.csv")
    shares = {
        (r["modality"], r["prompt_type"], r["choice"]): float(r["share"]) for r in biases if r["model"] == "lefty"
    }
    assert shares == {
        (m, p, c): 1.0 if c == "left" else 0.0
        for m in ("image", "text")
        for p in ("2", "3")
        for c in ("left", "AB order")
    }
    accuracy = {
        (r["modality"], r["prompt_type"]): float(r["accuracy"])
        for r in read_csv(report / "accuracy.csv")
        if r["model"] == "lefty"
    }
    assert accuracy[("image", "2")] == 0.0 and accuracy[("image", "3")] == 1.0
    by_order = {
        (r["prompt_type"], r["level"]): float(r["accuracy"])
        for r in read_csv(report / "variations.csv")
        if r["model"] == "lefty" and r["factor"] == "object_order" and r["modality"] == "image"
    }
    assert by_order == {(p, lvl): 1.0 if lvl == "AB" else 0.0 for p in ("4", "5", "8") for lvl in ("AB", "BA")}


def test_the_statistics_agree_with_scipy(tmp_path):
    """Three models whose accuracy depends on object A and object order; tests recomputed here by hand."""
    records = make_prompts(tmp_path / "p8.jsonl", "--text-only", "--only", EIGHT, "--types", "8", "--protocol", "full")
    rules = {
        "m1": lambda r: r["variation"]["object_order"] == "AB" or len(r["objects"]["B"]) % 3 != 0,
        "m2": lambda r: (len(r["objects"]["A"]) + len(r["objects"]["B"])) % 4 != 0,
        "m3": lambda r: r["variation"]["vignette_order"] == "left_first" or len(r["objects"]["B"]) % 2 == 0,
    }
    files = []
    flip = {"left": "right", "right": "left"}
    for model, rule in rules.items():
        answer = lambda r, rule=rule: r["answer"]["relation"] if rule(r) else flip[r["answer"]["relation"]]
        files.append(write_responses(tmp_path / f"{model}.jsonl", records, answer, model))
    report = score(tmp_path, [tmp_path / "p8.jsonl"], *files)

    def per_object(model, keep=lambda r: True):
        hits = defaultdict(list)
        for r in records:
            if keep(r):
                hits[r["objects"]["A"]].append(rules[model](r))
        return [sum(h) / len(h) for _, h in sorted(hits.items())]

    ab = per_object("m1", lambda r: r["variation"]["object_order"] == "AB")
    ba = per_object("m1", lambda r: r["variation"]["object_order"] == "BA")
    expected = scipy_stats.wilcoxon(ab, ba, method="approx")
    (row,) = [r for r in read_csv(report / "factor_tests.csv") if r["model"] == "m1" and r["factor"] == "object_order"]
    assert row["test"] == "wilcoxon" and row["levels"] == "AB vs BA" and row["blocks"] == "8"
    assert row["nonzero_pairs"] == str(sum(a != b for a, b in zip(ab, ba)))
    assert float(row["z"]) == pytest.approx(expected.zstatistic, rel=1e-5)
    assert float(row["p"]) == pytest.approx(expected.pvalue, rel=1e-5)

    expected = scipy_stats.friedmanchisquare(*(per_object(m) for m in rules))
    (row,) = [r for r in read_csv(report / "model_tests.csv") if r["measure"] == "accuracy"]
    assert row["models"] == "m1 vs m2 vs m3"
    assert float(row["statistic"]) == pytest.approx(expected.statistic, rel=1e-5)
    assert float(row["p"]) == pytest.approx(expected.pvalue, rel=1e-5)


def test_the_tests_match_a_hand_computed_case():
    # differences .1 .2 .3 .4 -.05: ranks 2 3 4 5 and 1, so W = min(14, 1) = 1; E[W] = 7.5, sd = sqrt(13.75)
    test = wilcoxon([0.1, 0.2, 0.3, 0.4, -0.05], [0, 0, 0, 0, 0])
    assert test.statistic == 1.0
    assert test.z == pytest.approx((1 - 7.5) / math.sqrt(13.75))
    assert test.p == pytest.approx(2 * scipy_stats.norm.sf(6.5 / math.sqrt(13.75)))
    # four blocks ranking three conditions alike: chi2 = 12/(4*3*4) * (4^2 + 8^2 + 12^2) - 3*4*4 = 8, df 2
    test = friedman([[0.1] * 4, [0.5] * 4, [0.9] * 4])
    assert test.statistic == pytest.approx(8.0) and test.p == pytest.approx(math.exp(-4))
    assert wilcoxon([0.5, 0.5], [0.5, 0.5]).p == 1.0
    # zero differences drop out of the signed-rank test: it rests on the pairs that differ
    test = wilcoxon([0.1, 0.2, 0.3, 0.4, -0.05, 0.7, 0.2], [0, 0, 0, 0, 0, 0.7, 0.2])
    assert test.blocks == 7 and test.nonzero_pairs == 5 and test.statistic == 1.0
    assert wilcoxon([0.5, 0.5], [0.5, 0.5]).nonzero_pairs == 0
    assert friedman([[0.1] * 4, [0.5] * 4, [0.9] * 4]).nonzero_pairs is None


@pytest.fixture()
def small(tmp_path) -> tuple[Path, Path, list[dict]]:
    prompts = tmp_path / "p.jsonl"
    return tmp_path, prompts, make_prompts(prompts, "--text-only", "--limit", "2", "--types", "1")


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"qid": "nope", "response": "True"}'], "qid 'nope' is in none of the prompts files given"),
        (['{"response": "True"}'], "line 1 has no 'qid' field"),
        (['{"qid": "2obj-000000-p1-txt-left-true-vL"}'], "line 1 has no 'response' field"),
        (['{"qid": "2obj-000000-p1-txt-left-true-vL", "response": "True"}', "{oops"], "line 2 is not valid JSON"),
        (['{"qid": "2obj-000000-p1-txt-left-true-vL", "response": 3}'], "'response' must be text or null"),
        (
            ['{"qid": "2obj-000000-p1-txt-left-true-vL", "response": "a"}'] * 2,
            "line 2 answers '2obj-000000-p1-txt-left-true-vL' again",
        ),
        ([], "hold no answers"),
    ],
)
def test_bad_responses_get_one_clear_line(small, lines, message):
    tmp, prompts, _ = small
    responses = tmp / "model.jsonl"
    responses.write_text("".join(line + "\n" for line in lines))
    result = cli("score", "--prompts", str(prompts), "--responses", str(responses), "--out", str(tmp / "r"))
    assert isinstance(result.exception, UserError), result.output
    assert message in str(result.exception) and "\n" not in str(result.exception)


def test_user_files_are_read_line_by_line_as_an_editor_numbers_them(small):
    """A last line without its newline is an answer like any other; blank lines still count."""
    tmp, prompts, records = small
    responses = tmp / "model.jsonl"
    responses.write_text("\n".join(json.dumps({"qid": r["qid"], "response": oracle(r)}) for r in records))
    report = score(tmp, [prompts], responses)
    (row,) = [r for r in read_csv(report / "accuracy.csv") if r["model"] == "model" and r["modality"] == "text"]
    assert row["n"] == str(len(records)) and float(row["accuracy"]) == 1.0
    responses.write_text(json.dumps({"qid": records[0]["qid"], "response": "True"}) + "\n\n\n{oops")
    result = cli("score", "--prompts", str(prompts), "--responses", str(responses), "--out", str(tmp / "r"))
    assert "line 4 is not valid JSON" in str(result.exception)
    prompts.write_text("\n" + prompts.read_text().rstrip("\n"))
    report = score(tmp, [prompts], write_responses(tmp / "m.jsonl", records, oracle), out="again")
    assert sum(r["model"] == "m" for r in read_csv(report / "scored.csv")) == len(records)
    prompts.write_text("\n" + '{"qid": "x"}')
    result = cli("score", "--prompts", str(prompts), "--responses", str(tmp / "m.jsonl"), "--out", str(tmp / "r"))
    assert "line 2 has no 'scene_id' field" in str(result.exception)


def test_queries_a_model_left_unanswered_are_counted_and_reported(small):
    tmp, prompts, records = small
    partial = write_responses(tmp / "partial.jsonl", records[:3], oracle)
    full = write_responses(tmp / "full.jsonl", records, oracle)
    result = cli(
        "score",
        "--prompts",
        str(prompts),
        "--responses",
        str(partial),
        "--responses",
        str(full),
        "--out",
        str(tmp / "r"),
    )
    assert result.exit_code == 0, result.output
    missing = len(records) - 3
    warning = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warning == [
        f"warning: unanswered queries: partial {missing} of {len(records)}; see {tmp / 'r' / 'report.md'}"
    ]
    text = (tmp / "r" / "report.md").read_text()
    assert "## Unanswered queries" in text and f"| partial | Text-only | 1 | {missing} | {len(records)} |" in text
    assert "| full |" not in text.split("## Unanswered queries")[1].split("##")[0]
    result = cli("score", "--prompts", str(prompts), "--responses", str(full), "--out", str(tmp / "r2"))
    assert "warning" not in result.stderr
    assert "Every query was answered by every model." in (tmp / "r2" / "report.md").read_text()


def test_missing_files_and_foreign_prompts_are_named(small):
    tmp, _, records = small
    responses = write_responses(tmp / "m.jsonl", records, oracle)
    result = cli("score", "--prompts", str(tmp / "missing.jsonl"), "--responses", str(responses))
    assert "prompts file" in str(result.exception) and "not found" in str(result.exception)
    (tmp / "foreign.jsonl").write_text('{"qid": "x"}\n')
    result = cli("score", "--prompts", str(tmp / "foreign.jsonl"), "--responses", str(responses))
    assert "has no 'scene_id' field; pass a file written by `tabletest prompts`" in str(result.exception)


def test_models_come_from_a_model_field_or_the_file_name(small):
    tmp, prompts, records = small
    both = tmp / "both.jsonl"
    both.write_text(
        "".join(
            json.dumps({"qid": r["qid"], "response": "True", "model": m}) + "\n" for m in ("x", "y") for r in records
        )
    )
    report = score(tmp, [prompts], both, write_responses(tmp / "zed.jsonl", records, oracle))
    assert {r["model"] for r in read_csv(report / "accuracy.csv")} == {"x", "y", "zed", "all models"}


def test_an_interaction_between_object_order_and_relation_order_is_found(tmp_path):
    """The paper's Prompt 4 pattern: right for [A, B] with `left` first and for [B, A] with `right` first."""
    records = make_prompts(tmp_path / "p4.jsonl", "--text-only", "--only", EIGHT, "--types", "4")
    flip = {"left": "right", "right": "left"}

    def answer(r: dict) -> str:
        right = (r["variation"]["object_order"] == "AB") == (r["variation"]["relation_order"] == "left_first")
        return r["answer"]["relation"] if right else flip[r["answer"]["relation"]]

    report = score(tmp_path, [tmp_path / "p4.jsonl"], write_responses(tmp_path / "m.jsonl", records, answer))
    tests = {r["factor"]: r for r in read_csv(report / "factor_tests.csv") if r["model"] == "m"}
    assert float(tests["object_order"]["p"]) == 1.0 and float(tests["relation_order"]["p"]) == 1.0
    expected = scipy_stats.wilcoxon([1.0] * 8, [-1.0] * 8, method="approx")
    interaction = tests["object_order × relation_order"]
    assert float(interaction["p"]) == pytest.approx(expected.pvalue, rel=1e-5) and float(interaction["p"]) < 0.05


def test_option_order_is_tested_through_where_the_answer_stands(tmp_path):
    """The paper protocol shows each scene one of 24 option orders, too few per object A to test the
    orders themselves; a model that always takes the first line shows up in the answer's position."""
    records = make_prompts(
        tmp_path / "p23.jsonl",
        "--dataset",
        str(write_render(tmp_path / "render", only=tuple(SIXTEEN.split(",")))),
        "--types",
        "2,3",
    )
    first_line = write_responses(tmp_path / "first.jsonl", records, lambda r: r["options"][0])
    report = score(tmp_path, [tmp_path / "p23.jsonl"], first_line)
    rows = [r for r in read_csv(report / "factor_tests.csv") if r["model"] == "first"]
    assert {r["factor"] for r in rows} == {"answer_position"}
    for ptype in (2, 3):
        hits = defaultdict(lambda: defaultdict(list))
        for r in records:
            if r["prompt_type"] == ptype:
                position = next(i for i, o in enumerate(r["options"], 1) if o in r["answer"]["options"])
                hits[position][r["objects"]["A"]].append(position == 1)
        common = sorted(set.intersection(*(set(by_object) for by_object in hits.values())))
        groups = [[sum(hits[p][o]) / len(hits[p][o]) for o in common] for p in sorted(hits)]
        (row,) = [r for r in rows if r["prompt_type"] == str(ptype)]
        assert row["levels"] == "1 vs 2 vs 3" and row["test"] == "friedman" and row["blocks"] == str(len(common))
        assert len(common) >= 12
        assert float(row["p"]) == pytest.approx(scipy_stats.friedmanchisquare(*groups).pvalue, rel=1e-5)
        assert float(row["p"]) < 0.001
    levels = {
        (r["prompt_type"], r["level"]): float(r["accuracy"])
        for r in read_csv(report / "variations.csv")
        if r["model"] == "first" and r["factor"] == "answer_position"
    }
    assert levels == {(p, lvl): float(lvl == "1") for p in ("2", "3") for lvl in ("1", "2", "3")}


def test_unknown_words_are_counted_per_object_and_written_ready_for_synonyms(tmp_path):
    """The study's method: an alternative a model used five or more times joins the lookup table."""
    records = make_prompts(tmp_path / "p.jsonl", "--text-only", "--only", "blender,cupcake,mug,lamp", "--types", "6,7")

    def treat(record: dict) -> str:  # calls the cupcake a "frosted treat", a word the table lacks
        words = [("frosted treat" if n == "cupcake" else n) for n in record["answer"]["names"]]
        return ", ".join(words) if record["prompt_type"] == 6 else f"A {words[0]}."

    responses = write_responses(tmp_path / "treat.jsonl", records, treat)
    report = score(tmp_path, [tmp_path / "p.jsonl"], responses, out="first")
    with_cupcake = [r for r in records if "cupcake" in r["answer"]["names"][: 2 if r["prompt_type"] == 6 else 1]]
    (row,) = read_csv(report / "unknown_words.csv")
    assert (row["object"], row["word"], row["suggested"]) == ("cupcake", "frosted treat", "True")
    assert int(row["uses"]) == len(with_cupcake) >= 5
    unparsed = sum(int(r["unparsed"]) for r in read_csv(report / "accuracy.csv") if r["model"] == "treat")
    assert unparsed == len(with_cupcake)  # unread, not silently wrong
    suggested = report / "synonyms_suggested.yaml"
    assert yaml.safe_load(suggested.read_text()) == {"cupcake": ["frosted treat"]}
    text = (report / "report.md").read_text()
    assert "## Words the lookup table lacks" in text and "| cupcake | frosted treat |" in text
    inputs = ("--prompts", str(tmp_path / "p.jsonl"), "--responses", str(responses))
    result = cli("score", *inputs, "--synonyms", str(suggested), "--out", str(tmp_path / "second"))
    assert result.exit_code == 0, result.output
    assert all(float(r["accuracy"]) == 1.0 for r in read_csv(tmp_path / "second" / "accuracy.csv"))
    high = cli("score", *inputs, "--suggest-at", "1000", "--out", str(tmp_path / "third"))
    assert high.exit_code == 0 and yaml.safe_load((tmp_path / "third" / "synonyms_suggested.yaml").read_text()) == {}


PAPER_P5 = [
    "Is the A to the left of, to the right of, or inside of the B?",
    "Is the A inside of, to the right of, or to the left of the B?",
    "Is the B inside of, to the left of, or to the right of the A?",
    "Is the B to the right of, to the left of, or inside of the A?",
]


@pytest.mark.parametrize("protocol", ["paper", "full"])
def test_table_3_lays_out_the_papers_rows_and_says_which_a_protocol_asks(tmp_path, protocol):
    render = write_render(tmp_path / "render", only=("mug", "lamp", "apple"))
    records = make_prompts(tmp_path / "p.jsonl", "--dataset", str(render), "--types", "4,5", "--protocol", protocol)
    report = score(tmp_path, [tmp_path / "p.jsonl"], write_responses(tmp_path / "oracle.jsonl", records, oracle))
    rows = [r for r in read_csv(report / "table3.csv") if r["model"] == "oracle" and r["prompt_type"] == "5"]
    numbered = {r["paper_row"]: r["query"] for r in rows if r["paper_row"]}
    asked = {"3", "4"} if protocol == "paper" else {"1", "2", "3", "4"}
    assert set(numbered) == asked and all(numbered[n] == PAPER_P5[int(n) - 1] for n in asked)
    assert len(rows) == 4 if protocol == "paper" else 8
    text = (report / "report.md").read_text()
    first = f"| Prompt 5 | 1 | {PAPER_P5[0]} | 72% | "
    assert (first + "not asked | not asked |" in text) == (protocol == "paper")
    assert (first + "100% | 100% |" in text) == (protocol == "full")
    assert f"| Prompt 5 | 3 | {PAPER_P5[2]} | 69% | 100% | 100% |" in text
    assert "| Prompt 4 | 2 | Is the A to the right of or to the left of the B? | 66% |" in text


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("M_TableTest_MCQ.tsv", "index\tquestion\tanswer\n0\tIs it?\tA\n", "not a VLMEvalKit prediction file"),
        ("M_TableTest_MCQ.xlsx", "index\tprediction\n", "cannot read it as an .xlsx workbook"),
        ("M_TableTest_MCQ.tsv", "", "not a VLMEvalKit prediction file"),
    ],
)
def test_a_file_that_is_not_a_vlmevalkit_prediction_file_gets_one_line(small, name, content, message):
    tmp, prompts, _ = small
    responses = tmp / name
    responses.write_text(content)
    result = cli("score", "--prompts", str(prompts), "--responses", str(responses), "--out", str(tmp / "r"))
    assert isinstance(result.exception, UserError), result.output
    assert message in str(result.exception) and "\n" not in str(result.exception)


def test_a_model_name_cannot_break_the_report_and_an_answer_cannot_run_in_a_spreadsheet(small):
    tmp, prompts, records = small
    evil = write_responses(tmp / "r.jsonl", records, lambda r: '=HYPERLINK("http://x")', model="evil | model\nname")
    report = score(tmp, [prompts], evil)
    text = (report / "report.md").read_text()
    tables = [line for line in text.splitlines() if line.startswith("|")]
    assert tables and "evil \\| model name" in text
    for header, *rows in _tables(text):
        width = header.replace("\\|", "").count("|")
        assert all(row.replace("\\|", "").count("|") == width for row in rows), (header, rows)
    scored = read_csv(report / "scored.csv")
    assert {r["response"] for r in scored} == {"'=HYPERLINK(\"http://x\")"}
    assert {r["model"] for r in scored} == {"evil | model\nname"}


def _tables(markdown: str) -> list[list[str]]:
    """The Markdown tables of a report, each a list of its lines (header first)."""
    tables, current = [], []
    for line in markdown.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    return tables
