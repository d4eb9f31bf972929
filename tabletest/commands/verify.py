"""`tabletest verify`: every label of a render checked against its own pixels, the verdict kept beside it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from tabletest.commands.options import DatasetArg, DatasetOpt, JsonOpt, dataset_folder, print_json

if TYPE_CHECKING:
    from tabletest.verify.audit import Audit


def verify(
    folder: DatasetArg = None,
    dataset: DatasetOpt = None,
    assets: Annotated[
        Optional[Path],
        typer.Option(help="The models the render used, for relations off the table plane (default: the folder its run names)."),
    ] = None,
    show: Annotated[
        Optional[Path],
        typer.Option("--show", help="Write DIR/<id>.png for each scene with a disagreement: its labels drawn on it, the disputed ones in red."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Audit a render folder against its own pixels: every label, box and file; exit 1 on any disagreement, 3 when
    some labels could not be checked (a partial verdict). The folder must be rendered with `--masks`."""
    from tabletest.files.paths import output_outside
    from tabletest.files.verdict import VERIFY_FILE, disputed_by_scene, write_verdicts
    from tabletest.verify.audit import audit, summary

    folder = dataset_folder(folder, dataset, "tabletest verify --dataset train/")
    if show is not None:
        output_outside(show, folder, "--show")
    result = audit(folder, assets)
    if as_json:
        print_json(verdict_json(result))
    else:
        for line in summary(result):
            typer.echo(line)
    try:
        write_verdicts(folder, result.images, result.disagreements, result.partial, result.files)
    except OSError as error:  # a read-only folder is verified all the same
        typer.echo(f"note: the verdict was not kept in {folder / VERIFY_FILE} ({error.strerror}); `tabletest gallery` will show these scenes as not verified", err=True)
    if show is not None and result.disagreements:
        from tabletest.files.dataset import RenderDataset
        from tabletest.show.pictures import write_disputed

        written = write_disputed(RenderDataset.open(folder), disputed_by_scene(result.disagreements), show)
        typer.echo(f"wrote {written} picture(s) of the disputed scenes to {show}")
    if result.disagreements:
        raise typer.Exit(1)
    if result.partial:  # no disagreement is not an agreement where a label could not be checked
        if not as_json:
            typer.echo(f"error: the verdict is partial, not every label was checked: {'; '.join(result.partial)}", err=True)
        raise typer.Exit(3)


def verdict_json(result: Audit) -> dict:
    """`verify --json`: the verdict (what the exit status says), what was checked, what disagreed and what could not be checked."""
    verdict = "disagrees" if result.disagreements else "partial" if result.partial else "agrees"
    return {
        "folder": str(result.root),
        "verdict": verdict,
        "images": result.images,
        "checked": dict(sorted(result.checked.items())),
        "disagreements": [{"id": sid, "check": check, "what": what} for sid, check, what in result.disagreements],
        "partial": result.partial,
        "not_checked": result.unchecked,
    }
