"""The user's cache folder, where TableTest keeps what any run may reuse (layers, model verdicts, rest poses,
a model's columns and footprint, imported models).

A file standing where the cache keeps a folder, or a folder where it keeps a file, is refused in one line
naming it: nothing could be kept there, so every run would measure again without saying why, or stop
where it writes (a layer cache holds the renders composite mode needs)."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from tabletest.errors import UserError

RUN_FOLDERS = ("verdicts", "rest-poses", "columns", "models", "footprints")  # what a render or an assets command keeps
MOVE = "move it aside, or set XDG_CACHE_HOME to another folder"
# An entry of those folders: named by a sha256 (a model's bytes or triangles, a verdict's inputs), then what
# else keys it, as a file of its kind (`<sha256>.json`, `<sha256>-<rule>.npz`, `<sha256>-blender5.0.1-v2.blend`).
ENTRY = re.compile(r"^[0-9a-f]{64}[^/]*\.(?:json|npz|blend)$")


def user_cache() -> Path:
    """`$XDG_CACHE_HOME/tabletest`, else `~/.cache/tabletest`."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tabletest"


def default_layer_cache() -> Path:
    """Where composite mode keeps its layer renders unless `--layer-cache` says otherwise."""
    return user_cache() / "layers"


def cache_folder(name: str) -> Path:
    """The user's cache folder `name` (one of `RUN_FOLDERS`), refused where a file stands in its place or
    in that of a folder above it."""
    folder = user_cache() / name
    check_folder(folder, f"TableTest's cache {folder}", MOVE)
    return folder


def check_run_folders() -> None:
    """Refuse, before any work, a cache whose folders a render or an assets command could not write to
    (some are written only by Blender workers, where a refusal would fail each image instead), or that
    holds a folder under an entry's name: which entries a run writes is known only once it has built or
    measured the models they are named by, so every such name is checked now."""
    for name in RUN_FOLDERS:
        folder = cache_folder(name)
        with contextlib.suppress(FileNotFoundError), os.scandir(folder) as entries:
            for entry in entries:
                if ENTRY.match(entry.name) and entry.is_dir():
                    cache_entry(Path(entry.path))


def check_folder(folder: Path, what: str, fix: str) -> None:
    """Refuse `folder` in one line where it, or a folder above it, is something else than a folder."""
    for path in (folder, *folder.parents):
        if path.is_dir():
            return
        if path.exists() or path.is_symlink():
            raise UserError(f"{path} is not a folder, so {what} cannot be kept in it; {fix}")


def cache_entry(path: Path, fix: str = MOVE) -> Path:
    """An entry of the cache (a file), refused where a folder stands in its place: it could never be written."""
    if path.is_dir():
        raise UserError(f"{path} is a folder where TableTest's cache keeps a file; {fix}")
    return path
