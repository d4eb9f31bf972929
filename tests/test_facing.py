"""Which way objects face: the catalog's fronts (validated, drawn on a sheet where it says they face, and no part of
what pins a dataset), the directions and hours as the viewer sees them with their withheld bands, the relations
between fronts, and the one judge reading an answer's directions (a hedge scores as its worst)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml
from conftest import REPO
from hierarchy_scenes import obj, scene
from PIL import Image

from tabletest.config import load_catalog, load_config
from tabletest.errors import UserError
from tabletest.layout.selection import Selection
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.render.run import RenderOptions, dataset_settings
from tabletest.score.lexicon import load_lexicon
from tabletest.score.answer import judge_answer
from tabletest.show.overlay import changes
from tabletest.truth.facing import OPTIONS, facing, front_vector, hour_of, within, word_of
from tabletest.truth.scene_facts import SceneGeometry
from tabletest.write.families import Benchmark

CATALOG = load_catalog()
LEXICON = load_lexicon(CATALOG)
FRONTED = {
    "blender": 0, "toaster": 0, "teapot": -90, "kettle": -90, "flashlight": -60, "stapler": -90, "telephone": 0, "lamp": 90,
    "camera": 0, "laptop": 0, "radio": 0, "fan": 0, "briefcase": 0, "alarm clock": 0, "piggy bank": 0, "teddy bear": 0,
    "rubber duck": -60, "trophy": 0, "watering can": -90, "padlock": 0,
}  # fmt: skip  each kind with a front, and where its model's front points from −Y (anticlockwise), as the sheet shows


def test_the_catalog_records_each_front_the_sheet_shows():
    assert {o.name: o.front_deg for o in CATALOG.objects if o.has_front} == FRONTED
    assert not {"mug", "book", "calculator", "wine bottle", "headphones", "microphone"} & set(FRONTED)


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ("{name: mug, kind: artifact, group: kitchen, size_m: 0.12, front_deg: 90}", "front_deg 90 turns a front it does not have"),
        ("{name: kettle, kind: artifact, group: kitchen, size_m: 0.2, has_front: true, front_deg: 270}", "front_deg"),
        ("{name: kettle, kind: artifact, group: kitchen, size_m: 0.2, has_front: true, front_deg: -180}", "front_deg"),
    ],
)
def test_a_front_turn_is_validated_in_one_line(tmp_path, entry, words):
    path = tmp_path / "objects.yaml"
    path.write_text(f"objects:\n  - {entry}\n")
    with pytest.raises(UserError, match=words) as caught:
        load_catalog(path)
    assert "\n" not in str(caught.value)


def test_fronts_are_no_part_of_what_pins_a_dataset(tmp_path):
    """Which way an object faces decides no pixel or record (only questions, and rotate partners, whose sets pin
    their fronts), so a catalog with other fronts continues the same dataset; another size does not."""
    data = yaml.safe_load((REPO / "configs" / "objects.yaml").read_text())
    options = RenderOptions(out=tmp_path, assets=tmp_path, build_missing_assets=False, device="cpu")
    config = load_config()

    def pinned(objects: list[dict]) -> str:
        path = tmp_path / "objects.yaml"
        path.write_text(yaml.safe_dump({"objects": objects}))
        catalog = load_catalog(path)
        return dataset_settings(catalog, config, options, Benchmark(catalog, Selection(2)))["catalog_sha256"]

    shipped = pinned(data["objects"])
    unfronted = [{k: v for k, v in o.items() if k not in ("has_front", "front_deg")} for o in data["objects"]]
    assert pinned(unfronted) == shipped
    resized = [{**o, "size_m": o["size_m"] * 2} if o["name"] == "mug" else o for o in data["objects"]]
    assert pinned(resized) != shipped


VIEWER = np.array([0.0, -2.0])  # looking along +Y: its right is +X


@pytest.mark.parametrize(
    ("yaw", "front_deg", "angle", "word", "hour"),
    [
        (0, 0, 180, "towards", 6),  # −Y: at the viewer
        (90, 0, 90, "right", 3),
        (0, -90, 270, "left", 9),  # a spout on −X, unturned
        (180, 0, 0, "away", 12),
        (135, 0, 45, "away and right", None),  # 45°: between two hours
        (-20, 0, 200, None, None),  # 20° off towards: within 15° of the line to "towards and left", and off its hour
        (7.4, 0, 172.6, "towards", 6),
        (7.6, 0, 172.4, None, None),  # 7.6° off: withheld, both as a word and as an hour
        (25, 0, 155, None, 5),  # near no word, within 7.5° of 5 o'clock
    ],
)
def test_a_direction_is_said_only_within_7_5_degrees_of_its_word_or_hour(yaw, front_deg, angle, word, hour):
    seen = facing(front_vector(yaw, front_deg), np.zeros(2), VIEWER)
    assert seen.angle_deg == pytest.approx(angle, abs=1e-6)
    assert (seen.direction, seen.hour) == (word, hour)


def test_away_is_the_line_of_sight_through_the_object():
    """An object far to the viewer's left with its front pointing at the viewer faces it, though the viewer looks
    straight ahead: "towards" is towards the viewer, not against the view's axis."""
    at = np.array([-1.0, 0.0])
    at_viewer = (VIEWER - at) / np.linalg.norm(VIEWER - at)
    assert facing(at_viewer, at, VIEWER).direction == "towards"
    assert facing(np.array([0.0, -1.0]), at, VIEWER).direction is None  # 26.6° off the line of sight
    assert facing(np.array([1.0, 0.0]), np.zeros(2), np.zeros(2)) is None  # straight above it: no line of sight


def test_the_words_and_hours_go_round_clockwise_from_away():
    assert [word_of(45 * k) for k in range(8)] == ["away", "away and right", "right", "towards and right", "towards", "towards and left", "left", "away and left"]
    assert [hour_of(30 * k) for k in range(12)] == [12, *range(1, 12)]
    assert sorted(OPTIONS) == sorted(word_of(45 * k) for k in range(8))


@pytest.mark.parametrize(("angle", "near", "held"), [(0, 0, True), (30, 0, True), (31, 0, None), (59, 0, None), (60, 0, False), (180, 0, False),
                                                     (150, 180, True), (121, 180, None), (120, 180, False), (None, 0, None)])  # fmt: skip
def test_within_45_degrees_is_withheld_15_degrees_either_side(angle, near, held):
    assert within(angle, near) is held


def direction_question(answer: str) -> dict:
    return {
        "qid": "rnd0-0000000-img-facing-dir-kettle", "scene_id": "rnd0-0000000", "skill": "orientation", "level": "single",
        "frame": "viewer", "answer_type": "choice", "answer": answer, "options": list(OPTIONS), "scene_objects": ["kettle", "mug"],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("gold", "response", "status"),
    [
        ("towards and left", "Towards the viewer and to the left.", "correct"),
        ("towards and left", "It faces towards the camera, to the left.", "correct"),
        ("towards and left", "Left, towards me.", "correct"),
        ("towards and left", "Towards.", "wrong"),
        ("left", "To the left.", "correct"),
        ("left", "towards the left", "correct"),  # "towards the left" is the left
        ("left", "Left or right.", "wrong"),  # a hedge names two directions: the worst of them
        ("left", "left, or maybe away and left", "wrong"),
        ("away", "It is facing away from the viewer.", "correct"),
        ("towards", "It is not facing away: it faces the viewer.", "correct"),
        ("right", "That's right, it faces away.", "wrong"),  # "that's right" is no direction
        ("right", "I cannot tell.", "unparsed"),
    ],
)
def test_the_judge_reads_which_way_an_answer_says_an_object_faces(gold, response, status):
    judged = judge_answer(direction_question(gold), response, LEXICON)  # the one judge: scores, rewards, harness hooks
    assert judged.status == status, judged
    assert judged.score == (status == "correct") and judged.hedged == (response in ("Left or right.", "left, or maybe away and left"))


def test_every_gold_direction_reads_as_itself():
    for answer in OPTIONS:
        question = direction_question(answer)
        assert judge_answer(question, gold_text(question), LEXICON).status == "correct", answer
    assert gold_text(direction_question("away and right")) == "Away and right."


@pytest.mark.parametrize(
    ("gold", "response", "status"),
    [
        ("clockwise", "Clockwise.", "correct"),
        ("anticlockwise", "It turned counterclockwise.", "correct"),
        ("anticlockwise", "counter-clockwise", "correct"),
        ("clockwise", "Anticlockwise.", "wrong"),
        ("clockwise", "clockwise or anticlockwise", "wrong"),
        ("anticlockwise", "not clockwise", "correct"),
    ],
)
def test_the_judge_reads_which_way_an_object_turned(gold, response, status):
    question = {
        "qid": "rnd0-0000000-rotate-imgs-object-turn-way-first-second", "scene_id": "rnd0-0000000-rotate", "skill": "object motion",
        "level": "multi", "frame": None, "answer_type": "choice", "answer": gold, "options": ["clockwise", "anticlockwise"],
        "scene_objects": ["kettle"],
    }  # fmt: skip
    assert judge_answer(question, response, LEXICON).status == status


def test_a_rotate_partner_says_how_its_object_turned_and_what_it_now_faces():
    partner = {"id": "rnd0-0000000-rotate", "counterfactual": {
        "of": "rnd0-0000000", "kind": "rotate", "objects": ["kettle"], "turn_deg": -95.0,
        "became_true": {"facing": [["kettle", "mug"]], "same_way": [["kettle", "radio"], ["radio", "kettle"]]},
        "became_false": {"facing_away": [["kettle", "lamp"]]},
    }}  # fmt: skip
    assert changes(partner, lines=10) == [
        "rotate of kettle by 95° clockwise seen from above (from rnd0-0000000)",
        "now: kettle facing mug",
        "now: kettle facing the same way as radio",
        "no longer: kettle facing away from lamp",
    ]


@pytest.mark.render
def test_the_sheet_draws_each_front_where_the_catalog_says_it_faces(tmp_path, builtin_assets):
    """Seen from the front-right, a kettle's front (its spout, on −X) is drawn to the left of the kettle and a
    radio's (−Y) below and to the left of it; a mug, without a front, gets no arrow."""
    from tabletest.render.sheet import render_sheet

    out = render_sheet(CATALOG, builtin_assets, tmp_path / "fronts.png", only=["kettle", "radio", "mug"], cell=96, columns=3, fronts=True)
    sheet = np.asarray(Image.open(out).convert("RGB")).astype(int)
    arrow = (sheet[..., 0] > 180) & (sheet[..., 1] < 90) & (sheet[..., 2] > 100)  # the arrow's magenta
    cells = [arrow[:96, k * 96 : (k + 1) * 96] for k in range(3)]
    assert cells[0].sum() > 20 and cells[1].sum() > 20 and cells[2].sum() == 0
    kettle_x = np.nonzero(cells[0])[1].mean()
    radio_y, radio_x = (v.mean() for v in np.nonzero(cells[1]))
    assert kettle_x < 40, "the kettle's arrow points left"
    assert radio_y > 48 and radio_x < 48, "the radio's arrow points towards the camera, down and to the left"
    plain = render_sheet(CATALOG, builtin_assets, tmp_path / "plain.png", only=["kettle"], cell=96)
    drawn = np.asarray(Image.open(plain).convert("RGB")).astype(int)
    assert not ((drawn[..., 0] > 180) & (drawn[..., 1] < 90) & (drawn[..., 2] > 100)).any()


def test_a_front_turns_with_the_models_own_yaw_not_its_footprint_boxs():
    """The torch lies turned 30° in its model's box, its lens 60° clockwise of −Y: its box3d follows its footprint
    (turned a further 29.9°), and its front is turned by its own yaw and front_deg alone."""
    torch = obj("flashlight", 0.0, 0.0, (0.189, 0.046, 0.04), yaw=119.9)
    torch["yaw_deg"] = 90.0  # the model's own turn: the lens at −60° + 90° = 30° from −Y, anticlockwise
    g = SceneGeometry.from_record(scene("rnd0-0000000", [torch]), CATALOG)
    (thing,) = g.things
    assert thing.front == pytest.approx([math.sin(math.radians(30)), -math.cos(math.radians(30))])
    seen = g.facing_of(thing)
    assert seen is not None and seen.angle_deg == pytest.approx(180 - 30 - math.degrees(math.atan2(0, 2.2)), abs=0.5)
