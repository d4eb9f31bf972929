"""Help that reads right: typer's rich help (0.29) shows `<bool>` after every switch, although a switch
takes no value (`--masks true` is an error), and wraps a required argument in braces (`{out}`), which
reads as a template left unfilled. Two small overrides of its display methods put both right.
"""

from __future__ import annotations

import typer
from typer.core import TyperArgument, TyperOption

_option_type = getattr(TyperOption, "display_type_rich", None)


def _switch_has_no_type(self: TyperOption, ctx: typer.Context) -> str | None:
    return None if self.is_flag else _option_type(self, ctx)


def _argument_as_written(self: TyperArgument) -> str:
    name = self.display_name_raw
    name = name if self.required else f"[{name}]"
    return name + ("..." if self.nargs != 1 else "")


if _option_type is not None:  # typers before 0.2x show no type after a switch
    TyperOption.display_type_rich = _switch_has_no_type
if hasattr(TyperArgument, "_usage_display_name"):
    TyperArgument._usage_display_name = _argument_as_written
