"""The optional `render` install: a command that needs it and lacks it says so in one line, before any work.

The base install (vignettes, prompts, scoring, exports) must fit into an evaluation environment, so
Blender, OpenEXR, OpenColorIO and objaverse come only with `pip install -e '.[render]'`.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys

from tabletest.errors import UserError

# The bpy builds on PyPI, one Python each (the render extra in pyproject.toml picks the same).
BPY_FOR_PYTHON = {(3, 11): "5.0.1", (3, 13): "5.2.3"}
INSTALL_RENDER = "pip install -e '.[render]'"


def require_render_extra(command: str, *modules: str, python: tuple[int, int] = sys.version_info[:2]) -> None:
    """Refuse `command` when one of `modules` (import names from the render extra) is not installed."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if not missing:
        return
    if "bpy" in missing and python not in BPY_FOR_PYTHON:
        builds = " or ".join(f"Python {'.'.join(map(str, v))} (bpy {b})" for v, b in BPY_FOR_PYTHON.items())
        raise UserError(
            f"`tabletest {command}` needs Blender's bpy, which PyPI has for {builds} but not for this "
            f"Python {'.'.join(map(str, python))}: make a venv with one of those and run {INSTALL_RENDER} in it"
        )
    raise UserError(
        f"`tabletest {command}` needs the render extra ({', '.join(missing)} not installed): run {INSTALL_RENDER}"
    )


def installed_bpy() -> str | None:
    """The installed bpy's version (from its metadata, without importing Blender), None if there is none."""
    try:
        return importlib.metadata.version("bpy")
    except importlib.metadata.PackageNotFoundError:
        return None
