"""What an OBJ's references lose on import: its material library and the base-colour textures it names.

trimesh reads an OBJ's `mtllib` and each material's `map_Kd` only from inside the model's own folder
(trying the name as written, without a leading `/`, then its bare file name) and drops, without a word,
any it cannot read there. The importer is not to drop a texture silently: this module finds them the
same way, reading only the OBJ's `mtllib` line and the MTL's `map_Kd` lines, and says why each was dropped.
"""

from __future__ import annotations

import os
from pathlib import Path


def dropped_references(obj_file: Path) -> list[str]:
    """One sentence per material library or texture of `obj_file` that the import leaves out, with its fix."""
    folder = obj_file.parent
    name = _first_value(obj_file, "mtllib")
    if name is None:
        return []
    mtl = _inside(folder, name)
    if mtl is None:
        return [
            f"material library {name!r} named by {obj_file.name} {_why(folder, name)}, so its materials and "
            f"textures were dropped; put it in {folder} beside the model"
        ]
    dropped = []
    for texture in _values(mtl, "map_kd"):
        if _inside(folder, texture) is None:
            dropped.append(
                f"texture {texture!r} named by {mtl.name} {_why(folder, texture)}, so it was dropped and the model "
                f"is imported without it; put it in {folder} beside the model"
            )
    return dropped


def _values(path: Path, key: str):
    """The rest of each line of `path` whose first word is `key` (case-insensitive), as trimesh reads it."""
    with open(path, "rb") as fh:
        for raw in fh:
            line = raw.decode("utf-8", errors="replace").strip()
            word, _, rest = line.partition(" ")
            if word.lower() == key and rest.strip():
                yield rest.strip()


def _first_value(path: Path, key: str) -> str | None:
    return next(_values(path, key), None)


def _inside(folder: Path, name: str) -> Path | None:
    """The file trimesh would read for `name`: the first candidate inside `folder` that exists."""
    root = folder.resolve()
    for candidate in (name, name.lstrip("/"), os.path.split(name)[-1]):
        path = (root / candidate).resolve()
        if path.is_relative_to(root) and path.is_file():
            return path
    return None


def _why(folder: Path, name: str) -> str:
    outside = not (folder.resolve() / name).resolve().is_relative_to(folder.resolve())
    return f"points outside {folder}" if outside else f"is not a file in {folder}"
