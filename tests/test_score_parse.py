"""Reading answers as a person would: messy, paraphrased, lenient about object names, never guessing."""

from __future__ import annotations

import pytest

from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.prompts.battery import SceneInput, scene_queries
from tabletest.score.judge import judge
from tabletest.score.lexicon import load_lexicon
from tabletest.truth.vignettes import vignettes

LEXICON = load_lexicon(load_catalog())


def query(ptype: int, objects=("wine bottle", "mug"), **variation) -> dict:
    """The full-protocol query of that type and variation; the scene has objects[0] left of objects[1]."""
    scene = SceneInput("x", 0, tuple(objects), vignettes(tuple(objects)), "x.png")
    for record in scene_queries(scene, (ptype,), "full", "image", 0):
        if all(record["variation"][k] == v for k, v in variation.items()):
            return record
    raise AssertionError(f"no prompt {ptype} query with {variation}")


CASES = [
    # prompt 1: the wine bottle is left of the mug
    (query(1, relation="left", truth=True), "True.", "correct"),
    (query(1, relation="left", truth=True), "  TRUE  ", "correct"),
    (query(1, relation="left", truth=True), "Yes, it is.", "correct"),
    (query(1, relation="left", truth=True), "That statement is not true.", "wrong"),
    (query(1, relation="left", truth=False), "False. The bottle is on the left.", "correct"),
    (query(1, relation="left", truth=False), "The mug is to the right of the wine bottle.", "correct"),
    (query(1, relation="left", truth=True), "True or false: I cannot say.", "unparsed"),
    (query(1, relation="left", truth=True), "The statement is false.", "wrong"),
    # "the correct answer" is no verdict; only a `not` that governs the verdict word flips it
    (query(1, relation="left", truth=True), "The correct answer is: False.", "wrong"),
    (query(1, relation="left", truth=True), "The correct answer is no.", "wrong"),
    (query(1, relation="left", truth=True), "No doubt, true.", "correct"),
    (query(1, relation="left", truth=True), "Not sure, but true.", "correct"),
    (query(1, relation="left", truth=True), "It's not right, so true.", "correct"),
    (query(1, relation="left", truth=True), "It isn't correct.", "wrong"),
    (query(1, relation="left", truth=True), "That is not at all true.", "wrong"),
    (query(1, relation="left", truth=False), "No, it is not.", "correct"),
    (query(1, relation="left", truth=True), "Neither true nor false.", "unparsed"),
    # a hedge scores as the worse of its verdicts
    (query(1, relation="left", truth=True), "True and false.", "wrong"),
    (query(1, relation="left", truth=False), "Yes and no.", "wrong"),
    (query(1, relation="left", truth=True), "True. Then again, it is false.", "wrong"),
    (query(1, relation="left", truth=True), "<think>Is it false? No.</think><answer>True</answer>", "correct"),
    # prompts 4, 5, 8: the relation of the first-named object to the second
    (query(4, object_order="AB", relation_order="right_first"), "It is to the left.", "correct"),
    (query(4, object_order="AB", relation_order="left_first"), "**Left**", "correct"),
    (query(4, object_order="BA", relation_order="left_first"), "It is to the left.", "wrong"),
    (query(4, object_order="BA", relation_order="left_first"), "The cup is on the right of the bottle.", "correct"),
    (query(4, object_order="BA", relation_order="left_first"), "The bottle is to the left of the cup.", "correct"),
    (query(4, object_order="AB", relation_order="left_first"), "It is not to the right.", "correct"),
    (query(4, object_order="AB", relation_order="left_first"), "To the left of or to the right of.", "unparsed"),
    (query(4, object_order="AB", relation_order="left_first"), "Yes.", "unparsed"),
    (query(5, object_order="AB", relation_order="left_first", irrelevant_position="first"), "Inside of.", "wrong"),
    (query(5, object_order="AB", relation_order="left_first", irrelevant_position="last"), "to the left of", "correct"),
    (query(8, object_order="BA"), "right", "correct"),
    (query(8, object_order="BA"), "The mug is to the right of the wine bottle.", "correct"),
    (query(8, object_order="AB"), "That's right, it is on the left.", "correct"),
    # contrast and asides: `not` negates only the relation phrase it directly precedes
    (
        query(4, object_order="AB", relation_order="left_first"),
        "The wine bottle, which is not very tall, is to the left of the mug.",
        "correct",
    ),
    (
        query(4, object_order="AB", relation_order="left_first"),
        "The wine bottle is to the left of the mug, not the right.",
        "correct",
    ),
    (
        query(4, object_order="AB", relation_order="right_first"),
        "The wine bottle is to the left rather than to the right of the mug.",
        "correct",
    ),
    (
        query(5, object_order="AB", relation_order="left_first", irrelevant_position="last"),
        "The wine bottle is to the left of the mug, not to the right or inside of it.",
        "correct",
    ),
    (
        query(5, object_order="AB", relation_order="left_first", irrelevant_position="first"),
        "Inside of, to the left of, or to the right of.",
        "unparsed",
    ),
    (query(4, object_order="AB", relation_order="left_first"), "The wine bottle is on the mug's left.", "correct"),
    (query(4, object_order="AB", relation_order="left_first"), "The wine bottle is not on the mug's left.", "wrong"),
    (query(8, object_order="BA"), "The mug is on the wine bottle's right side.", "correct"),
    # the question's alternatives offered back are no answer, unless a `not` governs them all
    (
        query(4, object_order="BA", relation_order="left_first"),
        "The bottle is to the left or to the right of the mug.",
        "unparsed",
    ),
    (
        query(5, object_order="AB", relation_order="left_first", irrelevant_position="last"),
        "It is not to the right or inside of the mug.",
        "correct",
    ),
    # prompt 6: both blanks; a full sentence with the other relation counts (appendix A)
    (query(6, relation="left"), "the cup is left of the bottle", "wrong"),
    (query(6, relation="left"), "the cup is to the right of the bottle", "correct"),
    (query(6, relation="left"), "wine bottle, mug", "correct"),
    (query(6, relation="right"), "The [mug] is to the right of the [wine bottle].", "correct"),
    (query(6, relation="right"), "mug; bottle", "correct"),
    (query(6, relation="right"), "bottle, cup", "wrong"),
    (query(6, relation="left"), "The bottle is on the left and the cup is on the right.", "correct"),
    (query(6, relation="left"), "A bottle.", "wrong"),
    (query(6, relation="left"), "A table with two things on it.", "unparsed"),
    # prompt 7: one blank
    (query(7, relation="left"), "Wine bottle.", "correct"),
    (query(7, relation="left"), "The bottle is on the left side of the table.", "correct"),
    (query(7, relation="right"), "coffee cups", "correct"),
    (query(7, relation="right"), "The bottle", "wrong"),
    (query(7, relation="right"), "a bottle and a mug", "wrong"),
    (query(7, relation="left"), "", "unparsed"),
    (query(7, relation="left"), "The wine bottle, not the mug, is on the left side of the table.", "correct"),
    (query(7, relation="left"), "The bottle rather than the cup is on the left side.", "correct"),
    (query(7, relation="left"), "The wine bottle is on the mug's left.", "correct"),
    (query(6, relation="left"), "The wine bottle is on the mug's left.", "correct"),
    # prompt 8: "right" as an intensifier is no relation
    (query(8, object_order="AB"), "The wine bottle is to the left of the mug. It is right next to it.", "correct"),
    (query(8, object_order="AB"), "Left; the bottle is right beside the mug.", "correct"),
    (query(8, object_order="BA"), "The mug is right behind and to the right of the wine bottle.", "correct"),
    (query(8, object_order="AB"), "It is right next to the mug.", "unparsed"),
]

# Appendix A's own examples, for Figure 1b: a blender to the left of a cupcake
BLENDER = ("blender", "cupcake")
APPENDIX_A = [
    # "an appropriate response ... would be: blender, cupcake, or else some semantic equivalent, e.g., appliance, food"
    (query(6, BLENDER, relation="left"), "blender, cupcake", "correct"),
    (query(6, BLENDER, relation="left"), "appliance, food", "correct"),
    (query(6, BLENDER, relation="right"), "Food, appliance.", "correct"),
    (query(6, BLENDER, relation="left"), "food, appliance", "wrong"),
    # "... or else provided some summary of the image": naming both objects does not fill the blanks
    (query(6, BLENDER, relation="left"), "The image shows a blender and a cupcake on a wooden table.", "wrong"),
    (query(6, BLENDER, relation="left"), "There is a blender and a cupcake.", "wrong"),
    (query(7, BLENDER, relation="left"), "The picture shows a blender.", "wrong"),
    (query(7, BLENDER, relation="left"), "an appliance", "correct"),
    # "a response such as *the cup is to the right of the bottle* was considered correct"
    (query(6, ("wine bottle", "mug"), relation="left"), "the cup is to the right of the bottle", "correct"),
]


@pytest.mark.parametrize(
    ("record", "response", "status"), APPENDIX_A, ids=[f"p{c[0]['prompt_type']}:{c[1]!r}" for c in APPENDIX_A]
)
def test_appendix_a_examples_are_scored_as_the_paper_says(record, response, status):
    assert judge(record, response, LEXICON).status == status


def test_an_unknown_word_in_a_blank_is_unread_and_shown_not_silently_wrong():
    one_known = judge(query(6, BLENDER, relation="left"), "appliance, frosted treat", LEXICON)
    assert one_known.status == "unparsed" and "'frosted treat'" in one_known.parsed
    assert one_known.unknown == (("cupcake", "frosted treat"),)  # the blank the known word leaves
    side = judge(query(7, BLENDER, relation="right"), "A frosted treat.", LEXICON)
    assert (side.status, side.unknown) == ("unparsed", (("cupcake", "frosted treat"),))
    assert judge(query(6, BLENDER, relation="left"), "blender", LEXICON).status == "wrong"  # one blank, no word
    assert judge(query(7, BLENDER, relation="left"), "I cannot tell.", LEXICON).unknown == ()


def test_prompt_3_reads_the_statement_said_not_to_hold_not_its_reason():
    mug_left = ("mug", "wine bottle")
    explained = (
        "The mug is to the left of the wine bottle, so 'The mug is to the right of the wine bottle' does not hold."
    )
    outcome = judge(query(3, mug_left, option_order="0123"), explained, LEXICON)
    assert (outcome.status, outcome.choices) == ("correct", (("right", "AB"),))
    reason_after = "'The wine bottle is to the left of the mug' is false, because the mug is left of the wine bottle."
    assert judge(query(3, mug_left, option_order="0123"), reason_after, LEXICON).status == "correct"
    wrong_pick = "The mug is to the right of the wine bottle, so 'The mug is to the left of the wine bottle' is false."
    assert judge(query(3, mug_left, option_order="0123"), wrong_pick, LEXICON).status == "wrong"


@pytest.mark.parametrize(
    ("record", "response", "status"), CASES, ids=[f"p{c[0]['prompt_type']}:{c[1]!r}" for c in CASES]
)
def test_answers_are_read_as_a_person_would(record, response, status):
    assert judge(record, response, LEXICON).status == status


def choose(response: str, options: str = "0123", ptype: int = 2):
    return judge(query(ptype, option_order=options), response, LEXICON)


def test_options_are_recognised_quoted_paraphrased_or_by_number():
    assert choose("The mug is to the right of the wine bottle").choices == (("right", "BA"),)
    assert choose("the cup is right of the bottle.").status == "correct"
    assert choose("Option 1").choices == (("right", "AB"),)  # presented first: "The A is to the right of the B"
    assert choose("2", options="3210").choices == (("right", "BA"),)
    assert choose("The second one.", options="3210").choices == (("right", "BA"),)
    assert choose("The mug is to the left of the wine bottle.", ptype=3).status == "correct"
    assert choose("The wine bottle is not to the right of the mug.", ptype=3).status == "correct"
    echo = "The wine bottle is to the right of the mug. The wine bottle is to the left of the mug. The mug is to the right of the wine bottle."
    assert choose(echo).status == "unparsed"
    assert choose("I am not sure.").status == "unparsed"


def test_every_chosen_option_must_be_acceptable():
    """Prompt 2 asks for a correct relationship: one pick suffices, two picks count only if both hold."""
    both = "The wine bottle is to the left of the mug and the mug is to the right of the wine bottle."
    assert choose(both).status == "correct"
    assert choose(both).choices == (("left", "AB"), ("right", "BA"))
    one_false = "The wine bottle is to the left of the mug and the mug is to the left of the wine bottle"
    assert choose(one_false).status == "wrong"
    assert choose(one_false).world is None
    assert choose("The mug is to the left of the wine bottle.").world == "mirror"
    # options 2 and 3 of the order 0123 are canonical 1 and 2: both hold
    assert choose("Options 2 and 3").status == "correct"
    assert choose("2 and 3").status == "correct"
    assert choose("Options 1 and 2").status == "wrong"
    assert choose("option 1 or 4").world == "mirror"
    assert choose("Options 1 and 4", ptype=3).status == "correct"
    assert choose("Options 2 and 3", ptype=3).status == "wrong"
    assert choose("The second and third ones.").status == "correct"
    assert choose("1, 2, 3").status == "unparsed"


def test_a_word_shared_by_both_objects_is_settled_by_elimination_or_left_ambiguous():
    bottles = ("wine bottle", "water bottle")
    assert judge(query(6, bottles, relation="left"), "bottle, water bottle", LEXICON).status == "correct"
    assert judge(query(7, bottles, relation="left"), "A bottle", LEXICON).status == "unparsed"
    # "teapot" is the teapot's own name, though a synonym of kettle
    assert judge(query(7, ("teapot", "kettle"), relation="left"), "The teapot.", LEXICON).status == "correct"


def test_three_object_answers_are_judged_against_the_whole_scene():
    scene = SceneInput("3obj-x", 0, ("tomato", "mug", "lamp"), vignettes(("tomato", "mug", "lamp")), "x.png")
    p6 = next(r for r in scene_queries(scene, (6,), "full", "image", 0) if r["variation"]["relation"] == "left")
    assert p6["distractor"] == {"name": "mug", "slot": "middle"}
    assert judge(p6, "mug, lamp", LEXICON).status == "correct"  # also a true fill-in
    assert judge(p6, "lamp, mug", LEXICON).status == "wrong"
    p4 = next(r for r in scene_queries(scene, (4,), "full", "image", 0) if r["objects"] == {"A": "mug", "B": "lamp"})
    assert judge(p4, "The tomato is to the left of the mug.", LEXICON).status == "unparsed"  # not about the pair


def test_users_extend_the_lookup_table(tmp_path):
    record = query(7, ("briefcase", "lamp"), relation="left")
    assert judge(record, "a satchel", LEXICON).status == "unparsed"
    extra = tmp_path / "more.yaml"
    extra.write_text("briefcase: [satchel]\n")
    assert judge(record, "a satchel", load_lexicon(load_catalog(), extra)).status == "correct"
    assert judge(record, "a lunch box", LEXICON).status == "correct"  # the paper's own example
    extra.write_text("brief case: [satchel]\n")
    with pytest.raises(UserError, match="unknown object name 'brief case': did you mean 'briefcase'"):
        load_lexicon(load_catalog(), extra)
    extra.write_text("briefcase: satchel\n")
    with pytest.raises(UserError, match="must be a list of words"):
        load_lexicon(load_catalog(), extra)


def test_the_built_in_table_covers_exactly_the_catalog():
    assert set(LEXICON.table) == set(load_catalog().names)


@pytest.mark.parametrize("response", ["True", "False.", "Yes", "The image shows a mug and a lamp", "In the picture: mug, lamp"])
def test_a_verdict_or_a_description_is_no_word_for_an_object(response):
    """What `synonyms_suggested.yaml` proposes is only what a model calls an object, never "true" or "image shows"."""
    from tabletest.score.parse import Reading

    assert Reading(response, load_lexicon(load_catalog()), ("mug", "lamp")).unknown_words == []
    assert Reading("mug, pastry", load_lexicon(load_catalog()), ("mug", "lamp")).unknown_words == ["pastry"]
