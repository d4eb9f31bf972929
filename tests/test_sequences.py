"""Sequences of random scenes (`render --sequence orbit|dolly|slide --frames K`). In pure Python: each kind moves
only what it says, as far as its record says (an orbit round the look-at point, a dolly along the view, a slide in a
straight line that stops short of every other mesh, measured here with python-fcl on the model files), as a pure
function of the seed; the questions' answers are balanced by construction. Rendered: every frame passes `tabletest
verify`, a swapped frame does not, every answer is recomputed here from the records, and the multi-image and video
exports show the frames in order."""

from __future__ import annotations

import functools
import json
import math
import re
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from conftest import one_look_random_data, run_cli

from tabletest.assets.manifest import load_manifest
from tabletest.config import load_catalog, load_config
from tabletest.errors import UserError
from tabletest.files.family import companion_ids, family_problem, frame_id, made_from
from tabletest.layout.random_config import RandomConfig
from tabletest.layout.random_scene import placement_bounds
from tabletest.layout.random_set import make_random_set
from tabletest.layout.sequences import MIN_SLIDE_M, SLIDE_CLEARANCE_M, SLIDE_OFF_AXIS_DEG
from tabletest.prompts.hierarchy.balance_report import AnswerTally, report
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.prompts.hierarchy.sequences import sequence_questions
from tabletest.score.answer import judge_answer
from tabletest.score.lexicon import load_lexicon
from tabletest.truth.geometry import camera_record
from tabletest.truth.pairs import set_scenes
from tabletest.truth.records import companion_fields, placed_relations
from tabletest.verify.audit import audit
from tabletest.write.schema import schema

CATALOG = load_catalog()
CONFIG = load_config()
SHIPPED = RandomConfig.model_validate(one_look_random_data())  # the shipped config with looks off: the scenes these tests pin
TOP = CONFIG.table.height_m
RES = (512, 384)


@pytest.fixture(scope="module")
def entries(builtin_assets):
    return load_manifest(builtin_assets).objects


def sequences_of(kind: str, frames: int, count: int, seed: int, entries, assets: Path) -> list[list]:
    """The scenes of a set, each as the frames of its sequence (scenes that allow none left out)."""
    random_set = make_random_set(CATALOG, SHIPPED, seed, count, None, None, None, None, sequence=kind, frames=frames)
    contact = random_set.contact(entries, assets)
    relations_of = placed_relations(RES, SHIPPED.relations, {o.name: o.kind for o in CATALOG.objects}, contact)
    sizes = {n: e.size_m for n, e in entries.items()}
    made = set_scenes(random_set, sizes, TOP, 36.0, RES, contact.shapes, relations_of, meshes=random_set.meshes(entries, assets))
    grouped: dict[str, list] = defaultdict(list)
    for scene in made:
        if scene.frame is not None:
            grouped[scene.frame.of].append(scene)
    return list(grouped.values())


@pytest.fixture(scope="module")
def orbits(entries, builtin_assets):
    return sequences_of("orbit", 5, 12, 0, entries, builtin_assets)


@pytest.fixture(scope="module")
def slides(entries, builtin_assets):
    return sequences_of("slide", 5, 16, 0, entries, builtin_assets)


def horizontal_angle(a, b) -> float:
    """Signed angle from a to b in the table's plane, degrees, anticlockwise seen from above."""
    return math.degrees(math.atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1]))


def test_an_orbit_turns_the_camera_round_the_look_at_point_and_moves_nothing_else(orbits):
    assert len(orbits) == 12
    for frames in orbits:
        first = frames[0]
        turn = first.frame.motion["turn_deg"]
        assert 19.99 <= abs(turn) * 4 <= 120.01
        target = np.asarray(first.camera.target)
        start = np.subtract(first.camera.position, target)
        for k, frame in enumerate(frames):
            assert frame.id == (first.id if k == 0 else f"{first.id}-f{k}") and frame.frame.number == k
            assert frame.frame.motion == first.frame.motion and frame.frame.of == first.id
            offset = np.subtract(frame.camera.position, target)
            assert frame.camera.target == first.camera.target
            assert math.isclose(np.hypot(*offset[:2]), np.hypot(*start[:2]), abs_tol=2e-6) and math.isclose(offset[2], start[2], abs_tol=1e-9)
            assert math.isclose(horizontal_angle(start, offset), k * turn, abs_tol=1e-3)
            assert math.isclose((frame.camera.azimuth_deg - first.camera.azimuth_deg - k * turn + 180) % 360 - 180, 0, abs_tol=2e-3)
            assert {o.name: o for o in frame.objects} == {o.name: o for o in first.objects}, "no object moves"
            for part in ("table", "key_light", "world", "backdrop", "index"):
                assert getattr(frame, part) == getattr(first, part)


def test_a_dolly_moves_the_camera_along_its_view_towards_the_objects(entries, builtin_assets):
    for frames in sequences_of("dolly", 4, 10, 0, entries, builtin_assets):
        first, last = frames[0], frames[-1]
        distance = first.frame.motion["distance_m"]
        forward = np.subtract(first.camera.target, first.camera.position)
        forward /= np.linalg.norm(forward)
        corners = np.concatenate([o.box_corners() for o in first.objects])
        nearest = float(np.min((corners - np.asarray(first.camera.position)) @ forward))
        assert 0 < distance < nearest - 0.1, "no object comes nearer than the near plane"
        for k, frame in enumerate(frames):
            expected = np.asarray(first.camera.position) + forward * distance * k / 3
            assert np.allclose(frame.camera.position, expected, atol=1e-6)
            assert frame.camera.target == first.camera.target and frame.camera.focal_mm == first.camera.focal_mm
            assert frame.objects == first.objects
        assert math.isclose(first.camera.distance_m - last.camera.distance_m, distance, abs_tol=2e-4)


@functools.cache
def _fcl_model(path: Path, height: float):
    """A model file's mesh for python-fcl (trimesh; glTF's +Y up turned to the world's +Z up, checked by its height)."""
    import fcl
    import trimesh

    mesh = trimesh.load(path, force="mesh")
    x, y, z = np.asarray(mesh.vertices, float).T
    assert math.isclose(y.max() - y.min(), height, abs_tol=1e-3), "the model stands as tall as its box"
    model = fcl.BVHModel()
    model.beginModel(len(mesh.vertices), len(mesh.faces))
    model.addSubModel(np.stack([x, -z, y], axis=1), np.asarray(mesh.faces, np.int32))
    model.endModel()
    return model


def _fcl_distance(a, b, assets: Path, entries) -> float:
    """The least distance between two placed objects' meshes, from their model files."""
    import fcl

    objects = []
    for placed in (a, b):
        model = _fcl_model(assets / entries[placed.model].file, placed.size_m[2])
        t = math.radians(placed.yaw_deg)
        rotation = np.array([[math.cos(t), -math.sin(t), 0], [math.sin(t), math.cos(t), 0], [0, 0, 1.0]])
        objects.append(fcl.CollisionObject(model, fcl.Transform(rotation, np.asarray(placed.position_m, float))))
    return fcl.distance(*objects, fcl.DistanceRequest(), fcl.DistanceResult())


def test_a_slide_moves_one_object_in_a_straight_line_and_stops_short_of_every_other(slides, entries, builtin_assets):
    assert len(slides) >= 12, "most scenes have an object free to slide"
    ways = Counter()
    for frames in slides:
        first, motion = frames[0], frames[0].frame.motion
        slid = motion["object"]
        start, end = np.asarray(motion["start_m"]), np.asarray(motion["end_m"])
        assert math.isclose(np.linalg.norm(end - start), motion["distance_m"], abs_tol=2e-5) and motion["distance_m"] >= MIN_SLIDE_M
        before = {o.name: o for o in first.objects}
        assert tuple(before[slid].position_m[:2]) == tuple(start) and before[slid].position_m[2] == TOP
        half_w, half_d = placement_bounds(SHIPPED, first.table.width_m, first.table.depth_m)
        for k, frame in enumerate(frames):
            after = {o.name: o for o in frame.objects}
            assert set(after) == set(before) and frame.camera == first.camera
            for name, obj in after.items():
                if name != slid:
                    assert obj == before[name], f"{frame.id}: only the {slid} moves"
            moved = after[slid]
            assert np.allclose(moved.position_m[:2], start + (end - start) * k / 4, atol=1e-5) and moved.yaw_deg == before[slid].yaw_deg
            corners = moved.footprint()
            assert np.all(np.abs(corners[:, 0]) <= half_w + 1e-6) and np.all(np.abs(corners[:, 1]) <= half_d + 1e-6)
            for name, other in after.items():
                if name != slid:
                    assert _fcl_distance(moved, other, builtin_assets, entries) >= SLIDE_CLEARANCE_M - 2e-4, (frame.id, name)
        right = np.asarray(first.camera.right_axis[:2]) / np.linalg.norm(first.camera.right_axis[:2])
        angle = horizontal_angle(right, end - start) % 360
        off = min(abs((angle - axis + 180) % 360 - 180) for axis in (0, 90, 180, 270))
        assert off <= SLIDE_OFF_AXIS_DEG + 0.01, "near one of the viewer's four ways"
        ways[round(angle / 90) % 4] += 1
    assert len(ways) >= 3


def test_a_sequence_is_a_pure_function_of_the_seed_and_the_frames_only_cut_it(entries, builtin_assets):
    again = sequences_of("slide", 5, 6, 0, entries, builtin_assets)
    assert again == sequences_of("slide", 5, 6, 0, entries, builtin_assets)
    finer = sequences_of("slide", 9, 6, 0, entries, builtin_assets)
    assert [f[0].frame.motion["end_m"] for f in again] == [f[0].frame.motion["end_m"] for f in finer]
    assert [f[-1].objects for f in again] == [f[-1].objects for f in finer] and [f[2].objects for f in again] == [f[4].objects for f in finer]
    other = sequences_of("slide", 5, 6, 1, entries, builtin_assets)
    assert [f[0].frame.motion for f in other] != [f[0].frame.motion for f in again]
    coarse, fine = sequences_of("orbit", 3, 4, 0, entries, builtin_assets), sequences_of("orbit", 7, 4, 0, entries, builtin_assets)
    for a, b in zip(coarse, fine):
        assert math.isclose(a[-1].camera.azimuth_deg, b[-1].camera.azimuth_deg, abs_tol=0.01), "the same whole turn"


@pytest.mark.parametrize(
    ("kind", "frames", "said"),
    [
        (None, 4, "--frames 4 cuts a sequence into frames; add --sequence"),
        ("orbit", 1, "--frames 1: a sequence has at least 2 frames"),
        ("orbit", 100, "more than 99 frames"),
    ],
)
def test_bad_sequence_flags_are_refused(kind, frames, said):
    with pytest.raises(UserError, match=re.escape(said)):
        make_random_set(CATALOG, SHIPPED, 0, 2, None, None, None, None, sequence=kind, frames=frames)


def test_a_bad_sequence_gets_one_line_before_anything_is_made(builtin_assets, tmp_path):
    made = run_cli("render", "--scenes", "random", "--count", "2", "--assets", str(builtin_assets), "--out", str(tmp_path / "o"), "--sequence", "spin")
    assert made.returncode != 0 and "--sequence 'spin' is not one of orbit, dolly, slide" in made.stderr and "Traceback" not in made.stderr
    assert not (tmp_path / "o").exists(), "refused before anything is made"


def test_a_sequence_is_refused_for_the_benchmark(tmp_path):
    made = run_cli("render", "--objects", "2", "--limit", "1", "--sequence", "orbit", "--out", str(tmp_path / "o"))
    assert made.returncode != 0 and "--sequence goes with random scenes" in made.stderr


def test_a_frames_id_and_its_sequence_field_say_the_same(orbits):
    frames = orbits[1]
    records = [{"id": f.id, **companion_fields(f)} for f in frames]
    assert [family_problem(r) for r in records] == [None] * len(records)
    assert made_from(records[0]) is None and {made_from(r) for r in records[1:]} == {frames[0].id}
    assert frame_id(frames[0].id, 2) == frames[2].id and companion_ids(frames[0].id, (), 1, 5) == [f.id for f in frames[1:]]
    wrong = {**records[2], "sequence": {**records[2]["sequence"], "frame": 3}}
    assert "is frame 2 of" in family_problem(wrong)
    renamed = {**records[0], "sequence": {**records[0]["sequence"], "frame": 1}}
    assert "frame 0 of its sequence" in family_problem(renamed)


def text_record(scene) -> dict:
    """A sequence frame as a record as far as its questions read it, every object in full view (no render)."""
    return {
        "id": scene.id,
        "file_name": f"images/{scene.id}.png",
        "camera": camera_record(scene.camera.pinhole(RES)),
        "objects": [{"name": o.name, "position_m": list(o.position_m), "visible_fraction": 1.0} for o in scene.objects],
        "relations": {"hidden": []},
        **companion_fields(scene),
    }


@pytest.fixture(scope="module")
def asked_text(entries, builtin_assets) -> list[tuple[list, list[dict]]]:
    """Orbits, slides and dollies of many scenes, each with the questions of its frames as text records (no render)."""
    made = []
    for kind, count in (("orbit", 60), ("slide", 60), ("dolly", 20)):
        for frames in sequences_of(kind, 3, count, 5, entries, builtin_assets):
            made.append((frames, sequence_questions([text_record(f) for f in frames])))
    return made


def test_each_sequence_template_is_balanced_by_construction_and_the_text_alone_reads_it_at_chance(asked_text):
    """Over many scenes, a constant answer scores chance: the orbit's way half left, the slide's way a quarter
    each, which object moved spread over the options' places; the text-only reader of the balance report (fitted
    on other scenes' words and names) reads every template, and guesses the ways no better than chance."""
    answers: dict[str, Counter] = defaultdict(Counter)
    tally = AnswerTally(0)
    for _, questions in asked_text:
        for q in questions:
            answers[q["template"]][q["options"].index(q["answer"]) if q["template"] == "seq-moved-which" else q["answer"]] += 1
            tally.add(q)
    assert set(answers) == {"seq-orbit-way", "seq-orbit-deg", "seq-moved-which", "seq-moved-way", "seq-moved-distance", "seq-dolly-distance"}
    for template, ways in (("seq-orbit-way", 2), ("seq-moved-way", 4)):
        counts = answers[template]
        n = sum(counts.values())
        assert len(counts) == ways
        for share in counts.values():  # each answer within four standard deviations of 1/ways
            assert abs(share - n / ways) <= 4 * math.sqrt(n * (1 / ways) * (1 - 1 / ways)), (template, counts)
    first = answers["seq-moved-which"]
    assert max(first.values()) < 0.6 * sum(first.values()), "the moved object is no one place's"
    templates = {g["template"]: g for g in report(0, tally)["questions"]["templates"]}
    assert set(templates) == set(answers) and all(g["text_prior"] is not None for g in templates.values()), "each read by the reader"
    for name in ("seq-orbit-way", "seq-moved-way"):  # those asked often enough here for its figure to mean something
        group = templates[name]
        assert group["validation_questions"] >= 30 and not group["text_shortcut"], (name, group)


def test_each_orbit_slide_and_dolly_answer_recomputed_from_the_frames_and_judged_right(asked_text):
    """Every gold recomputed here from the frames' cameras and places alone (not `truth.sequence_motion`), and the
    one judge (`score.answer`) takes the gold's own reply and refuses a wrong one."""
    lexicon = load_lexicon(CATALOG)
    for frames, questions in asked_text:
        first, last = frames[0], frames[-1]
        right = np.asarray(first.camera.right_axis[:2]) / np.linalg.norm(first.camera.right_axis[:2])
        target = np.asarray(first.camera.target[:2])
        start, end = np.subtract(first.camera.position[:2], target), np.subtract(last.camera.position[:2], target)
        moved = {a.name: np.subtract(b.position_m[:2], a.position_m[:2]) for a, b in zip(sorted(first.objects, key=lambda o: o.name),
                                                                                    sorted(last.objects, key=lambda o: o.name))}  # fmt: skip
        moved = {name: shift for name, shift in moved.items() if np.linalg.norm(shift) > 1e-6}
        for q in questions:
            template = q["template"]
            if template == "seq-orbit-way":
                went = float((np.subtract(last.camera.position[:2], first.camera.position[:2])) @ right)
                assert q["answer"] == ("right" if went > 0 else "left")
            elif template == "seq-orbit-deg":
                assert math.isclose(q["exact"]["value"], abs(horizontal_angle(start, end)), abs_tol=0.01)
            elif template == "seq-moved-which":
                assert list(moved) == [q["answer"]] and q["answer"] in q["options"]
            elif template == "seq-moved-way":
                (shift,) = moved.values()
                angle = math.degrees(math.atan2(shift @ np.array([-right[1], right[0]]), shift @ right)) % 360
                way = ("right", "away from the viewer", "left", "towards the viewer")[round(angle / 90) % 4]
                assert q["answer"] == way and abs((angle + 45) % 90 - 45) <= 30.0, "never near a diagonal"
            elif template == "seq-moved-distance":
                (shift,) = moved.values()
                assert math.isclose(q["exact"]["value"], float(np.linalg.norm(shift)), abs_tol=1e-5)
            elif template == "seq-dolly-distance":
                travel = float(np.linalg.norm(np.subtract(last.camera.position, first.camera.position)))
                assert math.isclose(q["exact"]["value"], travel, abs_tol=1e-5) and math.isclose(travel, first.frame.motion["distance_m"], abs_tol=2e-5)
            else:
                raise AssertionError(f"{template} is not recomputed here")
            assert q["images"] == [f"images/{f.id}.png" for f in frames] and q["scene_of"] == first.id
            assert judge_answer(q, gold_text(q), lexicon).status == "correct", (q["qid"], gold_text(q))
            assert judge_answer(q, wrong_text(q), lexicon).score < 0.5, (q["qid"], wrong_text(q))


def wrong_text(question: dict) -> str:
    """A reply that misses the gold: another option, or three times the quantity."""
    if question["answer_type"] == "quantity":
        return gold_text({**question, "answer": question["answer"] * 3})
    return next(f"The {o}." for o in question["options"] if o != question["answer"])


def test_which_came_into_view_or_went_out_of_it_first_is_asked_where_the_frames_decide_it(orbits):
    frames = orbits[1]
    seen = {  # per object, its visible fraction frame by frame (hidden under 0.25; out of view at 0.1 or under)
        "mug": [0.0, 0.0, 0.6, 0.9, 1.0],  # came into view in frame 2
        "lamp": [0.05, 0.3, 0.5, 0.8, 1.0],  # in frame 1
        "apple": [0.0, 0.15, 0.7, 1.0, 1.0],  # in between in frame 1: when it came is not decided
        "fan": [1.0, 1.0, 0.0, 0.0, 0.0],  # went out of view in frame 2
        "vase": [1.0, 0.8, 0.5, 0.05, 0.0],  # in frame 3
        "book": [1.0, 0.9, 0.0, 0.0, 0.0],  # in frame 2, as the fan: no order between them
    }
    records = []
    for k, frame in enumerate(frames):
        record = text_record(frame)
        record["objects"] = [{"name": n, "position_m": [0.0, 0.0, TOP], "visible_fraction": v[k]} for n, v in seen.items()]
        record["relations"] = {"hidden": [n for n, v in seen.items() if v[k] < 0.25]}
        records.append(record)
    asked = {q["qid"].split("-imgs-")[1]: q for q in sequence_questions(records)}
    assert {k for k in asked if k.startswith("seq-")} == {
        "seq-enter-first-lamp-mug", "seq-enter-first-mug-lamp",
        "seq-leave-first-fan-vase", "seq-leave-first-vase-fan", "seq-leave-first-book-vase", "seq-leave-first-vase-book",
    }  # fmt: skip
    assert {asked["seq-enter-first-mug-lamp"]["answer"], asked["seq-enter-first-lamp-mug"]["answer"]} == {"lamp"}
    assert asked["seq-enter-first-mug-lamp"]["options"] == ["mug", "lamp"] and asked["seq-enter-first-lamp-mug"]["options"] == ["lamp", "mug"]
    assert asked["seq-leave-first-vase-fan"]["answer"] == "fan" and asked["seq-leave-first-book-vase"]["answer"] == "book"
    assert asked["seq-enter-first-mug-lamp"]["pair"] == asked["seq-enter-first-lamp-mug"]["pair"]


@pytest.fixture(scope="module")
def rendered(builtin_assets, tmp_path_factory, one_look) -> Path:
    """Two scenes' orbits of three frames, rendered tiny with masks: shared by the tests below."""
    out = tmp_path_factory.mktemp("sequences") / "orbit"
    made = run_cli(
        "render", "--scenes", "random", "--count", "2", "--sequence", "orbit", "--frames", "3", "--resolution", "64x48",
        "--samples", "1", "--masks", "--assets", str(builtin_assets), "--out", str(out), "-q", "--random-config", str(one_look),
    )  # fmt: skip (looks off: the scenes it pins)
    assert made.returncode == 0, made.stderr
    return out


def read_records(folder: Path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (folder / "metadata.jsonl").read_text().splitlines())}


def test_every_frame_is_rendered_recorded_and_verified_and_a_swapped_frame_is_caught(rendered, tmp_path):
    records = read_records(rendered)
    assert sorted(records) == sorted(f"rnd0-{i:07d}{tail}" for i in range(2) for tail in ("", "-f1", "-f2"))
    for sid, record in records.items():
        scene = sid[:12]
        assert record["sequence"]["of"] == scene and record["sequence"]["frame"] == (0 if sid == scene else int(sid[-1]))
        assert record["sequence"]["kind"] == "orbit" and record["sequence"]["frames"] == 3
        jsonschema.validate(record, schema("random-record"))
    clean = audit(rendered)
    assert clean.disagreements == [] and clean.checked["sequence"] >= 2 * 3, clean.checked
    # the frames of the scene with most objects (a lone round object looks alike from every side) swapped
    scene = max((r for r in records.values() if made_from(r) is None), key=lambda r: len(r["objects"]))["id"]
    swapped = tmp_path / "swapped"
    shutil.copytree(rendered, swapped)
    one, two = swapped / "images" / f"{scene}-f1.png", swapped / "images" / f"{scene}-f2.png"
    one_bytes = one.read_bytes()
    one.write_bytes(two.read_bytes())
    two.write_bytes(one_bytes)
    caught = {(sid, kind) for sid, kind, _ in audit(swapped).disagreements}
    assert {(f"{scene}-f1", "image"), (f"{scene}-f2", "image")} <= caught, caught
    renamed = [json.dumps({**r, "sequence": {**r["sequence"], "frame": 1}} if r["id"] == f"{scene}-f2" else r) for r in records.values()]
    (swapped / "metadata.jsonl").write_text("\n".join(renamed) + "\n")
    said = [what for sid, kind, what in audit(swapped).disagreements if kind == "sequence"]
    assert any("lacks frame(s) [2]" in what for what in said), said


def test_the_questions_of_a_rendered_orbit_are_recomputed_from_its_records(rendered, tmp_path):
    """Which way and how far the camera went, and which object came into view or went out of it first, each
    decided again here from the frames' cameras, visible fractions and hidden lists."""
    records = read_records(rendered)
    asked = run_cli("questions", "--from", str(rendered), "--out", str(tmp_path / "q.jsonl"))
    assert asked.returncode == 0, asked.stderr
    questions = [q for q in map(json.loads, (tmp_path / "q.jsonl").read_text().splitlines()) if q["template"].startswith("seq-")]
    assert {q["scene_of"] for q in questions} == {"rnd0-0000000", "rnd0-0000001"}
    lexicon = load_lexicon(CATALOG)
    for q in questions:
        frames = [records[f"{q['scene_of']}{tail}"] for tail in ("", "-f1", "-f2")]
        assert q["images"] == [f["file_name"] for f in frames] and q["scene_id"] == frames[-1]["id"]
        azimuths = [f["camera"]["azimuth_deg"] for f in frames]
        turn = (azimuths[-1] - azimuths[0] + 180) % 360 - 180
        if q["template"] == "seq-orbit-way":
            assert q["answer"] == ("right" if turn > 0 else "left")
        elif q["template"] == "seq-orbit-deg":
            assert math.isclose(q["exact"]["value"], abs(turn), abs_tol=0.01)
        else:
            assert q["template"] in ("seq-enter-first", "seq-leave-first")

            def frame_when(name: str, seen: bool) -> int:
                fractions = [next(o["visible_fraction"] for o in f["objects"] if o["name"] == name) for f in frames]
                hidden = [name in f["relations"].get("hidden", []) for f in frames]
                return next(k for k in range(3) if (not hidden[k] if seen else fractions[k] <= 0.1))

            x, y = q["options"]
            entering = q["template"] == "seq-enter-first"
            assert q["answer"] == min((x, y), key=lambda name: frame_when(name, entering))
        assert judge_answer(q, gold_text(q), lexicon).status == "correct"


def test_a_sequence_exports_as_ordered_images_and_as_a_video_of_its_frames(rendered, tmp_path):
    """lmms-eval lists a sequence's frames in order; LLaVA's export with `--sequences video` writes one H.264 file
    per sequence (read back with PyAV: one frame a second, each frame its PNG's), named by its samples' `video`."""
    import av
    from PIL import Image

    lmms = run_cli("export", "--dataset", str(rendered), "--format", "lmms-eval", "--questions", "hierarchy", "--out", str(tmp_path / "lmms"))
    assert lmms.returncode == 0, lmms.stderr
    rows = [json.loads(line) for path in (tmp_path / "lmms").glob("**/data/*.jsonl") for line in path.read_text().splitlines()]
    ordered = [r for r in rows if r["template"].startswith("seq-")]
    assert ordered and all(r["images"] == [f"images/{r['scene_of']}{t}.png" for t in ("", "-f1", "-f2")] and r["video"] is None for r in ordered)
    llava = run_cli(
        "export", "--dataset", str(rendered), "--format", "llava", "--questions", "hierarchy", "--sequences", "video", "--out", str(tmp_path / "llava")
    )  # fmt: skip
    assert llava.returncode == 0, llava.stderr
    samples = json.loads((tmp_path / "llava" / "train_video.json").read_text())
    assert samples and {s["video"] for s in samples} == {"videos/rnd0-0000000.mp4", "videos/rnd0-0000001.mp4"}
    assert all(s["conversations"][0]["value"].startswith("<image>\n") for s in samples)
    for scene in ("rnd0-0000000", "rnd0-0000001"):
        with av.open(str(tmp_path / "llava" / "videos" / f"{scene}.mp4")) as container:
            stream = container.streams.video[0]
            assert stream.codec_context.name == "h264" and stream.average_rate == 1
            decoded = [frame.to_ndarray(format="rgb24").astype(float) for frame in container.decode(stream)]
        assert len(decoded) == 3
        pngs = [np.asarray(Image.open(rendered / "images" / f"{scene}{t}.png").convert("RGB"), float) for t in ("", "-f1", "-f2")]
        for k, frame in enumerate(decoded):  # each frame nearest its own PNG, and close to it
            errors = [float(np.mean((frame - png) ** 2)) for png in pngs]
            assert int(np.argmin(errors)) == k and 10 * math.log10(255**2 / max(errors[k], 1e-9)) > 25, errors
    refused = run_cli("export", "--dataset", str(rendered), "--format", "llava", "--sequences", "video", "--out", str(tmp_path / "no"))
    assert refused.returncode != 0 and "add --questions hierarchy" in refused.stderr and "Traceback" not in refused.stderr


@pytest.mark.parametrize(
    ("response", "score"),
    [("Away from the viewer.", 1.0), ("It slid farther away.", 1.0), ("It did not come towards the viewer; it went away.", 1.0),
     ("Towards the viewer.", 0.0), ("It came closer to the camera.", 0.0), ("To the left.", 0.0)],
)  # fmt: skip
def test_the_judge_reads_which_way_an_object_slid(response, score):
    question = {
        "qid": "rnd0-0000000-f2-imgs-seq-moved-way-mug", "scene_id": "rnd0-0000000-f2", "answer_type": "choice", "answer": "away from the viewer",
        "options": ["left", "right", "towards the viewer", "away from the viewer"], "scene_objects": ["mug", "lamp"],
        "skill": "object motion", "level": "multi", "frame": "viewer",
    }  # fmt: skip
    assert judge_answer(question, response, load_lexicon(CATALOG)).score == score
