"""`tabletest assets credits`: who made each Objaverse model in an assets folder, for a dataset card.

CC BY requires naming the author, the title, the licence and a link; the lock file keeps all four for
every model a fetch accepted, and the manifest says which objects use one.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from tabletest.assets.manifest import load_manifest
from tabletest.assets.objaverse.lock import load_lock, lock_path
from tabletest.assets.objaverse.policy import describe
from tabletest.assets.variants import model_of_key
from tabletest.config import Catalog
from tabletest.errors import UserError, not_one_of

COLUMNS = ("object", "title", "author", "license", "license_url", "url", "uid")
FORMATS = ("markdown", "csv", "json")


def credit_rows(catalog: Catalog, assets_dir: Path) -> list[dict[str, str]]:
    """One row per object whose model came from Objaverse, in catalog order."""
    manifest, lock = load_manifest(assets_dir), load_lock(assets_dir)
    rows = []
    keys = [key for obj in catalog.objects for key in (obj.name, *sorted(k for k in manifest.looks if model_of_key(k)[0] == obj.name))]
    for key in keys:
        entry = manifest.model(key)
        if entry is None or entry.source != "objaverse":
            continue
        locked = lock.objects.get(key)
        if locked is None or locked.uid != entry.uid:
            raise UserError(
                f"{key!r} uses Objaverse model {entry.uid} but {lock_path(assets_dir)} does not record it; "
                f'run `tabletest assets fetch --only "{entry.name}"` to restore its credits'
            )
        license = describe(locked.license)
        rows.append(
            {
                "object": key,
                "title": locked.title,
                "author": locked.author,
                "license": license.title,
                "license_url": license.url,
                "url": locked.url,
                "uid": locked.uid,
            }
        )
    return rows


def render_credits(rows: list[dict[str, str]], fmt: str) -> str:
    """The rows as a Markdown table (for a dataset card), CSV or JSON."""
    if fmt == "json":
        return json.dumps(rows, indent=1, ensure_ascii=False) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()
    if fmt != "markdown":
        raise not_one_of("--format", fmt, list(FORMATS), "markdown")
    lines = [
        "| object | title | author | license | source |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        cells = [
            row["object"],
            row["title"],
            row["author"],
            f"[{row['license']}]({row['license_url']})" if row["license_url"] else row["license"],
            row["url"],
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
