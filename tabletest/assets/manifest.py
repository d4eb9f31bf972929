"""`assets/manifest.json`: one entry per built object, the same fields for every source.

The renderer reads only this file and the GLBs it names; `source` and `uid` say where a model came
from, `sha256` pins the exact bytes, `bbox_m` is in the world frame of `canonical.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tabletest.errors import UserError
from tabletest.files.digest import sha256_of
from tabletest.files.jsonl import atomic_bytes

MANIFEST_NAME = "manifest.json"
DEFAULT_ASSETS_DIR = Path("assets")
REST_POSE = 1  # the rule that put a model in its rest pose (`rest.py`): bump when it would pose a model otherwise
UNRESTED = "was stored without its rest pose (it may roll, or stand on an edge)"


class MaterialInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    base_color: tuple[float, float, float, float]
    roughness: float
    metallic: float
    textured: bool = False


class AssetEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    file: str = Field(pattern=r"^[a-z0-9_]+\.glb$")  # `<slug>.glb`, a plain name: nothing outside the folder
    source: Literal["builtin", "objaverse", "dir"]
    uid: str | None = None
    license: str | None = None
    sha256: str
    bytes: int
    bbox_m: tuple[tuple[float, float, float], tuple[float, float, float]]  # world frame, [min, max]
    triangles: int
    materials: tuple[MaterialInfo, ...]
    rest_pose: int = 0  # the `REST_POSE` rule the model was put at rest by; 0: none (it is used only once made again)

    @property
    def size_m(self) -> tuple[float, float, float]:
        lo, hi = self.bbox_m
        return tuple(round(h - l, 6) for l, h in zip(lo, hi))  # type: ignore[return-value]


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    objects: dict[str, AssetEntry] = {}


def load_manifest(assets_dir: Path) -> Manifest:
    """The manifest of `assets_dir`; an empty one if nothing was built there yet."""
    path = Path(assets_dir) / MANIFEST_NAME
    if not path.exists():
        return Manifest()
    try:
        return Manifest.model_validate_json(path.read_bytes())
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        detail = f"{where}: {first['msg']}" if where else first["msg"]
        raise UserError(
            f"{path} is not a valid asset manifest ({detail}); rebuild it with `tabletest assets build`"
        ) from None


def save_manifest(assets_dir: Path, manifest: Manifest) -> None:
    """Write atomically, objects sorted by name, so reruns give the same bytes."""
    data = manifest.model_dump(mode="json")
    data["objects"] = dict(sorted(data["objects"].items()))
    atomic_bytes(Path(assets_dir) / MANIFEST_NAME, (json.dumps(data, indent=1, sort_keys=False) + "\n").encode())


def manifest_digest(assets_dir: Path) -> str:
    """sha256 of the manifest file: one value that pins every asset a run used."""
    path = Path(assets_dir) / MANIFEST_NAME
    return sha256_of(path) if path.exists() else ""
