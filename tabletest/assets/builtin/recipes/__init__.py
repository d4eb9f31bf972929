"""The registry of built-in recipes: every group module's `RECIPES`, merged into one name -> recipe map.

A recipe takes no arguments and returns the object's coloured parts (see `parts.py`), keyed by the
exact catalog name. Group modules are listed here in catalog order; a name defined twice is an error.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable

from tabletest.assets.builtin.parts import Part

Recipe = Callable[[], list[Part]]

GROUP_MODULES = ("produce", "food", "kitchen", "tool", "electronics", "home", "toy", "misc")


def _merge() -> dict[str, Recipe]:
    merged: dict[str, Recipe] = {}
    for group in GROUP_MODULES:
        module_name = f"{__name__}.{group}"
        if importlib.util.find_spec(module_name) is None:  # a group still being written
            continue
        for name, recipe in importlib.import_module(module_name).RECIPES.items():
            if name in merged:
                raise ValueError(f"recipe {name!r} is defined twice (again in {module_name})")
            merged[name] = recipe
    return merged


RECIPES: dict[str, Recipe] = _merge()
