"""`assets/objaverse.lock.json`: which Objaverse model each object uses, pinned to its exact bytes.

Commit it beside the catalog: with it, every fetch takes the same uids and refuses any GLB whose
sha256 differs. It also keeps what the credits need (title, author, licence, URL).
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from tabletest.errors import UserError
from tabletest.files.jsonl import atomic_output

LOCK_NAME = "objaverse.lock.json"


class Locked(BaseModel):
    """One object's chosen model: uid, the GLB's sha256 and size, and its attribution."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    uid: str
    sha256: str
    bytes: int
    license: str
    title: str
    author: str
    url: str


class Lock(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    objects: dict[str, Locked] = {}


def lock_path(assets_dir: Path) -> Path:
    return Path(assets_dir) / LOCK_NAME


def load_lock(assets_dir: Path) -> Lock:
    """The lock file of `assets_dir`; an empty lock if there is none yet."""
    path = lock_path(assets_dir)
    if not path.exists():
        return Lock()
    try:
        return Lock.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError) as err:
        first = str(err).splitlines()[0]
        raise UserError(
            f"{path} is not a valid lock file ({first}); restore it from version control or delete it to resolve again"
        ) from None


def save_lock(assets_dir: Path, lock: Lock) -> None:
    """Write atomically, objects sorted by name, so the same choices give the same bytes."""
    data = lock.model_dump(mode="json")
    data["objects"] = dict(sorted(data["objects"].items()))
    with atomic_output(lock_path(assets_dir)) as fh:
        fh.write(json.dumps(data, indent=1) + "\n")
