"""Names in sentences: a pair noun ("scissors", "headphones") takes "are" and is counted in pairs, and a
name whose plural is irregular has it from the catalog; in random vignettes, stories, questions and
their answer wordings alike."""

from __future__ import annotations

import json
import re

import pytest
from conftest import run_cli
from hierarchy_scenes import obj, scene

from tabletest.config import load_catalog
from tabletest.export.hierarchy_queries import answer_wordings
from tabletest.prompts.hierarchy.generate import scene_questions
from tabletest.score.lexicon import load_lexicon
from tabletest.score.questions import judge_question
from tabletest.truth.nouns import Nouns

CATALOG = load_catalog()
NOUNS = Nouns.of(CATALOG)
PAIRS = ("scissors", "headphones")
WRONG = re.compile(r"(\bthe (scissors|headphones) is|(^|, )is the (scissors|headphones)|(scissors|headphones)'s|avocadoes|broccolis)\b", re.I)


@pytest.mark.parametrize(
    "name, plural",
    [("scissors", "pairs of scissors"), ("headphones", "pairs of headphones"), ("avocado", "avocados"),
     ("broccoli", "heads of broccoli"), ("tomato", "tomatoes"), ("strawberry", "strawberries"), ("hourglass", "hourglasses"),
     ("wine bottle", "wine bottles")],
)
def test_each_catalog_name_has_its_plural(name, plural):
    assert NOUNS.plural(name) == plural


def test_agreement_reaches_every_form_of_the_sentence():
    assert NOUNS.agree("Is the scissors to the left of the mug? The mug is to the left of the scissors.") == (
        "Are the scissors to the left of the mug? The mug is to the left of the scissors."
    )
    assert NOUNS.agree("From the headphones's own point of view, is the headphones behind the lamp?") == (
        "From the headphones' own point of view, are the headphones behind the lamp?"
    )


def crowded_scene(seed: int) -> dict:
    """Scissors, headphones, broccoli and an avocado on a line across the table, and a mug in front."""
    names = ["scissors", "headphones", "broccoli", "avocado"]
    objects = [obj(n, -0.45 + 0.3 * i, 0.1 * (seed % 3), (0.18, 0.1, 0.06 + 0.04 * i)) for i, n in enumerate(names)]
    return scene(f"rnd{seed}-{seed:07d}", [*objects, obj("mug", 0.1, -0.3, (0.12, 0.08, 0.1))])


def test_no_question_story_or_caption_misnumbers_a_name():
    lexicon = load_lexicon(CATALOG)
    asked = [q for seed in range(6) for q in scene_questions(crowded_scene(seed), CATALOG, seed=seed, phrasings="all")]
    texts = [q["text"] for q in asked] + [q["context"] for q in asked if q.get("context")]
    assert not [t for t in texts if WRONG.search(t)], [t for t in texts if WRONG.search(t)][:3]
    assert any(t.startswith("How many pairs of scissors are there?") for t in texts)
    assert any(t.startswith("How many heads of broccoli are there?") for t in texts)
    assert any(re.search(r"\bare the (scissors|headphones)\b", t) for t in texts)
    for q in asked:  # every wording of every answer reads right and is scored correct
        for wording in answer_wordings(q, NOUNS):
            assert not WRONG.search(wording), wording
            assert judge_question(q, wording, lexicon).status == "correct", (q["qid"], wording)


def test_questions_about_a_benchmark_vignette_say_are_for_a_pair_noun(tmp_path):
    """The study's vignettes keep their exact text; the questions built on one agree with a pair noun."""
    records = tmp_path / "v.jsonl"
    assert run_cli("vignettes", "--objects", "3", "--only", "headphones,mug,lamp", "--out", str(records)).returncode == 0
    assert "The headphones is" in records.read_text()
    result = run_cli("questions", "--from", str(records), "--text-only")
    assert result.returncode == 0, result.stderr
    asked = [json.loads(line) for line in result.stdout.splitlines()]
    assert asked and not [q["text"] for q in asked if WRONG.search(q["text"])][:1]
    assert any("The headphones are" in q["context"] for q in asked if q["form"] == "question")


def test_random_vignettes_say_are_for_a_pair_noun(tmp_path):
    result = run_cli("vignettes", "--scenes", "random", "--count", "40", "--seed", "3", "--only", "scissors,headphones,mug,lamp,vase")
    assert result.returncode == 0, result.stderr
    texts = [v for line in result.stdout.splitlines() for v in json.loads(line)["vignettes"].values()]
    assert not [t for t in texts if WRONG.search(t)]
    assert any(re.search(r"The (scissors|headphones) are ", t) for t in texts)


def test_vignettes_on_a_fresh_machine_write_only_records_to_stdout(tmp_path):
    """The built-in models are built first (a fresh machine's default assets/); that note goes to stderr."""
    result = run_cli("vignettes", "--scenes", "random", "--count", "2", "--only", "scissors,mug", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [json.loads(line)["id"] for line in result.stdout.splitlines()] == ["rnd0-0000000", "rnd0-0000001"]
    assert "building 2 built-in object model(s) into assets/ (once)" in result.stderr


@pytest.mark.render
def test_a_random_render_pins_its_pair_nouns_and_verify_derives_its_vignettes(tmp_path):
    out = tmp_path / "out"
    made = run_cli(
        "render", "--scenes", "random", "--count", "4", "--seed", "2", "--only", "scissors,headphones,mug", "--masks",
        "--resolution", "64x48", "--samples", "2", "--out", str(out), "--quiet", cwd=tmp_path,
    )  # fmt: skip (the default assets/ in tmp_path: the three built-in models are built first)
    assert made.returncode == 0, made.stderr
    assert json.loads((out / "settings.json").read_text())["scenes"]["pair_nouns"] == ["scissors", "headphones"]
    records = [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]
    texts = [v for r in records for v in r["vignettes"].values()]
    assert any(re.search(r"The (scissors|headphones) are ", t) for t in texts) and not [t for t in texts if WRONG.search(t)]
    audited = run_cli("verify", str(out), cwd=tmp_path)  # where the render's assets/ is: verify derives on and in from its models
    assert audited.returncode == 0, audited.stdout + audited.stderr
