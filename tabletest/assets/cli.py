"""`tabletest assets ...`: build, fetch, import, list, check and show the 3D models of the catalog."""

from __future__ import annotations

import typer

assets_app = typer.Typer(help="Build, fetch, import, list, check and show the object models.", no_args_is_help=True)
