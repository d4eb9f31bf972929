"""What points, boxes, free space and marks rest on, checked against a render's pixels.

- **Free table**: a free-space question's region is the table top the record names (its size, centred on the
  world's origin, at the height its lowest object stands on) with every object's projected 3D box cut out.
  Every pixel of that free table (`EDGE_PX` inside its outline) must show no object in the mask and, in the
  depth pass, the table plane's own depth within `DEPTH_TOLERANCE_M`: the table is where the record says, and
  no object reaches out of its box.
- **Marks**: the numbered marks an export draws (`truth.marks`), placed from the mask: each covers at most
  `MAX_COVER` of any object's visible pixels, lies on its own object or within `BESIDE_PX` of it and nearer it
  than any other object, inside the image and clear of the other marks.

Points and boxes themselves rest on each object's mask (its visible pixels and their extent) and maps on the 3D
boxes' centres and the camera, which the other checks hold against the pixels.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.ndimage import distance_transform_edt

from tabletest.layout.camera import CameraView
from tabletest.layout.instances import label_of
from tabletest.truth.free_space import box_outline, boxes, inside_convex, table_outline
from tabletest.truth.marks import BESIDE_PX, GAP_PX, MAX_COVER, covered, place_marks
from tabletest.truth.seen import seen_objects

EDGE_PX = 2.0  # the free table is checked this far inside its outline (a pixel's samples spread across its edge)
DEPTH_TOLERANCE_M = 0.005  # the depth pass is in whole millimetres
Check = Callable[[bool, str], None]


def check_free_table(check: Check, record: dict, mask: np.ndarray, depth: np.ndarray) -> None:
    """The free table shows the table plane and no object (a record without a table or a camera: nothing to check)."""
    table = (record.get("scene") or {}).get("table") or {}
    objects = boxes(record)
    if not isinstance(record.get("camera"), dict) or "width_m" not in table or not objects:
        return
    view = CameraView.from_record(record["camera"])
    height, width = mask.shape
    top = min(b["center_m"][2] - b["size_m"][2] / 2 for b in objects)
    outline = table_outline(view, (table["width_m"], table["depth_m"]), top, (width, height))
    outlines = [box_outline(view, b) for b in objects]
    if outline is None or any(o is None for o in outlines):
        return
    xs, ys = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    free = inside_convex(outline, xs, ys)
    for o in outlines:
        free &= ~inside_convex(o, xs, ys)
    free = distance_transform_edt(np.pad(free, 1))[1:-1, 1:-1] >= EDGE_PX
    if not free.any():
        return
    shown = int((mask[free] > 0).sum())
    check(shown == 0, f"{shown} pixel(s) of the free table show an object (outside every object's projected box)")
    rotation, translation = view.world_to_camera[:3, :3], view.world_to_camera[:3, 3]
    plane = view.K @ np.column_stack([rotation[:, 0], rotation[:, 1], top * rotation[:, 2] + translation])
    on_table = np.linalg.inv(plane) @ np.stack([xs[free], ys[free], np.ones(int(free.sum()))])
    points = np.vstack([on_table[:2] / on_table[2], np.full(on_table.shape[1], top)])
    expected = (rotation @ points + translation[:, None])[2]
    off = np.abs(depth[free].astype(float) / 1000 - expected)
    worst = float(off.max())
    check(worst <= DEPTH_TOLERANCE_M, f"the free table's depth is {worst * 1000:.0f} mm off the table plane the record names")


def check_marks(check: Check, record: dict, mask: np.ndarray) -> None:
    """The marks drawn from this mask are each their own object's and hide little of any."""
    marks = place_marks(str(record.get("id")), mask, seen_objects(record, mask))
    if not marks:
        return
    height, width = mask.shape
    values = {label_of(o): k + 1 for k, o in enumerate(record["objects"])}
    for value, share in covered(mask, marks).items():
        check(share <= MAX_COVER, f"marks cover {share:.0%} of object {value}'s visible pixels (at most {MAX_COVER:.0%})")
    near = {v: distance_transform_edt(mask != v) for v in set(values.values())}
    for m in marks:
        x, y = min(width - 1, int(m.centre[0])), min(height - 1, int(m.centre[1]))
        own = float(near[values[m.label]][y, x])
        others = [float(d[y, x]) for v, d in near.items() if v != values[m.label]]
        check(own <= m.radius + BESIDE_PX + 1, f"mark {m.number} is {own:.0f} px from its object {m.label}")
        check(all(own + GAP_PX <= o for o in others), f"mark {m.number} is as near another object as its own {m.label}")
        inside = m.radius <= m.centre[0] <= width - m.radius and m.radius <= m.centre[1] <= height - m.radius
        check(inside, f"mark {m.number} reaches out of the image")
        for other in marks:
            if other.number > m.number:
                apart = np.hypot(m.centre[0] - other.centre[0], m.centre[1] - other.centre[1])
                check(apart >= m.radius + other.radius, f"marks {m.number} and {other.number} overlap")
