"""The HDRIs that ship inside the bpy wheel (`bpy/<version>/datafiles/studiolights/world/*.exr`, CC0,
Poly Haven; a licence file beside them), found without importing bpy so a run can be checked first."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tabletest.errors import UserError


def hdri_folder() -> Path | None:
    """The wheel's studio-light world folder, whatever Blender version folder it sits in; None without bpy."""
    spec = importlib.util.find_spec("bpy")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for folder in sorted(Path(root).glob("*/datafiles/studiolights/world")):
            return folder
    return None


def check_hdris(names: tuple[str, ...]) -> None:
    """Refuse, in one line, an HDRI name the installed Blender does not have."""
    folder = hdri_folder()
    if folder is None:
        raise UserError("random scenes light with the HDRIs inside the bpy wheel, and bpy is not installed; install bpy==5.0.1")
    have = sorted(p.stem for p in folder.glob("*.exr"))
    missing = [n for n in names if n not in have]
    if missing:
        raise UserError(
            f"world.hdris names {', '.join(repr(n) for n in missing)}, which {folder} lacks; use some of: {', '.join(have)}"
        )
