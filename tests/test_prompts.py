"""The prompt battery: the paper's counts, the paper's texts to the character, ids, splits, inputs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tabletest.commands.main import app
from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.layout.selection import Selection, select_scenes
from tabletest.prompts.battery import SceneInput, parse_types, scene_queries
from tabletest.truth.records import vignette_record
from tabletest.truth.relations import table_sides
from tabletest.truth.vignettes import vignettes

ALL_TYPES = tuple(range(1, 9))
PAPER_COUNTS = {1: 16128, 2: 4032, 3: 4032, 4: 16128, 5: 16128, 6: 4032, 7: 4032, 8: 4032}


def write_render(directory: Path, n_objects: int = 2, **selection) -> Path:
    """A render output's metadata.jsonl (no images needed), objects as dicts as the renderer writes them."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "metadata.jsonl", "w", encoding="utf-8") as fh:
        for scene in select_scenes(load_catalog(), Selection(n_objects=n_objects, **selection)):
            record = vignette_record(scene)
            record["file_name"] = f"images/{scene.id}.png"
            record["objects"] = [{"name": n, "slot": s} for n, s in zip(scene.objects, table_sides(n_objects))]
            fh.write(json.dumps(record) + "\n")
    return directory


def run(*args: str) -> list[dict]:
    result = CliRunner().invoke(app, ["prompts", *args, "--out", "-"])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def scene(a: str = "tomato", b: str = "banana", index: int = 0) -> SceneInput:
    return SceneInput("2obj-000000", index, (a, b), vignettes((a, b)), "images/2obj-000000.png")


def texts(ptype: int, protocol: str = "full", modality: str = "image", index: int = 0) -> list[str]:
    return [r["text"] for r in scene_queries(scene(index=index), (ptype,), protocol, modality, 0)]


def test_paper_protocol_gives_the_papers_counts_on_the_two_object_render(tmp_path):
    render = write_render(tmp_path / "render")
    counts = Counter(r["prompt_type"] for r in run("--dataset", str(render), "--protocol", "paper"))
    assert dict(counts) == PAPER_COUNTS
    assert sum(counts.values()) == 68544


def test_text_only_asks_every_paper_query_once_per_vignette_order():
    records = run("--objects", "2", "--text-only")
    counts = Counter(r["prompt_type"] for r in records)
    assert dict(counts) == {t: 2 * n for t, n in PAPER_COUNTS.items()}
    orders = Counter((r["prompt_type"], r["variation"]["vignette_order"]) for r in records)
    assert all(orders[(t, "left_first")] == orders[(t, "right_first")] == n for t, n in PAPER_COUNTS.items())


def test_prompt_1_texts_match_design_md():
    assert texts(1) == [
        "Is the following statement true or false: the tomato is to the left of the banana",
        "Is the following statement true or false: the banana is to the left of the tomato",
        "Is the following statement true or false: the banana is to the right of the tomato",
        "Is the following statement true or false: the tomato is to the right of the banana",
    ]


@pytest.mark.parametrize(
    ("ptype", "head"),
    [(2, "Please select a correct relationship from:"), (3, "Please select a relationship that does not hold from:")],
)
def test_prompts_2_and_3_list_the_four_design_options_one_per_line(ptype, head):
    options = {
        "The tomato is to the right of the banana",
        "The tomato is to the left of the banana",
        "The banana is to the right of the tomato",
        "The banana is to the left of the tomato",
    }
    records = list(scene_queries(scene(), (ptype,), "full", "image", 0))
    assert len(records) == 24
    for record in records:
        first, *listed = record["text"].split("\n")
        assert first == head
        assert set(listed) == options and listed == record["options"]
    assert len({tuple(r["options"]) for r in records}) == 24


def test_prompt_4_and_5_texts_match_design_md():
    assert texts(4) == [
        "Is the tomato to the left of or to the right of the banana?",
        "Is the tomato to the right of or to the left of the banana?",
        "Is the banana to the left of or to the right of the tomato?",
        "Is the banana to the right of or to the left of the tomato?",
    ]
    assert texts(5, "paper") == [
        "Is the tomato inside of, to the left of, or to the right of the banana?",
        "Is the tomato to the right of, to the left of, or inside of the banana?",
        "Is the banana inside of, to the left of, or to the right of the tomato?",
        "Is the banana to the right of, to the left of, or inside of the tomato?",
    ]
    assert set(texts(5, "paper")) < set(texts(5)) and len(texts(5)) == 8


def test_fill_in_texts_match_design_md_for_images_and_descriptions():
    assert texts(6) == [
        "Fill in both blanks according to the image: The [blank] is to the left of the [blank]",
        "Fill in both blanks according to the image: The [blank] is to the right of the [blank]",
    ]
    assert texts(7) == [
        "Fill in the blank according to the image: The [blank] is on the left side of the table.",
        "Fill in the blank according to the image: The [blank] is on the right side of the table.",
    ]
    assert texts(8) == [
        "Fill in the blanks according to the image: The tomato is to the [blank] of the banana",
        "Fill in the blanks according to the image: The banana is to the [blank] of the tomato",
    ]
    left_first = "The tomato is on the left side of the table. The banana is on the right side of the same table."
    assert texts(7, modality="text")[0] == (
        left_first + "\n\nFill in the blank according to the description: The [blank] is on the left side of the table."
    )


def test_text_queries_carry_the_vignette_and_image_queries_the_file():
    (image,) = scene_queries(scene(), (8,), "paper", "image", 0)
    assert image["image"] == "images/2obj-000000.png" and "context" not in image and image["modality"] == "image"
    text = list(scene_queries(scene(), (8,), "paper", "text", 0))
    assert [r["context"] for r in text] == [scene().vignettes["left_first"], scene().vignettes["right_first"]]
    assert all(r["text"] == r["context"] + "\n\n" + image["text"].replace("image", "description") for r in text)
    assert all("image" not in r for r in text)


def test_gold_answers_follow_the_scene():
    by_variation = {
        json.dumps(r["variation"]): r["answer"] for r in scene_queries(scene(), ALL_TYPES, "full", "image", 0)
    }
    assert by_variation['{"relation": "right", "truth": false}'] == {
        "truth": False,
        "options": None,
        "names": ["tomato", "banana"],
        "relation": "right",
    }
    assert by_variation['{"object_order": "BA", "relation_order": "left_first"}']["relation"] == "right"
    assert by_variation['{"relation": "right"}'] in (
        {"truth": None, "options": None, "names": ["banana", "tomato"], "relation": "right"},  # prompt 6
        {"truth": None, "options": None, "names": ["banana"], "relation": "right"},  # prompt 7
    )
    for record in scene_queries(scene(), (2, 3), "full", "image", 0):
        correct = {"The tomato is to the left of the banana", "The banana is to the right of the tomato"}
        wanted = correct if record["prompt_type"] == 2 else set(record["options"]) - correct
        assert set(record["answer"]["options"]) == wanted


def test_paper_split_of_prompts_6_7_8_is_by_index_parity():
    for index, relation, order in ((0, "left", "AB"), (1, "right", "BA"), (2, "left", "AB")):
        records = {r["prompt_type"]: r for r in scene_queries(scene(index=index), (6, 7, 8), "paper", "image", 0)}
        assert records[6]["variation"] == {"relation": relation}
        assert records[7]["variation"] == {"relation": relation}
        assert records[8]["variation"] == {"object_order": order}


def test_option_order_is_seeded_and_qids_are_stable_and_unique():
    first = [r for r in run("--objects", "2", "--text-only", "--limit", "20", "--types", "2,3", "--seed", "5")]
    again = [r for r in run("--objects", "2", "--text-only", "--limit", "20", "--types", "2,3", "--seed", "5")]
    other = [r for r in run("--objects", "2", "--text-only", "--limit", "20", "--types", "2,3", "--seed", "6")]
    assert first == again
    assert [r["options"] for r in first] != [r["options"] for r in other]
    assert [r["options"] for r in first[::2]] == [r["options"] for r in first[1::2]]  # both vignette orders alike
    full = run("--objects", "2", "--text-only", "--limit", "10", "--protocol", "full")
    assert len({r["qid"] for r in full}) == len(full) == 10 * 2 * (4 + 24 + 24 + 4 + 8 + 2 + 2 + 2)
    assert full[0]["qid"] == "2obj-000000-p1-txt-left-true-vL"


def test_three_object_scenes_ask_each_pair_with_the_third_as_distractor(tmp_path):
    render = write_render(tmp_path / "render3", 3, limit=2)
    records = run("--dataset", str(render))
    assert Counter(r["prompt_type"] for r in records) == {1: 24, 2: 6, 3: 6, 4: 24, 5: 24, 6: 2, 7: 2, 8: 6}
    tomato_banana_apple = [r for r in records if r["scene_id"] == "3obj-000000" and r["prompt_type"] == 1]
    pairs = {
        (r["objects"]["A"], r["objects"]["B"], r["distractor"]["name"], r["distractor"]["slot"])
        for r in tomato_banana_apple
    }
    assert pairs == {
        ("tomato", "banana", "apple", "right"),
        ("tomato", "apple", "banana", "middle"),
        ("banana", "apple", "tomato", "left"),
    }
    (p7,) = [r for r in records if r["scene_id"] == "3obj-000000" and r["prompt_type"] == 7]
    assert p7["objects"] == {"A": "tomato", "B": "apple"} and p7["distractor"] == {"name": "banana", "slot": "middle"}
    assert len({r["qid"] for r in records}) == len(records)


def test_selection_flags_pick_the_same_scenes_from_a_render_as_from_the_enumeration(tmp_path):
    five = "tomato,banana,apple,lemon,mug"
    render = write_render(tmp_path / "render", only=tuple(five.split(",")))
    for flags in (
        ["--shard", "1/4"],
        ["--sample", "5", "--seed", "3"],
        ["--limit", "3"],
        ["--only", "mug,apple,lemon"],
    ):
        only = [] if flags[0] == "--only" else ["--only", five]
        from_render = [r["scene_id"] for r in run("--dataset", str(render), "--types", "8", *only, *flags)]
        from_text = [r["scene_id"] for r in run("--text-only", "--types", "8", *only, *flags)][::2]
        assert from_render == from_text and from_render


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--text-only", "--types", "1,9"], "'9' is not a prompt type"),
        (["--text-only", "--types", "one"], "give numbers 1-8"),
        ([], "give --dataset DIR for image queries, or --text-only"),
        (["--dataset", "no/such/dir"], "is not a folder"),
        (["--text-only", "--objects", "1"], "has one object"),
    ],
)
def test_user_mistakes_get_one_line(args, message):
    result = CliRunner().invoke(app, ["prompts", *args, "--out", "-"])
    assert isinstance(result.exception, UserError)
    assert message in str(result.exception) and "\n" not in str(result.exception)


def test_a_render_output_with_a_missing_field_or_other_object_count_is_named(tmp_path):
    render = write_render(tmp_path / "render", limit=2)
    result = CliRunner().invoke(app, ["prompts", "--dataset", str(render), "--objects", "3"])
    assert "is a 2-object scene but --objects 3 was given" in str(result.exception)
    torn = (render / "metadata.jsonl").read_text() + '{"id": "2obj-0000'  # a render killed mid-line
    (render / "metadata.jsonl").write_text(torn)
    assert len(run("--dataset", str(render), "--types", "8")) == 2
    (render / "metadata.jsonl").write_text("\n" + torn.replace("\n", "\n\n", 1))
    result = CliRunner().invoke(app, ["prompts", "--dataset", str(render), "--objects", "3"])
    assert "line 2 is a 2-object scene" in str(result.exception)
    (render / "metadata.jsonl").write_text('{"id": "2obj-000000"}\n')
    result = CliRunner().invoke(app, ["prompts", "--dataset", str(render)])
    assert "line 1 has no 'file_name' field" in str(result.exception)
    (render / "metadata.jsonl").write_text('{"id": \n')
    result = CliRunner().invoke(app, ["prompts", "--dataset", str(render)])
    assert "line 1 is not valid JSON" in str(result.exception)


def test_parse_types_sorts_and_deduplicates():
    assert parse_types("5, 1,5") == (1, 5)
