"""`tabletest assets ...`: build, fetch, import, list, check and show the 3D models of the catalog."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from tabletest.assets.manifest import DEFAULT_ASSETS_DIR, AssetEntry, load_manifest
from tabletest.assets.limits import DEFAULT_MAX_TRIANGLES
from tabletest.assets.objaverse.policy import DEFAULT_LICENSES, DEFAULT_MAX_MB
from tabletest.cache import check_run_folders
from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.extras import require_render_extra
from tabletest.layout.selection import parse_only
from tabletest.options import CatalogOpt, JsonOpt, print_json

assets_app = typer.Typer(help="Build, fetch, import, list, check and show the object models.", no_args_is_help=True)


@assets_app.callback()
def _usable_cache() -> None:
    """A user cache that could keep no rest pose, verdict or column is one line before any model is made
    (import and fetch would say it once per model)."""
    check_run_folders()

NamesOpt = Annotated[
    Optional[str], typer.Option("--only", help="Comma-separated object names (default: every catalog object).")
]
AssetsOpt = Annotated[Path, typer.Option("--assets", help="Assets folder holding manifest.json and the GLBs.")]
MaxTrianglesOpt = Annotated[
    int, typer.Option("--max-triangles", min=1, help="Most triangles a model may have (larger ones are refused).")
]


@assets_app.command()
def build(
    only: NamesOpt = None,
    out: Annotated[Path, typer.Option("--assets", "--out", help="Assets folder to write the GLBs and manifest.json into.")] = DEFAULT_ASSETS_DIR,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Parallel processes (default: CPU count).")] = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Build over models fetched or imported into the folder (kept otherwise).")
    ] = False,
    catalog: CatalogOpt = None,
) -> None:
    """Build the objects procedurally (the built-in library); other manifest entries, and models fetched or imported, are kept."""
    from tabletest.assets.builtin.build import build_assets

    cat = load_catalog(catalog)
    names = [o.name for o in cat.select(parse_only(only))]
    held = load_manifest(out).objects
    kept = [] if replace else [n for n in names if n in held and held[n].source != "builtin"]
    if kept:
        shown = ", ".join(f"{n} ({held[n].source})" for n in kept)
        typer.echo(f"kept {shown}: fetched or imported, not built over; give --replace to build the built-in model over it", err=True)
        names = [n for n in names if n not in kept]
        if not names:
            return
    start = time.perf_counter()
    count = 0

    def report(entry) -> None:
        nonlocal count
        count += 1
        typer.echo(f"  {entry.name:<14} {entry.triangles:>6} triangles  {entry.file}", err=True)

    build_assets(cat, out, names, jobs, progress=report)
    typer.echo(f"built {count} objects into {out} in {time.perf_counter() - start:.1f} s", err=True)


@assets_app.command("list")
def list_assets(assets: AssetsOpt = DEFAULT_ASSETS_DIR, catalog: CatalogOpt = None, as_json: JsonOpt = False) -> None:
    """List what is built, from the manifest, in catalog order; say which catalog objects are missing."""
    cat = load_catalog(catalog)
    manifest = load_manifest(assets)
    names = [n for n in cat.names if n in manifest.objects] + sorted(set(manifest.objects) - set(cat.names))
    missing = [n for n in cat.names if n not in manifest.objects]
    if as_json:
        listed = [_listed(manifest.objects[name]) for name in names]
        print_json({"folder": str(assets), "objects": listed, "missing": missing})
        return
    table = Table(title=f"{assets}/manifest.json")
    for column in ("name", "source", "size x×y×z (m)", "triangles", "materials", "file"):
        table.add_column(column, justify="right" if column in {"triangles", "materials"} else "left")
    for name in names:
        e = manifest.objects[name]
        size = "×".join(f"{v:.3f}" for v in e.size_m)
        table.add_row(name, e.source, size, str(e.triangles), str(len(e.materials)), e.file)
    Console().print(table)
    if missing:
        typer.echo(f"{len(missing)} catalog objects not built: {', '.join(missing)}; run `tabletest assets build`", err=True)


def _listed(entry: AssetEntry) -> dict:
    """One model as `assets list --json` gives it."""
    return {
        "name": entry.name, "source": entry.source, "size_m": list(entry.size_m), "triangles": entry.triangles,
        "materials": len(entry.materials), "file": entry.file, "sha256": entry.sha256,
    }


@assets_app.command()
def check(
    only: NamesOpt = None,
    assets: AssetsOpt = DEFAULT_ASSETS_DIR,
    max_triangles: MaxTrianglesOpt = DEFAULT_MAX_TRIANGLES,
    catalog: CatalogOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Verify every model: present, pinned bytes, loads, triangle and texture limits, a visible surface,
    catalog size, canonical frame. Render uses only models that pass."""
    from tabletest.assets.check import check_assets

    cat = load_catalog(catalog)
    names = parse_only(only)
    problems = check_assets(cat, assets, names, max_triangles)
    checked = len(cat.select(names))
    if as_json:
        print_json({"folder": str(assets), "checked": checked, "problems": [{"name": p.name, "problem": str(p)} for p in problems]})
        raise typer.Exit(1 if problems else 0)
    for problem in problems:
        typer.echo(f"error: {problem}", err=True)
    if problems:
        typer.echo(f"{len({p.name for p in problems})} of {checked} objects have problems", err=True)
        raise typer.Exit(1)
    typer.echo(f"all {checked} objects OK in {assets}")


@assets_app.command()
def sheet(
    out: Annotated[Path, typer.Argument(metavar="OUT.png", help="PNG file to write.")],
    only: NamesOpt = None,
    assets: AssetsOpt = DEFAULT_ASSETS_DIR,
    cell: Annotated[int, typer.Option("--cell", min=16, help="Pixels per object render.")] = 256,
    columns: Annotated[Optional[int], typer.Option("--columns", min=1, help="Grid columns (default: square).")] = None,
    looks: Annotated[
        int, typer.Option("--looks", min=1, max=64, help="Looks of each object, side by side (model n in its palette's colour n; 1: the catalog model).")
    ] = 1,
    fronts: Annotated[bool, typer.Option("--fronts", help="An arrow on the table where each object with a front faces (has_front, front_deg), seen from higher up.")] = False,
    catalog: CatalogOpt = None,
) -> None:
    """Render a labelled contact sheet, each object alone in three-quarter view (Blender Workbench)."""
    from tabletest.render.sheet import render_sheet

    require_render_extra("assets sheet", "bpy")
    cat = load_catalog(catalog)
    start = time.perf_counter()
    render_sheet(cat, assets, out, parse_only(only), cell, columns, looks, fronts)
    typer.echo(f"wrote {out} in {time.perf_counter() - start:.1f} s", err=True)


@assets_app.command()
def fetch(
    only: NamesOpt = None,
    out: Annotated[Path, typer.Option("--assets", "--out", help="Assets folder to write the GLBs, manifest.json and objaverse.lock.json into.")] = DEFAULT_ASSETS_DIR,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Objects fetched at once.")] = 4,
    mirror: Annotated[Optional[str], typer.Option("--mirror", help="Hugging Face mirror base URL (default: $HF_ENDPOINT, else https://huggingface.co).")] = None,
    licenses: Annotated[str, typer.Option("--licenses", help="Allowed licences: by, by-sa, by-nd, by-nc, by-nc-sa, by-nc-nd, cc0.")] = DEFAULT_LICENSES,
    max_mb: Annotated[float, typer.Option("--max-mb", min=0.001, help="Largest GLB accepted, in MB.")] = DEFAULT_MAX_MB,
    max_triangles: MaxTrianglesOpt = DEFAULT_MAX_TRIANGLES,
    cache: Annotated[Optional[Path], typer.Option("--cache", help="Download cache (default: objaverse's own, hf-objaverse-v1 in ~/.objaverse).")] = None,
    timeout: Annotated[float, typer.Option("--timeout", min=0.1, help="Seconds without data before a try fails.")] = 60.0,
    tries: Annotated[int, typer.Option("--tries", min=1, help="Tries per file, waiting 1 s after the first failure, then twice as long after each.")] = 4,
    per_object: Annotated[
        int, typer.Option("--per-object", min=1, max=64, help="Models kept per object, each passing every check: random scenes with looks.models draw among them.")
    ] = 1,
    catalog: CatalogOpt = None,
) -> None:
    """Download real models from Objaverse, check, pin (objaverse.lock.json), normalise and store them."""
    require_render_extra("assets fetch", "objaverse")
    from tabletest.assets.objaverse.fetch import fetch_assets
    from tabletest.assets.objaverse.hub import Network, session
    from tabletest.assets.objaverse.lock import lock_path
    from tabletest.assets.objaverse.policy import Policy, parse_licenses

    cat = load_catalog(catalog)
    names = parse_only(only)
    policy = Policy(parse_licenses(licenses), int(max_mb * 1e6), max_triangles)
    with session(mirror, cache, Network(timeout_s=timeout, tries=tries)) as hub:
        report = fetch_assets(cat, out, hub, policy, names, jobs, log=lambda line: typer.echo(line, err=True), per_object=per_object)
    more = f" and {len(report.more)} more models of them" if per_object > 1 else ""
    _finish(f"fetched {len(report.fetched)} objects{more} into {out} (pinned in {lock_path(out)})", report.failed)


@assets_app.command("import")
def import_dir(
    folder: Annotated[Path, typer.Argument(help="Folder of GLB / glTF / OBJ / PLY files named after catalog objects.")],
    only: NamesOpt = None,
    out: Annotated[Path, typer.Option("--assets", "--out", help="Assets folder to write the GLBs and manifest.json into.")] = DEFAULT_ASSETS_DIR,
    max_triangles: MaxTrianglesOpt = DEFAULT_MAX_TRIANGLES,
    catalog: CatalogOpt = None,
) -> None:
    """Normalise your own model files (no internet needed) exactly like downloaded ones."""
    from tabletest.assets.importer import import_folder

    cat = load_catalog(catalog)
    report = import_folder(
        cat, folder, out, parse_only(only), max_triangles=max_triangles, log=lambda line: typer.echo(line, err=True)
    )
    _finish(f"imported {len(report.imported)} objects from {folder} into {out}", report.failed)


def _finish(done: str, failed: dict[str, str]) -> None:
    """Say what a fetch or import did; objects left out make it a UserError naming them."""
    if failed:
        raise UserError(f"{done}, but {len(failed)} failed: {', '.join(sorted(failed))}; the lines above give each reason and fix")
    typer.echo(done, err=True)


@assets_app.command()
def credits(
    assets: AssetsOpt = DEFAULT_ASSETS_DIR,
    fmt: Annotated[str, typer.Option("--format", help="markdown (for a dataset card), csv or json.")] = "markdown",
    catalog: CatalogOpt = None,
) -> None:
    """Print who made each Objaverse model in use: object, title, author, licence, URL."""
    from tabletest.assets.objaverse.credits import credit_rows, render_credits

    typer.echo(render_credits(credit_rows(load_catalog(catalog), assets), fmt), nl=False)
