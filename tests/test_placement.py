"""Placement at the default settings, checked for every catalog object and pair from the asset boxes
and the camera, without rendering: slots, resting on the table, in frame, no overlaps, minimum size."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tabletest.assets.manifest import load_manifest
from tabletest.config import load_catalog, load_config
from tabletest.layout.camera import PinholeCamera
from tabletest.layout.placement import Placement, place, slot_u

CONFIG = load_config()
CATALOG = load_catalog()
CAMERA = PinholeCamera.from_config(CONFIG)
MIN_SPAN_PX = 24


def image_box(camera: PinholeCamera, placement: Placement) -> tuple[float, float, float, float]:
    """The image rectangle [x0, y0, x1, y1] that holds the object's projected 3D box (a bound on its pixels)."""
    uv = camera.project(placement.box_corners())
    return (float(uv[:, 0].min()), float(uv[:, 1].min()), float(uv[:, 0].max()), float(uv[:, 1].max()))


@pytest.fixture(scope="module")
def boxes(builtin_assets):
    """Image box of every object at every slot position for n = 2 and 3 (placement depends only on the object)."""
    sizes = {name: e.size_m for name, e in load_manifest(builtin_assets).objects.items()}
    out = {}
    for n in (1, 2, 3):
        for name in CATALOG.names:
            placements = place(CONFIG, [sizes[name]] * n)
            for position, placement in enumerate(placements):
                out[(n, position, name)] = (placement, image_box(CAMERA, placement))
    return out


def test_box_centres_project_onto_their_slots(boxes):
    for (n, position, _), (placement, _) in boxes.items():
        u, _ = CAMERA.project(np.array(placement.box_center))
        assert abs(u - slot_u(CONFIG, n, position, 1024)) < 1e-6
    assert slot_u(CONFIG, 3, 0, 1024) == 312 and slot_u(CONFIG, 3, 2, 1024) == 712 and slot_u(CONFIG, 2, 1, 512) == 356


def test_objects_rest_on_the_table_top_and_stay_in_frame(boxes, builtin_assets):
    manifest = load_manifest(builtin_assets)
    assert all(abs(e.bbox_m[0][2]) < 1e-6 for e in manifest.objects.values())  # canonical frame: resting on z = 0
    for (_, _, name), (placement, (x0, y0, x1, y1)) in boxes.items():
        assert placement.position_m[2] == CONFIG.table.height_m
        assert 0 <= x0 and x1 <= 1024 and 0 <= y0 and y1 <= 768, name


def test_no_two_objects_at_adjacent_slots_overlap(boxes):
    gaps = []
    for n in (2, 3):
        for position in range(n - 1):
            for left, right in itertools.permutations(CATALOG.names, 2):
                gap = boxes[(n, position + 1, right)][1][0] - boxes[(n, position, left)][1][2]
                gaps.append((gap, n, left, right))
    smallest = min(gaps)
    assert smallest[0] > 0, f"{smallest[2]} and {smallest[3]} overlap in {smallest[1]}-object scenes"


def test_smallest_object_spans_at_least_24_px(boxes):
    spans = {key: max(x1 - x0, y1 - y0) for key, (_, (x0, y0, x1, y1)) in boxes.items()}
    smallest = min(spans, key=spans.get)
    assert spans[smallest] >= MIN_SPAN_PX, f"{smallest} spans only {spans[smallest]:.1f} px"
