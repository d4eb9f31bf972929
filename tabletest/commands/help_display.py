"""Help that reads right: typer's rich help (0.29) shows `<bool>` after every switch, although a switch
takes no value (`--masks true` is an error), and wraps a required argument in braces (`{out}`), which
reads as a template left unfilled, and it shows a repeatable value as `<list[Path]>`. Small overrides
of its display methods put these right.
"""

from __future__ import annotations

import re

import typer
from typer.core import TyperArgument, TyperOption

_option_type = getattr(TyperOption, "display_type_rich", None)
_argument_type = getattr(TyperArgument, "display_type_rich", None)
_LIST = re.compile(r"list\[(\w+)\]")


def _element_type(shown: str | None) -> str | None:
    """`<list[Path]>` -> `<path>...`: a repeatable value shown as one value that may repeat."""
    if shown is None or not _LIST.search(shown):
        return shown
    return _LIST.sub(lambda match: match.group(1).lower(), shown) + "..."


def _switch_has_no_type(self: TyperOption, ctx: typer.Context) -> str | None:
    return None if self.is_flag else _element_type(_option_type(self, ctx))


def _argument_type_readable(self: TyperArgument, ctx: typer.Context) -> str | None:
    return _element_type(_argument_type(self, ctx))


def _argument_as_written(self: TyperArgument) -> str:
    name = self.display_name_raw
    name = name if self.required else f"[{name}]"
    return name + ("..." if self.nargs != 1 else "")


if _option_type is not None:  # typers before 0.2x show no type after a switch
    TyperOption.display_type_rich = _switch_has_no_type
if _argument_type is not None:
    TyperArgument.display_type_rich = _argument_type_readable
if hasattr(TyperArgument, "_usage_display_name"):
    TyperArgument._usage_display_name = _argument_as_written
