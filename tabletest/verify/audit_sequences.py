"""`tabletest verify` for sequences: each frame against its scene's record (frame 0), from the records alone.

A frame keeps its scene's objects, look, render seed and index, and its `sequence` field is the scene's but for its
number; its pose is the one the sequence's kind and parameters give k/(K-1) of the way through: an orbit's camera
turned round the vertical through the look-at point by k times the turn, a dolly's moved along its view by that share
of the distance (its axes and intrinsics unchanged), a slide's object at that point of its straight path with
everything else where the scene has it. Every frame of a sequence is there, once. A frame whose record was put in
another's place (its id renamed, or its number too) therefore shows a pose its number does not give; whether each
image is its own frame's is `image_match`'s to judge, within the scene's family, against every other frame's masks.
A slid object keeps `SLIDE_CLEARANCE_M` from every other object's mesh in every frame, measured again on the models.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping

import numpy as np

from tabletest.config import excerpt
from tabletest.layout.arrangements import Pose, Shape
from tabletest.layout.camera import CameraView
from tabletest.layout.instances import label_of
from tabletest.layout.meshes import mesh_distance
from tabletest.layout.random_scene import PlacedObject
from tabletest.layout.sequences import SLIDE_CLEARANCE_M, motion_path
from tabletest.layout.variants import Variant

POSITION_TOLERANCE_M = 2e-5  # camera centres are recorded to 6 decimals (a world_to_camera derived from them, to 6 more)
AXES_TOLERANCE = 1e-5  # the camera's axes, element by element
PLACE_TOLERANCE_M = 2e-5  # objects stand at 5 decimals
CLEARANCE_TOLERANCE_M = 2e-4  # a slid object's positions are rounded to 0.01 mm after its stop was found

Check = Callable[[str, bool, str], None]  # (the frame checked, ok, what)


def check_sequences(check: Check, records: Mapping[str, dict], models: Mapping[str, tuple[str, str]] | None) -> int:
    """Every frame of every sequence in `records` (by id) against its scene's record; `models`: each model's file and
    sha256, for a slide's clearance (None: not measured). How many sequences were checked."""
    frames: dict[str, list[dict]] = defaultdict(list)
    for record in records.values():
        if isinstance(record.get("sequence"), dict):
            frames[str(record["sequence"].get("of"))].append(record)
    for of, members in frames.items():
        first = records.get(of)
        if first is None or not isinstance(first.get("sequence"), dict):
            for frame in members:
                check(frame["id"], False, f"a frame of {excerpt(of)}, whose record the folder does not hold (or holds without its sequence)")
            continue
        try:
            _check_sequence(check, first, members, models)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
            check(of, False, f"its sequence field is malformed: {type(err).__name__}: {excerpt(str(err))}")
    return len(frames)


def _check_sequence(check: Check, first: dict, members: list[dict], models: Mapping[str, tuple[str, str]] | None) -> None:
    motion = first["sequence"]
    count, of = motion["frames"], first["id"]
    numbers = sorted(frame["sequence"].get("frame") for frame in members)
    missing = sorted(set(range(count)) - set(numbers))
    check(of, not missing, f"its sequence of {count} frames lacks frame(s) {missing}: render it again with the same command to complete it")
    for frame in members:
        if frame is first:
            continue
        fid, number = frame["id"], frame["sequence"]["frame"]
        said = {k: v for k, v in frame["sequence"].items() if k != "frame"}
        check(fid, said == {k: v for k, v in motion.items() if k != "frame"}, f"its sequence field {excerpt(said)} is not {of}'s")
        check(fid, isinstance(number, int) and 0 < number < count, f"frame {number} of a sequence of {count} frames")
        for what in ("scene", "index"):
            check(fid, frame.get(what) == first.get(what), f"its {what} differs from {of}'s")
        check(fid, frame["render"].get("seed") == first["render"].get("seed"), f"its render seed differs from {of}'s")
        share = number / (count - 1)
        for problem in _pose_problems(motion, first, frame, share):
            check(fid, False, f"as frame {number} of {of}'s {motion['kind']}: {problem}")
        if motion["kind"] == "slide" and models is not None:
            for problem in _clearance_problems(motion["object"], frame, models):
                check(fid, False, problem)


def _pose_problems(motion: dict, first: dict, frame: dict, share: float) -> list[str]:
    """How the frame's camera and objects differ from what the motion gives `share` of the way through."""
    a, b = CameraView.from_record(first["camera"]), CameraView.from_record(frame["camera"])
    problems = []
    if not np.allclose(np.asarray(frame["camera"]["K"]), np.asarray(first["camera"]["K"])):
        problems.append("its intrinsics K differ from the first frame's")
    kind = motion["kind"]
    position, rotation = a.position, a.rotation
    if kind == "orbit":
        turn = math.radians(motion["turn_deg"] * round(share * (motion["frames"] - 1)))
        spin = np.array([[math.cos(turn), -math.sin(turn), 0.0], [math.sin(turn), math.cos(turn), 0.0], [0.0, 0.0, 1.0]])
        target = np.asarray(first["scene"]["key_light"]["target"], dtype=float)  # the look-at point, as the camera's to 6 decimals
        position, rotation = target + spin @ (a.position - target), a.rotation @ spin.T
    elif kind == "dolly":
        position = a.position + a.rotation[2] * motion["distance_m"] * share
    off = float(np.linalg.norm(b.position - position))
    if off > POSITION_TOLERANCE_M:
        problems.append(f"the camera stands {off * 1000:.2f} mm from where the motion puts it")
    if not np.allclose(b.rotation, rotation, atol=AXES_TOLERANCE):
        problems.append("the camera faces another way than the motion turns it")
    before, after = _poses(first), _poses(frame)
    if set(before) != set(after):
        problems.append(f"holds {sorted(after)}, where the first frame holds {sorted(before)}")
        return problems
    slid = motion.get("object") if kind == "slide" else None
    if slid is not None and before.get(slid, (None,))[0][:2] != tuple(motion["start_m"]):
        problems.append(f"the slide starts at {motion['start_m']}, where the first frame has the {slid} at {list(before[slid][0][:2])}")
    for name, (where, yaw, size) in after.items():
        expected = (*motion_path(motion, share), before[name][0][2]) if name == slid else before[name][0]
        if max(abs(p - q) for p, q in zip(where, expected)) > PLACE_TOLERANCE_M or (yaw, size) != before[name][1:]:
            problems.append(f"the {name} stands at {list(where)}, turned {yaw}, where the motion puts it at {list(expected)}, turned {before[name][1]}")
    return problems


def _clearance_problems(slid: str, frame: dict, models: Mapping[str, tuple[str, str]]) -> list[str]:
    """The slid object's least distance to every other object's mesh, under `SLIDE_CLEARANCE_M`."""
    placed = {label_of(o): _placed(o) for o in frame["objects"]}
    if slid not in placed or any(p.model not in models for p in placed.values()):
        return []
    shape = {name: Shape(p.size_m, *models[p.model]) for name, p in placed.items()}
    pose = {name: Pose(*p.position_m, p.yaw_deg) for name, p in placed.items()}
    problems = []
    for name in placed:
        if name != slid:
            apart = mesh_distance(shape[slid], pose[slid], shape[name], pose[name])
            if apart < SLIDE_CLEARANCE_M - CLEARANCE_TOLERANCE_M:
                problems.append(f"the slid {slid} comes {apart * 1000:.1f} mm from the {name}, nearer than the {SLIDE_CLEARANCE_M * 1000:g} mm a slide keeps")
    return problems


def _placed(obj: dict) -> PlacedObject:
    return PlacedObject(label_of(obj), tuple(obj["position_m"]), obj["yaw_deg"], tuple(obj["size_m"]), Variant.of_record(obj))


def _poses(record: dict) -> dict[str, tuple]:
    return {label_of(o): (tuple(o["position_m"]), o["yaw_deg"], tuple(o["size_m"])) for o in record["objects"]}
