"""The `tabletest` command: one sub-command per pipeline stage, user mistakes as one clear line."""

from __future__ import annotations

import errno
import importlib
import sys
from collections.abc import Iterator, MutableMapping

import typer
from typer.core import TyperGroup

from tabletest import __version__
import tabletest.commands.help_display  # noqa: F401  (switches shown without <bool>)
from tabletest.commands.examples import with_example
from tabletest.config import load_catalog
from tabletest.errors import Interrupted, UserError
from tabletest.commands.options import CatalogOpt, JsonOpt, print_json

# Every other command, as (module, name): imported when it runs (or help lists it), so that `tabletest
# render` does not spend its start-up importing what scoring, exports and the farm need.
COMMANDS = {
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


class _LazyGroup(TyperGroup):
    def __init__(self, **attrs) -> None:
        super().__init__(**attrs)
        self.commands = _Commands({name: with_example(c, name) for name, c in self.commands.items()})


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


@app.command()
def catalog(catalog: CatalogOpt = None, as_json: JsonOpt = False) -> None:
    """List the object catalog (the order that defines every scene index)."""
    from rich.console import Console
    from rich.table import Table

    cat = load_catalog(catalog)
    if as_json:
        print_json({"objects": [{"index": i, "name": o.name, "kind": o.kind, "group": o.group, "size_m": o.size_m} for i, o in enumerate(cat.objects)]})
        return
    table = Table(title=f"{len(cat)} objects")
    for column in ("#", "name", "kind", "group", "size (m)"):
        table.add_column(column, justify="right" if column in {"#", "size (m)"} else "left")
    for i, obj in enumerate(cat.objects):
        table.add_row(str(i), obj.name, obj.kind, obj.group, f"{obj.size_m:.3f}")
    Console().print(table)


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
