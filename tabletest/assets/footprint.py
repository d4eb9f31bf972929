"""A model's footprint box: the box an object's sizes and long axis are read from, where its model's own box
would misstate them.

A model's own box (its canonical frame's, `canonical.py`) is aligned with the frame's axes. Most models lie
along them, but a model can lie diagonally in it: a torch turned 30° so its lens shows, a bent eggplant or a
carrot rolled onto its side by its rest pose. Their own box is then far wider than they are (a torch 4.6 cm
thick in a box 12.4 cm wide) and its sides say nothing of which way they point. Such a model's box follows the
least-area rectangle around its outline on the table instead: turned by `turn_deg` in the model's frame,
centred where that rectangle is. The model itself, and so every picture, stays as it is.

A model lies diagonally when that rectangle is clearly elongated (`ELONGATED`), turned at least `MIN_TURN_DEG`
off the model's axes, and clearly narrower than its own box (`NARROWER`). A round model's least-area rectangle
may sit at any angle, and a curved one's (a banana's crescent) a few degrees off its chord: their own box is
their box. Every built-in model and look lies well clear of these bounds (`tests/test_footprint.py`).

A model's footprint is kept in the user's cache (`footprints/`) by its file's sha256, these bounds and the way
it is found (`FOOTPRINT`): a run reads it there rather than load the model (and trimesh) again, about a second
of a short run's start. `verify` measures it on the model itself.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tabletest.assets.manifest import AssetEntry

ELONGATED = 2.0  # the rectangle's long side at least this many times its short one
MIN_TURN_DEG = 10.0  # turned at least this far off the model's axes
NARROWER = 1.05  # the own box's short side at least this many times the rectangle's
FOOTPRINT = 1  # how a footprint is found from a model file: raise it when `footprint_of` or the mesh it reads changes
RULE = hashlib.sha256(f"{FOOTPRINT}:{ELONGATED}:{MIN_TURN_DEG}:{NARROWER}".encode()).hexdigest()[:12]  # names cached ones


@dataclass(frozen=True)
class Footprint:
    """A model's footprint box in its own frame: turned by `turn_deg` about +Z, centred at `center` (x, y),
    `size` along its own turned x and y."""

    turn_deg: float
    center: tuple[float, float]
    size: tuple[float, float]

    def box(self, position: tuple[float, float, float], yaw_deg: float, height: float) -> tuple[list[float], list[float], float]:
        """(centre, size, yaw) of the box in the world, for the model standing at `position` (its origin) turned by
        `yaw_deg`, `height` tall; rounded as records keep them."""
        t = math.radians(yaw_deg)
        cx, cy = self.center
        x = position[0] + cx * math.cos(t) - cy * math.sin(t)
        y = position[1] + cx * math.sin(t) + cy * math.cos(t)
        center = [round(x, 6), round(y, 6), round(position[2] + height / 2, 6)]
        return center, [*self.size, height], round(yaw_deg + self.turn_deg, 3)


def footprint_of(vertices: np.ndarray) -> Footprint | None:
    """The footprint box of a model (its vertices, canonical frame) lying diagonally in its own box; None for one
    whose own box is its box."""
    import trimesh  # loaded with the models it measures

    points = np.asarray(vertices, dtype=float)[:, :2]
    transform, _ = trimesh.bounds.oriented_bounds_2D(points)
    direction = transform[0, :2]  # one side of the least-area rectangle, in the model's frame
    turn = (math.degrees(math.atan2(direction[1], direction[0])) + 45.0) % 90.0 - 45.0  # the side nearest +X
    along, across, center = _extents(points, turn)
    own = np.ptp(points, axis=0)
    if max(along, across) < ELONGATED * min(along, across) or abs(turn) < MIN_TURN_DEG or min(own) < NARROWER * min(along, across):
        return None
    return Footprint(round(turn, 3), (round(center[0], 6), round(center[1], 6)), (round(along, 6), round(across, 6)))


def _extents(points: np.ndarray, turn_deg: float) -> tuple[float, float, tuple[float, float]]:
    """The points' extents along the axes turned by `turn_deg`, and the centre of that box (model frame)."""
    t = math.radians(turn_deg)
    u, v = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
    a, b = points @ u, points @ v
    ma, mb = (a.max() + a.min()) / 2, (b.max() + b.min()) / 2
    return float(np.ptp(a)), float(np.ptp(b)), (float(ma * u[0] + mb * v[0]), float(ma * u[1] + mb * v[1]))


class Footprints:
    """The footprint boxes of a run's models by model key (`mug`, `mug/2`), each found when first asked for: read
    from the user's cache, or, with `kept=False` (what `verify` derives again), measured on the model itself."""

    def __init__(self, files: Mapping[str, tuple[str, str]], kept: bool = True) -> None:
        self.files = dict(files)  # model key -> (GLB path, sha256)
        self.find = model_footprint if kept else measured_footprint

    @classmethod
    def of_entries(cls, entries: Mapping[str, AssetEntry], assets_dir: Path) -> Footprints:
        return cls({key: (str(Path(assets_dir) / entry.file), entry.sha256) for key, entry in entries.items()})

    def of(self, key: str) -> Footprint | None:
        return self.find(*self.files[key])


@lru_cache(maxsize=512)
def model_footprint(path: str, sha256: str) -> Footprint | None:
    """The footprint box of a model file (GLB, canonical frame); `sha256` names its bytes. Kept in the user's
    cache; an entry that does not read as a footprint is measured again."""
    from tabletest.cache import cache_entry, cache_folder
    from tabletest.files.jsonl import atomic_output

    entry = cache_entry(cache_folder("footprints") / f"{sha256}-{RULE}.json")
    try:
        return _kept(json.loads(entry.read_text(encoding="utf-8")))
    except (OSError, ValueError, RecursionError):  # not measured yet, cut short, or something else
        pass
    found = measured_footprint(path, sha256)
    try:
        with atomic_output(entry) as fh:
            fh.write(json.dumps(None if found is None else [found.turn_deg, *found.center, *found.size]) + "\n")
    except OSError:  # a read-only or full cache: measured again next time
        pass
    return found


@lru_cache(maxsize=512)
def measured_footprint(path: str, sha256: str) -> Footprint | None:
    """The footprint box of a model file measured on its mesh, never read from the cache."""
    from tabletest.assets.canonical import model_mesh

    return footprint_of(model_mesh(path, sha256)[0])


def _kept(kept: object) -> Footprint | None:
    """A footprint as the cache keeps it (`null`, or turn, centre and size); a ValueError for anything else."""
    if kept is None:
        return None
    if not (isinstance(kept, list) and len(kept) == 5 and all(type(x) in (int, float) and math.isfinite(x) for x in kept)):
        raise ValueError("not a footprint")
    turn, cx, cy, along, across = (float(x) for x in kept)
    if abs(turn) > 45 or along <= 0 or across <= 0:
        raise ValueError("not a footprint")
    return Footprint(turn, (cx, cy), (along, across))
