"""What two views of one scene show together: where the second camera stands beside the first, which objects one
photo shows and the other hides or leaves out of frame, how many distinct objects the two show. Every gold is
recomputed here from the two records (the cameras' positions round the point both look at, each object's
`visible_fraction`) with this file's own bands; nothing is asked near a band's edge; each template is balanced,
read as correct by the scorer, and a reader of the words alone does no better than chance."""

from __future__ import annotations

from collections import Counter

import numpy as np
from test_camera_motion import LEXICON, TARGET, camera, motion, stands

from tabletest.prompts.hierarchy.pairs import view_questions
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.prompts.hierarchy.text_only import TextReader
from tabletest.score.questions import judge_question

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
