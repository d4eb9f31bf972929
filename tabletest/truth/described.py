"""A render record as it describes itself: the camera it was shot with and each object's 3D box.

Every record a render writes carries them. A benchmark folder rendered before they were written lacks them,
and this is the one place that reads such a record: its camera and boxes computed as its render placed
them, from the config its run recorded in run.json (never another config: a render made with another
camera would be read with the wrong one). Every reader of a render's records goes through `described`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from tabletest.assets.footprint import Footprint
from tabletest.config import Config
from tabletest.errors import UserError
from tabletest.files.run_output import last_render_run
from tabletest.layout.camera import PinholeCamera
from tabletest.truth.geometry import box3d, pinhole_record


def described(record: dict, folder: Path | None) -> dict:
    """`record` with its `camera` and each object's `box3d` (itself where it has them, or holds no image: a
    vignette); `folder`, the render it was read from, whose run.json gives the config of a record that lacks them."""
    if "camera" in record or "file_name" not in record:
        return record
    config = _run_config(Path(folder).resolve()) if folder is not None else None
    if config is None:
        raise UserError(
            f"record {record.get('id')} names no camera and its folder's run.json no config to derive it from; "
            "read it from the render folder that made it, or render it again"
        )
    camera = PinholeCamera.from_config(config, tuple(record["render"]["resolution"]))
    return {**record, "objects": [boxed(o) for o in record["objects"]], "camera": pinhole_record(camera)}


def boxed(obj: dict, footprint: Footprint | None = None) -> dict:
    """A benchmark object with its 3D box (what its render writes): `box3d` of its pose and model box, and of its
    model's `footprint` box where the model lies diagonally in its own box."""
    if "box3d" in obj:
        return obj
    return {**obj, "box3d": box3d(obj["position_m"], obj["yaw_deg"], obj["size_m"], footprint)}


@lru_cache(maxsize=8)
def _run_config(folder: Path) -> Config | None:
    """The config the folder's last render ran with, if its run.json kept one."""
    run = last_render_run(folder)
    try:
        return Config.model_validate(run["config"]) if run else None
    except ValueError:
        return None
