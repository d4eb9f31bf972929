"""What happened over a sequence of frames, decided from the frames' records alone (never from pixels): when each
object came into view or went out of it, which object moved on the table and which way and how far, and how the
camera went round the table or towards the objects (`camera_motion` for the turn).

An object is in view in a frame where its record does not list it `hidden` (the render measured at least the random
config's `min_visible_fraction` of it), and out of view where the render measured at most `OUT_OF_VIEW` of it (out of
the frame, or behind another object); in between it is neither, and an order that needs it is withheld. An object
came into view at frame k when it was out of view in every frame before k and is in view in frame k; it went out of
view at frame k when it was in view in every frame before k and is out of view in frame k.

A slide's way is the direction of the object's move on the table as the viewer of the first frame sees it: right,
away from the viewer, left, towards the viewer; withheld within `WAY_BAND_DEG` of a diagonal between two of them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tabletest.layout.camera import CameraView
from tabletest.layout.instances import label_of
from tabletest.truth.camera_motion import camera_motion

OUT_OF_VIEW = 0.1  # an object the render measured at most this share of is out of view (a sliver at most)
MOVED_M = 0.001  # an object whose place on the table changed more than this between the first frame and the last moved
WAY_BAND_DEG = 15.0  # a move this near a diagonal (45° between two ways) has no way
WAYS = ("right", "away", "left", "towards")  # counterclockwise from the viewer's right, seen from above


@dataclass(frozen=True)
class SequenceMotion:
    """A sequence's facts, from its frames' records in order."""

    kind: str
    frames: int
    entered: dict[str, int]  # objects out of view in the first frame: the frame each came into view in
    left: dict[str, int]  # objects in view in the first frame: the frame each went out of view in
    moved: dict[str, np.ndarray]  # objects whose place on the table changed, first frame to last: the move (x, y, metres)
    turn_deg: float  # the camera's turn round the table, first frame to last, positive to the first frame's right
    travel_m: float  # how far the camera's centre moved, first frame to last
    ground: tuple[np.ndarray, np.ndarray]  # the first frame's viewer's right and away, on the table (unit x, y)

    def way(self, name: str) -> str | None:
        """Which way the object moved as the first frame's viewer sees it; None near a diagonal, or where it did not move."""
        move = self.moved.get(name)
        if move is None:
            return None
        right, away = self.ground
        angle = math.degrees(math.atan2(float(move @ away), float(move @ right))) % 360.0
        nearest = round(angle / 90.0) % 4
        off = abs((angle - 90.0 * nearest + 180.0) % 360.0 - 180.0)
        return WAYS[nearest] if off <= 45.0 - WAY_BAND_DEG else None

    def distance_m(self, name: str) -> float:
        """How far the object moved on the table, first frame to last."""
        return float(np.linalg.norm(self.moved.get(name, np.zeros(2))))


def sequence_motion(frames: Sequence[dict]) -> SequenceMotion:
    """The facts of a sequence whose records are `frames`, frame 0 first."""
    first, last = frames[0], frames[-1]
    seen = [_views(frame) for frame in frames]
    names = list(seen[0])
    entered = {n: k for n in names if seen[0][n] is False and (k := _first(seen, n, True, False)) is not None}
    left = {n: k for n in names if seen[0][n] is True and (k := _first(seen, n, False, True)) is not None}
    before, after = _places(first), _places(last)
    moved = {n: after[n] - before[n] for n in before if n in after and np.linalg.norm(after[n] - before[n]) > MOVED_M}
    a, b = CameraView.from_record(first["camera"]), CameraView.from_record(last["camera"])
    right = a.rotation[0, :2] / np.linalg.norm(a.rotation[0, :2])
    turn = camera_motion(first["camera"], last["camera"]).turn_deg
    return SequenceMotion(
        first["sequence"]["kind"], len(frames), entered, left, moved, turn, float(np.linalg.norm(b.position - a.position)),
        (right, np.array([-right[1], right[0]])),
    )


def _views(record: dict) -> dict[str, bool | None]:
    """Each object of a frame: in view (True), out of view (False), or neither (None)."""
    hidden = set(record["relations"].get("hidden") or ())
    return {
        label_of(o): True if label_of(o) not in hidden else False if o["visible_fraction"] <= OUT_OF_VIEW else None
        for o in record["objects"]
    }


def _first(seen: list[dict[str, bool | None]], name: str, now: bool, before: bool) -> int | None:
    """The first frame where the object's view is `now`, every frame before it `before`; None where none is, or a frame
    before it is neither."""
    for k, views in enumerate(seen):
        view = views.get(name)
        if view is now:
            return k
        if view is not before:
            return None
    return None


def _places(record: dict) -> dict[str, np.ndarray]:
    return {label_of(o): np.asarray(o["position_m"][:2], dtype=float) for o in record["objects"]}
