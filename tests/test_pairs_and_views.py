"""Counterfactual partners and other views of random scenes. In pure Python: each kind of partner changes
exactly what it says and nothing else, is kept only when it changes the relation it aims at, records its
difference exactly, and is a pure function of (config, seed, scene, kind); a view keeps its scene and
moves the camera. Rendered: both pass `tabletest verify`, and a planted partner does not."""

from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import replace

import jsonschema
import numpy as np
import pytest
from conftest import run_cli

from tabletest.assets.manifest import load_manifest
from tabletest.config import load_catalog, load_config
from tabletest.errors import UserError
from tabletest.layout.counterfactuals import KINDS, check_kinds
from tabletest.layout.random_config import RandomConfig, load_random_config
from tabletest.layout.random_scene import PlacedObject, RandomScene
from tabletest.layout.random_set import make_random_set
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.score.lexicon import load_lexicon
from tabletest.score.questions import judge_question
from tabletest.truth.pairs import aimed_change_happened, carriers_of, partner, relation_difference, set_scenes, with_companions, with_facing
from tabletest.truth.records import placed_relations
from tabletest.write.schema import schema

TOP = load_config().table.height_m
RES = (512, 384)
CATALOG = load_catalog()
SHIPPED = load_random_config()
# more stacking than the shipped config (which stacks in few scenes), so carried objects are common
CONFIG = RandomConfig.model_validate({**SHIPPED.model_dump(), "arrangements": {**SHIPPED.arrangements.model_dump(), "stack": 0.45, "contain": 0.45, "touch": 0.1}})
SAME_EVERYWHERE = ("camera", "table", "key_light", "world", "backdrop", "index", "draws")
FRONTS = {o.name: o.front_deg for o in CATALOG.objects if o.has_front}


@pytest.fixture(scope="module")
def world(builtin_assets):
    """Forty scenes with many objects on or in others, and what their partners are made with."""
    entries = load_manifest(builtin_assets).objects
    random_set = make_random_set(CATALOG, CONFIG, 0, 40, None, None, None, None, ",".join(KINDS))
    contact = random_set.contact(entries, builtin_assets)
    sizes = {n: e.size_m for n, e in entries.items()}
    scenes = list(random_set.scenes(sizes, TOP, 36.0, RES, shapes=contact.shapes))
    relations_of = placed_relations(RES, CONFIG.relations, {o.name: o.kind for o in CATALOG.objects}, contact)
    return scenes, random_set.candidates(sizes, TOP, RES), relations_of, sizes


def partners_of(world, kind):
    scenes, candidates, relations_of, _ = world
    made = [(scene, partner(scene, kind, candidates, relations_of)) for scene in scenes]
    return [(s, p) for s, p in made if p is not None]


def by_name(scene: RandomScene) -> dict[str, PlacedObject]:
    return {o.name: o for o in scene.objects}


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_changes_what_it_names_and_nothing_else(world, kind):
    pairs = partners_of(world, kind)
    assert len(pairs) >= (2 if kind == "unstack" else 8), f"too few {kind} partners in 40 scenes to test"
    _, _, relations_of, sizes = world
    for scene, made in pairs:
        assert made.id == f"{scene.id}-{kind}" and made.change.of == scene.id and made.change.kind == kind
        assert all(getattr(made, f) == getattr(scene, f) for f in SAME_EVERYWHERE)
        old, new = by_name(scene), by_name(made)
        named = set(made.change.objects)
        for name in set(old) - named:
            if name in new:
                assert new[name] == old[name], f"{made.id}: {name} moved though the change does not name it"
        if kind == "swap":
            a, b = made.change.objects
            assert new[a].position_m == old[b].position_m and new[b].position_m == old[a].position_m
            assert (new[a].yaw_deg, new[b].yaw_deg) == (old[a].yaw_deg, old[b].yaw_deg) and set(new) == set(old)
        elif kind == "move":
            moved, crossed = made.change.objects
            assert new[crossed] == old[crossed] and new[moved].yaw_deg == old[moved].yaw_deg
            right = scene.camera.pinhole(RES).axes[0][:2]
            before = np.dot(np.subtract(old[moved].position_m[:2], old[crossed].position_m[:2]), right)
            after = np.dot(np.subtract(new[moved].position_m[:2], old[crossed].position_m[:2]), right)
            assert after == pytest.approx(-before, abs=1e-4), "mirrored across the other object along the camera's left-right"
        elif kind == "remove":
            (gone,) = made.change.objects
            assert set(new) == set(old) - {gone}
        elif kind == "replace":
            gone, come = made.change.objects
            assert set(new) == set(old) - {gone} | {come} and come not in old
            assert (new[come].position_m, new[come].yaw_deg) == (old[gone].position_m, old[gone].yaw_deg)
            assert max(max(sizes[come]), max(old[gone].size_m)) <= 1.3 * min(max(sizes[come]), max(old[gone].size_m))
        elif kind == "rotate":
            (turned,) = made.change.objects
            assert turned in FRONTS and [o.name for o in scene.objects].count(turned) == 1, "a kind with a front, named once"
            assert (new[turned].position_m, new[turned].size_m) == (old[turned].position_m, old[turned].size_m)
            assert old[turned].position_m[2] == TOP and turned not in carriers_of(relations_of(scene)).values(), "on the table, carrying nothing"
            turn = (new[turned].yaw_deg - old[turned].yaw_deg + 180) % 360 - 180
            assert made.change.turn_deg == pytest.approx(turn, abs=1e-3) and 30 <= abs(turn) <= 150 and made.change.turn_deg == round(turn)
        else:
            lifted, carrier = made.change.objects
            assert old[lifted].position_m[2] > TOP and new[lifted].position_m[2] == TOP
            assert carriers_of(relations_of(scene))[lifted] == carrier and lifted not in carriers_of(relations_of(made))
        before, after = relations_of(scene), relations_of(made)
        assert aimed_change_happened(made.change, before, after)
        if kind == "rotate":  # its difference holds the facing relations too
            before, after = (with_facing(s.objects, r, FRONTS) for s, r in ((scene, before), (made, after)))
        assert made.change.difference == relation_difference(before, after)
        corners = made.camera.pinhole(RES).project(np.concatenate([o.box_corners() for o in made.objects]))
        assert (corners >= 0).all() and (corners <= RES).all(), f"{made.id}: an object left the picture"


def test_the_recorded_difference_is_exact(world):
    for scene, made in partners_of(world, "swap")[:5]:
        _, _, relations_of, _ = world
        before, after = relations_of(scene), relations_of(made)
        diff = made.change.difference
        for key in ("left_of", "in_front_of", "on", "inside", "touching"):
            was, now = before.get(key, []), after.get(key, [])
            assert sorted(diff["became_true"].get(key, [])) == sorted(p for p in now if p not in was)
            assert sorted(diff["became_false"].get(key, [])) == sorted(p for p in was if p not in now)
            assert sorted(diff["unchanged"].get(key, [])) == sorted(p for p in was if p in now)
        a, b = made.change.objects
        flipped = [key for key in ("left_of", "right_of") if [a, b] in before[key]]
        assert all([b, a] in diff["became_true"][key] and [a, b] in diff["became_false"][key] for key in flipped)


def test_the_same_seed_gives_the_same_partners_and_another_seed_others(world, builtin_assets):
    def vignettes(seed):
        out = run_cli("vignettes", "--scenes", "random", "--count", "6", "--seed", str(seed), "--assets", str(builtin_assets),
                      "--counterfactuals", "swap,remove,move")  # fmt: skip
        assert out.returncode == 0, out.stderr
        return out.stdout

    first, again, other = vignettes(3), vignettes(3), vignettes(4)
    assert first == again and first != other
    records = [json.loads(line) for line in first.splitlines()]
    partners = [r for r in records if "counterfactual" in r]
    assert partners and all(r["id"] == f"{r['counterfactual']['of']}-{r['counterfactual']['kind']}" for r in partners)
    originals = [r["id"] for r in records if "counterfactual" not in r]
    assert originals == [f"rnd3-{i:07d}" for i in range(6)], "every scene of the set, each followed by its partners"


def test_a_swap_that_changes_no_relation_is_not_kept(world):
    """Two small objects diagonal to each other within the margins: neither is left of or in front of
    the other, so trading places changes nothing a question could ask, and no partner is made."""
    scenes, candidates, relations_of, _ = world
    scene = scenes[0]
    right = scene.camera.pinhole(RES).axes[0][:2]
    forward = np.array([-right[1], right[0]])
    size = (0.02, 0.02, 0.05)
    spots = [np.zeros(2), 0.02 * right + 0.02 * forward]
    objects = tuple(PlacedObject(name, (round(float(x), 5), round(float(y), 5), TOP), 0.0, size) for name, (x, y) in zip(("apple", "mug"), spots))
    close = replace(scene, objects=objects)
    no_gap = replace(candidates, config=RandomConfig.model_validate({**CONFIG.model_dump(), "placement": {**CONFIG.placement.model_dump(), "min_gap_m": 0.0}}))
    before = relations_of(close)
    assert not any(["apple", "mug"] in before[key] or ["mug", "apple"] in before[key] for key in ("left_of", "in_front_of"))
    assert partner(close, "swap", no_gap, relations_of) is None
    assert partner(close, "remove", no_gap, relations_of) is not None, "the same scene allows other changes"


def test_a_scene_that_allows_no_change_of_a_kind_is_skipped_and_counted(world):
    scenes, candidates, relations_of, _ = world
    alone = replace(scenes[0], objects=scenes[0].objects[:1])
    skipped = []
    made = list(with_companions([alone], ("remove", "swap", "move"), candidates, relations_of, on_skip=lambda k, s: skipped.append((k, s))))
    assert made == [alone] and skipped == [("remove", alone.id), ("swap", alone.id), ("move", alone.id)]


def test_a_view_keeps_its_scene_and_moves_the_camera(builtin_assets):
    entries = load_manifest(builtin_assets).objects
    sizes = {n: e.size_m for n, e in entries.items()}
    random_set = make_random_set(CATALOG, SHIPPED, 5, 12, None, None, None, None, None, 3)
    contact = random_set.contact(entries, builtin_assets)
    relations_of = placed_relations(RES, SHIPPED.relations, {o.name: o.kind for o in CATALOG.objects}, contact)
    scenes = list(set_scenes(random_set, sizes, TOP, 36.0, RES, contact.shapes, relations_of))
    assert scenes == list(set_scenes(random_set, sizes, TOP, 36.0, RES, contact.shapes, relations_of)), "a pure function of the seed"
    by_id = {s.id: s for s in scenes}
    views = [s for s in scenes if s.view is not None]
    assert [s.id for s in views] == [f"rnd5-{i:07d}-view{n}" for i in range(12) for n in (2, 3)]
    low, high = SHIPPED.camera.azimuth_deg
    for view in views:
        scene = by_id[view.view.of]
        assert view.index == scene.index and set(view.objects) == set(scene.objects)
        assert all(getattr(view, f) == getattr(scene, f) for f in ("table", "key_light", "world", "backdrop"))
        assert view.camera != scene.camera and low <= view.camera.azimuth_deg <= high
        # to the right for an even index plus view number, to the left for an odd one, at least 10°, where there is room
        turn, right = view.camera.azimuth_deg - scene.camera.azimuth_deg, (view.index + view.view.number) % 2 == 0
        room = scene.camera.azimuth_deg + 10 <= high if right else scene.camera.azimuth_deg - 10 >= low
        assert abs(turn) >= 10 and (turn > 0) == (right == room), view.id
        right = view.camera.pinhole(RES).axes[0]
        across = [float(np.subtract(o.box_center, view.camera.position) @ right) for o in view.objects]
        assert across == sorted(across), "objects left to right as this view's camera sees them"
        assert view.camera.pinhole(RES).project(np.array([o.box_center for o in view.objects])).min() >= 0


@pytest.mark.render
def test_views_flags_get_one_line(builtin_assets):
    for views, words in (("0", "--views 0: give how many cameras"), ("100", "--views 100 is more than 99")):
        bad = run_cli("vignettes", "--scenes", "random", "--count", "2", "--views", views, "--assets", str(builtin_assets))
        assert bad.returncode == 2 and bad.stderr.startswith(f"error: {words}") and len(bad.stderr.strip().splitlines()) == 1
    benchmark = run_cli("render", "--objects", "2", "--views", "2")
    assert benchmark.returncode == 2 and "--views goes with random scenes" in benchmark.stderr and "Traceback" not in benchmark.stderr


def test_kinds_are_checked_in_one_line():
    assert check_kinds("swap, Remove,swap") == ("swap", "remove")
    for bad in ("teleport", "", "swap,,fly"):
        with pytest.raises(UserError, match="--counterfactuals"):
            check_kinds(bad)


def test_bad_counterfactual_flags_get_one_line(builtin_assets):
    unknown = run_cli("vignettes", "--scenes", "random", "--count", "2", "--counterfactuals", "teleport", "--assets", str(builtin_assets))
    assert unknown.returncode == 2 and "--counterfactuals" in unknown.stderr and "swap" in unknown.stderr
    assert "Traceback" not in unknown.stderr and len(unknown.stderr.strip().splitlines()) == 1
    benchmark = run_cli("vignettes", "--objects", "2", "--counterfactuals", "swap")
    assert benchmark.returncode == 2 and "--scenes random" in benchmark.stderr and "Traceback" not in benchmark.stderr


@pytest.mark.slow
@pytest.mark.render
def test_pairs_render_verify_and_a_planted_partner_is_caught(tmp_path, builtin_assets):
    """Rendered pairs pass `tabletest verify`; a partner whose image moved an object its change does not
    name, or whose recorded difference is wrong, does not; a rerun with another kind adds only those partners."""
    out = tmp_path / "pairs"
    args = ["render", "--scenes", "random", "--count", "3", "--seed", "11", "--resolution", "96x72", "--samples", "2",
            "--masks", "--assets", str(builtin_assets), "--out", str(out), "--quiet"]  # fmt: skip
    first = run_cli(*args, "--counterfactuals", "swap")
    assert first.returncode == 0, first.stderr
    more = run_cli(*args, "--counterfactuals", "swap,remove", "--views", "2")
    assert more.returncode == 0, more.stderr
    records = {r["id"]: r for r in map(json.loads, (out / "metadata.jsonl").read_text().splitlines())}
    swaps = [r for r in records.values() if r.get("counterfactual", {}).get("kind") == "swap"]
    removes = [r for r in records.values() if r.get("counterfactual", {}).get("kind") == "remove"]
    views = [r for r in records.values() if "view" in r]
    assert swaps and removes and f"{len(swaps) + 3} already done" in more.stderr, "only the remove partners and views are new"
    assert sorted(r["id"] for r in views) == [f"rnd11-{i:07d}-view2" for i in range(3)]
    for partner_record in swaps + removes:
        original = records[partner_record["counterfactual"]["of"]]
        assert partner_record["camera"] == original["camera"] and partner_record["scene"] == original["scene"]
        assert partner_record["render"]["seed"] == original["render"]["seed"]
    for record in records.values():
        jsonschema.validate(record, schema("random-record"))
    exported = run_cli("export", "--dataset", str(out), "--format", "coco", "--split-by", "scene", "--val-fraction", "0.5", "--out", str(tmp_path / "coco"))
    assert exported.returncode == 0, exported.stderr
    splits = {image["scene_id"]: split for split in ("train", "validation") for image in _coco_images(tmp_path / "coco", split)}
    assert len(splits) == len(records)
    for partner_record in swaps + removes:
        assert splits[partner_record["id"]] == splits[partner_record["counterfactual"]["of"]], "a pair stays in one split"
    verified = run_cli("verify", str(out))
    assert verified.returncode == 0 and "counterfactual partners (masks)" in verified.stdout, verified.stdout + verified.stderr
    assert "other views of a scene (records)" in verified.stdout

    asked = run_cli("questions", "--from", str(out), "--out", str(tmp_path / "q.jsonl"))
    assert asked.returncode == 0, asked.stderr
    together = [json.loads(line) for line in (tmp_path / "q.jsonl").read_text().splitlines()]
    together = [q for q in together if q["modality"] == "images"]
    assert {q["skill"] for q in together} >= {"which image", "what changed", "same answer", "viewpoint"}
    turned = {q["relation"] for q in together if q["skill"] == "viewpoint"}
    assert "left_of" in turned and "bigger" not in turned, "what turns with the camera, never what cannot"
    for skill in ("same answer", "viewpoint"):
        answers = Counter((q["relation"], q["answer"]) for q in together if q["skill"] == skill and q["answer_type"] == "yes/no")
        assert answers and all(answers[(r, True)] == answers[(r, False)] for r, _ in answers), f"{skill}: as many yes as no per relation"
    for q in together:
        partner_record = records[q["scene_id"]]
        original = records[(partner_record.get("counterfactual") or partner_record.get("view"))["of"]]
        assert q["images"] == [original["file_name"], partner_record["file_name"]]
        if q["skill"] == "camera motion":
            continue  # recomputed from the two cameras in test_camera_motion.py; scored by the oracle below
        pair, key = q["objects"], q["relation"]  # each gold answer recomputed from the two records alone
        holds = [pair in original["relations"].get(key, []), pair in partner_record["relations"].get(key, [])]
        if q["skill"] == "viewpoint":
            if key == "azimuth":
                turn = partner_record["camera"]["azimuth_deg"] - original["camera"]["azimuth_deg"]
                assert q["answer"] == ("second" if turn < 0 else "first") and abs(turn) >= 10
            else:
                assert holds[0] and q["answer"] == holds[1]
            continue
        if q["skill"] == "same answer":
            assert q["answer"] == (holds[0] == holds[1])
            continue
        if q["skill"] == "what changed":
            kind = partner_record["counterfactual"]["kind"]
            assert q["answer"] == {"swap": "swapped", "remove": "removed"}[kind] and q["answer"] in q["options"]
            continue
        assert holds == ([True, False] if q["answer"] == "first" else [False, True]), q["qid"]
    (tmp_path / "oracle.jsonl").write_text("".join(json.dumps({"qid": q["qid"], "response": gold_text(q)}) + "\n" for q in together))
    (tmp_path / "pairs.jsonl").write_text("".join(json.dumps(q) + "\n" for q in together))
    scored = run_cli("score", "--prompts", str(tmp_path / "pairs.jsonl"), "--responses", str(tmp_path / "oracle.jsonl"), "--out", str(tmp_path / "rep"))
    assert scored.returncode == 0, scored.stderr
    with open(tmp_path / "rep" / "accuracy.csv") as fh:
        assert {float(row["accuracy"]) for row in csv.DictReader(fh)} == {1.0}

    swap = next(r for r in swaps if len(r["objects"]) >= 3)
    a, b = swap["counterfactual"]["objects"]
    third = next(o["name"] for o in swap["objects"] if o["name"] not in (a, b))
    planted = {**swap, "counterfactual": {**swap["counterfactual"], "objects": [a, third]}}  # b moved, unnamed
    wrong_difference = {**removes[0], "counterfactual": {**removes[0]["counterfactual"], "became_true": {"left_of": [["x", "y"]]}}}
    lines = [json.dumps(planted if r["id"] == swap["id"] else wrong_difference if r["id"] == removes[0]["id"] else r)
             for r in records.values()]  # fmt: skip
    (out / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    caught = run_cli("verify", str(out))
    assert caught.returncode == 1
    assert f"DISAGREES {swap['id']} [pair] {b} changed though the swap does not name it" in caught.stdout
    assert f"DISAGREES {swap['id']} [pair_pixels] {b}'s mask differs" in caught.stdout
    line = next(line for line in caught.stdout.splitlines() if line.startswith(f"  DISAGREES {removes[0]['id']} [pair]"))
    assert "recorded difference is not the two records' one at" in line and "became_true.left_of" in line


def _coco_images(folder, split) -> list[dict]:
    files = list(folder.rglob(f"*{split}*.json"))
    return [image for f in files for image in json.loads(f.read_text())["images"]]


def test_answers_flip_between_a_pair_as_the_truth_for_an_oracle_and_half_the_time_for_a_coin(tmp_path, builtin_assets):
    """The same yes/no question asked of a scene and of its partner or other view: an oracle's answers flip
    exactly where the gold answers do (1.0); of the four ways to answer a pair (yes or no, to each), two flip
    as the truth, so a coin scores exactly 1/2 in expectation, and a seeded coin close to it."""
    made = run_cli("vignettes", "--scenes", "random", "--count", "24", "--seed", "0", "--counterfactuals", "swap,move,remove",
                   "--views", "2", "--assets", str(builtin_assets), "--out", str(tmp_path / "v.jsonl"))  # fmt: skip
    assert made.returncode == 0, made.stderr
    asked = run_cli("questions", "--from", str(tmp_path / "v.jsonl"), "--out", str(tmp_path / "q.jsonl"))
    assert asked.returncode == 0, asked.stderr
    questions = [json.loads(line) for line in (tmp_path / "q.jsonl").read_text().splitlines()]
    assert {q.get("scene_of") for q in questions} > {None}, "partners' and views' questions name their scene"
    coin = np.random.default_rng(0)
    answerers = {
        "oracle": lambda q: gold_text(q),
        "coin": lambda q: ("yes" if coin.random() < 0.5 else "no") if q["answer_type"] == "yes/no" else gold_text(q),
        **{f"{a}{b}": (lambda q, a=a, b=b: (b if q.get("scene_of") else a) if q["answer_type"] == "yes/no" else gold_text(q))
           for a in ("yes", "no") for b in ("yes", "no")},
    }  # fmt: skip
    for model, answer in answerers.items():
        (tmp_path / f"{model}.jsonl").write_text("".join(json.dumps({"qid": q["qid"], "response": answer(q)}) + "\n" for q in questions))
    files = [arg for model in answerers for arg in ("--responses", str(tmp_path / f"{model}.jsonl"))]
    scored = run_cli("score", "--prompts", str(tmp_path / "q.jsonl"), *files, "--out", str(tmp_path / "rep"))
    assert scored.returncode == 0, scored.stderr
    with open(tmp_path / "rep" / "pair_consistency.csv") as fh:
        share = {row["model"]: float(row["share"]) for row in csv.DictReader(fh)}
    assert share["oracle"] == 1.0
    combos = [share[f"{a}{b}"] for a in ("yes", "no") for b in ("yes", "no")]
    assert sum(combos) / 4 == pytest.approx(0.5, abs=1e-12) and len(set(combos)) > 1
    pairs = sum(1 for q in questions if q.get("scene_of") and q["answer_type"] == "yes/no")
    assert pairs > 250 and abs(share["coin"] - 0.5) < 4 * 0.5 / pairs**0.5
    assert "Consistency across counterfactual pairs and views" in (tmp_path / "rep" / "report.md").read_text()


@pytest.mark.render
def test_shards_with_views_and_partners_merge_and_keep_them_together(tmp_path, builtin_assets):
    args = ["render", "--scenes", "random", "--count", "4", "--seed", "2", "--resolution", "64x48", "--samples", "1",
            "--counterfactuals", "swap,remove", "--views", "2", "--assets", str(builtin_assets), "--quiet"]  # fmt: skip
    for shard in ("0/2", "1/2"):
        made = run_cli(*args, "--shard", shard, "--out", str(tmp_path / f"part{shard[0]}"))
        assert made.returncode == 0, made.stderr
    merged = run_cli("merge", str(tmp_path / "part0"), str(tmp_path / "part1"), "--out", str(tmp_path / "all"))
    assert merged.returncode == 0, merged.stderr
    ids = [json.loads(line)["id"] for line in (tmp_path / "all" / "metadata.jsonl").read_text().splitlines()]
    assert {f"rnd2-{i:07d}" for i in range(4)} | {f"rnd2-{i:07d}-view2" for i in range(4)} <= set(ids)
    assert any(i.endswith("-remove") for i in ids) and len(ids) == len(set(ids))


@pytest.mark.parametrize(
    "options, response, parsed",
    [
        (["first", "second"], "The second image.", "second"),
        (["first", "second"], "In image 1 the mug is on the left.", "first"),
        (["first", "second"], "Not the first one.", "second"),
        (["first", "second"], "Both.", None),
        (["swapped", "moved", "removed", "replaced", "taken off"], "The mug was removed, not moved.", "removed"),
        (["swapped", "moved", "removed", "replaced", "taken off"], "The two objects traded places.", "swapped"),
        (["swapped", "moved", "removed", "replaced", "taken off"], "The apple was taken out of the bowl.", "taken off"),
        (["swapped", "moved", "removed", "replaced", "taken off"], "Something changed.", None),
    ],
)
def test_answers_to_questions_about_two_images_are_read(options, response, parsed):
    question = {"answer_type": "choice", "options": options, "answer": options[0], "scene_objects": ["mug", "apple", "bowl"]}
    judged = judge_question(question, response, load_lexicon(CATALOG))
    assert (judged.parsed if judged.status != "unparsed" else None) == parsed


def test_which_image_is_asked_of_a_side_only_where_the_other_image_shows_the_opposite():
    """The mug left of the lamp in the first image: "which image shows it to the left?" is asked where the
    second shows it to the right, not where the second has the pair within its margin (neither left nor right)."""
    from tabletest.prompts.hierarchy.pairs import pair_questions

    def asked(became_true: dict) -> list[str]:
        scene = {"id": "rnd0-0000000", "file_name": "images/rnd0-0000000.png", "objects": [{"name": "mug"}, {"name": "lamp"}],
                 "relations": {"left_of": [["mug", "lamp"]]}}  # fmt: skip
        change = {"kind": "move", "objects": ["mug"], "became_false": {"left_of": [["mug", "lamp"]]}, "became_true": became_true}
        partner = {**scene, "id": "rnd0-0000000-move", "file_name": "images/rnd0-0000000-move.png", "counterfactual": change}
        return [q["answer"] for q in pair_questions(scene, partner) if q["template"] == "which-image"]

    assert asked({"right_of": [["mug", "lamp"]]}) == ["first", "second"]  # turned round: left in the first, right in the second
    assert asked({}) == []  # into the margin: the second image shows neither


@pytest.mark.render
def test_rotate_partners_render_verify_and_ask_how_their_object_turned(tmp_path, builtin_assets):
    """A rotate partner turns one object with a front where it stands, by the angle it records: the render pins the
    fronts its partners were drawn with, `tabletest verify` passes it and catches a turn recorded wrong, and its
    questions (which way seen from above, how far) are answered from the two records' yaws alone."""
    out = tmp_path / "rotate"
    made = run_cli("render", "--scenes", "random", "--count", "3", "--seed", "0", "--resolution", "64x48", "--samples", "1", "--masks",
                   "--only", "kettle,laptop,teapot,mug,banana,radio", "--counterfactuals", "rotate", "--assets", str(builtin_assets),
                   "--out", str(out), "--quiet")  # fmt: skip
    assert made.returncode == 0, made.stderr
    records = {r["id"]: r for r in map(json.loads, (out / "metadata.jsonl").read_text().splitlines())}
    rotates = [r for r in records.values() if r.get("counterfactual", {}).get("kind") == "rotate"]
    assert len(rotates) == 3
    assert json.loads((out / "settings.json").read_text())["scenes"]["fronts"] == {"teapot": -90.0, "kettle": -90.0, "laptop": 0.0, "radio": 0.0}
    for partner_record in rotates:
        (turned,) = partner_record["counterfactual"]["objects"]
        original = records[partner_record["counterfactual"]["of"]]
        yaws = [{o["name"]: o["yaw_deg"] for o in r["objects"]} for r in (original, partner_record)]
        turn = (yaws[1][turned] - yaws[0][turned] + 180) % 360 - 180
        assert partner_record["counterfactual"]["turn_deg"] == pytest.approx(turn, abs=1e-3) and turned in FRONTS
        assert {n: y for n, y in yaws[0].items() if n != turned} == {n: y for n, y in yaws[1].items() if n != turned}
        jsonschema.validate(partner_record, schema("random-record"))
    verified = run_cli("verify", str(out))
    assert verified.returncode == 0 and "counterfactual partners (records)" in verified.stdout, verified.stdout + verified.stderr

    asked = run_cli("questions", "--from", str(out), "--out", str(tmp_path / "q.jsonl"))
    assert asked.returncode == 0, asked.stderr
    turns = [q for q in map(json.loads, (tmp_path / "q.jsonl").read_text().splitlines()) if q["skill"] == "object motion"]
    assert len(turns) == 3 * len(rotates)
    for q in turns:
        partner_record = records[q["scene_id"]]
        original = records[partner_record["counterfactual"]["of"]]
        (turned,) = q["objects"]
        yaws = [next(o["yaw_deg"] for o in r["objects"] if o["name"] == turned) for r in (original, partner_record)]
        turn = (yaws[1] - yaws[0] + 180) % 360 - 180  # positive: anticlockwise seen from above
        if q["answer_type"] == "choice":
            backwards = q["qid"].endswith("second-first")
            assert q["answer"] == ("anticlockwise" if (turn > 0) != backwards else "clockwise"), q["qid"]
        else:
            assert q["exact"] == {"value": pytest.approx(abs(turn), abs=1e-3), "unit": "deg"} and abs(q["answer"] - abs(turn)) <= 2.5
    ways = Counter(q["answer"] for q in turns if q["answer_type"] == "choice")
    assert ways["clockwise"] == ways["anticlockwise"] == len(rotates)

    partner_record = rotates[0]
    wrong = {**partner_record, "counterfactual": {**partner_record["counterfactual"], "turn_deg": partner_record["counterfactual"]["turn_deg"] + 10}}
    (out / "metadata.jsonl").write_text("".join(json.dumps(wrong if r["id"] == wrong["id"] else r) + "\n" for r in records.values()))
    caught = run_cli("verify", str(out))
    assert caught.returncode == 1
    (turned,) = partner_record["counterfactual"]["objects"]
    assert f"DISAGREES {wrong['id']} [pair] {turned} turned " in caught.stdout and "but the record says" in caught.stdout


def test_a_rotate_with_nothing_to_turn_is_refused_in_one_line(builtin_assets):
    bad = run_cli("vignettes", "--scenes", "random", "--count", "2", "--counterfactuals", "rotate", "--only", "apple,banana,mug",
                  "--assets", str(builtin_assets))  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.startswith("error: --counterfactuals rotate turns an object with a front")
    assert len(bad.stderr.strip().splitlines()) == 1
