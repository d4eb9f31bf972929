"""A labelled contact sheet of built models: each object rendered alone by a Blender subprocess
(`sheet_worker`), then laid out in a grid with its name under it (PIL).

Blender runs in its own process so the caller never imports bpy and its console output is captured;
on failure the last lines of that output are shown.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from tabletest.assets.manifest import load_manifest
from tabletest.config import Catalog
from tabletest.errors import UserError
from tabletest.files.jsonl import atomic_bytes
from tabletest.files.run_output import output_outside_datasets
from tabletest.assets.needed import needed_looks, refuse_unusable
from tabletest.assets.variants import load_looks, model_look
from tabletest.layout.variants import Variant
from tabletest.truth.facing import front_vector

BACKGROUND = (236, 236, 232)
LABEL_COLOR = (30, 30, 30)
TAIL_LINES = 15


def render_sheet(
    catalog: Catalog,
    assets_dir: Path,
    out_png: Path,
    only: Sequence[str] | None = None,
    cell: int = 256,
    columns: int | None = None,
    looks: int = 1,
    fronts: bool = False,
) -> Path:
    """Render the selected objects (all catalog objects by default) into one PNG grid at `out_png`; with
    `looks` above 1, each object in that many of its looks (`sheet_looks`), a row each; with `fronts`, each
    object with a front seen from higher up with an arrow on the table where the catalog says it faces. A folder
    at `out_png`, or a place inside a dataset, is refused before anything is rendered."""
    out_png = Path(out_png)
    if out_png.is_dir():
        raise UserError(f"{out_png} is a folder; give the sheet a file name, e.g. {out_png / 'sheet.png'}")
    output_outside_datasets(out_png, "the sheet")
    names = list(catalog.names) if only is None else [catalog.by_name(n).name for n in only]
    names = list(dict.fromkeys(names))
    manifest = load_manifest(assets_dir)
    missing = [n for n in names if n not in manifest.objects]
    if missing:
        listed = ",".join(missing)
        build = f"tabletest assets build --out {assets_dir}" + (f' --only "{listed}"' if only else "")
        shown = listed if len(missing) <= 5 else f"{len(missing)} objects ({','.join(missing[:5])}, ...)"
        raise UserError(f"not built in {assets_dir}: {shown}; run `{build}` first")
    for name in names:
        refuse_unusable(catalog, Path(assets_dir), manifest.objects[name])
    shown = [(n, manifest.objects[n], {}) for n in names]
    kinds = list(names)
    if looks > 1:
        variants = [v for n in names for v in sheet_looks(n, looks)]
        entries = needed_looks(catalog, Path(assets_dir), list({v.model.key: v.model for v in variants if v.model.number}.values()))
        entries.update((n, manifest.objects[n]) for n in names)
        palette = load_looks()
        shown = [
            (f"{v.label} {max(entries[v.model.key].size_m) * 100:.0f} cm", entries[v.model.key], palette.of(v.model.kind).tint(v.colour))
            for v in variants
        ]
        kinds = [v.model.kind for v in variants]
        columns = columns or looks
    with tempfile.TemporaryDirectory(prefix="tabletest-sheet-") as tmp:
        items = [
            {"glb": entry.path_in(Path(assets_dir)), "png": str(Path(tmp) / f"{i:03d}.png"), "tint": tint,
             "front": _front(catalog, kind) if fronts else None}
            for i, ((_, entry, tint), kind) in enumerate(zip(shown, kinds))
        ]  # fmt: skip
        job = Path(tmp) / "job.json"
        job.write_text(json.dumps({"cell": cell, "items": items}), encoding="utf-8")
        _run_worker(job)
        renders = [Image.open(item["png"]).convert("RGBA") for item in items]
        sheet = compose(renders, [label for label, _, _ in shown], cell, columns)
    png = io.BytesIO()
    sheet.save(png, format="PNG", optimize=True)
    atomic_bytes(out_png, png.getvalue())  # whole or not at all: a full disk leaves no temporary behind
    return out_png


def _front(catalog: Catalog, kind: str) -> list[float] | None:
    """Where the catalog says a kind faces in its model's frame (x, y), or None for one without a front."""
    entry = catalog.by_name(kind)
    return [round(float(v), 6) for v in front_vector(0.0, entry.front_deg)] if entry.has_front else None


def sheet_looks(kind: str, count: int) -> list[Variant]:
    """`count` looks of a kind that show what it may take: model i in colour i of its palette (its own first)."""
    colours = load_looks().of(kind).colour_names
    return [Variant(model_look(kind, i), colours[i % len(colours)] if colours else None) for i in range(count)]


def _run_worker(job: Path) -> None:
    command = [sys.executable, "-m", "tabletest.render.sheet_worker", str(job)]
    result = subprocess.run(command, check=False, capture_output=True, text=True, errors="replace")
    if result.returncode != 0:
        tail = (result.stdout + result.stderr).strip().splitlines()[-TAIL_LINES:]
        raise UserError(
            f"Blender failed to render the sheet (exit {result.returncode}); check that bpy imports "
            f"(`python -c 'import bpy'`) and the GLBs pass `tabletest assets check`. Last lines:\n" + "\n".join(tail)
        )


def compose(renders: Sequence[Image.Image], names: Sequence[str], cell: int, columns: int | None = None) -> Image.Image:
    """Lay renders out left to right, top to bottom, each over its name."""
    columns = columns or max(1, math.ceil(math.sqrt(len(renders))))
    rows = math.ceil(len(renders) / columns)
    font = ImageFont.load_default(size=max(8, cell // 12))
    label_h = int(font.size * 1.5)
    sheet = Image.new("RGB", (columns * cell, rows * (cell + label_h)), BACKGROUND)
    draw = ImageDraw.Draw(sheet)
    for i, (render, name) in enumerate(zip(renders, names)):
        x, y = (i % columns) * cell, (i // columns) * (cell + label_h)
        sheet.paste(render, (x, y), render)
        draw.text((x + cell / 2, y + cell + label_h / 2), name, fill=LABEL_COLOR, font=font, anchor="mm")
    return sheet
