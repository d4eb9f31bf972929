"""Questions a person reads one way: the viewer is never called by an object's name, a count says what it
counts, "bigger" is not asked where extent and volume disagree, a facing caption holds only near the front (and is
asked only clear of its band), and no leftmost of two that share a column."""

from __future__ import annotations

import math

import pytest
from hierarchy_scenes import obj, random_scene, scene

from tabletest.config import load_catalog
from tabletest.prompts.hierarchy.generate import scene_questions
from tabletest.truth.relations import bigger_reads_both_ways

CATALOG = load_catalog()


def every_phrasing(record: dict) -> list[dict]:
    return [q for q in scene_questions(record, CATALOG, seed=0, phrasings="all")]


@pytest.fixture(scope="module")
def questions() -> list[dict]:
    return [q for seed in range(8) for q in every_phrasing(random_scene(seed, 2 + seed % 4))]


def test_the_viewer_is_never_named_as_an_object_could_be(questions):
    """A scene may hold a camera: "As the camera sees it, ... the leftmost camera" reads two ways."""
    framed = [q for q in questions if q["frame"] == "viewer" or q["template"].startswith(("distance", "count-distance"))]
    assert framed and not [q["text"] for q in framed if "camera" in q["text"]]


def test_counts_say_what_they_count(questions):
    """An egg on a laptop is counted: the words ask how many there are, not how many are on the table."""
    counts = [q for q in questions if q["template"] in ("count-all", "count-kind")]
    assert counts and not [q["text"] for q in counts if "table" in q["text"]]


def test_bigger_is_not_asked_where_extent_and_volume_disagree():
    long_thin, squat, small = (0.26, 0.025, 0.025), (0.09, 0.09, 0.1), (0.03, 0.03, 0.03)
    assert bigger_reads_both_ways(long_thin, squat) and not bigger_reads_both_ways(squat, small)
    assert bigger_reads_both_ways((0.24, 0.06, 0.06), (0.11, 0.11, 0.12))  # twice as long, 1.7 times the volume: either way
    record = scene("rnd0-0000000", [obj("banana", -0.3, 0.0, long_thin), obj("mug", 0.0, 0.0, squat), obj("apple", 0.3, 0.0, small)])
    asked = {tuple(sorted(q["objects"])) for q in every_phrasing(record) if q["template"] == "size-choice" and q["relation"] in ("bigger", "smaller")}
    assert ("banana", "mug") not in asked  # longer by far, but holding an eighth of the mug's volume
    assert ("apple", "mug") in asked and ("apple", "banana") in asked


def test_a_facing_caption_is_true_within_30_degrees_of_the_front_and_false_beyond_60():
    """The radio faces −Y (yaw 0), an apple 90° off its front (not faced), and a mug at `degrees`: faced within 30°
    of the front and asked beside the apple; from 30° to 60° neither faced nor asked; beyond, not faced (as the
    apple is, so no caption of the two stands beside it)."""
    radio, apple = obj("radio", 0.0, 0.0, (0.25, 0.12, 0.15)), obj("apple", 0.4, 0.0, (0.08, 0.08, 0.08))
    for degrees, faced in ((25, True), (35, None), (55, None), (150, None)):
        t = math.radians(degrees)
        record = scene("rnd0-0000000", [radio, apple, obj("mug", -0.4 * math.sin(t), -0.4 * math.cos(t), (0.12, 0.08, 0.1))])
        captions = {q["objects"][1]: q["answer"] for q in every_phrasing(record) if q["template"] == "caption-orientation" and q["relation"] == "facing"}
        assert captions.get("mug") == faced, (degrees, captions)
        assert captions.get("apple") == (False if faced else None), (degrees, captions)


def test_no_leftmost_of_two_that_nearly_share_a_column_in_the_image():
    """Two mugs 4 cm apart across the view are left and right of each other, but a few pixels apart in the image."""
    lamp = obj("lamp", 0.5, 0.2, (0.2, 0.2, 0.45))
    close = scene("rnd0-0000000", [obj("mug", -0.02, 0.0, (0.12, 0.08, 0.1)), obj("mug", 0.02, 0.0, (0.12, 0.08, 0.1)), lamp])
    apart = scene("rnd0-0000001", [obj("mug", -0.3, 0.0, (0.12, 0.08, 0.1)), obj("mug", 0.1, 0.0, (0.12, 0.08, 0.1)), lamp])
    assert not [q["text"] for q in every_phrasing(close) if "leftmost" in q["text"] or "rightmost" in q["text"]]
    assert [q["text"] for q in every_phrasing(apart) if "leftmost mug" in q["text"]]
