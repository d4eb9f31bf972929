"""Questions that match what two views of one scene show, from the two records: where the second camera stands
beside the first (to its left, to its right, across the table) and whether behind or in front of a named object
as the first photo sees it, which objects one photo shows and the other hides or leaves out of frame, and how
many distinct objects the two show together; and of a scene's photo with all its other views, which of the others
was taken from behind (in front of) a named object.

Where the second camera stands is read from the records' world-to-camera poses (`camera_motion`'s turn round the
table; the camera's position against an object's `box3d` centre); what a photo shows, from each object's
`visible_fraction` (the part outside the frame counts as unseen). Each is withheld near its boundaries: a turn
between the sides' bands, a camera off to an object's side, an object neither clearly seen nor gone.
"""

from __future__ import annotations

import math
import random

import numpy as np

from tabletest.layout.camera import CameraView
from tabletest.layout.instances import SEPARATOR, label_of
from tabletest.prompts.hierarchy.balance import balanced
from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker, Phrasings
from tabletest.truth.camera_motion import camera_motion
from tabletest.truth.nouns import Nouns

SIDE_TURN_DEG = (20.0, 140.0)  # a turn round the table in this band puts the camera to the first one's left or right ...
OPPOSITE_FROM_DEG = 160.0  # ... and from here across the table; a turn between the bands is withheld
SIDES = ("left", "right", "opposite")
SEEN = 0.5  # an object at least this visible is seen in a photo ...
GONE = 0.05  # ... and at most this visible, hidden or out of frame; in between, neither is said
PHOTOS = (("first", "second"), ("second", "first"))
BEYOND_DEG = 45.0  # the second camera behind an object: within this of straight on beyond it, along the first's view ...
BEYOND_M = 0.3  # ... and at least this far from it on the table's plane (in front: within it of straight back)
CLEAR_DEG = 15.0  # of several photos, the others clearly not from that side: this much further off than the band
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
SIDE_WORDS = {"behind": "behind", "in front": "in front of"}


def correspondence_questions(ask: Asker, scene: dict, view: dict) -> None:
    """The correspondence questions of a scene's photo (the first) and another view of it (the second)."""
    _camera_side(ask, camera_motion(scene["camera"], view["camera"]).turn_deg)
    _taken_from(ask, scene, view)
    shown = {"first": visible(scene), "second": visible(view)}
    if shown["first"] is None or shown["second"] is None:
        return  # a record without visible fractions says nothing of what its photo shows
    _hidden_in_other(ask, shown, view["id"])
    _count_together(ask, shown)


def camera_side(turn_deg: float) -> str | None:
    """Where a camera stands that went `turn_deg` round the table (positive: to the right) from another, facing the
    table as that one does; None near a boundary, or for a turn too small to say."""
    size = abs(turn_deg)
    if size >= OPPOSITE_FROM_DEG:
        return "opposite"
    if SIDE_TURN_DEG[0] <= size <= SIDE_TURN_DEG[1]:
        return "right" if turn_deg > 0 else "left"
    return None


def _camera_side(ask: Asker, turn_deg: float) -> None:
    """Where the second camera stands relative to the first, and the first relative to the second (the turn
    reversed), so each pair of views answers left once and right once."""
    for (start, end), turn in zip(PHOTOS, (turn_deg, -turn_deg)):
        side = camera_side(turn)
        if side is None:
            return
        ask.ask(
            f"camera-side-{start}-{end}", Wording("camera-side", {"a": start, "b": end}), skill="camera position", level="multi",
            frame="viewer", relation="camera_side", answer_type="choice", options=list(SIDES), answer=side, objects=[],
            facts=[["camera", "turned", f"{turn:+.3f} deg"]], pair="camera-side-first-second",
        )  # fmt: skip


def off_beyond(first: dict, second: dict, center_m: list[float]) -> float | None:
    """How many degrees the second camera stands off straight beyond an object along the first camera's view, on
    the table's plane (0: straight behind it, 180: straight in front); None within `BEYOND_M` of it."""
    forward = CameraView.from_record(first).rotation[2][:2]
    away = CameraView.from_record(second).position[:2] - np.asarray(center_m[:2])
    if np.linalg.norm(away) < BEYOND_M:
        return None
    return math.degrees(math.acos(float(np.clip(forward @ away / np.linalg.norm(forward) / np.linalg.norm(away), -1, 1))))


def taken_from(first: dict, second: dict, center_m: list[float]) -> str | None:
    """Whether the second camera stands behind an object (beyond it, along the first camera's view across the
    table) or in front of it, on the table's plane; None where it stands off to a side of it, or near it."""
    off = off_beyond(first, second, center_m)
    if off is None:
        return None
    return "behind" if off <= BEYOND_DEG else "in front" if off >= 180 - BEYOND_DEG else None


def _taken_from(ask: Asker, scene: dict, view: dict) -> None:
    """Of each object both photos show (a kind the scene holds once), whether the second photo was taken from
    behind it or in front of it as the first photo sees it (a pair of views mostly answers one way: the set's
    balancing evens the two out)."""
    hidden = {*scene["relations"].get("hidden", []), *view["relations"].get("hidden", [])}
    items = [
        (label, side)
        for label, obj in ((label_of(o), o) for o in scene["objects"])
        if SEPARATOR not in label and label not in hidden and "box3d" in obj
        and (side := taken_from(scene["camera"], view["camera"], obj["box3d"]["center_m"])) is not None
    ]
    for label, side in items:
        ask.ask(
            f"taken-from-{label}", Wording("taken-from", {"x": label}), skill="camera position", level="multi", frame="viewer",
            relation="camera_beyond", answer_type="choice", options=["behind", "in front"], answer=side, objects=[label],
            facts=[["second camera", side, label, "first"]],
        )  # fmt: skip


def visible(record: dict) -> dict[str, float] | None:
    """Each object's visible fraction in a record's photo, by label; None where the record has none."""
    fractions = {label_of(o): o.get("visible_fraction") for o in record["objects"]}
    return None if None in fractions.values() else fractions


def seen(fraction: float) -> bool | None:
    """Whether a photo shows an object this visible: True, False (hidden or out of frame), or None (neither clearly)."""
    return True if fraction >= SEEN else False if fraction <= GONE else None


def _hidden_in_other(ask: Asker, shown: dict[str, dict[str, float]], view_id: str) -> None:
    """Of an object one photo shows, whether the other hides it or leaves it out of frame, as many yes as no
    (objects of a kind the scene holds several of are not named)."""
    items = [
        (start, end, label, not seen(shown[end][label]))
        for start, end in PHOTOS
        for label, fraction in shown[start].items()
        if SEPARATOR not in label and seen(fraction) and seen(shown[end][label]) is not None
    ]
    for start, end, label, hidden in balanced(items, f"{view_id}:hidden-in-other"):
        ask.ask(
            f"hidden-in-other-{label}-{end}", Wording("hidden-in-other", {"x": label, "a": start, "b": end}), skill="correspondence",
            level="multi", frame=None, relation="visible", answer_type="yes/no", answer=hidden, objects=[label],
            facts=[[label, "visible_fraction", start, str(shown[start][label])], [label, "visible_fraction", end, str(shown[end][label])]],
        )  # fmt: skip


def _count_together(ask: Asker, shown: dict[str, dict[str, float]]) -> None:
    """How many distinct objects the two photos show together (one seen in both counted once); withheld where an
    object is neither clearly seen nor gone in either photo."""
    either = [max(shown["first"][label], shown["second"][label]) for label in shown["first"]]
    if any(seen(fraction) is None for fraction in either):
        return
    ask.ask(
        "count-together", Wording("count-together"), skill="correspondence", level="multi", frame=None, relation="count",
        answer_type="number", answer=sum(map(seen, either)), objects=[],
        facts=[[label, "seen in either photo", str(bool(seen(f)))] for label, f in zip(shown["first"], either)],
    )  # fmt: skip


def taken_from_which(photos: list[dict], nouns: Nouns = Nouns(), seed: int = 0, phrasings: Phrasings = "one") -> list[dict]:
    """Of a scene's photo (the first) and all its other views: which of the others was taken from behind an object
    (in front of it) as the first photo sees it, where exactly one was and each other clearly was not; none unless
    every photo was rendered, and at least two others (the first is the frame, never an answer). The others are
    shown in an order drawn from the seed and the scene: in view order, a ring of views would put the photo
    across the table at one place in every scene."""
    if not 3 <= len(photos) <= len(ORDINALS) or any("file_name" not in p for p in photos):
        return []
    first, others = photos[0], random.Random(f"{seed}:{photos[0]['id']}:photos").sample(photos[1:], len(photos) - 1)
    hidden = {label for p in photos for label in p["relations"].get("hidden", [])}
    names = list(dict.fromkeys(o["name"] for o in first["objects"]))
    ask = Asker(photos[-1]["id"], "images", names, images=[p["file_name"] for p in (first, *others)], nouns=nouns, seed=seed, phrasings=phrasings)
    options = list(ORDINALS[1 : len(photos)])
    for obj in first["objects"]:
        label = label_of(obj)
        if SEPARATOR in label or label in hidden or "box3d" not in obj:
            continue
        offs = [off_beyond(first["camera"], p["camera"], obj["box3d"]["center_m"]) for p in others]
        if None in offs:
            continue
        for side, words in SIDE_WORDS.items():
            verdicts = [from_side(off, side) for off in offs]
            if verdicts.count(True) != 1 or verdicts.count(False) != len(verdicts) - 1:
                continue
            ask.ask(
                f"taken-from-which-{side}-{label}", Wording("taken-from-which", {"x": label, "side": words, "n": str(len(photos))}),
                skill="camera position", level="multi", frame="viewer", relation="camera_beyond", answer_type="choice",
                options=options, answer=options[verdicts.index(True)], objects=[label],
                facts=[[label, f"{option} photo ({p['id']})", f"{off:.3f} deg off straight behind", "first"] for option, p, off in zip(options, others, offs)],
            )  # fmt: skip
    return [{**question, "scene_of": first["id"]} for question in ask.made]


def from_side(off: float, side: str) -> bool | None:
    """Whether a camera `off` degrees from straight behind an object stands on `side` of it (within `BEYOND_DEG` of
    straight on), clearly not (`CLEAR_DEG` beyond that), or neither."""
    near = off if side == "behind" else 180 - off
    return True if near <= BEYOND_DEG else False if near >= BEYOND_DEG + CLEAR_DEG else None
