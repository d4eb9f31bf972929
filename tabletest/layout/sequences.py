"""Sequences of frames of a random scene, for motion over time: the camera goes round the table (`orbit`), moves
straight towards the point it looks at (`dolly`), or one object slides along the table (`slide`), stopping short of
touching any other by the exact distance between their meshes (`meshes.slide_until`).

Frame 0 is the scene itself; frame k shows the motion k/(K-1) of the way through, so each frame moves as far as the
one before it. What moves and how far is drawn from the scene's own stream for its sequence
(`digest:seed:i:sequence:<kind>`), never from the number of frames: a sequence is a pure function of the config, the
seed, the scene and its kind, and `--frames` only says how finely it is cut. Everything else stays (the objects that
do not move, the table, the lights, the backdrop, the render seed), so a frame after the first changes a camera or one
object's place, which a worker applies without touching the rest.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from tabletest.errors import UserError, not_one_of
from tabletest.files.family import SEQUENCES, frame_id
from tabletest.layout.arrangements import Pose, Shape
from tabletest.layout.meshes import mesh_distance, slide_until
from tabletest.layout.random_config import RandomConfig
from tabletest.layout.random_scene import NEAR_M, CameraPose, Frame, PlacedObject, RandomScene, framed, left_to_right, placement_bounds

MAX_FRAMES = 99  # frames of one sequence (ids end -f1 ... -f98)
DEFAULT_FRAMES = 8
ORBIT_DEG = (20.0, 120.0)  # how far the camera goes round the look-at point from the first frame to the last, either way
DOLLY_SHARE = (0.4, 0.85)  # how far the camera moves towards the look-at point: this share of its way to the nearest box corner
SLIDE_M = (0.08, 0.3)  # how far a slide is drawn to go, before what it would touch or the placement area's edge stops it
MIN_SLIDE_M = 0.05  # a slide that something stops sooner is drawn again
SLIDE_CLEARANCE_M = 0.01  # a slide stops this far from touching another object (and starts no nearer)
SLIDE_OFF_AXIS_DEG = 20.0  # a slide goes this far at most off the viewer's left, right, towards or away
WAYS = {"right": 0.0, "away": 90.0, "left": 180.0, "towards": 270.0}  # a slide's way, degrees from the viewer's right on the table
CANDIDATES = 12  # slides drawn per scene: a scene none of whose draws fits gets no sequence

Carriers = Mapping[str, str]  # each object resting on or held by another, to that one (from the scene's relations)


def check_sequence(kind: str | None, frames: int | None) -> tuple[str | None, int]:
    """`--sequence` and `--frames` as a set takes them: the kind (None: no sequence) and the frames of each."""
    if kind is None:
        if frames is not None:
            raise UserError(f"--frames {frames} cuts a sequence into frames; add --sequence {'|'.join(SEQUENCES)}, or drop it")
        return None, 1
    if kind not in SEQUENCES:
        raise not_one_of("--sequence", kind, SEQUENCES, "orbit")
    frames = DEFAULT_FRAMES if frames is None else frames
    if frames < 2:
        raise UserError(f"--frames {frames}: a sequence has at least 2 frames (the scene is the first), e.g. --frames 8")
    if frames > MAX_FRAMES:
        raise UserError(f"--frames {frames} is more than {MAX_FRAMES} frames of one sequence; give fewer")
    return kind, frames


@dataclass(frozen=True)
class Motion:
    """What a set's sequences are made with besides each scene: its config and seed, the kind and the number of frames,
    the images' size (a slid object stays in the picture), the table top's height, and the models' meshes (a slide)."""

    config: RandomConfig
    seed: int
    kind: str
    frames: int
    resolution: tuple[int, int]
    table_top_m: float
    shapes: Mapping[str, Shape] | None = None

    def frames_of(self, scene: RandomScene, carriers: Carriers) -> list[RandomScene] | None:
        """The scene's frames, 0 (the scene, its `frame` field set) to K-1; None where the scene allows no such
        sequence (a slide with no object free to move far enough)."""
        rng = random.Random(f"{self.config.digest}:{self.seed}:{scene.index}:sequence:{self.kind}")
        drawn: tuple[dict, Callable[[int], RandomScene]] | None = getattr(self, f"_{self.kind}")(rng, scene, carriers)
        if drawn is None:
            return None
        motion, at = drawn
        made = []
        for number in range(self.frames):
            shown = scene if number == 0 else at(number)
            sid = frame_id(scene.id, number)
            field = Frame(scene.id, number, {"kind": self.kind, "frames": self.frames, **motion})
            made.append(replace(shown, id=sid, objects=left_to_right(shown.objects, shown.camera), frame=field))
        return made

    def _orbit(self, rng: random.Random, scene: RandomScene, _carriers: Carriers) -> tuple[dict, Callable[[int], RandomScene]]:
        """Round the look-at point at the camera's height and distance; `turn_deg` per frame, positive to the first
        frame's right (anticlockwise seen from above, as `truth.camera_motion` measures it)."""
        whole = rng.uniform(*ORBIT_DEG) * rng.choice((-1.0, 1.0))
        turn = round(whole / (self.frames - 1), 3)
        return {"turn_deg": turn}, lambda number: replace(scene, camera=_turned(scene.camera, turn * number))

    def _dolly(self, rng: random.Random, scene: RandomScene, _carriers: Carriers) -> tuple[dict, Callable[[int], RandomScene]]:
        """Straight towards the look-at point, `distance_m` from the first frame to the last: a share of the way to
        the nearest corner of any object's box (less `NEAR_M`), so no object comes nearer than the first frame allows."""
        pinhole = scene.camera.pinhole(self.resolution)
        nearest = float(min(pinhole.depth(o.box_corners()).min() for o in scene.objects))
        distance = round(rng.uniform(*DOLLY_SHARE) * max(0.0, nearest - NEAR_M), 4)
        steps = self.frames - 1
        return {"distance_m": distance}, lambda number: replace(scene, camera=_closer(scene.camera, distance * number / steps))

    def _slide(self, rng: random.Random, scene: RandomScene, carriers: Carriers) -> tuple[dict, Callable[[int], RandomScene]] | None:
        """One object standing free on the table (carrying nothing, held by nothing, `SLIDE_CLEARANCE_M` from every
        other) slides in a straight line, near the viewer's left, right, towards or away, until it would come within
        `SLIDE_CLEARANCE_M` of another object's mesh or leave the placement area; kept where it goes `MIN_SLIDE_M` or
        more and ends inside the picture as the scene's camera frames its objects."""
        if self.shapes is None:
            raise ValueError("a slide needs the models' meshes")
        carrying = set(carriers.values())
        free = [o for o in scene.objects if o.position_m[2] == self.table_top_m and o.name not in carriers and o.name not in carrying]
        free = [o for o in free if all(self._apart(o, other) >= SLIDE_CLEARANCE_M for other in scene.objects if other is not o)]
        if not free:
            return None
        right = scene.camera.right_axis[:2] / np.linalg.norm(scene.camera.right_axis[:2])
        away = np.array([-right[1], right[0]])
        margin = self.config.camera.frame_margin * self.resolution[0]
        for _ in range(CANDIDATES):
            slid = rng.choice(free)
            angle = math.radians(WAYS[rng.choice(list(WAYS))] + rng.uniform(-SLIDE_OFF_AXIS_DEG, SLIDE_OFF_AXIS_DEG))
            way = math.cos(angle) * right + math.sin(angle) * away
            length = min(rng.uniform(*SLIDE_M), self._inside_area(scene, slid, way))
            for other in scene.objects:
                if other is not slid:
                    meets = slide_until(self.shapes[slid.model], _pose(slid), way, self.shapes[other.model], _pose(other), length, SLIDE_CLEARANCE_M)
                    length = length if meets is None else min(length, meets)
            length = math.floor(length * 1e4) / 1e4  # rounded down: never nearer than it may come
            end = _moved(slid, way * length)
            if length < MIN_SLIDE_M or not framed(scene.camera, [end], self.resolution, margin):
                continue
            motion = {"object": slid.name, "start_m": list(slid.position_m[:2]), "end_m": list(end.position_m[:2]), "distance_m": length}
            return motion, lambda number: _sliding(scene, slid, motion_path(motion, number / (self.frames - 1)))
        return None

    def _apart(self, a: PlacedObject, b: PlacedObject) -> float:
        return mesh_distance(self.shapes[a.model], _pose(a), self.shapes[b.model], _pose(b))

    def _inside_area(self, scene: RandomScene, obj: PlacedObject, way: np.ndarray) -> float:
        """How far the object's footprint may move along `way` and stay inside the placement area."""
        half = placement_bounds(self.config, scene.table.width_m, scene.table.depth_m)
        corners = obj.footprint()
        room = math.inf
        for axis in (0, 1):
            if abs(way[axis]) > 1e-12:
                edge = half[axis] if way[axis] > 0 else -half[axis]
                room = min(room, float(np.min((edge - corners[:, axis]) / way[axis])))
        return max(0.0, room)


def motion_path(motion: Mapping, share: float) -> tuple[float, float]:
    """Where a slid object stands `share` of the way through its slide (x, y on the table), from the record's
    `sequence` field: what a frame's position is checked against."""
    (x0, y0), (x1, y1) = motion["start_m"], motion["end_m"]
    return round(x0 + (x1 - x0) * share, 5), round(y0 + (y1 - y0) * share, 5)


def _pose(obj: PlacedObject) -> Pose:
    return Pose(*obj.position_m, obj.yaw_deg)


def _moved(obj: PlacedObject, shift: np.ndarray) -> PlacedObject:
    x, y, z = obj.position_m
    return replace(obj, position_m=(round(x + float(shift[0]), 5), round(y + float(shift[1]), 5), z))


def _sliding(scene: RandomScene, slid: PlacedObject, where: tuple[float, float]) -> RandomScene:
    """The scene with the slid object standing at `where` on the table."""
    placed = replace(slid, position_m=(*where, slid.position_m[2]))
    return replace(scene, objects=tuple(placed if o is slid else o for o in scene.objects))


def _turned(camera: CameraPose, degrees: float) -> CameraPose:
    """The camera turned round the vertical through its look-at point, positive anticlockwise seen from above."""
    t = math.radians(degrees)
    dx, dy = camera.position[0] - camera.target[0], camera.position[1] - camera.target[1]
    x = camera.target[0] + dx * math.cos(t) - dy * math.sin(t)
    y = camera.target[1] + dx * math.sin(t) + dy * math.cos(t)
    azimuth = (camera.azimuth_deg + degrees + 180.0) % 360.0 - 180.0
    return replace(camera, position=(round(x, 6), round(y, 6), camera.position[2]), azimuth_deg=round(azimuth, 3))


def _closer(camera: CameraPose, metres: float) -> CameraPose:
    """The camera moved `metres` along its view towards the look-at point."""
    forward = np.subtract(camera.target, camera.position)
    forward = forward / np.linalg.norm(forward)
    position = tuple(round(float(v), 6) for v in np.add(camera.position, forward * metres))
    return replace(camera, position=position, distance_m=round(camera.distance_m - metres, 4))
