"""What two views of one scene show together: where the second camera stands beside the first, which objects one
photo shows and the other hides or leaves out of frame, how many distinct objects the two show. Every gold is
recomputed here from the two records (the cameras' positions round the point both look at, each object's
`visible_fraction`) with this file's own bands; nothing is asked near a band's edge; each template is balanced,
read as correct by the scorer, and a reader of the words alone does no better than chance. Of three or more photos,
which was taken from behind (in front of) an object, with its own bands; across two marked photos, which mark of
the second is an object's; both on a real ring render and its marks export."""

from __future__ import annotations

import json
import random
import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli
from test_camera_motion import LEXICON, TARGET, camera, motion, stands

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog
from tabletest.prompts.hierarchy.correspondence import taken_from_which
from tabletest.prompts.hierarchy.marks import mark_match_questions
from tabletest.prompts.hierarchy.pairs import view_questions
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.prompts.hierarchy.text_only import TextReader
from tabletest.score.questions import judge_question
from tabletest.truth.marks import Mark

TEMPLATES = ("camera-side", "taken-from", "hidden-in-other", "count-together")
NAMES = ("mug", "lamp", "apple", "book")


def record(rid: str, cam: dict, fractions: dict[str, float], of: str | None = None) -> dict:
    """A rendered random-scene record with what these questions read (`mug#1`: one of two mugs), each object at
    its own place round the look-at point (the same in every view of the scene)."""
    things = [
        {"name": n.partition("#")[0], **({"instance": n} if "#" in n else {}), "size_m": [0.1] * 3, "visible_fraction": f,
         "box3d": {"center_m": [TARGET[0] + 0.25 * np.cos(k), TARGET[1] + 0.25 * np.sin(k), TARGET[2]]}}
        for k, (n, f) in enumerate(fractions.items())
    ]  # fmt: skip
    return {"id": rid, "file_name": f"images/{rid}.png", "camera": cam, "objects": things, "relations": {"left_of": [], "hidden": []},
            **({"view": {"of": of, "number": 2}} if of else {})}  # fmt: skip


def expected_side(turn: float) -> str | None:
    """Left or right for a turn of 20° to 140° (the sign: which way), opposite from 160°; nothing else."""
    if abs(turn) >= 160:
        return "opposite"
    if 20 <= abs(turn) <= 140:
        return "right" if turn > 0 else "left"
    return None


def expected_place(first: dict, second: dict, center: list[float]) -> str | None:
    """Behind an object: the second camera at least 0.3 m from it on the floor plan, within 45° of straight on along
    the first camera's view; in front: within 45° of straight back; nothing else."""
    (_, forward), (position, _) = stands(first), stands(second)
    away = np.subtract(position[:2], center[:2])
    if np.hypot(*away) < 0.3:
        return None
    cos = float(np.dot(forward[:2], away) / np.hypot(*forward[:2]) / np.hypot(*away))
    return "behind" if cos >= np.cos(np.radians(45)) else "in front" if cos <= -np.cos(np.radians(45)) else None


def shown(fraction: float) -> bool | None:
    """Seen from half visible, gone at 5 % or less, undecided between."""
    return True if fraction >= 0.5 else False if fraction <= 0.05 else None


def check(scene: dict, view: dict) -> list[dict]:
    """The pair's correspondence questions, each against the gold recomputed here and the scorer."""
    asked = [q for q in view_questions(scene, view) if q["template"] in TEMPLATES]
    by_key = {q["qid"].split("-imgs-", 1)[1]: q for q in asked}
    turn = motion(scene["camera"], view["camera"])[0]
    sides = {"camera-side-first-second": expected_side(turn), "camera-side-second-first": expected_side(-turn)}
    if None in sides.values():
        assert not any(k.startswith("camera-side") for k in by_key), (turn, by_key.keys())
    else:
        assert {k: q["answer"] for k, q in by_key.items() if k.startswith("camera-side")} == sides, turn
    places = {o["name"]: expected_place(scene["camera"], view["camera"], o["box3d"]["center_m"]) for o in scene["objects"] if "instance" not in o}
    assert {q["objects"][0]: q["answer"] for q in asked if q["template"] == "taken-from"} == {n: p for n, p in places.items() if p}
    photos = {"first": {o.get("instance", o["name"]): o["visible_fraction"] for o in scene["objects"]},
              "second": {o.get("instance", o["name"]): o["visible_fraction"] for o in view["objects"]}}  # fmt: skip
    for key, q in by_key.items():
        if q["template"] == "hidden-in-other":
            (name,), end = q["objects"], key.rsplit("-", 1)[1]
            start = {"first": "second", "second": "first"}[end]
            assert "#" not in name and shown(photos[start][name]) is True and q["answer"] is (shown(photos[end][name]) is False)
    askable = [(end, n) for end in ("first", "second") for n in photos[end] if "#" not in n and shown(photos[end][n]) is not None
               and shown(photos["second" if end == "first" else "first"][n]) is True]  # fmt: skip
    hidden = Counter(q["answer"] for q in asked if q["template"] == "hidden-in-other")
    yes = sum(shown(photos[end][n]) is False for end, n in askable)
    assert hidden[True] == hidden[False] == min(yes, len(askable) - yes)
    either = [max(photos["first"][n], photos["second"][n]) for n in photos["first"]]
    counted = [q["answer"] for q in asked if q["template"] == "count-together"]
    assert counted == ([] if any(shown(f) is None for f in either) else [sum(shown(f) for f in either)])
    for q in asked:
        assert judge_question(q, gold_text(q), LEXICON).status == "correct", q
    return asked


def random_pair(rng: np.random.Generator, k: int) -> tuple[dict, dict]:
    """Two views round one table, anywhere round it; each object clearly seen, gone, or in between in each photo."""
    levels = (0.0, 0.03, 0.05, 0.2, 0.49, 0.5, 0.9, 1.0)
    names = [*NAMES[: rng.integers(2, 4)], *(("cup#1", "cup#2") if k % 3 == 0 else ())]
    fractions = [{n: float(rng.choice(levels, p=[0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.2, 0.4])) for n in names} for _ in range(2)]
    first = camera(rng.uniform(-180, 180), rng.uniform(15, 50), 1.4)
    second = camera(rng.uniform(-180, 180), first["elevation_deg"], 1.4)
    return record(f"s{k}", first, fractions[0]), record(f"s{k}-view2", second, fractions[1], of=f"s{k}")


def test_each_golds_recomputed_withheld_at_the_edges_balanced_and_unread_from_the_words():
    rng = np.random.default_rng(4)
    made = [q for k in range(300) for q in check(*random_pair(rng, k))]
    answers = Counter((q["template"], q["answer"]) for q in made)
    assert answers["camera-side", "left"] == answers["camera-side", "right"] > 150 and answers["camera-side", "opposite"] > 20
    assert answers["taken-from", "behind"] > 100 and answers["taken-from", "in front"] > 100
    assert answers["hidden-in-other", True] == answers["hidden-in-other", False] > 40
    assert len({a for t, a in answers if t == "count-together"}) >= 3
    across = next(q for q in made if q["template"] == "camera-side" and q["answer"] == "opposite")
    said = {r: judge_question(across, r, LEXICON).status for r in ("From across the table.", "The far side.", "Left.", "Opposite, or left.")}
    assert said == {"From across the table.": "correct", "The far side.": "correct", "Left.": "wrong", "Opposite, or left.": "wrong"}, said
    per_phrasing = Counter((q["phrasing"], q["answer"]) for q in made if q["template"] == "camera-side")
    assert all(per_phrasing[p, "left"] == per_phrasing[p, "right"] for p, _ in per_phrasing), "each phrasing balanced"
    # at a band's edge: exactly 140 and 160 asked, between not; 20 asked, under not
    scene = record("e", camera(0, 30, 1.4), {"mug": 1.0})
    for turn, side in ((19.0, None), (20.5, "right"), (-139.5, "left"), (150.0, None), (160.5, "opposite"), (-179.0, "opposite")):
        view = record("e-view2", camera(turn, 30, 1.4), {"mug": 1.0}, of="e")
        got = {q["answer"] for q in view_questions(scene, view) if q["qid"].endswith("camera-side-first-second")}
        assert got == ({side} if side else set()), turn
    reader = TextReader(0)
    for q in made:
        if q["template"] != "count-together":
            reader.add(q, q["qid"].split("-view2")[0], (q["template"],))
    for template, (n, right, _) in reader.scores().items():  # against the best constant (before the set's balancing)
        constant = max(count for (t, _), count in answers.items() if t == template) / sum(c for (t, _), c in answers.items() if t == template)
        assert right / n <= constant + 0.05, (template, right / n, constant)


# --- several photos, and marks across two ------------------------------------------------------------------------


def expected_from(first: dict, other: dict, center: list[float], side: str) -> bool | None:
    """Whether a photo was taken from `side` of an object as the first photo sees it: within 45° of straight on (behind:
    beyond it along the first camera's view; in front: back towards it), clearly not from 60°, else neither; None
    too for a camera within 0.3 m of it."""
    (_, forward), (position, _) = stands(first["camera"]), stands(other["camera"])
    away = np.subtract(position[:2], center[:2])
    if np.hypot(*away) < 0.3:
        return None
    off = np.degrees(np.arccos(np.clip(np.dot(forward[:2], away) / np.hypot(*forward[:2]) / np.hypot(*away), -1, 1)))
    near = off if side == "behind" else 180 - off
    return True if near <= 45 else False if near >= 60 else None


def random_family(rng: np.random.Generator, k: int) -> list[dict]:
    """A scene and two to four other views anywhere round its table (each object seen in every photo)."""
    names = [*NAMES[: rng.integers(2, 5)], *(("cup#1", "cup#2") if k % 4 == 0 else ())]
    cams = [camera(rng.uniform(-180, 180), rng.uniform(15, 50), rng.uniform(0.9, 2.0)) for _ in range(rng.integers(3, 6))]
    scene = record(f"f{k}", cams[0], dict.fromkeys(names, 1.0))
    return [scene, *({**record(f"f{k}-view{n}", cam, dict.fromkeys(names, 1.0), of=f"f{k}"), "view": {"of": f"f{k}", "number": n}}
                     for n, cam in enumerate(cams[1:], start=2))]  # fmt: skip


def test_which_photo_was_taken_from_a_side_has_one_answer_the_others_clearly_not_and_no_place_to_guess():
    rng = np.random.default_rng(7)
    made = []
    for k in range(300):
        photos = random_family(rng, k)
        asked = taken_from_which(photos)
        by_file = {p["file_name"]: p for p in photos}
        for q in asked:
            shown = [by_file[f] for f in q["images"]]
            assert shown[0] is photos[0] and sorted(f["id"] for f in shown[1:]) == sorted(p["id"] for p in photos[1:])
            side = "behind" if "from behind" in q["text"] or "standing behind" in q["text"] else "in front"
            (name,) = q["objects"]
            centre = next(o["box3d"]["center_m"] for o in photos[0]["objects"] if o["name"] == name)
            verdicts = [expected_from(photos[0], p, centre, side) for p in shown[1:]]
            assert verdicts.count(True) == 1 and verdicts.count(False) == len(verdicts) - 1, (q["qid"], verdicts)
            assert q["options"] == ["second", "third", "fourth", "fifth"][: len(shown) - 1] and q["answer"] == q["options"][verdicts.index(True)]
            assert "#" not in name and q["scene_of"] == photos[0]["id"] and q["scene_id"] == photos[-1]["id"]
            assert judge_question(q, gold_text(q), LEXICON).status == "correct"
            assert judge_question(q, f"Photo {verdicts.index(True) + 2}.", LEXICON).status == "correct"
        askable = sum(
            expected_count(photos, o["box3d"]["center_m"], side) for o in photos[0]["objects"] if "instance" not in o for side in ("behind", "in front")
        )  # fmt: skip
        assert len(asked) == askable, photos[0]["id"]
        made += asked
    answers = Counter((len(q["images"]), q["answer"]) for q in made)
    assert len(made) > 150 and {a for _, a in answers} == {"second", "third", "fourth", "fifth"}
    for n in (3, 4):  # the answer's place follows no view order: each place about as often
        places = [answers[n, o] for o in ("second", "third", "fourth")[: n - 1]]
        assert min(places) >= 0.5 * max(places), (n, places)
    assert taken_from_which(photos[:2]) == [] and taken_from_which(photos[:1]) == []  # a scene with one other view: nothing


def expected_count(photos: list[dict], centre: list[float], side: str) -> int:
    """1 where exactly one other photo was taken from `side` of the object and every other clearly not."""
    verdicts = [expected_from(photos[0], p, centre, side) for p in photos[1:]]
    return int(verdicts.count(True) == 1 and verdicts.count(False) == len(verdicts) - 1)


def marks_of(labels: list[str], rid: str) -> list[Mark]:
    """Marks on `labels`, numbered in an order drawn here from the record's id."""
    numbers = random.Random(rid).sample(range(1, len(labels) + 1), len(labels))
    return [Mark(n, label, (10.0, 10.0), 7.0, True) for n, label in zip(numbers, labels)]


def test_mark_match_answers_the_second_photos_mark_of_each_object_clearly_seen_and_marked_in_both():
    rng = np.random.default_rng(11)
    made, same = [], 0
    for k in range(200):
        names = [*NAMES[: rng.integers(2, 5)], *(("cup#1", "cup#2") if k % 3 == 0 else ())]
        fractions = [{n: float(rng.choice((0.0, 0.3, 0.6, 1.0), p=(0.15, 0.15, 0.2, 0.5))) for n in names} for _ in range(2)]
        scene = record(f"m{k}", camera(0, 30, 1.4), fractions[0])
        view = record(f"m{k}-view2", camera(rng.uniform(-180, 180), 30, 1.4), fractions[1], of=f"m{k}")
        marked = [[n for n in names if f[n] > 0 and rng.random() < 0.9] for f in fractions]
        marks = marks_of(marked[0], scene["id"]), marks_of(marked[1], view["id"])
        asked = mark_match_questions(scene, view, marks, "numbers")
        number = [{m.label: m.number for m in ms} for ms in marks]
        clear = {n for n in names if all(f[n] >= 0.5 for f in fractions) and n in number[0] and n in number[1]}
        expected = {n for n in clear if all(t in clear for t in names if t.split("#")[0] == n.split("#")[0])} if len(marks[1]) >= 3 else set()
        assert {q["derivation"]["facts"][0][0] for q in asked} == expected
        for q in asked:
            label = q["derivation"]["facts"][0][0]
            assert q["answer"] == number[1][label] and re.search(rf"\b{number[0][label]}\b", q["text"])
            assert q["images"] == [f"marked/{scene['id']}.png", f"marked/{view['id']}.png"] and q["marks"] == "numbers"
            assert q["options"] == [str(n) for n in sorted(number[1].values())]
            assert judge_question(q, gold_text(q), LEXICON).status == "correct"
            same += number[0][label] == number[1][label]
        made += asked
    assert len(made) > 150 and any("#" in q["derivation"]["facts"][0][0] for q in made)
    assert same < 0.4 * len(made)  # an object's two numbers agree by chance alone
    assert len({q["answer"] for q in made}) >= 4


# --- on a real render ------------------------------------------------------------------------------------------------

POOL = ("mug", "bowl", "laptop", "apple", "lamp", "teddy bear")


@pytest.fixture(scope="module")
def ring(tmp_path_factory, one_look) -> Path:
    """Two random scenes, each with views 2 to 4 on a ring round its table, at 64x48 with masks."""
    root = tmp_path_factory.mktemp("ring")
    build_assets(load_catalog(), root / "assets", list(POOL), jobs=1)
    made = run_cli(
        "render", "--scenes", "random", "--count", "2", "--seed", "5", "--views", "4", "--view-layout", "ring", "--only", ",".join(POOL),
        "--assets", str(root / "assets"), "--resolution", "64x48", "--samples", "1", "--masks", "--quiet", "--out", str(root / "out"),
        "--random-config", str(one_look),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return root / "out"


@pytest.mark.render
def test_a_ring_render_asks_both_of_its_photos_and_a_marks_export_shows_both_marked_copies(ring, tmp_path):
    rows = [json.loads(line) for line in (ring / "metadata.jsonl").read_text().splitlines()]
    by_file = {r["file_name"]: r for r in rows}
    out = tmp_path / "llava"
    made = run_cli("export", "--dataset", str(ring), "--format", "llava", "--questions", "hierarchy", "--marks", "numbers", "--out", str(out))
    assert made.returncode == 0, made.stderr
    samples = [s for name in ("train.json", "train_multi_image.json") if (out / name).exists() for s in json.loads((out / name).read_text())]
    which = [s for s in samples if s["template"] == "taken-from-which"]
    match = [s for s in samples if s["template"] == "mark-match"]
    assert which and match
    for s in which:
        photos = [by_file[f] for f in s["image"]]
        side = "behind" if re.search(r"(?:from|standing) behind", s["conversations"][0]["value"]) else "in front"
        name = next(o for o in photos[0]["objects"] if f" {o['name']}?" in s["conversations"][0]["value"])
        verdicts = [expected_from(photos[0], p, name["box3d"]["center_m"], side) for p in photos[1:]]
        assert verdicts.count(True) == 1 and verdicts.count(False) == len(photos) - 2
        assert s["conversations"][1]["value"] == f"{('second', 'third', 'fourth')[verdicts.index(True)].capitalize()}."
    for s in match:
        assert [Path(f).parent.name for f in s["image"]] == ["marked", "marked"] and all((out / f).is_file() for f in s["image"])
        scene, view = (by_file[f"images/{Path(f).name}"] for f in s["image"])
        assert "view" in view and view["view"]["of"] == scene["id"]
    # a render of the scenes alone (their views left out): neither is asked, nothing fails
    alone = Path(shutil.copytree(ring, tmp_path / "alone"))
    (alone / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows if "view" not in r))
    path = tmp_path / "alone.jsonl"
    asked = run_cli("questions", "--dataset", str(alone), "--out", str(path))
    assert asked.returncode == 0, asked.stderr
    assert not {"taken-from-which", "mark-match"} & {json.loads(line)["template"] for line in path.read_text().splitlines()}
