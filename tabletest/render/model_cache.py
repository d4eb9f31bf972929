"""Imported models kept as .blend files (bpy, worker side): a worker appends a model it has seen before
in about 7 ms instead of importing its glTF again (30 to 70 ms, the largest per-image cost of a short
run at small sizes). An entry is named by the sha256 of the model file's bytes and the Blender version,
so other bytes or another Blender never reuse it; it is written whole, then renamed into place.

An entry is trusted only if it says what it holds: each object carries the model's sha256 and a digest
of the entry's mesh data, written with it and checked when it is appended. Another model's entry put
under this name, or one with no objects, is dropped and made again from the glTF."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import bpy
import numpy as np

from tabletest.cache import user_cache

FORMAT = 2  # what an entry holds: the objects a glTF import made (meshes, materials, packed images), marked
MARK = "tabletest_model"  # custom property on each object: "<model sha256>:<mesh digest>"


def cache_dir() -> Path:
    return user_cache() / "models"


def model_digest(model: Path) -> str:
    return hashlib.sha256(model.read_bytes()).hexdigest()


def entry_path(digest: str) -> Path:
    return cache_dir() / f"{digest}-blender{bpy.app.version_string}-v{FORMAT}.blend"


def import_model(model: Path) -> list[bpy.types.Object]:
    """The model's objects, new in this file (in `bpy.data`'s order, as a glTF import leaves them): appended
    from the cache when it holds this model, else imported from its glTF and then kept in the cache."""
    digest = model_digest(model)
    entry = entry_path(digest)
    before = set(bpy.data.objects.keys())  # names: a set of the objects themselves took 0.3 s of 64 loads
    if entry.is_file():
        try:
            with bpy.data.libraries.load(str(entry), link=False) as (source, target):
                target.objects = source.objects
            appended = sorted((o for o in target.objects if o is not None), key=lambda o: bpy.data.objects.find(o.name))
            mark = _mark(digest, appended)  # once for them all: each object carries the same
            if appended and all(o.get(MARK) == mark for o in appended):
                return appended
        except (OSError, RuntimeError):  # unreadable (cut short by a full disk): import the glTF instead
            pass
        _remove(_new_since(before))  # another model's entry, or an empty one: made again below
    bpy.ops.import_scene.gltf(filepath=str(model))
    imported = _new_since(before)
    _keep(entry, imported, _mark(digest, imported))
    return imported


def _new_since(before: set[str]) -> list[bpy.types.Object]:
    """The objects named since `before`, in `bpy.data`'s order."""
    return [o for o in bpy.data.objects if o.name not in before]


def _mark(digest: str, objects: list[bpy.types.Object]) -> str:
    """The model's sha256 and a digest of the objects' mesh data (vertex positions and face sizes,
    independent of object names and order, which an append may change)."""
    meshes = []
    for obj in objects:
        if obj.type == "MESH":
            mesh = obj.data
            co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
            mesh.vertices.foreach_get("co", co)
            sizes = np.empty(len(mesh.polygons), dtype=np.int32)
            mesh.polygons.foreach_get("loop_total", sizes)
            meshes.append(hashlib.sha256(co.tobytes() + sizes.tobytes()).hexdigest())
    return f"{digest}:{hashlib.sha256(''.join(sorted(meshes)).encode()).hexdigest()}"


def _remove(objects: list[bpy.types.Object]) -> None:
    for obj in objects:
        data = obj.data
        bpy.data.objects.remove(obj)
        if isinstance(data, bpy.types.Mesh) and not data.users:
            bpy.data.meshes.remove(data)


def _keep(entry: Path, objects: list[bpy.types.Object], mark: str) -> None:
    """Write the entry, each object marked, under a temporary name and rename it into place; a cache that
    cannot be written (read-only, full) costs only the speed."""
    temporary = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
    for obj in objects:
        obj[MARK] = mark
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        bpy.data.libraries.write(str(temporary), set(objects), fake_user=False, compress=False)
        os.replace(temporary, entry)
    except (OSError, RuntimeError):
        temporary.unlink(missing_ok=True)
