"""Relations and vignettes, word for word as the study gives them."""

from tabletest.config import load_catalog
from tabletest.layout.selection import Scene, Selection, select_scenes
from tabletest.truth.records import vignette_record
from tabletest.truth.relations import relations
from tabletest.truth.vignettes import vignettes

CATALOG = load_catalog()


def test_two_object_texts_exactly():
    v = vignettes(("mug", "wine bottle"))
    assert v["left_first"] == "The mug is on the left side of the table. The wine bottle is on the right side of the same table."
    assert v["right_first"] == "The wine bottle is on the right side of the table. The mug is on the left side of the same table."


def test_three_object_texts_exactly():
    v = vignettes(("tomato", "banana", "apple"))
    assert v["left_first"] == (
        "The tomato is on the left side of the table. The banana is in the middle of the same table. "
        "The apple is on the right side of the same table."
    )
    assert v["right_first"] == (
        "The apple is on the right side of the table. The banana is in the middle of the same table. "
        "The tomato is on the left side of the same table."
    )


def test_one_object_text():
    assert vignettes(("lamp",)) == {"left_first": "The lamp is in the middle of the table.", "right_first": "The lamp is in the middle of the table."}


def test_known_scene_record():
    scene = next(select_scenes(CATALOG, Selection(2, limit=1)))
    record = vignette_record(scene)
    assert record["id"] == "2obj-000000" and record["objects"] == ["tomato", "banana"]
    assert record["relations"] == {
        "left_of": [["tomato", "banana"]],
        "right_of": [["banana", "tomato"]],
        "between": [],
        "table_side": {"tomato": "left", "banana": "right"},
    }


def test_between_holds_for_the_middle_object_of_every_three_object_scene():
    for scene in select_scenes(CATALOG, Selection(3)):
        left, middle, right = scene.objects
        rel = relations(scene.objects)
        assert rel["between"] == [[middle, left, right]]
        assert rel["table_side"][middle] == "middle"


def test_left_and_right_are_converses():
    rel = relations(("a", "b", "c"))
    assert sorted(rel["left_of"]) == [["a", "b"], ["a", "c"], ["b", "c"]]
    assert sorted([o, s] for s, o in rel["right_of"]) == sorted(rel["left_of"])
    assert vignette_record(Scene(3, 0, ("a", "b", "c")))["relations"] == rel
