"""The `tabletest` root: each command by name, its module imported only when that command runs or its own help
is asked, so `tabletest --help` and a mistyped flag answer at once; user mistakes as one clear line."""

from __future__ import annotations

import ast
import errno
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Iterator, MutableMapping
from pathlib import Path

import typer
from typer.core import TyperCommand, TyperGroup

import tabletest.commands.help_display  # noqa: F401  (switches shown without <bool>)
from tabletest import __version__
from tabletest.commands.examples import first_sentence, with_example
from tabletest.errors import Interrupted, UserError

# Every command as (module, name: a function, or a typer app for a group), in the order help lists them.
COMMANDS = {
    "catalog": ("tabletest.commands.catalog", "catalog"),
    "vignettes": ("tabletest.commands.vignettes", "vignettes"),
    "render": ("tabletest.commands.render", "render"),
    "kernels": ("tabletest.commands.render", "kernels"),
    "prompts": ("tabletest.commands.prompts", "prompts"),
    "questions": ("tabletest.commands.questions", "questions"),
    "score": ("tabletest.commands.score", "score"),
    "export": ("tabletest.commands.export", "export"),
    "merge": ("tabletest.commands.write", "merge"),
    "verify": ("tabletest.commands.verify", "verify"),
    "schema": ("tabletest.commands.write", "schema"),
    "show": ("tabletest.commands.show", "show"),
    "gallery": ("tabletest.commands.show", "gallery"),
    "assets": ("tabletest.commands.assets", "assets_app"),
    "slurm": ("tabletest.commands.slurm", "slurm_app"),
}


class _Commands(MutableMapping):
    """The group's commands by name, in the order help lists them; one in `COMMANDS` is made on first use."""

    def __init__(self, made: dict) -> None:
        self._made = dict(made)
        self._order = [*made, *COMMANDS]

    def made(self, name: str) -> bool:
        return name in self._made

    def __getitem__(self, name: str) -> typer.core.click.Command:
        if name not in self._made and name in COMMANDS:
            module, attribute = COMMANDS[name]
            self._made[name] = _click_command(name, getattr(importlib.import_module(module), attribute))
        return self._made[name]

    def __setitem__(self, name: str, command) -> None:
        self._made[name] = command
        if name not in self._order:
            self._order.append(name)

    def __delitem__(self, name: str) -> None:
        self._order.remove(name)
        self._made.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)


def _click_command(name: str, target):
    """What `app.command()` or `app.add_typer(name=...)` would have made of a function or a sub-app."""
    if isinstance(target, typer.Typer):
        group = typer.main.get_group(target)
        group.name = name
        return with_example(group, name)
    single = typer.Typer(add_completion=False)
    single.command(name=name)(target)
    return with_example(typer.main.get_command(single), name)


def summary(name: str) -> str | None:
    """A command's help as the root's list shows it (typer shows its first paragraph), read from its module's
    source without importing it: its function's docstring, or the `help=` of its group's `typer.Typer(...)`;
    None where the source does not say it plainly."""
    module, attribute = COMMANDS[name]
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return None
    for node in ast.parse(Path(spec.origin).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and node.name == attribute:
            return inspect.cleandoc(ast.get_docstring(node, clean=False) or "")
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [attribute]:
            given = {k.arg: k.value for k in getattr(node.value, "keywords", ())}
            if isinstance(given.get("help"), ast.Constant) and isinstance(given["help"].value, str):
                return given["help"].value
    return None


class _LazyGroup(TyperGroup):
    """The root group: a command is made (its module imported) when it runs or its help is asked; the root's
    own help lists the others by their summaries alone."""

    def __init__(self, **attrs) -> None:
        super().__init__(**attrs)
        self.commands = _Commands({name: with_example(c, name) for name, c in self.commands.items()})
        self._listing = False

    def list_commands(self, ctx) -> list[str]:
        return list(self.commands)  # typer's own reads every command, which would make them all

    def get_command(self, ctx, name: str):
        if self._listing and name in COMMANDS and not self.commands.made(name):
            shown = summary(name)
            if shown is not None:
                return TyperCommand(name, help=shown, short_help=first_sentence(shown))
        return self.commands.get(name)

    def format_help(self, ctx, formatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    help="TableTest: synthetic table-top scenes with exact spatial ground truth, prompts and scoring for VLMs.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    cls=_LazyGroup,
)


def _print_version(asked: bool) -> None:
    """Runs as the option is parsed, so `tabletest --version` needs no command."""
    if asked:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", help="Print the version and exit.", is_eager=True, callback=_print_version
    ),
) -> None:
    pass


# the UsageError of the click that typer uses (its own copy since typer 0.2x): parent of the public BadParameter
USAGE_ERROR = next(kind for kind in typer.BadParameter.__mro__ if kind.__name__ == "UsageError")


# What the file system refused: the user's to fix (space, quota, a read-only or forbidden place).
WRITE_FAILURES = {
    errno.ENOSPC: ("the disk is full", "free some space and rerun the same command (finished work is kept)"),
    errno.EDQUOT: ("the disk quota is used up", "free some space and rerun the same command (finished work is kept)"),
    errno.EFBIG: ("a file grew past the size this file system or process allows", "write to another file system"),
    errno.EROFS: ("the file system is read-only", "give an output path on a writable file system"),
    errno.EACCES: ("permission denied", "check its permissions, or give another path"),
    errno.EPERM: ("operation not permitted", "check its permissions, or give another path"),
}


def _write_failure(err: OSError) -> str:
    """One line naming the refused place: a copy's destination (`filename2`), not its source."""
    what, fix = WRITE_FAILURES[err.errno]
    where = err.filename2 or err.filename
    return f"{what}{f' at {where}' if where else ''}; {fix}"


def main() -> None:
    try:
        code = app(standalone_mode=False)  # usage errors come here, to be shown as one line like the rest
    except USAGE_ERROR as err:
        if type(err).__name__ == "NoArgsIsHelpError":  # `tabletest` alone: the help
            err.show()
            sys.exit(0)
        message = " ".join(err.format_message().replace("Value error, ", "").split())
        where = f" (see {err.ctx.command_path} --help)" if err.ctx else ""
        typer.echo(f"error: {message}{where}", err=True)
        sys.exit(2)
    except typer.Abort:  # Ctrl-C outside a render (a render says more: see `Interrupted`)
        typer.echo("interrupted; finished work is kept: run the same command again to go on", err=True)
        sys.exit(130)
    except UserError as err:
        typer.echo(f"error: {err}", err=True)
        sys.exit(2)
    except Interrupted as stop:
        typer.echo(str(stop), err=True)
        sys.exit(stop.exit_code)
    except BrokenPipeError:  # `tabletest vignettes | head` is fine
        sys.exit(0)
    except OSError as err:
        if err.errno not in WRITE_FAILURES:
            raise
        typer.echo(f"error: {_write_failure(err)}", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
