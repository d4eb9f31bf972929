"""How the camera moved between a scene's photo and another view of it. Every gold answer is recomputed here from
the two records' cameras with this file's own geometry: where each camera stands around the point both look at
(the first record's `distance_m` along its axis), not the view directions the code under test reads; the bands
where nothing is asked; each template's balance; and a real tiny render whose golds the scorer reads as correct."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli

from tabletest.config import load_catalog
from tabletest.layout.random_config import load_random_config
from tabletest.prompts.hierarchy.pairs import stated_turn, view_questions
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.score.lexicon import load_lexicon
from tabletest.score.questions import judge_question, score_questions

MOTION = ("turn-way", "turn-deg", "move-distance", "now-left")
LEXICON = load_lexicon(load_catalog())
TARGET = (0.12, -0.05, 0.81)


def camera(azimuth_deg: float, elevation_deg: float, distance_m: float, target=TARGET) -> dict:
    """A record's camera looking at `target` from `distance_m` away (azimuth 0 at −Y, positive towards +X)."""
    a, e = math.radians(azimuth_deg), math.radians(elevation_deg)
    away = np.array([math.sin(a) * math.cos(e), -math.cos(a) * math.cos(e), math.sin(e)])
    position = np.add(target, distance_m * away)
    forward = np.subtract(target, position) / np.linalg.norm(np.subtract(target, position))
    right = np.array([forward[1], -forward[0], 0.0]) / math.hypot(forward[0], forward[1])
    rotation = np.stack([right, np.cross(forward, right), forward])
    pose = np.eye(4)
    pose[:3, :3], pose[:3, 3] = rotation, -rotation @ position
    return {"K": [[50.0, 0.0, 32.0], [0.0, 50.0, 24.0], [0.0, 0.0, 1.0]], "world_to_camera": pose.round(6).tolist(),
            "resolution": [64, 48], "azimuth_deg": azimuth_deg, "elevation_deg": elevation_deg, "distance_m": distance_m, "focal_mm": 40.0}  # fmt: skip


def record(rid: str, cam: dict, left_of: list[list[str]], objects=("mug", "lamp", "apple"), hidden=(), of=None) -> dict:
    """A random-scene record with just what questions of two views read (`mug#1`: one of two mugs)."""
    things = [{"name": o.partition("#")[0], **({"instance": o} if "#" in o else {}), "size_m": [0.1] * 3} for o in objects]
    return {"id": rid, "file_name": f"images/{rid}.png", "camera": cam, "objects": things,
            "relations": {"left_of": left_of, "hidden": list(hidden)}, **({"view": {"of": of, "number": 2}} if of else {})}  # fmt: skip


def pair(first: dict, second: dict, scene_left=(), view_left=(), **kw) -> tuple[dict, dict]:
    scene = record("s", first, [list(p) for p in scene_left], **kw)
    return scene, record("s-view2", second, [list(p) for p in view_left], of="s", **kw)


def stands(cam: dict) -> tuple[np.ndarray, np.ndarray]:
    """Where a camera stands and the way it looks, from its world-to-camera pose."""
    pose = np.asarray(cam["world_to_camera"], dtype=float)
    rotation = pose[:3, :3]
    return -rotation.T @ pose[:3, 3], rotation[2]


def motion(first: dict, second: dict) -> tuple[float, float, float]:
    """The turn round the look-at point (positive: anticlockwise seen from above, which takes a camera facing the
    point to its right) and each camera's distance to that point."""
    (p1, f1), (p2, f2) = stands(first), stands(second)
    target = p1 + first["distance_m"] * f1
    assert np.allclose(target, p2 + second["distance_m"] * f2, atol=2e-3), "both views look at one point"
    (x1, y1), (x2, y2) = (p1 - target)[:2], (p2 - target)[:2]
    turn = math.degrees(math.atan2(x1 * y2 - y1 * x2, x1 * x2 + y1 * y2))
    return turn, float(np.linalg.norm(p1 - target)), float(np.linalg.norm(p2 - target))


def expected(scene: dict, view: dict) -> dict[str, object]:
    """Each turn and distance question that should be asked (by its key) with its gold answer; the size of the
    turn is checked apart (`check_stated`)."""
    turn, near, far = motion(scene["camera"], view["camera"])
    gold: dict[str, object] = {}
    if abs(turn) >= 10:
        way = "right" if turn > 0 else "left"
        back = {"left": "right", "right": "left"}[way]
        gold |= {"turn-way-first-second": way, "turn-way-second-first": back, "turn-deg": abs(turn)}
    if max(near, far) >= 1.1 * min(near, far):
        gold |= {"move-distance-closer": far < near, "move-distance-farther": far > near}
    return gold


def check_stated(question: dict, size: float) -> None:
    """A turn's size stated as a person would: a multiple of 5° from 25°, the nearest degree below; the exact
    value kept; and the scorer reads the gold answer as correct."""
    answer = question["answer"]
    assert question["unit"] == "deg" and question["exact"] == {"value": pytest.approx(size, abs=2e-3), "unit": "deg"}
    assert isinstance(answer, int) and abs(answer - size) <= (2.5 if size >= 25 else 0.5) + 1e-9
    assert size < 25 or answer % 5 == 0
    assert judge_question(question, gold_text(question), LEXICON).status == "correct", gold_text(question)


def check_motion(scene: dict, view: dict, asked: list[dict]) -> None:
    """The motion questions of one view are exactly those expected, with their golds."""
    motion_asked = {q["qid"].removeprefix(f"{view['id']}-imgs-"): q for q in asked if q["template"] in MOTION}
    gold = expected(scene, view)
    assert {k for k in motion_asked if not k.startswith("now-left")} == set(gold), view["id"]
    for key, value in gold.items():
        question = motion_asked[key]
        assert question["skill"] == "camera motion" and question["modality"] == "images"
        if key == "turn-deg":
            check_stated(question, value)
        else:
            assert question["answer"] == value, (view["id"], key)
    check_now_left(scene, view, [q for k, q in motion_asked.items() if k.startswith("now-left")])


def check_now_left(scene: dict, view: dict, asked: list[dict]) -> None:
    """Of two objects, the first left of the second in the first photo: the gold is the one left of the other in
    the second; as many kept as turned round, each as many as the scene allows; objects named once in both
    records, seen in both, and left or right of each other in both."""
    hidden = {*scene["relations"].get("hidden", []), *view["relations"].get("hidden", [])}
    labels = [[o.get("instance") or o["name"] for o in r["objects"]] for r in (scene, view)]
    ok = {n for n in labels[0] if "#" not in n and n in labels[1] and n not in hidden}
    after = view["relations"]["left_of"]
    candidates = {
        (a, b): [a, b] in after for a, b in scene["relations"]["left_of"] if {a, b} <= ok and ([a, b] in after or [b, a] in after)
    }
    answers = Counter()
    for question in asked:
        a, b = question["objects"]
        assert (a, b) in candidates and question["options"] == [a, b] and question["answer_type"] == "choice"
        assert question["answer"] == (a if candidates[a, b] else b)
        answers[question["answer"] == a] += 1
    kept = Counter(candidates.values())
    assert answers[True] == answers[False] == min(kept[True], kept[False])


def test_which_way_and_how_far_the_camera_turned():
    for first, second in ((0.0, 35.0), (20.0, -28.0), (-40.0, -12.0), (38.0, -39.0), (-5.0, 66.0)):
        scene, view = pair(camera(first, 30, 1.2), camera(second, 25, 1.25))
        asked = view_questions(scene, view)
        assert motion(scene["camera"], view["camera"])[0] == pytest.approx(second - first, abs=1e-3)
        check_motion(scene, view, asked)
        way = {q["qid"].rsplit("-", 2)[-2]: q["answer"] for q in asked if q["template"] == "turn-way"}
        assert way == {"first": "right" if second > first else "left", "second": "left" if second > first else "right"}


@pytest.mark.parametrize("turn, asked", [(9.9, False), (-9.9, False), (10.1, True), (-10.1, True), (0.0, False)])
def test_a_turn_under_10_degrees_is_not_asked_about(turn, asked):
    scene, view = pair(camera(5.0, 30, 1.2), camera(5.0 + turn, 40, 1.2))
    templates = {q["template"] for q in view_questions(scene, view)}
    assert ({"turn-way", "turn-deg"} <= templates) is asked and bool({"turn-way", "turn-deg"} & templates) is asked


@pytest.mark.parametrize("ratio, asked", [(1.09, False), (1 / 1.09, False), (1.11, True), (1 / 1.11, True)])
def test_a_change_of_distance_under_10_percent_is_not_asked_about(ratio, asked):
    scene, view = pair(camera(-10.0, 30, 1.3), camera(22.0, 35, 1.3 * ratio))
    assert distance_answers(scene, view) == ({"closer": ratio < 1, "farther": ratio > 1} if asked else {})


def test_the_distance_is_to_the_point_both_cameras_look_at():
    """At the same heading (no turn) but from higher up and farther: the axes still cross at the look-at point,
    so the distance is asked; a camera aimed 5 cm aside looks at another point, so it is not."""
    scene, view = pair(camera(10.0, 20, 1.0), camera(10.0, 45, 1.5))
    assert distance_answers(scene, view) == {"closer": False, "farther": True}
    aside = (TARGET[0] + 0.05, TARGET[1], TARGET[2])
    scene, view = pair(camera(10.0, 20, 1.0), camera(40.0, 45, 1.5, target=aside))
    assert distance_answers(scene, view) == {}


def distance_answers(scene: dict, view: dict) -> dict[str, bool]:
    """The view's move-distance answers by the word they ask: `closer`, `farther`."""
    return {q["qid"].rsplit("-", 1)[-1]: q["answer"] for q in view_questions(scene, view) if q["template"] == "move-distance"}


def test_every_turn_is_stated_so_the_scorer_reads_it_as_correct():
    for size in np.arange(10.0, 90.0, 0.01):
        turn = stated_turn(-size if int(size * 100) % 2 else size)
        check_stated({"answer_type": "quantity", "answer": turn.stated, "unit": "deg", "exact": turn.exact, "scene_objects": []}, size)


def test_now_left_asks_kept_and_turned_round_pairs_alike():
    """Three pairs kept and two turned round by the turn: two of each asked; a pair inside the
    second view's margin, a hidden object and one of two mugs are never named."""
    objects = ("mug#1", "mug#2", "lamp", "apple", "fan", "vase", "bowl")
    scene_left = [("lamp", "apple"), ("lamp", "fan"), ("apple", "fan"), ("lamp", "vase"), ("apple", "vase"), ("fan", "vase"),
                  ("mug#1", "lamp"), ("bowl", "lamp")]  # fmt: skip
    view_left = [("lamp", "apple"), ("fan", "lamp"), ("vase", "apple"), ("apple", "fan"), ("fan", "vase"), ("mug#2", "lamp"),
                 ("lamp", "bowl")]  # fmt: skip
    scene, view = pair(camera(0.0, 30, 1.2), camera(60.0, 30, 1.2), scene_left, view_left, objects=objects, hidden=["bowl"])
    asked = [q for q in view_questions(scene, view) if q["template"] == "now-left"]
    check_now_left(scene, view, asked)
    assert len(asked) == 4 and not {"mug#1", "mug#2", "bowl", "mug"} & {o for q in asked for o in q["objects"]}
    assert all(q["text"].index(f"the {a}") < q["text"].index(f"the {b}") for q in asked for a, b in [q["objects"]]), "the first photo's order"


def test_each_template_is_balanced_and_its_golds_read_as_correct():
    rng = np.random.default_rng(0)
    made = []
    for _ in range(120):
        scene, view = pair(camera(rng.uniform(-40, 40), rng.uniform(15, 50), rng.uniform(0.9, 2.2)),
                           camera(rng.uniform(-40, 40), rng.uniform(15, 50), rng.uniform(0.9, 2.2)))  # fmt: skip
        asked = view_questions(scene, view)
        check_motion(scene, view, asked)
        made += [q for q in asked if q["template"] in MOTION]
    answers = Counter((q["template"], q["answer"]) for q in made if q["template"] != "turn-deg")
    assert answers["turn-way", "left"] == answers["turn-way", "right"] > 80
    assert answers["move-distance", True] == answers["move-distance", False] > 80
    phrasings = Counter((q["template"], q["phrasing"], q["answer"]) for q in made if q["template"] != "turn-deg")
    other = {"left": "right", "right": "left", True: False, False: True}
    assert all(phrasings[t, p, a] == phrasings[t, p, other[a]] for t, p, a in phrasings), "each phrasing balanced too"
    assert all(judge_question(q, gold_text(q), LEXICON).status == "correct" for q in made)


@pytest.mark.render
def test_a_real_render_asks_how_the_camera_moved(tmp_path: Path, builtin_assets):
    """Four scenes and their second views at 64x48: every view's motion questions recomputed from the two records,
    among them changes of distance under 10 % (none asked); every view turned at least 10°, to the right for an even
    scene index (view 2) and to the left for an odd one, unless that side of the azimuth range had no room; the oracle
    scores 1."""
    out = tmp_path / "render"
    made = run_cli("render", "--scenes", "random", "--count", "4", "--seed", "2", "--views", "2", "--resolution", "64x48",
                   "--samples", "2", "--assets", str(builtin_assets), "--out", str(out), "--quiet")  # fmt: skip
    assert made.returncode == 0, made.stderr
    asked = run_cli("questions", "--dataset", str(out), "--out", str(tmp_path / "q.jsonl"))
    assert asked.returncode == 0, asked.stderr
    records = {r["id"]: r for r in map(json.loads, (out / "metadata.jsonl").read_text().splitlines())}
    questions = [json.loads(line) for line in (tmp_path / "q.jsonl").read_text().splitlines()]
    views = [r for r in records.values() if "view" in r]
    withheld = Counter()
    for view in views:
        scene = records[view["view"]["of"]]
        mine = [q for q in questions if q["scene_id"] == view["id"] and q["modality"] == "images"]
        assert all(q["images"] == [scene["file_name"], view["file_name"]] for q in mine)
        check_motion(scene, view, mine)
        turn, near, far = motion(scene["camera"], view["camera"])
        low, high = load_random_config().camera.azimuth_deg
        room = scene["camera"]["azimuth_deg"] + 10 <= high if view["index"] % 2 == 0 else scene["camera"]["azimuth_deg"] - 10 >= low
        assert abs(turn) >= 10 and (turn > 0) == ((view["index"] % 2 == 0) == room), view["id"]
        withheld["distance"] += max(near, far) < 1.1 * min(near, far)
    moved = [q for q in questions if q["template"] in MOTION]
    assert {q["template"] for q in moved} == set(MOTION) and withheld["distance"], (
        "the render should ask every template and withhold some: pick another --seed if the config changed")
    (tmp_path / "moved.jsonl").write_text("".join(json.dumps(q) + "\n" for q in moved))
    oracle = "".join(json.dumps({"qid": q["qid"], "response": gold_text(q)}) + "\n" for q in moved)
    (tmp_path / "oracle.jsonl").write_text(oracle)
    scored, _ = score_questions([tmp_path / "moved.jsonl"], [tmp_path / "oracle.jsonl"], LEXICON)
    assert len(scored) == len(moved) and all(s.judged.status == "correct" for s in scored)


def test_questions_about_two_images_take_the_seed_and_every_phrasing_as_the_others_do():
    scene, view = pair(camera(0, 30, 1.5), camera(40, 30, 1.5))
    every = [q for q in view_questions(scene, view, phrasings="all") if q["template"] == "turn-way"]
    assert every and {q["qid"].rsplit("-p", 1)[1] for q in every} == {str(k) for k in range(5)}
    worded = {seed: {q["qid"]: q["phrasing"] for q in view_questions(scene, view, seed=seed)} for seed in range(8)}
    assert len({tuple(sorted(w.values())) for w in worded.values()}) > 1  # another seed words them anew
