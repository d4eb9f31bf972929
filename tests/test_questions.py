"""The question hierarchy: every gold answer recomputed from the scene's geometry, balance, withholding,
size constancy, stories derivable (and not stated), and benchmark and vignette records."""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest
from hierarchy_scenes import Reckoner, obj, random_scene, scene

from tabletest.config import load_catalog
from tabletest.layout.selection import Selection, select_scenes
from tabletest.truth import scene_facts as margins
from tabletest.prompts.hierarchy.generate import scene_questions
from tabletest.prompts.hierarchy.infer import closure, holds
from tabletest.truth.records import vignette_record

from conftest import run_cli

CATALOG = load_catalog()
FRONTED = {o.name for o in CATALOG.objects if o.has_front}
BENCHMARK = Path(__file__).parent / "fixtures" / "benchmark-3obj-metadata.jsonl"
# records of the random family as branch i13a (commit a49ee07) writes them, made by its pure-Python sampler and
# truth code (no render: `visible_fraction` set by hand to 1.0, 0.5, 0.97 in turn)
SAMPLED = Path(__file__).parent / "fixtures" / "random-scene-records.jsonl"
WORD = {"in front": "front", "left": "left", "right": "right", "behind": "behind"}
FACTS = {"left": "left_of", "right": "right_of", "in front": "in_front_of", "behind": "behind"}


def benchmark_records() -> list[dict]:
    return [json.loads(line) for line in BENCHMARK.read_text().splitlines()]


def vignette_records() -> list[dict]:
    selection = Selection(
        n_objects=3, only=("mug", "teddy bear", "banana", "lamp"), sample=None, seed=0, shard=None, limit=6
    )
    return [vignette_record(s) for s in select_scenes(CATALOG, selection)]


RANDOM = [random_scene(seed, n) for seed, n in ((1, 4), (2, 5), (3, 6), (4, 3), (5, 6), (6, 2))]
RANDOM += [json.loads(line) for line in SAMPLED.read_text().splitlines()]
# objects with fronts turned some the same way and some opposite (the kettle's spout on −X: its front at yaw − 90)
RANDOM.append(scene("rnd7-0000007", [
    obj("kettle", -0.45, 0.05, (0.22, 0.17, 0.24), 100.0), obj("radio", -0.05, 0.15, (0.25, 0.1, 0.15), 15.0),
    obj("alarm clock", 0.4, -0.05, (0.14, 0.08, 0.14), 190.0), obj("teddy bear", 0.05, -0.3, (0.2, 0.16, 0.3), 5.0),
    obj("apple", 0.35, 0.3, (0.08, 0.08, 0.08)),
]))  # fmt: skip
ALL_RECORDS = RANDOM + benchmark_records() + vignette_records()


def questions_of(records: list[dict]) -> list[dict]:
    return [q for r in records for q in scene_questions(r, CATALOG, seed=0)]


def keyed(questions) -> dict:
    """Gold answers by the question's key (its id after the scene and modality), whatever its phrasing."""
    return {q["qid"].split("-img-", 1)[1]: q["answer"] for q in questions}


@pytest.fixture(scope="module")
def asked() -> list[tuple[dict, dict]]:
    return [(r, q) for r in ALL_RECORDS for q in scene_questions(r, CATALOG, seed=0)]


def relation(k: Reckoner, word: str, a: str, b: str) -> bool:
    """a <word> b in the viewer's frame, from the numbers."""
    return {
        "left": lambda: k.left_of(a, b),
        "right": lambda: k.left_of(b, a),
        "front": lambda: k.in_front_of(a, b),
        "behind": lambda: k.in_front_of(b, a),
    }[word]()


def own_side(k: Reckoner, of: str, other: str) -> set[str]:
    """Where `other` stands from `of`'s own front: the words that hold (beyond the margins)."""
    angle = k.own_angle(of, other)
    words = set()
    if 30 <= angle <= 150:
        words.add("left")
    if -150 <= angle <= -30:
        words.add("right")
    if abs(angle) <= 70:
        words.add("front")
    if abs(angle) >= 110:
        words.add("behind")
    return words


def observed_side(record: dict, k: Reckoner, q: dict) -> str:
    """`left` or `right`: where a question's object stands for its person at a side of the table (15 cm off their
    line at least) or for one standing at an object facing another (35 to 145 degrees off the facing, none of the
    three on, in or above another); a question inside its band is a failure (it should not have been asked)."""
    if q["frame"] == "person":
        across = k.person_across(q["observer"], q["objects"][0])
        assert abs(across) >= 0.15, f"{q['qid']}: {across:.3f} m from the person's line is withheld"
        return "left" if across > 0 else "right"
    stacked = {frozenset(p[:2]) for key in ("on", "inside", "above") for p in record.get("relations", {}).get(key, ())}
    assert not {frozenset(two) for two in itertools.combinations(q["objects"], 2)} & stacked, q["qid"]
    angle = k.facing_angle(*q["objects"])
    assert 35 <= abs(angle) <= 145, f"{q['qid']}: {angle:.1f} degrees off the facing is withheld"
    return "left" if angle > 0 else "right"


def length_said(metres: float) -> float:
    """A length as a careful person would state it in centimetres: two significant figures, whole from a metre."""
    return float(f"{metres * 100:.2g}") if metres < 1 else float(round(metres * 100))


def metric_expected(k: Reckoner, q: dict):
    """A metric question's answer from the record's numbers: the length as said (checking the exact value the
    record keeps beside it), or the clock hour."""
    rel, objs = q["relation"], q["objects"]
    if rel == "clock":
        x, y = objs
        forward, right = k.R[2, :2] / np.linalg.norm(k.R[2, :2]), k.R[0, :2] / np.linalg.norm(k.R[0, :2])
        v = k.boxes[y][0][:2] - k.boxes[x][0][:2]
        angle = math.degrees(math.atan2(v @ right, v @ forward)) % 360
        assert abs((angle % 30) - 15) > 5, f"{q['qid']}: {angle:.1f} degrees is too near the line between two hours"
        return round(angle / 30) % 12 or 12
    center, size = (k.boxes[o][0] for o in objs), k.boxes[objs[0]][1]
    metres = {
        "viewer_distance": lambda: k.view_distance(objs[0]),
        "height": lambda: size[2],
        "length": lambda: max(size[:2]),
        "width": lambda: min(size[:2]),
        "centre_distance": lambda: float(np.linalg.norm(np.subtract(*center))),
    }[rel]()
    assert q["exact"] == {"value": pytest.approx(metres, abs=1e-6), "unit": "m"} and q["unit"] == "cm"
    assert q["text"].endswith(" Answer with a number in centimetres."), q["text"]  # a number alone reads as the gold's unit
    return length_said(metres)


def long_axis(k: Reckoner, name: str) -> float | None:
    """Degrees (0-180) of an object's long side on the table; None for one less than 1.4 times as long as wide."""
    _, size, yaw, _ = k.boxes[name]
    if max(size[:2]) < 1.4 * min(size[:2]):
        return None
    return (math.degrees(yaw) + (0 if size[0] >= size[1] else 90)) % 180


def caption_expected(k: Reckoner, record: dict, q: dict) -> bool:
    """A caption of the relation table's relations, from the record's numbers, its definition read off the docs;
    a caption inside the relation's withheld band is a failure (it should not have been asked)."""
    rel, (x, y) = q["relation"], q["objects"]
    (cx, sx), (cy, sy) = ((k.boxes[n][0], k.boxes[n][1]) for n in (x, y))
    if rel in ("near", "far"):
        gaps = {frozenset(e[:2]): e[2] for e in record.get("gaps_m") or ()}
        gap = gaps.get(frozenset((x, y)), max(0.0, float(np.linalg.norm(cx[:2] - cy[:2])) - (max(sx[:2]) + max(sy[:2])) / 2))
        size = (max(sx) + max(sy)) / 2
        assert gap <= 0.5 * size or gap >= 2 * size, f"{q['qid']}: a gap of {gap / size:.2f} sizes is withheld"
        return (gap <= 0.5 * size) == (rel == "near")
    if rel in ("parallel", "perpendicular"):
        axes = long_axis(k, x), long_axis(k, y)
        assert None not in axes, q["qid"]
        turn = abs(axes[0] - axes[1]) % 180
        turn = min(turn, 180 - turn)
        off = turn if rel == "parallel" else 90 - turn
        assert off <= 10 or off >= 20, f"{q['qid']}: {off:.1f} degrees is withheld"
        return off <= 10
    if rel == "beyond":
        if k.in_front_of(x, y):
            return False
        forward = k.R[2, :2] / np.linalg.norm(k.R[2, :2])
        side = abs(float((cx[:2] - cy[:2]) @ np.array([forward[1], -forward[0]])))
        assert k.in_front_of(y, x) and side <= max(sy[:2]) / 2, f"{q['qid']}: {side:.3f} m to the side is withheld"
        return True
    if rel == "ahead_of":  # farther along the way the relatum faces: within 45 degrees of its own front
        return facing_expected(q, abs(k.own_angle(y, x)), 0)
    raise AssertionError(f"no reckoning for the caption {q['qid']}")


def map_cell(k: Reckoner, record: dict, name: str) -> str:
    """The cell of a square 3x3 grid over the box centres of the objects the render saw, seen from above with the
    viewer at the bottom, that holds `name`; the records' margins (3 cm across, 4 cm along the view) asserted."""
    forward = k.R[2, :2] / np.linalg.norm(k.R[2, :2])
    right = np.array([forward[1], -forward[0]])
    hidden = set(record.get("relations", {}).get("hidden", ()))
    centres = {}
    for o in record["objects"]:
        if o.get("instance", o["name"]) in hidden:
            continue
        if "box3d" in o:
            centre = np.array(o["box3d"]["center_m"])
        else:
            centre = np.array(o["position_m"]) + [0, 0, o["size_m"][2] / 2]
        centres.setdefault(o["name"], []).append((float(centre[:2] @ right), float(centre[:2] @ forward)))
    points = np.array([p for ps in centres.values() for p in ps])
    side = max(np.ptp(points[:, 0]), np.ptp(points[:, 1]))
    assert side >= 0.2
    (x, y), = centres[name]
    left = (points[:, 0].max() + points[:, 0].min()) / 2 - side / 2
    far = (points[:, 1].max() + points[:, 1].min()) / 2 + side / 2
    column, row = (x - left) / (side / 3), (far - y) / (side / 3)
    for offset, margin in ((column, margins.LATERAL_M), (row, margins.DEPTH_M)):
        assert min(abs(offset - 1), abs(offset - 2)) * side / 3 >= margin, name
    row, column = min(2, int(row)), min(2, int(column))
    words = ("top", "middle", "bottom")[row], ("left", "middle", "right")[column]
    return "centre" if words == ("middle", "middle") else " ".join(words)


def facing_expected(q: dict, angle: float, near: float) -> bool:
    """Within 45 degrees of `near` (0 or 180), withheld from 30 to 60 degrees off it; a question inside that band
    is a failure (it should not have been asked)."""
    off = abs(angle - near)
    assert off <= 30 or off >= 60, f"{q['qid']}: {off:.1f} degrees off is withheld"
    return off <= 30


DIRECTION_WORDS = ("away", "away and right", "right", "towards and right", "towards", "towards and left", "left", "away and left")


def orientation_expected(k: Reckoner, record: dict, q: dict):
    """Which way an object faces as the viewer sees it (a word every 45 degrees, an hour every 30, each asked only
    within 7.5 degrees of it), whether it faces another (away from it), and whether two face the same (opposite)
    way, from the record's yaws, the catalog's fronts and the camera."""
    rel, objs = q["relation"], q["objects"]
    if rel in ("facing_direction", "facing_clock"):
        angle = k.seen_facing(objs[0])
        step = 45 if rel == "facing_direction" else 30
        nearest = round(angle / step)
        assert abs(angle - nearest * step) <= 7.5, f"{q['qid']}: {angle:.1f} degrees is too near a boundary"
        return DIRECTION_WORDS[nearest % 8] if rel == "facing_direction" else nearest % 12 or 12
    x, y = objs
    if rel in ("facing", "facing_away"):
        stacked = {frozenset(p[:2]) for key in ("on", "inside", "above") for p in record.get("relations", {}).get(key, ())}
        assert frozenset((x, y)) not in stacked, q["qid"]
        return facing_expected(q, abs(k.own_angle(x, y)), 0 if rel == "facing" else 180)
    return facing_expected(q, k.fronts_apart(x, y), 0 if rel == "same_way" else 180)


def expected(record: dict, q: dict):
    """The gold answer of a question, recomputed from the record's geometry alone."""
    k = Reckoner(record)
    skill, rel, objs = q["skill"], q["relation"], q["objects"]
    if q["answer_type"] == "quantity" or rel == "clock":
        return metric_expected(k, q)
    if q["form"] == "caption" and rel in ("near", "far", "parallel", "perpendicular", "beyond", "ahead_of"):
        return caption_expected(k, record, q)
    if q["form"] == "story":
        x, y = objs[:2]
        if "+" in rel:
            side, ahead = rel.split("+")
            return relation(k, WORD[side], x, y) and relation(k, WORD[ahead], x, y)
        if q["answer_type"] == "choice" and len(objs) == 3:  # choose object: which option is <rel> the third
            return next(o for o in q["options"] if relation(k, WORD[rel], o, objs[2]))
        if q["answer_type"] == "choice":
            return next(o for o in q["options"] if relation(k, WORD[o], x, y))
        return relation(k, WORD[rel], x, y)
    if skill == "orientation":
        return orientation_expected(k, record, q)
    if skill == "map":
        return map_cell(k, record, objs[0])
    if skill == "position" and rel == "between":
        if q["answer_type"] == "names":
            a, b = objs
            return [n for n in k.names() if k.between(n, a, b)]
        return k.between(*objs)
    if skill == "position" and q["frame"] == "viewer":
        x, y = objs
        if q["answer_type"] == "choice":
            return next(o for o in q["options"] if relation(k, WORD[o], x, y))
        return relation(k, rel, x, y)
    if skill == "position" and q["frame"] == "intrinsic":
        x, y = objs
        assert x in FRONTED
        return rel in own_side(k, x, y)
    if q["frame"] in ("person", "object"):
        side = observed_side(record, k, q)
        return side if q["answer_type"] == "choice" else rel == side
    if skill == "distance" and q["frame"] == "viewer":
        a, b = objs
        nearer = a if k.view_distance(a) < k.view_distance(b) else b
        if q["answer_type"] == "yes/no":
            return nearer == a
        return nearer if rel == "nearer" else ({a, b} - {nearer}).pop()
    if skill == "distance":
        a, b, to = objs
        nearer = a if k.ground_distance(a, to) < k.ground_distance(b, to) else b
        return nearer if rel == "nearer" else ({a, b} - {nearer}).pop()
    if skill in ("size", "distance+size"):
        a, b = objs
        measure = k.extent if rel in ("bigger", "smaller") else k.height
        big = a if measure(a) > measure(b) else b
        small = ({a, b} - {big}).pop()
        looks = "bigger" if rel in ("bigger", "smaller") else "taller"
        ratio = k.looks(small, looks) / k.looks(big, looks)
        assert ratio >= 1.1 if skill == "distance+size" else ratio <= 1 / 1.1, q["qid"]
        return big if rel in ("bigger", "taller") else small
    if skill == "counting":
        return len(k.names()) if rel == "all" else k.names().count(objs[0])
    if skill == "position+counting":
        (x,) = objs
        if q["frame"] == "viewer":
            return sum(relation(k, rel, n, x) for n in k.others(x))
        return sum(rel in own_side(k, x, n) for n in k.others(x))
    if skill == "distance+counting":
        (x,) = objs
        closer = [n for n in k.others(x) if k.view_distance(n) < k.view_distance(x)]
        return len(closer) if rel == "nearer" else len(k.others(x)) - len(closer)
    if skill == "occlusion":
        (x,) = objs
        box = k.image_box(x)

        def overlaps(n):
            o = k.image_box(n)
            return box[0] < o[2] and o[0] < box[2] and box[1] < o[3] and o[1] < box[3]

        candidates = [n for n in k.others(x) if overlaps(n)]  # only these can hide any of it
        visible = k.visible(x)
        if rel == "hidden":  # nothing overlapping: fully visible, whatever the fraction reads
            return bool(candidates) and visible is not None and visible <= 0.9
        assert len(candidates) == 1, q["qid"]  # with two or more, boxes cannot tell which covers it
        return candidates
    raise AssertionError(f"no reckoning for {q['qid']}")


def test_every_gold_is_recomputed_from_the_geometry(asked):
    kinds, templates = Counter(), Counter()
    for record, q in asked:
        assert q["answer"] == expected(record, q), q["qid"]
        kinds[q["skill"]] += 1
        templates[q["template"], q["relation"]] += 1
    orientation = {"facing-direction", "facing-clock", "facing-object-yes/no", "facing-same-yes/no", "caption-orientation"}
    assert {t for t, _ in templates} >= orientation, "each way of asking which way objects face is recomputed"
    assert {r for t, r in templates if t in orientation} >= {"facing", "facing_away", "same_way", "opposite_way", "facing_direction", "facing_clock"}
    assert set(kinds) >= {
        "position", "distance", "size", "distance+size", "counting", "position+counting", "distance+counting",
        "occlusion", "orientation", "multi-hop", "perspective", "map",
    }  # fmt: skip


def test_qids_are_unique_and_every_record_has_the_fields(asked):
    for records in (RANDOM + benchmark_records(), vignette_records()):  # the same scene ids in both
        qids = [q["qid"] for q in questions_of(records)]
        assert len(qids) == len(set(qids))
    levels = {"position": "single", "perspective": "single", "distance+size": "multi", "occlusion": "reasoning", "multi-hop": "reasoning"}
    for _, q in asked:
        assert q["frame"] in ("viewer", "intrinsic", "person", "object", None)
        assert ("observer" in q) == (q["frame"] == "person")
        assert q["answer_type"] in ("yes/no", "choice", "number", "names", "quantity", "cell")
        if q["skill"] in levels:
            assert q["level"] == levels[q["skill"]]
        if q["answer_type"] == "choice":  # which way an object faces: one of eight directions
            assert q["answer"] in q["options"] and (2 <= len(q["options"]) <= 3 or q["template"] == "facing-direction")
        assert q["text"].endswith(
            ("Answer yes or no.", "Answer with a number.", "Answer with the name of each such object.", "Answer with a number in centimetres.",
             "Answer with a number in degrees.", "Answer with the cell's row (top, middle, bottom) and column (left, middle, right), or centre.")
        ) or (q["answer_type"] == "choice" and q["text"].endswith(" or ".join(q["options"][-1:]) + "."))
        if q["template"] == "facing-direction":
            assert q["text"].endswith("Answer with one of: towards, away, left, right, towards and left, towards and right, away and left, away and right.")


def test_inverse_pairs_have_opposite_golds_and_balance_every_cell(asked):
    pairs = defaultdict(list)
    for record, q in asked:  # the benchmark and vignette records share scene ids: pairs are per record
        if q["pair"]:
            pairs[(id(record), q["pair"])].append(q)
    assert pairs
    for members in pairs.values():
        assert len(members) == 2 and members[0]["answer"] != members[1]["answer"], members[0]["pair"]
    cells = defaultdict(Counter)
    for _, q in asked:
        if q["answer_type"] in ("yes/no", "choice"):
            key = (q["skill"], q["level"], q["frame"], q["form"], q["modality"], q["derivation"]["hops"])
            sides = q["answer_type"] == "choice" and set(q["options"]) == {"left", "right"}  # not one of eight directions
            cells[key][str(q["answer"]) if q["answer_type"] == "yes/no" or sides else "x"] += 1
    for key, counts in cells.items():
        assert counts["True"] == counts["False"] and counts["left"] == counts["right"], key


def test_a_quantity_question_names_the_unit_a_number_alone_is_read_in(asked):
    """"0.3" to a question whose answer is 30 cm must not read as 0.3 cm: the question names one unit per kind of
    quantity (never one chosen by the answer's size, which would give it away), its gold is in that unit, and
    the exact value said as a number alone in it is judged correct."""
    from tabletest.score.lexicon import load_lexicon
    from tabletest.score.questions import judge_question

    lexicon, named = load_lexicon(CATALOG), defaultdict(set)
    per_unit = {"centimetres": ("cm", 100.0), "degrees": ("deg", 1.0)}
    quantities = [q for _, q in asked if q["answer_type"] == "quantity"]
    assert any(q["exact"]["value"] >= 1 for q in quantities if q["exact"]["unit"] == "m"), "lengths of a metre and more asked"
    for q in quantities:
        unit = re.search(r"Answer with a number in (\w+)\.$", q["text"]).group(1)
        named[q["template"]].add(unit)
        assert per_unit[unit][0] == q["unit"], q["qid"]
        bare = f"{q['exact']['value'] * per_unit[unit][1]:.4g}"
        assert judge_question(q, bare, lexicon).status == "correct", (q["qid"], bare)
    assert all(len(units) == 1 for units in named.values()), named


def test_intrinsic_questions_only_of_objects_with_a_clear_front(asked):
    intrinsic = [q for _, q in asked if q["frame"] == "intrinsic"]
    assert intrinsic
    assert {q["objects"][1 if q["relation"] == "ahead_of" else 0] for q in intrinsic} <= FRONTED  # ahead of: the relatum's front


def test_counting_has_as_many_trick_zeros_as_kinds_present(asked):
    counts = [q for _, q in asked if q["skill"] == "counting" and q["relation"] in ("kind", "absent")]
    by = Counter(q["relation"] for q in counts)
    assert by["kind"] == by["absent"] > 0
    assert all(q["answer"] == 0 for q in counts if q["relation"] == "absent")
    assert all(q["answer"] >= 1 for q in counts if q["relation"] == "kind")


def test_a_pair_inside_the_margin_is_withheld():
    # the mug stands 1 cm right of the banana and 2 cm behind it: neither left/right nor front/behind is asked
    record = scene(
        "rnd9-0000001", [obj("banana", 0.0, 0.0, (0.19, 0.04, 0.05)), obj("mug", 0.01, 0.02, (0.1, 0.08, 0.1))]
    )
    asked = questions_of([record])
    assert not [q for q in asked if q["skill"] == "position" and q["form"] != "story"]
    assert not [q for q in asked if q["form"] == "story"]  # nothing to state
    assert [q for q in asked if q["skill"] == "counting"]
    far = scene("rnd9-0000002", [obj("banana", -0.3, 0.0, (0.19, 0.04, 0.05)), obj("mug", 0.3, 0.02, (0.1, 0.08, 0.1))])
    position = [q for q in questions_of([far]) if q["skill"] == "position"]
    assert {q["relation"] for q in position} == {"left", "right"}
    assert margins.DEPTH_M > 0.02


def test_pairs_the_record_calls_ambiguous_are_withheld():
    far = scene("rnd9-0000005", [obj("banana", -0.3, -0.2, (0.19, 0.04, 0.05)), obj("mug", 0.3, 0.2, (0.1, 0.08, 0.1))])
    assert {q["relation"] for q in questions_of([far]) if q["skill"] == "position"} == {
        "left",
        "right",
        "front",
        "behind",
    }
    far["relations"]["ambiguous"] = [["mug", "banana", "left_of"]]
    assert {q["relation"] for q in questions_of([far]) if q["skill"] == "position"} == {"front", "behind"}
    far["relations"]["ambiguous"] = [{"pair": ["banana", "mug"]}]
    assert {q["relation"] for q in questions_of([far]) if q["skill"] == "position"} == set()


def test_size_questions_never_contradict_their_record():
    """One definition of bigger (largest extent) and taller (height), ratio 1.2: a random record's stored
    pairs and its questions agree, and no question is asked about a pair the record leaves undecided."""
    asked = 0
    for record in RANDOM:
        stored = {key: {tuple(p) for p in record["relations"].get(key, [])} for key in ("bigger", "taller")}
        if "bigger" not in record["relations"]:
            continue
        for q in questions_of([record]):
            if q["relation"] not in ("bigger", "smaller", "taller", "shorter"):
                continue
            key = "bigger" if q["relation"] in ("bigger", "smaller") else "taller"
            a, b = q["objects"]
            big = a if (a, b) in stored[key] else b if (b, a) in stored[key] else None
            assert big is not None, (q["qid"], "asked about a pair the record does not decide")
            assert q["answer"] == (big if q["relation"] in ("bigger", "taller") else ({a, b} - {big}).pop()), q["qid"]
            asked += 1
    assert asked >= 20


def test_between_and_nearer_are_each_one_rule_the_writer_stores_and_the_questions_read():
    """`between` [m, a, c] (a left of m, m left of c) is `SceneGeometry.viewer_between` of the record's left/right pairs;
    `nearer` [a, b, c] (a nearer to b than to c): the writer stores `SceneGeometry.nearer`'s triples, the same rule
    gives them again from a record's geometry, and a question of which of two is nearer to a third is asked only
    where the record's triples say so (a triple taken away, its question goes)."""
    from tabletest.truth.scene_facts import SceneGeometry

    asked = []
    for record in RANDOM:
        stored = {tuple(t) for t in record["relations"].get("nearer", [])}
        if not stored:
            continue
        relations = {k: v for k, v in record["relations"].items() if k != "nearer"}
        g = SceneGeometry.from_record({**record, "relations": relations}, CATALOG)
        trios = list(itertools.permutations(g.things, 3))
        assert {(a.label, b.label, c.label) for a, b, c in trios if g.nearer(a, b, c)} == stored
        between = {(m.label, a.label, c.label) for a, m, c in trios if g.viewer_lateral(a, m) == "left" and g.viewer_between(m, a, c)}
        assert between == {tuple(t) for t in record["relations"]["between"]}
        for q in questions_of([record]):
            if q["template"] == "distance-object-choice" and q["relation"] == "nearer":
                a, b, to = q["objects"]
                assert (to, q["answer"], ({a, b} - {q["answer"]}).pop()) in stored, q["qid"]
                asked.append((record, q))
    assert len(asked) >= 10
    record, q = asked[0]
    a, b, to = q["objects"]
    triple = [to, q["answer"], ({a, b} - {q["answer"]}).pop()]
    planted = {**record, "relations": {**record["relations"], "nearer": [t for t in record["relations"]["nearer"] if t != triple]}}
    assert q["qid"] not in {p["qid"] for p in questions_of([planted])}


def test_occlusion_is_asked_only_where_the_boxes_settle_it():
    """A fraction that reads low on an object no other object's box reaches is edge noise, not a cover;
    and of two objects whose boxes reach a partly hidden one, the boxes cannot say which covers it."""
    lone = scene("rnd9-0000001", [obj("mug", -0.5, 0.0, (0.12, 0.08, 0.1), visible=0.8), obj("lamp", 0.5, 0.0, (0.2, 0.2, 0.45))])
    asked = keyed(q for q in questions_of([lone]) if q["skill"] == "occlusion")
    assert asked.get("occl-mug", False) is False
    assert not any(key.startswith("occl-by") for key in asked)
    crowded = scene(
        "rnd9-0000002",
        [obj("mug", 0.0, 0.3, (0.12, 0.08, 0.1), visible=0.5), obj("lamp", -0.06, 0.0, (0.2, 0.2, 0.45)), obj("vase", 0.06, -0.1, (0.1, 0.1, 0.3))],
    )
    asked = keyed(q for q in questions_of([crowded]) if q["skill"] == "occlusion")
    assert asked["occl-mug"] is True
    assert "occl-by-mug" not in asked  # the lamp and the vase both reach its box


def test_size_constancy_pair_is_a_multi_skill_question():
    # a mug close to the camera looks bigger and taller than a vase far behind it, which is bigger and taller
    record = scene("rnd9-0000003", [obj("mug", 0.0, -1.2, (0.12, 0.08, 0.1)), obj("vase", 0.1, 2.5, (0.14, 0.14, 0.3))])
    size = [q for q in questions_of([record]) if q["relation"] in ("bigger", "smaller", "taller", "shorter")]
    assert size and all(q["skill"] == "distance+size" and q["level"] == "multi" for q in size)
    assert {q["answer"] for q in size if q["relation"] in ("bigger", "taller")} == {"vase"}
    assert {q["answer"] for q in size if q["relation"] in ("smaller", "shorter")} == {"mug"}
    beside = scene("rnd9-0000004", [obj("mug", -0.2, 0.0, (0.12, 0.08, 0.1)), obj("vase", 0.2, 0.0, (0.14, 0.14, 0.3))])
    same_distance = [q for q in questions_of([beside]) if q["relation"] in ("bigger", "taller")]
    assert same_distance and {(q["skill"], q["level"]) for q in same_distance} == {("size", "single")}
    assert all(q["derivation"]["rules"] == ["size constancy"] for q in size)


def test_stories_never_state_what_they_ask_and_the_engine_derives_the_gold(asked):
    stories = [q for _, q in asked if q["form"] == "story"]
    assert {q["derivation"]["hops"] for q in stories} >= {1, 2, 3}
    assert {len(q["objects"]) for q in stories if q["answer_type"] == "choice"} == {
        2,
        3,
    }  # find relation, choose object
    converse = {"left": "right_of", "right": "left_of", "in front": "behind", "behind": "in_front_of"}
    for q in stories:
        stated = [tuple(f) for f in q["derivation"]["stated"]]
        known = closure(stated)
        x, y, *third = q["objects"]
        rel = q["relation"]
        if third:  # choose object: the gold stands in the relation to the third object, the other option does not
            other = ({x, y} - {q["answer"]}).pop()
            assert holds(known, (q["answer"], FACTS[rel], third[0])) is True
            assert holds(known, (other, FACTS[rel], third[0])) is False
            assert not {(q["answer"], FACTS[rel], third[0]), (other, converse[rel], third[0])} <= set(stated)
            continue
        if "+" in rel:
            side, ahead = rel.split("+")
            facts = [(x, FACTS[side], y), (x, FACTS[ahead], y)]
            assert all(holds(known, f) is not None for f in facts)
            assert (all(holds(known, f) for f in facts)) == q["answer"]
            continue
        word = q["answer"] if q["answer_type"] == "choice" else rel
        fact = (x, FACTS[word], y)
        verdict = holds(known, fact)
        assert verdict is not None
        assert verdict == (q["answer"] if q["answer_type"] == "yes/no" else True)
        assert fact not in stated and (x, converse[word], y) not in stated
        assert (y, converse[word], x) not in stated and (y, FACTS[word], x) not in stated  # nor given away by a converse
        sentences = {
            "left_of": "to the left of",
            "right_of": "to the right of",
            "in_front_of": "in front of",
            "behind": "behind",
        }
        assert all(f"The {a} is {sentences[r]} the {b}." in q["context"] for a, r, b in stated)


def test_engine_counts_hops_by_rule_applications():
    stated = [("a", "left_of", "b"), ("c", "right_of", "b"), ("c", "left_of", "d")]
    known = closure(stated)
    assert known[("b", "right_of", "a")].hops == 1  # inverse
    assert known[("a", "left_of", "c")].hops == 2  # inverse, transitivity
    assert known[("a", "left_of", "d")].hops == 3
    assert holds(known, ("d", "left_of", "a")) is False  # exclusion
    assert holds(known, ("a", "in_front_of", "d")) is None  # nothing said about depth


def test_benchmark_records_agree_with_their_stored_relations():
    records = benchmark_records()
    asked = questions_of(records)
    by_scene = {r["id"]: r for r in records}
    for q in asked:
        rel = by_scene[q["scene_id"]]["relations"]
        if (
            q["skill"] == "position"
            and q["frame"] == "viewer"
            and q["answer_type"] == "yes/no"
            and q["form"] == "question"
        ):
            x, *rest = q["objects"]
            if q["relation"] == "between":
                assert q["answer"] == ([x, *rest] in rel["between"] or [x, *rest[::-1]] in rel["between"])
            else:
                assert q["relation"] in ("left", "right")  # all on the centre line: front/behind withheld
                pairs = rel["left_of"] if q["relation"] == "left" else rel["right_of"]
                assert q["answer"] == ([x, rest[0]] in pairs)
    assert not [q for q in asked if q["relation"] in ("front", "behind") and q["frame"] == "viewer"]
    assert [q for q in asked if q["relation"] == "between" and q["answer_type"] == "names"]
    text_only = [q for q in scene_questions(records[0], CATALOG, text_only=True)]
    assert text_only and {q["modality"] for q in text_only} == {"text"}
    assert {q["context"] for q in text_only if q["form"] == "question"} == {records[0]["vignettes"]["left_first"]}
    assert [q for q in asked if q["modality"] == "text"] and [q for q in asked if q["frame"] == "intrinsic"]


def test_random_records_questions_agree_with_their_stored_relations():
    records = [json.loads(line) for line in SAMPLED.read_text().splitlines()]
    stored = {r["id"]: r["relations"] for r in records}
    checked = 0
    for q in questions_of(records):
        if (
            q["frame"] == "viewer"
            and q["answer_type"] == "yes/no"
            and q["relation"] in ("left", "right", "front", "behind")
        ):
            x, y = q["objects"]
            key = {"left": "left_of", "right": "right_of", "front": "in_front_of", "behind": "behind"}[q["relation"]]
            assert q["answer"] == ([x, y] in stored[q["scene_id"]][key]), q["qid"]
            checked += 1
    assert checked > 100


def test_an_object_the_render_measured_as_hidden_is_never_asked_about():
    record = scene(
        "rnd9-0000007",
        [obj("mug", -0.4, 0.0, (0.12, 0.08, 0.1)), obj("lamp", 0.0, 0.3, (0.2, 0.2, 0.45)), obj("apple", 0.4, 0.0, (0.08, 0.08, 0.08), visible=0.1)],
    )
    record["relations"] = {"hidden": ["apple"]}
    asked = questions_of([record])
    assert asked and all("apple" not in q["objects"] and "apple" not in q["text"] for q in asked)
    # the apple is on the table though the image hides it: no count it would change is asked
    assert not [q for q in asked if q["answer_type"] == "number" and "objects" in q["text"]]


def test_a_trick_count_never_names_a_kind_that_is_on_the_table_hidden():
    """A count whose gold is 0 asks about a kind that is nowhere on the table, hidden or not."""
    hidden = [n for n in CATALOG.names if n not in ("mug", "lamp")]
    objects = [obj("mug", -0.4, 0.0, (0.12, 0.08, 0.1)), obj("lamp", 0.0, 0.3, (0.2, 0.2, 0.45))]
    objects += [obj(n, 0.5, 0.4, (0.05, 0.05, 0.05), visible=0.0) for n in hidden[: len(hidden) - 1]]
    record = scene("rnd9-0000008", objects)
    record["relations"] = {"hidden": hidden[: len(hidden) - 1]}
    counts = [q for seed in range(20) for q in scene_questions(record, CATALOG, seed=seed) if q["skill"] == "counting"]
    tricks = {q["objects"][0] for q in counts if q["relation"] == "absent"}
    assert tricks == {hidden[-1]}  # the one catalog kind not on the table
    assert all(q["answer"] == 0 for q in counts if q["relation"] == "absent")


def test_vignette_records_give_text_questions_only():
    asked = questions_of(vignette_records())
    assert asked and {q["modality"] for q in asked} == {"text"}
    assert {q["skill"] for q in asked} == {"position", "counting", "position+counting", "multi-hop"}
    for q in asked:
        assert q["image"] is None and q["text"].startswith(q["context"])


def test_objects_sharing_a_name_are_counted_but_never_named():
    record = scene(
        "rnd9-0000006",
        [
            obj("mug", -0.4, 0.0, (0.12, 0.08, 0.1)),
            obj("lamp", 0.0, 0.0, (0.2, 0.2, 0.45)),
            obj("mug", 0.4, 0.0, (0.12, 0.08, 0.1)),
        ],
    )
    asked = questions_of([record])
    counts = keyed(q for q in asked if q["skill"] == "counting")
    assert counts["count-kind-mug"] == 2 and counts["count-all"] == 3
    assert all("mug" not in q["objects"] for q in asked if q["skill"] != "counting" and q["template"] != "count-kind-position")
    sides = keyed(q for q in asked if q["skill"] == "position+counting" and q["frame"] == "viewer")
    assert sides["poscount-v-left-mug-lamp"] == 1 and sides["poscount-v-right-mug-lamp"] == 1  # a mug on each side of the lamp
    assert sides["poscount-v-left-lamp"] == 1 and sides["poscount-v-right-lamp"] == 1
    sides = keyed(q for q in asked if q["template"] == "position-yes/no")  # the mugs by their sides, the lamp by its name
    assert sides["pos-lr-yn-left-leftmost_mug-lamp"] is True and sides["pos-lr-yn-left-rightmost_mug-lamp"] is False
    for q in (q for q in asked if q["skill"] == "counting"):
        assert q["answer"] == expected(record, q), q["qid"]


SENTENCE = re.compile(r"The (.+?) (?:is|are) (to the left of|to the right of|in front of|behind|next to) the (.+?)\.")
STATES = {"to the left of": "left_of", "to the right of": "right_of", "in front of": "in_front_of", "behind": "behind"}


def test_a_random_vignette_is_asked_only_what_its_sentences_entail(builtin_assets, one_look):
    """`tabletest vignettes --scenes random` records: their order of mention is no fact, so text questions
    are counts and the story the vignette itself tells; every story fact is a sentence of it (one of several
    objects of a kind, called by its place among them, is never a story's object), every gold
    follows from those by at least one inference, and no pair the geometry withholds is asked about."""
    records = [json.loads(line) for line in run_cli(
        "vignettes", "--scenes", "random", "--count", "60", "--seed", "5", "--only", ",".join(CATALOG.names[:24]),
        "--assets", str(builtin_assets), "--random-config", str(one_look),
    ).stdout.splitlines()]  # fmt: skip
    asked = 0
    for record in records:
        said = {(a, STATES[r], b) for a, r, b in SENTENCE.findall(record["vignettes"]["left_first"]) if r in STATES}
        said = {fact for fact in said if not fact[0].endswith("from the left") and not fact[2].endswith("from the left")}
        withheld = {(frozenset(entry[:2]), entry[2]) for entry in record["relations"]["ambiguous"]}
        for q in scene_questions(record, CATALOG, seed=0):
            assert q["modality"] == "text"
            if q["form"] != "story":
                assert q["skill"] == "counting", q["qid"]
                continue
            assert q["context"] == record["vignettes"]["left_first"]
            stated = {tuple(f) for f in q["derivation"]["stated"]}
            assert stated == said, q["qid"]
            assert q["derivation"]["hops"] >= 1
            axes = {"left_right" if word in ("left", "right") else "front_back" for word in q["relation"].split("+")}
            assert len(q["objects"]) == 3 or not {(frozenset(q["objects"]), axis) for axis in axes} & withheld, q["qid"]
            asked += 1
    assert asked >= 50


def test_no_false_caption_is_true_from_its_relatums_own_front():
    """VSR counts a caption true if it holds in either frame: a viewer's-frame caption with gold "no" must not
    hold from the relatum's own front ("the globe is in front of the radio", the radio facing the globe)."""
    words = {"left": "left", "right": "right", "front": "front", "behind": "behind"}
    records = RANDOM + [random_scene(seed, 5) for seed in range(20, 60)]
    checked = 0
    for record in records:
        k = Reckoner(record)
        for q in scene_questions(record, CATALOG, seed=0):
            if q["form"] != "caption" or q["frame"] != "viewer" or q["answer"] is not False or q["relation"] not in words:
                continue
            subject, relatum = q["objects"]
            if relatum in FRONTED:
                assert words[q["relation"]] not in own_side(k, relatum, subject), q["qid"]
                checked += 1
    assert checked >= 20


def test_occlusion_follows_what_the_render_saw_covering_each_object():
    """Where a record has `covered_by` (a render measured it), it decides both occlusion questions, whatever
    the boxes or a low-reading fraction suggest; a coverer that is hidden is never named."""
    objects = [
        obj("mug", 0.0, 0.3, (0.12, 0.08, 0.1), visible=0.6),
        obj("lamp", -0.06, 0.0, (0.2, 0.2, 0.45)),
        obj("vase", 0.06, -0.1, (0.1, 0.1, 0.3), visible=1.0),
    ]
    objects[0]["covered_by"], objects[1]["covered_by"], objects[2]["covered_by"] = ["lamp", "vase"], [], []
    objects[1]["visible_fraction"] = 1.0  # nothing covers it: the fraction now reads as much
    asked = keyed(q for q in questions_of([scene("rnd9-0000003", objects)]) if q["skill"] == "occlusion")
    assert asked["occl-mug"] is True
    assert asked["occl-by-mug"] == ["lamp", "vase"]
    assert asked.get("occl-lamp", False) is False
    objects[1]["visible_fraction"] = 0.95  # nothing inside it covered, but the fraction says a sliver is: not asked
    asked = keyed(q for q in questions_of([scene("rnd9-0000005", objects)]) if q["skill"] == "occlusion")
    assert "occl-lamp" not in asked
    record = scene("rnd9-0000004", [dict(o) for o in objects])
    record["relations"] = {"hidden": ["vase"]}
    asked = keyed(q for q in questions_of([record]) if q["skill"] == "occlusion")
    assert "occl-by-mug" not in asked  # one of its coverers is hidden


def test_an_object_resting_on_a_fronted_carrier_is_beside_it_in_no_frame():
    """An apple on a laptop is neither left nor right of it, nor in front or behind, from the laptop's own point
    of view either: no own-frame question names the pair, and own-frame counts leave the apple out."""
    laptop, apple = (0.34, 0.24, 0.02), (0.08, 0.08, 0.08)
    on_top = obj("apple", 0.1, 0.0, apple)  # on the laptop's own left (it faces the camera), over its keyboard
    on_top["box3d"]["center_m"][2] += laptop[2]
    record = scene(
        "rnd0-0000001",
        [obj("mug", -0.5, 0.0, (0.1, 0.1, 0.1)), obj("laptop", 0.0, 0.0, laptop), on_top, obj("banana", 0.5, 0.05, (0.2, 0.05, 0.04))],
    )
    record["relations"] = {"on": [["apple", "laptop"]], "under": [["laptop", "apple"]], "above": [["apple", "laptop"]], "below": [["laptop", "apple"]]}
    k = Reckoner(record)
    assert "left" in own_side(k, "laptop", "apple")  # what the laptop's frame alone would say
    own = [q for q in scene_questions(record, CATALOG, seed=0) if q["frame"] == "intrinsic" and q["objects"][0] == "laptop"]
    assert own, "the laptop's own frame is asked about"
    for q in own:
        assert "apple" not in q["objects"], q["qid"]
        if q["skill"] == "position+counting":
            assert q["answer"] == sum(q["relation"] in own_side(k, "laptop", n) for n in ("mug", "banana")), q["qid"]


def test_nearer_to_an_object_is_not_asked_where_centres_and_surfaces_disagree():
    """A long banana whose centre is farther from the mug than the apple's, but whose end almost touches it:
    "which is nearer to the mug" reads either way, and is asked only where the record's gaps agree."""
    objects = [obj("mug", 0.0, 0.0, (0.1, 0.1, 0.1)), obj("banana", 0.42, 0.0, (0.7, 0.05, 0.05)), obj("apple", 0.0, 0.3, (0.08, 0.08, 0.08))]
    record = scene("rnd9-0000021", objects)

    def asked() -> list[dict]:
        return [q for q in scene_questions(record, CATALOG, seed=0) if q["template"] == "distance-object-choice" and q["objects"][2] == "mug"]

    assert asked()  # the centres alone: the apple is nearer
    record["gaps_m"] = [["mug", "banana", 0.02], ["mug", "apple", 0.21], ["banana", "apple", 0.2]]
    assert not asked()
    record["gaps_m"][0][2] = 0.3  # the surfaces agree with the centres
    assert asked()


def test_ahead_of_is_farther_along_the_way_the_relatum_faces_and_no_word_means_another_sense():
    """"Ahead of" is what English and VSR mean (the person ahead of the cow is farther along the way it goes): the
    subject within 45° of the relatum's own front, reckoned here from the boxes; a telephone turned to face +X has a
    mug ahead of it and a banana behind it, whichever of them is nearer the camera. "In front of" (the viewer's)
    is never worded "ahead of", and "toward" or "away from" alone say nothing of facing (they name a motion)."""
    telephone = obj("telephone", 0.0, 0.1, (0.2, 0.1, 0.08), yaw=90.0)
    record = scene("rnd9-0000011", [telephone, obj("mug", 0.35, 0.05, (0.1, 0.08, 0.1)), obj("banana", -0.35, 0.2, (0.19, 0.04, 0.05))])
    asked = questions_of([record])
    ahead = {tuple(q["objects"]): q["answer"] for q in asked if q["relation"] == "ahead_of"}
    assert ahead == {("mug", "telephone"): True, ("banana", "telephone"): False}
    for q in asked:
        assert q["answer"] == expected(record, q), q["qid"]
    said = [q["text"] for q in questions_of(ALL_RECORDS + [record]) if q["form"] == "caption"]
    assert not [t for t in said if re.search(r"is (toward|away from) the ", t)]
    fronts = [q for q in questions_of(ALL_RECORDS) if q["form"] == "caption" and q["relation"] in ("front", "behind")]
    assert fronts and not [q["text"] for q in fronts if "ahead of" in q["text"]]


def test_which_object_is_between_two_is_not_asked_where_a_hidden_one_stands_between_too():
    """A between-which question weighs every object on the table, those the render measured as hidden too (a cup 6 %
    of which shows): where one of them also stands between the two (or may), the answer would be open."""
    row = [obj("banana", -0.45, 0.0, (0.19, 0.04, 0.05)), obj("mug", 0.0, 0.0, (0.1, 0.08, 0.1)), obj("lamp", 0.45, 0.0, (0.2, 0.2, 0.4))]
    behind = obj("alarm clock", 0.2, 0.1, (0.1, 0.06, 0.1), visible=0.06)
    aside = obj("alarm clock", 0.8, 0.1, (0.1, 0.06, 0.1), visible=0.06)
    for third, asks in ((behind, False), (aside, True)):
        record = scene("rnd9-0000012", [*row, third])
        record["relations"] = {"hidden": ["alarm clock"]}
        which = [q for q in questions_of([record]) if q["relation"] == "between" and q["answer_type"] == "names"]
        k = Reckoner(record)
        standing = [n for n in k.names() if k.between(n, "banana", "lamp")]
        assert standing == (["mug"] if asks else ["mug", "alarm clock"])
        assert [q["answer"] for q in which] == ([["mug"]] if asks else []), which
