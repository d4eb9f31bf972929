"""The registry of built-in recipes: every group module's `RECIPES`, merged into one name -> recipe map.

A recipe takes no arguments and returns the object's coloured parts (see `parts.py`), keyed by the
exact catalog name. A name defined by two group modules is an error.
"""

from __future__ import annotations

from collections.abc import Callable

from tabletest.assets.builtin.parts import Part
from tabletest.assets.builtin.recipes import electronics, food, home, kitchen, misc, produce, tool, toy

Recipe = Callable[[], list[Part]]

GROUPS = (produce, food, kitchen, tool, electronics, home, toy, misc)


def _merge() -> dict[str, Recipe]:
    merged: dict[str, Recipe] = {}
    for module in GROUPS:
        for name, recipe in module.RECIPES.items():
            if name in merged:
                raise ValueError(f"recipe {name!r} is defined twice (again in {module.__name__})")
            merged[name] = recipe
    return merged


RECIPES: dict[str, Recipe] = _merge()
