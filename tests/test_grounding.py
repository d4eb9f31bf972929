"""Questions answered with a place in the image, room on the table, maps and marks: every gold recomputed
independently (the free region by casting each pixel's ray onto the table, room by clipping footprints, a point
by the mask's own pixels), the judge reading every family's syntax in every coordinate convention with a hedge
scoring as its worst value, the balance report and its text-only reader on every template, `tabletest verify`
on what they rest on, and the exports' --coordinates, --marks and --map-first."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import run_cli
from hierarchy_scenes import TABLE_TOP, box_corners, random_scene
from matplotlib.path import Path as Outline
from PIL import Image, ImageDraw, ImageFont
from scipy.spatial import ConvexHull

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog
from tabletest.files.rle import covers, decode_counts, encode, run_lengths
from tabletest.prompts.hierarchy.balance_report import AnswerTally, report
from tabletest.prompts.hierarchy.generate import Located, scene_questions
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.rewards import accuracy_reward, format_reward
from tabletest.score.answer import judge_answer, judged_fields
from tabletest.score.lexicon import load_lexicon
from tabletest.score.locations import read_boxes, read_cells, read_points
from tabletest.score.quantities import read_numbers
from tabletest.truth.locations import from_pixels

from tabletest.truth.scene_facts import DEPTH_M  # the records' front/behind margin

CATALOG = load_catalog()
LEXICON = load_lexicon(CATALOG)
TABLE = {"width_m": 1.6, "depth_m": 0.9}
NEW = ("point-object", "box-object", "point-free", "fit-yes/no", "map-cell", "mark-which", "mark-position-yes/no")


def tabled(record: dict) -> dict:
    """A synthetic record with the table it stands on named, as a random render's record names it."""
    return {**record, "scene": {"table": {"surface": "oak", "kind": "wood", "color": [0.3, 0.2, 0.1], **TABLE}}}


def painted_mask(record: dict) -> np.ndarray:
    """An object mask for a synthetic record: each object's projected 3D box filled with 1 + its position, the
    farthest first (a painter's view of the boxes, not the judge's code)."""
    camera = record["camera"]
    width, height = camera["resolution"]
    K, pose = np.array(camera["K"]), np.array(camera["world_to_camera"])
    xs, ys = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    pixels = np.column_stack([xs.ravel(), ys.ravel()])
    mask = np.zeros((height, width), dtype=np.uint8)
    order = []
    for position, o in enumerate(record["objects"]):
        b = o["box3d"]
        corners = np.array(box_corners(b["center_m"], b["size_m"], math.radians(b["yaw_deg"])))
        cam = corners @ pose[:3, :3].T + pose[:3, 3]
        uv = (cam @ K.T)[:, :2] / (cam @ K.T)[:, 2:]
        order.append((-float(cam[:, 2].mean()), position, uv))
    for _, position, uv in sorted(order):
        hull = uv[ConvexHull(uv).vertices]
        mask.ravel()[Outline(hull).contains_points(pixels)] = position + 1
    return mask


def synthetic(seed: int, n: int) -> dict:
    record = tabled(random_scene(seed, n))
    for o in record["objects"]:
        o["visible_fraction"] = 1.0  # the painted mask is all there is to see
    return record


@pytest.fixture(scope="module")
def asked() -> list[tuple[dict, np.ndarray, dict]]:
    """Questions of synthetic scenes on a named table, with painted masks and numbered marks."""
    made = []
    for seed in range(40):
        record = synthetic(seed, 3 + seed % 4)
        mask = painted_mask(record)
        for q in scene_questions(record, CATALOG, seed=0, located=Located("pixels", mask, "numbers")):
            made.append((record, mask, q))
    return made


# --- the judge ---------------------------------------------------------------------------------------------------


def test_rle_reads_back_what_it_writes_pixel_for_pixel():
    rng = np.random.default_rng(0)
    for shape in ((1, 1), (5, 7), (48, 64)):
        for fill in (0.0, 0.3, 1.0):
            mask = rng.random(shape) < fill
            rle = encode(mask)
            assert decode_counts(rle["counts"]) == run_lengths(mask)
            read = np.array([[covers(rle, x, y) for x in range(shape[1])] for y in range(shape[0])])
            assert (read == mask).all()
            assert not covers(rle, -1, 0) and not covers(rle, shape[1], 0)


@pytest.mark.parametrize(
    ("answer", "points"),
    [
        ("(412, 305)", [(412, 305)]),
        ("The mug is at [41.5, 30.25].", [(41.5, 30.25)]),
        ('[{"point_2d": [12, 7], "label": "mug"}]', [(12, 7)]),
        ('<point x="40.2" y="39.7" alt="mug">mug</point>', [(40.2, 39.7)]),
        ('<points x1="1" y1="2" x2="3.5" y2="4" alt="cups">cups</points>', [(1, 2), (3.5, 4)]),
        ("(1, 2) or (3, 4)", [(1, 2), (3, 4)]),
        ("<think>(9, 9) looks wrong</think> (1, 2)", [(9, 9), (1, 2)]),  # the judge reads the answer part only
        ("[1, 2, 3, 4]", []),  # a box is no point
        ("about 40 and 50", []),
    ],
)
def test_points_are_read_in_each_familys_syntax(answer, points):
    assert read_points(answer) == points


@pytest.mark.parametrize(
    ("answer", "boxes"),
    [
        ("[1, 2, 30, 40]", [(1, 2, 30, 40)]),
        ('{"bbox_2d": [10, 20, 110, 220], "label": "mug"}', [(10, 20, 110, 220)]),
        ("<|object_ref_start|>the mug<|object_ref_end|><|box_start|>(102,305),(487,612)<|box_end|>", [(102, 305, 487, 612)]),
        ("<box>[[0.1, 0.2, 0.3, 0.4]]</box>", [(0.1, 0.2, 0.3, 0.4)]),
        ("[1, 2, 3, 4] and [5, 6, 7, 8]", [(1, 2, 3, 4), (5, 6, 7, 8)]),
        ("(1, 2)", []),
    ],
)
def test_boxes_are_read_in_each_familys_syntax(answer, boxes):
    assert read_boxes(answer) == boxes


@pytest.mark.parametrize(
    ("answer", "cells"),
    [
        ("Bottom left.", ["bottom left"]),
        ("It is in the upper-right cell.", ["top right"]),
        ("The centre.", ["centre"]),
        ("middle left", ["middle left"]),
        ("row 3, column 2", ["bottom middle"]),
        ("top left or bottom right", ["top left", "bottom right"]),
        ("not the top left: the bottom left", ["bottom left"]),
        ("on the left", []),
    ],
)
def test_cells_are_read_in_words_and_by_row_and_column(answer, cells):
    assert read_cells(answer) == cells


def located_question(kind: str, coordinates: str) -> dict:
    """A 100x80 image whose object is an L of pixels; the gold point deep in it, the gold box its extent."""
    mask = np.zeros((80, 100), dtype=bool)
    mask[20:60, 30:40] = True
    mask[50:60, 30:70] = True
    answer = [35.5, 30.5] if kind == "point" else [30, 20, 70, 60]
    return {
        "qid": f"s-img-{kind}", "scene_id": "s", "skill": "grounding", "level": "single", "frame": "viewer",
        "answer_type": kind, "answer": answer, "scene_objects": ["mug"], "objects": ["mug"],
        "coordinates": coordinates, "image_size": [100, 80], **({"mask": encode(mask)} if kind == "point" else {}),
    }  # fmt: skip


def said(question: dict, *pixels: tuple[float, ...]) -> str:
    """Points (boxes) in pixels, written in the question's coordinates."""
    shown = [from_pixels(p, question["coordinates"], question["image_size"]) for p in pixels]
    return " or ".join("(" + ", ".join(f"{v:g}" for v in p) + ")" if len(p) == 2 else "[" + ", ".join(f"{v:g}" for v in p) + "]" for p in shown)


@pytest.mark.parametrize("coordinates", ["pixels", "0-1000", "0-1", "percent"])
def test_a_point_is_judged_by_the_objects_visible_pixels_in_each_convention(coordinates):
    q = located_question("point", coordinates)
    for point, right in (((35, 25), True), ((65, 55), True), ((50, 30), False), ((36.0, 19.99), False), ((-1, 30), False)):
        assert judge_answer(q, said(q, point), LEXICON).correct == right, (point, coordinates)
    assert judge_answer(q, gold_text(q), LEXICON).correct
    hedge = judge_answer(q, said(q, (35, 25), (50, 30)), LEXICON)  # one on the object, one off: the worst decides
    assert not hedge.correct and hedge.hedged
    truth = json.dumps(judged_fields(q))
    both_on = said(q, (35, 25), (65, 55))
    assert accuracy_reward([gold_text(q), said(q, (50, 30)), both_on], [truth] * 3) == [1.0, 0.0, 1.0]
    assert format_reward([gold_text(q), both_on], [truth] * 2) == [1.0, 0.0]  # two points, both right: no single answer


@pytest.mark.parametrize("coordinates", ["pixels", "0-1000", "0-1", "percent"])
def test_a_box_is_right_from_an_iou_of_one_half(coordinates):
    q = located_question("box", coordinates)  # 40 x 40
    half = [30, 20, 70, 40]  # half the gold's area, inside it: IoU 0.5
    less = [30, 20, 70, 39.6]
    assert judge_answer(q, said(q, tuple(half)), LEXICON).correct
    assert not judge_answer(q, said(q, tuple(less)), LEXICON).correct
    assert judge_answer(q, said(q, (70, 60, 30, 20)), LEXICON).correct  # corners the other way round
    assert not judge_answer(q, said(q, (30, 20, 70, 60), (0, 0, 10, 10)), LEXICON).correct


# --- golds recomputed ----------------------------------------------------------------------------------------------


class Ray:
    """Each pixel's ray cast onto the table plane, independently of the judge's homography."""

    def __init__(self, record: dict):
        camera = record["camera"]
        self.K, pose = np.array(camera["K"]), np.array(camera["world_to_camera"])
        self.R, self.t = pose[:3, :3], pose[:3, 3]
        self.eye = -self.R.T @ self.t
        self.width = camera["resolution"][0]
        self.top = min(o["box3d"]["center_m"][2] - o["box3d"]["size_m"][2] / 2 for o in record["objects"])

    def table_point(self, u: float, v: float) -> np.ndarray | None:
        direction = self.R.T @ np.linalg.inv(self.K) @ [u, v, 1.0]
        if direction[2] >= 0:
            return None
        return self.eye + direction * (self.top - self.eye[2]) / direction[2]

    def pixel(self, world) -> np.ndarray:
        cam = self.K @ (self.R @ world + self.t)
        return cam[:2] / cam[2]


CAST: dict[str, tuple[Ray, list[Outline]]] = {}


def cast(record: dict) -> tuple[Ray, list[Outline]]:
    """The record's rays and each object's projected box (the hull of its corners' pixels), made once."""
    if record["id"] not in CAST:
        ray = Ray(record)
        outlines = []
        for o in record["objects"]:
            b = o["box3d"]
            hull = np.array([ray.pixel(c) for c in box_corners(b["center_m"], b["size_m"], math.radians(b["yaw_deg"]))])
            outlines.append(Outline(hull[ConvexHull(hull).vertices]))
        CAST[record["id"]] = ray, outlines
    return CAST[record["id"]]


def free_by_ray(record: dict, q: dict, u: float, v: float) -> bool:
    """Whether pixel (u, v) is a free spot just `relation` of the object: its ray meets the table top, no object's
    projected box covers it, and its point on the table stands beyond 4 cm (and 4 px at 512 wide) that way, within
    35 cm more and short of every footprint corner of the object named towards, and within 15 cm of the object
    across."""
    ray, outlines = cast(record)
    point = ray.table_point(u, v)
    if point is None or abs(point[0]) > TABLE["width_m"] / 2 or abs(point[1]) > TABLE["depth_m"] / 2:
        return False
    if any(outline.contains_point((u, v), radius=1e-9) for outline in outlines):
        return False
    of, towards = (next(o["box3d"] for o in record["objects"] if o["name"] == name) for name in q["objects"])
    way, other = side_offsets(ray, record, np.array(of["center_m"]), q["relation"], point)
    corners = box_corners(towards["center_m"], towards["size_m"], math.radians(towards["yaw_deg"]))
    short_of = min(side_offsets(ray, record, np.array(of["center_m"]), q["relation"], np.array([*c[:2], point[2]]))[0] for c in corners)
    columns = (u - ray.pixel(np.array(of["center_m"]))[0]) * (1 if q["relation"] == "right" else -1)
    beside = q["relation"] not in ("left", "right") or columns >= 4 * ray.width / 512
    return 0.04 <= way <= min(0.39, short_of) and abs(other) <= 0.15 and beside


def side_offsets(ray: Ray, record: dict, of: np.ndarray, side: str, point: np.ndarray) -> tuple[float, float]:
    """A table point's offset from `of`'s centre `side`-wards and across that side, in metres: across the view by
    the camera's x, along it by the view's heading on the table."""
    forward = ray.R[2, :2] / np.linalg.norm(ray.R[2, :2])
    across = (ray.R @ point + ray.t)[0] - (ray.R @ of + ray.t)[0]
    along = float((point[:2] - of[:2]) @ forward)
    return {"left": (-across, along), "right": (across, along), "front": (-along, across), "behind": (along, across)}[side]


SIDE_WORDS = ("left", "right", "front", "behind", "between", "facing", "viewer")  # words a point-free question never holds


def seen_side(record: dict, y: str, z: str) -> tuple[str, float]:
    """The side of y that z stands on, from the camera's numbers (its x across the table, its view along it),
    and how many degrees its direction from y lies off that side's axis."""
    ray = Ray(record)
    centres = {o["name"]: np.array(o["box3d"]["center_m"][:2]) for o in record["objects"]}
    offset = centres[z] - centres[y]
    across = float(offset @ ray.R[0, :2]) / np.linalg.norm(ray.R[0, :2])
    along = float(offset @ ray.R[2, :2]) / np.linalg.norm(ray.R[2, :2])
    side = ("right" if across > 0 else "left") if abs(across) >= abs(along) else ("behind" if along > 0 else "front")
    return side, math.degrees(math.atan2(min(abs(across), abs(along)), max(abs(across), abs(along))))


def test_every_free_spot_and_its_region_are_recomputed_by_casting_rays(asked):
    from tabletest.truth.locations import in_region

    free = [(r, q) for r, _, q in asked if q["template"] == "point-free"]
    assert len(free) >= 40 and {q["relation"] for _, q in free} == {"left", "right", "front", "behind"}
    rng = random.Random(0)
    for record, q in free:
        y, z = q["objects"]
        words = q["text"].split(" Answer with")[0].lower().replace("right next to", "next to")  # "right": close, no side
        assert f"the {y}" in words and f"the {z}" in words, q["text"]
        assert not any(re.search(rf"\b{w}\b", words) for w in SIDE_WORDS), q["text"]  # the side is the other object's alone
        side, off_axis = seen_side(record, y, z)
        assert side == q["relation"] and off_axis <= 30, (q["qid"], side, off_axis)  # z stands clearly on the side asked
        fact = {"left": "left_of", "right": "right_of", "front": "in_front_of", "behind": "behind"}[side]
        assert q["derivation"]["facts"] == [["free table", fact, y], [z, fact, y]] and q["frame"] is None
        assert free_by_ray(record, q, *q["answer"]), q["qid"]  # the spot (and below, the region) on z's side of y
        assert judge_answer(q, gold_text(q), LEXICON).correct
        width, height = q["image_size"]
        for _ in range(60):  # the region the judge holds is the free spots' region, pixel by pixel
            u, v = rng.uniform(0, width), rng.uniform(0, height)
            assert in_region(q["region"], (u, v)) == free_by_ray(record, q, u, v) or near_edge(record, q, u, v), (q["qid"], u, v)


def test_a_free_spot_is_named_by_an_object_within_30_degrees_of_a_side_and_never_by_a_diagonal_one():
    from hierarchy_scenes import obj, scene

    from tabletest.prompts.hierarchy.locate import free_spots
    from tabletest.prompts.hierarchy.record import Asker
    from tabletest.truth.free_space import SIDE_CONE_DEG, side_towards
    from tabletest.truth.scene_facts import SceneGeometry

    assert SIDE_CONE_DEG == 30
    small = (0.08, 0.08, 0.1)
    straight = scene("s", [obj("mug", 0.0, 0.0, small)])  # the camera looks along +y: x across, y along
    g = SceneGeometry.from_record(tabled(straight), CATALOG)
    mug = g.things[0]
    for degrees, expected in ((0, "right"), (29, "right"), (31, None), (45, None), (59, None), (61, "behind"), (90, "behind"),
                              (151, "left"), (209, "left"), (239, None), (241, "front"), (331, "right")):  # fmt: skip
        turn = math.radians(degrees)
        other = obj("apple", 0.3 * math.cos(turn), 0.3 * math.sin(turn), small)
        apple = SceneGeometry.from_record(tabled(scene("s", [other])), CATALOG).things[0]
        assert side_towards(g.view, g.table_top, mug, apple) == expected, degrees
    turn = math.radians(31)
    placed = [obj("mug", 0.0, 0.0, small), obj("lamp", -0.5, 0.0, small), obj("apple", -0.25, 0.25, small), obj("banana", 0.3 * math.cos(turn), 0.3 * math.sin(turn), small)]
    diagonal = {("mug", "apple"), ("lamp", "apple"), ("mug", "banana")}  # 45° from the mug and the lamp; 31° from the mug
    for n in range(30):  # whatever the scene's stream draws, a diagonal object never names a side
        record = tabled(scene(f"rnd0-{n:07d}", placed))
        g = SceneGeometry.from_record(record, CATALOG)
        ask = Asker(record["id"], "image", [t.name for t in g.things], image=record["file_name"])
        free_spots(ask, g, record)
        asked = [tuple(q["objects"]) for q in ask.made]
        assert not diagonal & ({*asked} | {(z, y) for y, z in asked}), asked
        assert ("mug", "lamp") in asked, asked  # the mug's left: the lamp alone names it


def test_a_free_spot_towards_a_near_object_never_lies_past_it():
    """A mug and an apple side by side, the apple ever nearer: the spot right next to the mug, on its side towards
    the apple, stands between the two along their line (and none is asked where no room is left before the apple)."""
    from hierarchy_scenes import obj, scene

    from tabletest.prompts.hierarchy.locate import free_spots
    from tabletest.prompts.hierarchy.record import Asker
    from tabletest.truth.scene_facts import SceneGeometry

    small = (0.08, 0.08, 0.1)
    asked = 0
    for gap in (0.12, 0.16, 0.2, 0.25, 0.3):
        record = tabled(scene("rnd0-0000001", [obj("mug", 0.0, 0.0, small), obj("apple", gap, 0.0, small)]))
        ask = Asker(record["id"], "image", ["mug", "apple"], image=record["file_name"])
        free_spots(ask, SceneGeometry.from_record(record, CATALOG), record)
        for q in (q for q in ask.made if q["relation"] in ("left", "right")):
            point = Ray(record).table_point(*q["answer"])
            x = {"mug": 0.0, "apple": gap}
            y, z = q["objects"]
            assert min(x[y], x[z]) + 0.04 - 1e-3 <= point[0] <= max(x[y], x[z]) - 0.04 + 1e-3, (gap, q["text"], point)
            asked += 1
    assert asked >= 4


def near_edge(record: dict, q: dict, u: float, v: float) -> bool:
    """A pixel within a hundredth of a pixel of the region's edge, where rounding may put it either side."""
    return any(free_by_ray(record, q, u + du, v + dv) != free_by_ray(record, q, u, v) for du, dv in ((0.01, 0), (-0.01, 0), (0, 0.01), (0, -0.01)))


def footprint(o: dict) -> np.ndarray:
    b = o["box3d"]
    return np.array(box_corners(b["center_m"], b["size_m"], math.radians(b["yaw_deg"])))[::2, :2][[0, 1, 3, 2]]


STEP_M = 0.002  # places along the line, and points along an outline, this far apart


def room_at_any_place(record: dict, x: str, a: str, b: str, spare: float) -> bool:
    """Whether x's footprint, narrow side along the line from a to b and `spare` bigger on every side, clears every
    other footprint and stays on the table at some place along the line, every STEP_M: two outlines overlap where
    a point of one's outline (every STEP_M) lies inside the other, or a corner of the other inside the first."""
    objects = {o["name"]: o for o in record["objects"]}
    start, end = (np.array(objects[n]["box3d"]["center_m"][:2]) for n in (a, b))
    way = (end - start) / np.linalg.norm(end - start)
    across = np.array([-way[1], way[0]])
    half = np.array(sorted(objects[x]["box3d"]["size_m"][:2])) / 2 + spare  # along, across
    steps = np.arange(0, np.linalg.norm(end - start) + 1e-9, STEP_M)
    centres = start + steps[:, None] * way
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half
    edge = np.concatenate([np.linspace(corners[i], corners[(i + 1) % 4], int(2 * half.max() / STEP_M) + 2) for i in range(4)])
    outline = centres[:, None, :] + edge[:, :1] * way + edge[:, 1:] * across  # (places, points, 2)
    free = (np.abs(outline) <= [TABLE["width_m"] / 2, TABLE["depth_m"] / 2]).all(axis=(1, 2))
    for o in record["objects"]:
        if o["name"] == x:
            continue
        other = footprint(o)
        free &= ~Outline(other).contains_points(outline.reshape(-1, 2)).reshape(outline.shape[:2]).any(axis=1)
        local = (other[None, :, :] - centres[:, None, :])  # its corners in the placed footprint's frame
        inside = (np.abs(local @ way) < half[0]) & (np.abs(local @ across) < half[1])
        free &= ~inside.any(axis=1)
    return bool(free.any())


def test_every_fit_is_recomputed_by_sliding_footprints_and_holds_beyond_its_margin(asked):
    fits = [(r, q) for r, _, q in asked if q["template"] == "fit-yes/no"]
    answers = [q["answer"] for _, q in fits]
    assert answers.count(True) == answers.count(False) >= 10  # each yes beside a no
    for record, q in fits:
        x, a, b = q["objects"]
        if q["answer"]:
            assert room_at_any_place(record, x, a, b, 0.02 - STEP_M), q["qid"]  # with 2 cm to spare (less a step)
        else:
            assert not room_at_any_place(record, x, a, b, -0.02 + STEP_M), q["qid"]  # not even 2 cm smaller on every side


def referent(record: dict, mask: np.ndarray, q: dict) -> int:
    """The position of the one object of the named kind that stands `relation` of the other, from the boxes."""
    ray = Ray(record)
    kind, other = q["objects"]
    of = next(np.array(o["box3d"]["center_m"]) for o in record["objects"] if o["name"] == other)
    forward = ray.R[2, :2] / np.linalg.norm(ray.R[2, :2])
    found = []
    for position, o in enumerate(record["objects"]):
        if o["name"] != kind:
            continue
        c = np.array(o["box3d"]["center_m"])
        dx, du = (ray.R @ c)[0] - (ray.R @ of)[0], ray.pixel(c)[0] - ray.pixel(of)[0]
        ahead = float((of[:2] - c[:2]) @ forward)  # > 0: c in front of `of`
        holds = {
            "left": dx <= -0.03 and du <= -8 * ray.width / 1024, "right": dx >= 0.03 and du >= 8 * ray.width / 1024,
            "front": ahead >= DEPTH_M, "behind": ahead <= -DEPTH_M,
        }[q["relation"]]  # fmt: skip
        if holds:
            found.append(position)
    assert len(found) == 1, q["qid"]
    return found[0]


def test_every_point_and_box_is_on_the_one_object_its_words_pick_out(asked):
    located = [(r, m, q) for r, m, q in asked if q["template"] in ("point-object", "box-object")]
    assert {q["template"] for _, _, q in located} == {"point-object", "box-object"} and len(located) >= 60
    for record, mask, q in located:
        value = referent(record, mask, q) + 1
        own = mask == value
        if q["answer_type"] == "point":
            x, y = q["answer"]
            assert mask[int(y), int(x)] == value, q["qid"]
            runs = decode_counts(q["mask"]["counts"])  # down the columns, zeros first
            decoded = np.repeat(np.arange(len(runs)) % 2 == 1, runs).reshape(own.shape[::-1]).T
            assert (decoded == own).all(), q["qid"]
        else:
            rows, cols = np.flatnonzero(own.any(axis=1)), np.flatnonzero(own.any(axis=0))
            assert q["answer"] == [cols[0], rows[0], cols[-1] + 1, rows[-1] + 1], q["qid"]


def test_a_map_gives_each_objects_facing_only_clear_of_the_diagonals():
    from tabletest.truth.scene_facts import SceneGeometry
    from tabletest.truth.top_down import facing

    base = synthetic(3, 3)
    for yaw, expected in ((0, "towards"), (180, "away"), (90, "right"), (-90, "left"), (25, "towards"), (35, None), (55, None), (65, "right")):
        record = json.loads(json.dumps(base))
        record["objects"][0] = {**record["objects"][0], "name": "laptop"}
        record["objects"][0]["box3d"]["yaw_deg"] = yaw
        g = SceneGeometry.from_record(record, CATALOG)
        turn = math.degrees(math.atan2(*np.array(g.view.ground_forward)[::-1]))  # the camera looks this way off +x
        record["objects"][0]["box3d"]["yaw_deg"] = yaw + turn - 90  # so that yaw 0 faces the viewer
        g = SceneGeometry.from_record(record, CATALOG)
        assert facing(g, g.things[0]) == expected, yaw


# --- marks ---------------------------------------------------------------------------------------------------------


def test_mark_questions_name_the_objects_by_numbers_that_say_nothing_of_where_they_stand(asked):
    marks = [(r, q) for r, _, q in asked if q["template"].startswith("mark-")]
    assert {q["template"] for _, q in marks} == {"mark-which", "mark-position-yes/no"}
    assert all(q["image"] == f"marked/{q['scene_id']}.png" and q["marks"] == "numbers" for _, q in marks)
    which = [q for _, q in marks if q["template"] == "mark-which"]
    leftmost = [q["answer"] for r, q in marks if q["template"] == "mark-which" and q["objects"][0] == r["objects"][0]["name"]]
    assert len(set(leftmost)) > 1  # the record's first object is not always mark 1
    assert all(judge_answer(q, w, LEXICON).correct for q in which for w in (gold_text(q), f"Object {q['answer']}."))
    yes_no = [q["answer"] for _, q in marks if q["template"] == "mark-position-yes/no"]
    assert yes_no.count(True) == yes_no.count(False) > 20


# --- balance and the text-only reader --------------------------------------------------------------------------


def test_the_balance_report_and_its_text_only_reader_cover_every_new_template(asked):
    tally = AnswerTally(0)
    for _, _, q in asked:
        if q["template"] in NEW:
            tally.add(q)
    made = report(0, tally)["questions"]["templates"]
    rows = {row["template"]: row for row in made}
    assert set(NEW) <= set(rows)
    for template in ("point-object", "box-object", "point-free"):
        row = rows[template]
        assert row["validation_questions"] >= 40 and row["text_prior"] is not None
        assert not row["text_shortcut"], row  # a point or box question is not answered by its words
        assert row["text_prior"] <= 0.2, row


# --- on a real render ------------------------------------------------------------------------------------------------

POOL = ("mug", "bowl", "laptop", "apple", "lamp", "teddy bear")


@pytest.fixture(scope="module")
def render(tmp_path_factory, one_look) -> Path:
    """Six random scenes at 160x120, one sample, with masks and depth (each object in its catalog model: the scenes
    these tests pin)."""
    root = tmp_path_factory.mktemp("grounding")
    build_assets(CATALOG, root / "assets", list(POOL), jobs=1)
    out = root / "out"
    made = run_cli(
        "render", "--scenes", "random", "--count", "6", "--seed", "3", "--only", ",".join(POOL), "--assets", str(root / "assets"),
        "--resolution", "160x120", "--samples", "1", "--masks", "--quiet", "--out", str(out), "--random-config", str(one_look),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return out


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "metadata.jsonl").read_text().splitlines()]


def pixels(path: Path) -> np.ndarray:
    with Image.open(path) as image:
        return np.asarray(image)


@pytest.mark.render
def test_verify_holds_the_free_table_and_the_marks_to_the_pixels_and_finds_a_table_not_where_the_record_says(render, tmp_path):
    checked = run_cli("verify", str(render), "--json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    counts = json.loads(checked.stdout)["checked"]
    assert counts["free table"] >= 12 and counts["marks"] >= 12
    copy = Path(shutil.copytree(render, tmp_path / "copy"))
    rows = records(copy)
    rows[1]["scene"]["table"]["width_m"] += 1.0  # the record says the table reaches further than it does
    (copy / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    found = run_cli("verify", str(copy), "--json")
    assert found.returncode == 1
    disagreements = json.loads(found.stdout)["disagreements"]
    assert [d["id"] for d in disagreements if d["check"] == "free table"] == [rows[1]["id"]]


def number_drawn(marked: np.ndarray, clean: np.ndarray, centre: tuple[float, float], radius: float, numbers: range) -> int:
    """Which number a mark shows: the one whose mark (a white ring, a dark disc, a white number), drawn afresh on the
    clean image near `centre`, matches the marked pixels best."""
    x0, y0 = int(centre[0] - radius - 3), int(centre[1] - radius - 3)
    box = (max(0, x0), max(0, y0), x0 + int(2 * radius) + 7, y0 + int(2 * radius) + 7)
    seen = marked[box[1] : box[3], box[0] : box[2]].astype(int)
    errors = {}
    for n in numbers:
        for dx in np.arange(-1, 1.01, 0.5):
            for dy in np.arange(-1, 1.01, 0.5):
                drawn = Image.fromarray(clean)
                draw = ImageDraw.Draw(drawn)
                x, y, r = centre[0] + dx, centre[1] + dy, radius
                ring = max(1.0, r / 7)
                draw.ellipse((x - r, y - r, x + r, y + r), fill=(255, 255, 255))
                draw.ellipse((x - r + ring, y - r + ring, x + r - ring, y + r - ring), fill=(20, 20, 20))
                size = max(8, round(r * (1.25 if n < 10 else 0.95)))
                draw.text((x, y), str(n), fill=(255, 255, 255), font=ImageFont.load_default(size=size), anchor="mm")
                error = np.abs(np.asarray(drawn)[box[1] : box[3], box[0] : box[2]].astype(int) - seen).sum()
                errors[n] = min(errors.get(n, error), error)
    return min(errors, key=errors.get)


@pytest.mark.render
def test_marked_copies_change_only_their_marks_hide_little_and_show_the_numbers_the_questions_ask(render, tmp_path):
    from scipy.ndimage import center_of_mass, label

    out = tmp_path / "llava"
    made = run_cli("export", "--dataset", str(render), "--format", "llava", "--questions", "hierarchy", "--marks", "numbers", "--out", str(out))
    assert made.returncode == 0, made.stderr
    samples = json.loads((out / "train.json").read_text())
    which = [s for s in samples if s["template"] == "mark-which"]
    assert which and all(s["image"].startswith("marked/") for s in samples if s["template"].startswith("mark-"))
    named = 0
    for record in records(render):
        marked, clean = pixels(out / "marked" / f"{record['id']}.png"), pixels(render / record["file_name"])[..., :3]
        mask = pixels(render / record["mask_file_name"])
        changed = (marked != clean).any(axis=2)
        blobs, count = label(changed)
        for value in range(1, len(record["objects"]) + 1):
            shown = mask == value
            if shown.any():
                assert (changed & shown).sum() <= 0.2 * shown.sum(), (record["id"], value)  # a mark hides at most a fifth
        owner = {}  # each mark (a blob of changed pixels) by the object nearest its centre
        for b in range(1, count + 1):
            centre = np.array(center_of_mass(blobs == b))
            distances = {v: np.min(np.hypot(*(centre[:, None] - np.nonzero(mask == v)))) for v in np.unique(mask[mask > 0])}
            owner[min(distances, key=distances.get)] = b
        for s in (s for s in which if s["id"].startswith(record["id"] + "-")):
            name, (answer,) = s["conversations"][0]["value"], read_numbers(s["conversations"][1]["value"])
            value = next(k + 1 for k, o in enumerate(record["objects"]) if f" {o['name']}" in name)
            blob = blobs == owner[value]
            cy, cx = center_of_mass(blob)
            radius = max(7.0, 0.016 * clean.shape[1])  # a mark's radius: 1.6 % of the width, at least 7 px
            assert number_drawn(marked, clean, (cx + 0.5, cy + 0.5), radius, range(1, count + 1)) == answer, s["id"]
            named += 1
    assert named == len(which)


@pytest.mark.render
def test_a_training_export_asks_in_the_coordinates_chosen_maps_first_and_its_rewards_read_them(render, tmp_path):
    out = tmp_path / "trl"
    made = run_cli(
        "export", "--dataset", str(render), "--format", "trl", "--questions", "hierarchy", "--coordinates", "0-1000",
        "--map-first", "--out", str(out),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert "from 0 to 1000 across the image's width and height" in (out / "README.md").read_text()
    rows = pq.read_table(out / "data").to_pylist()
    located = [r for r in rows if r["answer_type"] in ("point", "box")]
    assert {r["template"] for r in located} >= {"point-object", "box-object", "point-free"}
    truths = [json.loads(r["ground_truth"]) for r in located]
    assert all(t["coordinates"] == "0-1000" and t["image_size"] == [160, 120] for t in truths)
    assert all("from 0 to 1000" in r["prompt"][0]["content"] for r in located)
    solutions = [r["solution"] for r in rows]
    assert accuracy_reward(solutions, [r["ground_truth"] for r in rows]) == [1.0] * len(rows)
    assert format_reward(solutions, [r["ground_truth"] for r in rows], [r["answer_format"] for r in rows]) == [1.0] * len(rows)
    mapped = [r for r in rows if r["answer_format"] == "map-answer"]
    assert mapped and all(r["solution"].startswith("<map>{") for r in mapped)
    in_pixels = [r["solution"].split("</map>\n")[-1] for r in located if r["answer_type"] == "point"]  # the same numbers read as pixels
    truth = [t for t in truths if t["answer_type"] == "point"]
    wrong = [json.dumps({**t, "coordinates": "pixels"}) for t in truth]
    assert sum(accuracy_reward(in_pixels, wrong)) < 0.5 * len(wrong)
    no_map = [r["solution"].split("</map>\n")[-1] for r in mapped]
    assert format_reward(no_map, [r["ground_truth"] for r in mapped], ["map-answer"] * len(mapped)) == [0.0] * len(mapped)


@pytest.mark.render
def test_grounding_options_are_refused_where_they_cannot_apply(render, tmp_path):
    bare = tmp_path / "bare"
    shutil.copytree(render, bare)
    rows = records(bare)
    for r in rows:
        r.pop("mask_file_name")
        r.pop("depth_file_name")
    (bare / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    settings = json.loads((bare / "settings.json").read_text())
    (bare / "settings.json").write_text(json.dumps({**settings, "masks": False}))  # as a render without --masks pins it
    for args, message in (
        (["--dataset", str(bare), "--format", "llava", "--questions", "hierarchy", "--marks", "numbers"], "has no masks"),
        (["--dataset", str(render), "--format", "vlmevalkit", "--questions", "hierarchy", "--map-first"], "--map-first does not apply to --format vlmevalkit"),
        (["--dataset", str(render), "--format", "llava", "--coordinates", "percent"], "--coordinates shapes the question hierarchy"),
    ):
        result = run_cli("export", *args, "--out", str(tmp_path / "out"))
        assert result.returncode != 0 and message in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert not (tmp_path / "out").exists()
