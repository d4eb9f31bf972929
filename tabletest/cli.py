"""The `tabletest` command: one sub-command per pipeline stage, user mistakes as one clear line."""

from __future__ import annotations

import sys

from tabletest.render import early

early.start(sys.argv)  # `tabletest render`: Blender starts loading now, while the imports below run

import errno  # noqa: E402

import typer  # noqa: E402
from rich.console import Console
from rich.table import Table

from tabletest import __version__
from tabletest.assets.cli import assets_app
from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.export.cli import export
from tabletest.options import CatalogOpt
from tabletest.prompts.cli import prompts
from tabletest.render.cli import render
from tabletest.score.cli import score
from tabletest.truth.cli import verify, vignettes

app = typer.Typer(
    help="TableTest: synthetic table-top scenes with exact spatial ground truth, prompts and scoring for VLMs.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True),
) -> None:
    if version:
        typer.echo(__version__)
        raise typer.Exit()


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
app.command()(score)
app.command()(export)
app.command()(verify)
app.add_typer(assets_app, name="assets")


def main() -> None:
    try:
        app()
    except UserError as err:
        typer.echo(f"error: {err}", err=True)
        sys.exit(2)
    except BrokenPipeError:  # `tabletest vignettes | head` is fine
        sys.exit(0)
    except OSError as err:
        if err.errno != errno.ENOSPC:
            raise
        where = f" writing {err.filename}" if err.filename else ""
        typer.echo(f"error: the disk is full{where}; free some space and rerun the same command (finished work is kept)", err=True)
        sys.exit(2)
    finally:
        early.discard()  # a render that stopped before its run took the early worker


if __name__ == "__main__":
    main()
