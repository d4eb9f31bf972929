"""The `tabletest` command: one sub-command per pipeline stage, user mistakes as one clear line."""

from __future__ import annotations

import errno
import sys

import typer
from rich.console import Console
from rich.table import Table

from tabletest import __version__, cli_help  # noqa: F401  (cli_help: switches shown without <bool>)
from tabletest.assets.cli import assets_app
from tabletest.config import load_catalog
from tabletest.errors import Interrupted, UserError
from tabletest.export.cli import export
from tabletest.farm.cli import slurm_app
from tabletest.options import CatalogOpt
from tabletest.prompts.cli import prompts
from tabletest.prompts.hierarchy.cli import questions
from tabletest.render.cli import render
from tabletest.score.cli import score
from tabletest.truth.cli import verify, vignettes
from tabletest.write.cli import merge

app = typer.Typer(
    help="TableTest: synthetic table-top scenes with exact spatial ground truth, prompts and scoring for VLMs.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
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
def catalog(catalog: CatalogOpt = None) -> None:
    """List the object catalog (the order that defines every scene index)."""
    cat = load_catalog(catalog)
    table = Table(title=f"{len(cat)} objects")
    for column in ("#", "name", "kind", "group", "size (m)"):
        table.add_column(column, justify="right" if column in {"#", "size (m)"} else "left")
    for i, obj in enumerate(cat.objects):
        table.add_row(str(i), obj.name, obj.kind, obj.group, f"{obj.size_m:.3f}")
    Console().print(table)


app.command()(vignettes)
app.command()(render)
app.command()(prompts)
app.command()(questions)
app.command()(score)
app.command()(export)
app.command()(merge)
app.command()(verify)
app.add_typer(assets_app, name="assets")
app.add_typer(slurm_app, name="slurm")


# the UsageError of the click that typer uses (its own copy since typer 0.2x): parent of the public BadParameter
USAGE_ERROR = next(kind for kind in typer.BadParameter.__mro__ if kind.__name__ == "UsageError")


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
        if err.errno != errno.ENOSPC:
            raise
        where = f" writing {err.filename}" if err.filename else ""
        typer.echo(f"error: the disk is full{where}; free some space and rerun the same command (finished work is kept)", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
