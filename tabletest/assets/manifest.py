"""`assets/manifest.json`: one entry per built object, the same fields for every source.

The renderer reads only this file and the GLBs it names; `source` and `uid` say where a model came
from, `sha256` pins the exact bytes, `bbox_m` is in the world frame of `canonical.py`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tabletest.assets.variants import SEPARATOR
from tabletest.errors import UserError
from tabletest.files.digest import sha256_of
from tabletest.files.jsonl import atomic_bytes

MANIFEST_NAME = "manifest.json"
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
    # a look's model that is its kind's model under this 3x4 map (row by row): the render draws it from that model
    drawn_from: tuple[float, float, float, float, float, float, float, float, float, float, float, float] | None = None

    @property
    def size_m(self) -> tuple[float, float, float]:
        lo, hi = self.bbox_m
        return tuple(round(h - l, 6) for l, h in zip(lo, hi))  # type: ignore[return-value]

    def path_in(self, assets_dir: Path) -> str:
        """The model file as scenes and workers name it (absolute): a worker knows a model it holds by this
        string, so a relative `--assets` must not name it twice."""
        return str((assets_dir / self.file).resolve())


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    objects: dict[str, AssetEntry] = {}
    looks: dict[str, AssetEntry] = {}  # a kind's other models (`mug/3`: `assets/variants.py`), built as a random set needs them

    def model(self, key: str) -> AssetEntry | None:
        """The entry of a model key: a catalog name (its model), or a kind's other model (`mug/3`)."""
        return (self.looks if SEPARATOR in key else self.objects).get(key)


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
    for entry in [*data["objects"].values(), *data["looks"].values()]:
        if entry["drawn_from"] is None:
            del entry["drawn_from"]  # only a look's model has it: the other entries keep the bytes they always had
    if data["looks"]:
        data["looks"] = dict(sorted(data["looks"].items()))
    else:
        del data["looks"]  # a folder without looks keeps the bytes it always had
    atomic_bytes(Path(assets_dir) / MANIFEST_NAME, (json.dumps(data, indent=1, sort_keys=False) + "\n").encode())


def manifest_digest(assets_dir: Path) -> str:
    """sha256 of the manifest file: one value that pins every asset a run used."""
    path = Path(assets_dir) / MANIFEST_NAME
    return sha256_of(path) if path.exists() else ""


def file_model_counts(assets_dir: Path, kinds: Iterable[str]) -> dict[str, int]:
    """The kinds whose models are files (fetched or imported: its model, or looks beside a built-in model), and how
    many models each has in a row (`mug`, then its files `mug/1`, `mug/2`, ...; a look built from the recipe ends
    the row)."""
    manifest = load_manifest(assets_dir)
    counts = {}
    for kind in kinds:
        if kind not in manifest.objects:
            continue
        count = 1
        while (look := manifest.looks.get(f"{kind}{SEPARATOR}{count}")) is not None and look.source != "builtin":
            count += 1
        if manifest.objects[kind].source != "builtin" or count > 1:
            counts[kind] = count
    return counts
