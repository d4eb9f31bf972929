"""Scene records built from geometry for the question-hierarchy tests, in the random-scene record shape
(docs/reference/records.md: camera K / world_to_camera / resolution, per object box3d and
visible_fraction), and an independent reckoning of every relation straight from those numbers."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import yaml

TABLE_TOP = 0.75
CATALOG_FILE = Path(__file__).resolve().parents[1] / "configs" / "objects.yaml"
# where each kind's front points in its model's frame, from −Y anticlockwise (read from the catalog file itself)
FRONT_DEG = {o["name"]: float(o.get("front_deg", 0.0)) for o in yaml.safe_load(CATALOG_FILE.read_text())["objects"] if o.get("has_front")}
NAMES = ("teddy bear", "mug", "laptop", "banana", "lamp", "alarm clock", "apple", "fan", "strawberry", "vase")


def look_at_camera(position, target, width=512, height=384, focal_mm=50.0, sensor_mm=36.0) -> dict:
    position = np.asarray(position, float)
    forward = np.subtract(target, position)
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    rotation = np.stack([right, down, forward])
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rotation, -rotation @ position
    f = focal_mm / sensor_mm * max(width, height)
    return {
        "K": [[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]],
        "world_to_camera": m.tolist(),
        "resolution": [width, height],
    }


def obj(name: str, x: float, y: float, size, yaw: float = 0.0, visible: float | None = 1.0) -> dict:
    record = {
        "name": name,
        "box3d": {"center_m": [x, y, TABLE_TOP + size[2] / 2], "size_m": list(size), "yaw_deg": yaw},
    }
    if visible is not None:
        record["visible_fraction"] = visible
    return record


def scene(scene_id: str, objects: list[dict], camera: dict | None = None) -> dict:
    return {
        "id": scene_id,
        "index": 0,
        "file_name": f"images/{scene_id}.png",
        "camera": camera or look_at_camera((0.0, -2.2, 1.65), (0.0, 0.0, 0.87)),
        "objects": objects,
        "relations": {},
    }


def random_scene(seed: int, n: int) -> dict:
    """n objects scattered on the table, turned at random, some partly hidden, from a camera a little off-axis."""
    rng = random.Random(seed)
    objects = []
    for name in rng.sample(NAMES, n):
        s = rng.uniform(0.06, 0.4)
        size = (s * rng.uniform(0.5, 1.0), s * rng.uniform(0.4, 1.0), s * rng.uniform(0.5, 1.2))
        visible = rng.choice([1.0, 1.0, 0.5, 0.7, 0.95, None])
        objects.append(
            obj(name, rng.uniform(-0.6, 0.6), rng.uniform(-0.35, 0.35), size, rng.uniform(-180, 180), visible)
        )
    camera = look_at_camera((rng.uniform(-0.5, 0.5), -2.0, 1.5), (0.0, 0.0, 0.8))
    return scene(f"rnd{seed}-{seed:07d}", objects, camera)


def box_corners(center, size, yaw: float) -> list[np.ndarray]:
    """The eight corners of a box turned by `yaw` (radians) about the vertical."""
    rot = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
    return [np.asarray(center) + rot @ (np.array([sx, sy, sz]) * np.asarray(size) / 2) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]


class Reckoner:
    """Every relation of one record, computed directly from its numbers (not through tabletest's code)."""

    def __init__(self, record: dict):
        self.record = record
        if all(isinstance(o, str) for o in record["objects"]):
            self.order = list(record["objects"])
            self.boxes = None
            return
        self.order = None
        self.boxes = {}
        self.turns = {}
        for o in record["objects"]:
            if "box3d" in o:
                b = o["box3d"]
                center, size, yaw = np.array(b["center_m"]), b["size_m"], b["yaw_deg"]
            else:
                x, y, z = o["position_m"]
                size, yaw = o["size_m"], o.get("yaw_deg", 0.0)
                center = np.array([x, y, z + size[2] / 2])
            self.boxes[o["name"]] = (center, size, math.radians(yaw), o.get("visible_fraction"))
            # the model's own turn (a box along a diagonal footprint is turned further), and the kind's front on it
            self.turns[o["name"]] = math.radians(o.get("yaw_deg", yaw) + FRONT_DEG.get(o["name"], 0.0))
        if "camera" in record:
            m = np.array(record["camera"]["world_to_camera"])
            self.K = np.array(record["camera"]["K"])
            self.width = record["camera"]["resolution"][0]
        else:  # the benchmark camera of configs/default.yaml
            width, height = record["render"]["resolution"]
            cam = look_at_camera((0.0, -2.2, TABLE_TOP + 0.9), (0.0, 0.0, TABLE_TOP + 0.12), width, height)
            m, self.K, self.width = np.array(cam["world_to_camera"]), np.array(cam["K"]), width
        self.R, self.t = m[:3, :3], m[:3, 3]
        self.eye = -self.R.T @ self.t
        relations = record.get("relations", {})
        self.stored = (
            {k: [tuple(p) for p in relations[k]] for k in ("left_of", "in_front_of")}
            if "in_front_of" in relations
            else None
        )

    def cam(self, name: str) -> np.ndarray:
        return self.R @ self.boxes[name][0] + self.t

    def u(self, p_world: np.ndarray) -> np.ndarray:
        c = self.R @ p_world + self.t
        h = self.K @ c
        return h[:2] / h[2]

    def left_of(self, a: str, b: str) -> bool:
        if self.order is not None:
            return self.order.index(a) < self.order.index(b)
        if self.stored is not None:  # a random record's own relations are its truth
            return (a, b) in self.stored["left_of"]
        return self.cam(a)[0] < self.cam(b)[0] and self.u(self.boxes[a][0])[0] < self.u(self.boxes[b][0])[0]

    def between(self, m: str, a: str, b: str) -> bool:
        """Between a and b as the viewer sees them, and within a quarter of |ab| of the line joining them."""
        if not (self.left_of(a, m) and self.left_of(m, b)) and not (self.left_of(b, m) and self.left_of(m, a)):
            return False
        if self.order is not None:
            return True
        pa, pb, pm = (self.boxes[n][0][:2] for n in (a, b, m))
        ab, am = pb - pa, pm - pa
        cross = ab[0] * am[1] - ab[1] * am[0]  # np.cross of 2-vectors is an error in NumPy 2
        return abs(cross) / np.linalg.norm(ab) <= 0.25 * np.linalg.norm(ab)

    def in_front_of(self, a: str, b: str) -> bool:
        if self.stored is not None:
            return (a, b) in self.stored["in_front_of"]
        fwd = self.R[2, :2] / np.linalg.norm(self.R[2, :2])
        return self.boxes[a][0][:2] @ fwd < self.boxes[b][0][:2] @ fwd

    def view_distance(self, a: str) -> float:
        return float(np.linalg.norm(self.boxes[a][0] - self.eye))

    def ground_distance(self, a: str, b: str) -> float:
        return float(np.linalg.norm(self.boxes[a][0][:2] - self.boxes[b][0][:2]))

    def front(self, of: str) -> np.ndarray:
        """Its front on the table: −Y turned by its kind's front and its own yaw."""
        turn = self.turns[of]
        return np.array([math.sin(turn), -math.cos(turn)])

    def own_angle(self, of: str, other: str) -> float:
        """Degrees from `of`'s front to `other`, positive towards its own left."""
        turn = self.turns[of]
        left = np.array([math.cos(turn), math.sin(turn)])
        v = self.boxes[other][0][:2] - self.boxes[of][0][:2]
        return math.degrees(math.atan2(v @ left, v @ self.front(of)))

    def fronts_apart(self, a: str, b: str) -> float:
        """Degrees between two objects' fronts, 0 to 180."""
        return math.degrees(math.acos(float(np.clip(self.front(a) @ self.front(b), -1.0, 1.0))))

    def seen_facing(self, of: str) -> float:
        """Which way `of` faces as the viewer sees it: degrees clockwise seen from above from straight away from
        the viewer along the line of sight to it (90: to the viewer's right)."""
        away = self.boxes[of][0][:2] - self.eye[:2]
        front = self.front(of)
        cross = away[0] * front[1] - away[1] * front[0]  # anticlockwise from away is positive
        return math.degrees(math.atan2(-cross, away @ front)) % 360

    def person_across(self, side: str, name: str) -> float:
        """Metres from the line of a person at `side` of the table to the object, positive towards their left hand:
        near (facing the way the camera looks) and far (facing back) on the camera's line of sight on the table; left
        and right (the viewer's, facing across) on the line square to it halfway between the nearest and the farthest
        box corner of the objects the render saw (the hidden left out)."""
        forward, right = (self.R[i, :2] / np.linalg.norm(self.R[i, :2]) for i in (2, 0))
        left_hand = {"near": -right, "far": right, "left": forward, "right": -forward}[side]
        hidden = set(self.record.get("relations", {}).get("hidden", ()))
        seen = [o["box3d"] for o in self.record["objects"] if o.get("instance", o["name"]) not in hidden]
        depths = [c[:2] @ forward for b in seen for c in box_corners(b["center_m"], b["size_m"], math.radians(b["yaw_deg"]))]
        through = self.eye[:2] if side in ("near", "far") else forward * (min(depths) + max(depths)) / 2
        return float((self.boxes[name][0][:2] - through) @ left_hand)

    def facing_angle(self, at: str, facing: str, other: str) -> float:
        """Degrees from the way from `at` to `facing` to the way from `at` to `other`, positive to the left."""
        ahead, v = (self.boxes[n][0][:2] - self.boxes[at][0][:2] for n in (facing, other))
        return math.degrees(math.atan2(ahead[0] * v[1] - ahead[1] * v[0], ahead @ v))

    def extent(self, a: str) -> float:
        """Its largest extent: what "bigger" compares (as the record's `bigger` does)."""
        return float(max(self.boxes[a][1]))

    def height(self, a: str) -> float:
        return self.boxes[a][1][2]

    def image_box(self, a: str) -> tuple[float, float, float, float]:
        center, size, yaw, _ = self.boxes[a]
        uv = np.array([self.u(c) for c in box_corners(center, size, yaw)])
        return (*uv.min(axis=0), *uv.max(axis=0))

    def looks(self, a: str, measure: str) -> float:
        x0, y0, x1, y1 = self.image_box(a)
        return (x1 - x0) * (y1 - y0) if measure == "bigger" else y1 - y0

    def visible(self, a: str) -> float | None:
        return self.boxes[a][3]

    def names(self) -> list[str]:
        return self.order if self.order is not None else [o["name"] for o in self.record["objects"]]

    def others(self, x: str) -> list[str]:
        return [n for n in self.names() if n != x]


CARRIERS = {"book": ("on", 0.25), "laptop": ("on", 0.33), "bowl": ("inside", 0.18), "mug": ("inside", 0.12)}  # how, largest extent
SMALL = {"apple": 0.08, "egg": 0.06, "lemon": 0.08, "strawberry": 0.04, "tomato": 0.07, "orange": 0.08}
OFF_PLANE = ("on", "inside", "above", "touching", "next_to")


def stacked_scene(seed: int) -> dict:
    """Two carriers and three small things, each small thing on or in a carrier or on the table by a seeded
    draw: a random record with its relations off the table plane (and none in the viewer's frame)."""
    rng = random.Random(seed)
    carriers, small = rng.sample(sorted(CARRIERS), 2), rng.sample(sorted(SMALL), 3)
    objects, relations = [], {key: [] for key in ("left_of", "in_front_of", *OFF_PLANE)}
    for i, name in enumerate(carriers):
        s = CARRIERS[name][1]
        objects.append(obj(name, -0.3 + 0.6 * i, 0.0, (s, s * 0.7, s * 0.4)))
    for i, name in enumerate(small):
        s, where = SMALL[name], rng.choice([None, *carriers])
        record = obj(name, -0.2 + 0.2 * i, 0.3, (s, s, s))
        if where is not None:
            key = CARRIERS[where][0]
            relations[key].append([name, where])
            relations["touching"] += [[name, where], [where, name]]
            record["box3d"]["center_m"] = [*objects[carriers.index(where)]["box3d"]["center_m"][:2], TABLE_TOP + 0.1]
        objects.append(record)
    made = scene(f"rnd{seed}-{seed:07d}", objects)
    made["relations"] = relations
    return made
