"""The verdicts of the model checks, kept with the user rather than with the models, so that a render
trusts a model only if this machine's checks accepted exactly its bytes, and checks it in full otherwise.

Threat model. The assets folder (manifest.json and the GLBs) is untrusted: it may come from a colleague,
a download or a shared disk, and whoever can write it can edit an entry to match any bytes (a sha256 is
no secret, and any digest stored in the manifest can be recomputed by reading this code). What that
person cannot write is the user's own cache folder (`$XDG_CACHE_HOME/tabletest/verdicts`, else
`~/.cache/tabletest/verdicts`): whoever can write there can also replace the user's installed code, which
no check inside that code could stop. So a verdict is a file there, named by the digest of what was
judged: the rules' version, the object, its catalog size and the sha256 of the model's bytes. A render
looks the name up (one `stat` per model); bytes no check accepted here are checked in full before any
Blender work, and refused if they fail. A model that passes is recorded, so each model is checked
once per machine, catalog size and rules version; deleting the folder only makes the next run re-check.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tabletest.cache import cache_entry, cache_folder
from tabletest.config import CatalogObject
from tabletest.files.jsonl import atomic_output

RULES = 1  # bump when `check.py` refuses something it used to accept: every model is checked again


def verdict_dir() -> Path:
    return cache_folder("verdicts")


def _judged(obj: CatalogObject, sha256: str) -> dict:
    return {"rules": RULES, "name": obj.name, "size_m": obj.size_m, "sha256": sha256}


def _path(obj: CatalogObject, sha256: str) -> Path:
    digest = hashlib.sha256(json.dumps(_judged(obj, sha256), sort_keys=True).encode()).hexdigest()
    return cache_entry(verdict_dir() / f"{digest}.json")


def accepted(obj: CatalogObject, sha256: str) -> bool:
    """Whether the checks of this machine accepted these bytes as `obj`."""
    return _path(obj, sha256).is_file()


def record(obj: CatalogObject, sha256: str, triangles_limit: int) -> None:
    """Remember that the checks accepted these bytes as `obj` (under that triangle limit)."""
    path = _path(obj, sha256)
    if path.is_file():
        return
    try:
        with atomic_output(path) as fh:
            fh.write(json.dumps({**_judged(obj, sha256), "max_triangles": triangles_limit}) + "\n")
    except OSError:  # a read-only or full cache: the model is checked again next time, nothing else changes
        pass
