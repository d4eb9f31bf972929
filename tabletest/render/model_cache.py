"""Imported models kept as .blend files (bpy, worker side): a worker appends a model it has seen before
in about 7 ms instead of importing its glTF again (30 to 70 ms, the largest per-image cost of a short
run at small sizes). An entry is named by the sha256 of the model file's bytes and the Blender version,
so other bytes or another Blender never reuse it; it is written whole, then renamed into place."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import bpy

from tabletest.cache import user_cache

FORMAT = 1  # what an entry holds: the objects a glTF import made, with their meshes, materials and packed images


def cache_dir() -> Path:
    return user_cache() / "models"


def entry_path(model: Path) -> Path:
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    return cache_dir() / f"{digest}-blender{bpy.app.version_string}-v{FORMAT}.blend"


def import_model(model: Path) -> list[bpy.types.Object]:
    """The model's objects, new in this file (in `bpy.data`'s order, as a glTF import leaves them): appended
    from the cache when it has the model, else imported from its glTF and then kept in the cache."""
    entry = entry_path(model)
    before = set(bpy.data.objects)
    if entry.is_file():
        try:
            with bpy.data.libraries.load(str(entry), link=False) as (source, target):
                target.objects = source.objects
            return [o for o in bpy.data.objects if o not in before]
        except (OSError, RuntimeError):  # unreadable (cut short by a full disk): import the glTF instead
            for obj in [o for o in bpy.data.objects if o not in before]:
                bpy.data.objects.remove(obj)
    bpy.ops.import_scene.gltf(filepath=str(model))
    imported = [o for o in bpy.data.objects if o not in before]
    _keep(entry, imported)
    return imported


def _keep(entry: Path, objects: list[bpy.types.Object]) -> None:
    """Write the entry under a temporary name and rename it into place; a cache that cannot be written
    (read-only, full) costs only the speed."""
    temporary = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        bpy.data.libraries.write(str(temporary), set(objects), fake_user=False, compress=False)
        os.replace(temporary, entry)
    except (OSError, RuntimeError):
        temporary.unlink(missing_ok=True)
