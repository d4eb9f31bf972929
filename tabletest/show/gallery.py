"""`tabletest gallery`: a render folder as a static site that opens from disk, offline, in any browser.

SITE/index.html pages through thumbnails of every image and filters them (object, number of objects,
relation, family, hidden objects, verify status); a click shows the image with its labels drawn on it,
its relations, what `tabletest verify` disputed, the questions asked of it with their gold answers, and
its record. Data is loaded as scripts (`data/*.js`), which a page opened from disk may do, where it may
not fetch JSON.

Thumbnails are made in parallel and kept: a second build (the folder grew, or the first was killed)
makes only the missing or outdated ones, judged by a digest of each image's bytes (an image replaced by
one with an older time stamp is still new). Images are hard-linked into SITE (copied across file
systems), so the site can move. A missing or unreadable image is marked, never fatal; a record naming a
file outside its folder, or an id that is no file name, is refused before anything is written, and so is a
folder of SITE that is a link out of it. A build stopped by a full disk leaves no temporary file, and the
next build continues it.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import hashlib
import io
import json
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from tabletest import __version__
from tabletest.config import Catalog, load_catalog
from tabletest.errors import UserError
from tabletest.files.dataset import RenderDataset
from tabletest.export.staging import place
from tabletest.files.images import open_image
from tabletest.show.gallery_data import Index, details
from tabletest.files.verdict import kept_verdict
from tabletest.write.orphans import end_with
from tabletest.files.jsonl import atomic_bytes
from tabletest.files.paths import no_link_out, record_id, record_path
from tabletest.files.temp import clean_stale
from tabletest.files.records import RenderRecord
from tabletest.truth.described import described

SITE_FILES = ("index.html", "gallery.js", "gallery.css")
MARKER = ".tabletest-gallery.json"  # written first: the folder is a gallery, finished or stopped (its render's folder)
THUMB_PX = 192  # the longer side of a thumbnail
DETAIL_CHUNK = 25  # scenes per details file: a click loads one (about 250 KiB)
DETAILS_MADE = "data/details-made.json"  # what each details file was made from, so a rebuild redoes only the changed
THUMBS_MADE = "data/thumbs-made.json"  # the digest of the image each thumbnail was made from, by scene id


@dataclass(frozen=True)
class Picture:
    """One image to place and shrink: where it is, where its copy and its thumbnail go, and the digest of
    the image the thumbnail there was made from (None: none was)."""

    scene: str
    source: Path
    placed: Path
    thumb: Path
    made_from: str | None = None


def build(
    render: RenderDataset, out: Path, per_page: int, workers: int, catalog: Path | None = None, chunk_size: int = DETAIL_CHUNK
) -> dict:
    """Thumbnails (only those missing or outdated) and the details of each `chunk_size` scenes, in parallel;
    then the index, which needs every image's state."""
    pictures = _pictures(render, out)
    _start(out, render.root, {p.placed.parent for p in pictures})
    kept = kept_verdict(render.root, (r.raw for r in render.records()))
    written = _read_json(out / DETAILS_MADE)  # chunk file -> the digest of what it was made from
    made_from: dict[str, str] = {}

    def changed_chunks() -> Iterator[Chunk]:
        """The chunks whose file is missing or was made from other records, verdicts or settings (streamed)."""
        for k, records in _batched(render.records(), chunk_size):
            notes = {r.id: kept.notes(r.id) for r in records if kept and kept.notes(r.id)}
            lines = [r.raw for r in records]  # what the page shows of each, as the folder holds it
            chunk = Chunk(out / "data" / f"details-{k // chunk_size:05d}.js", k // chunk_size, lines, notes, render.root, catalog)
            made_from[chunk.path.name] = chunk.digest()
            if written.get(chunk.path.name) != made_from[chunk.path.name] or not chunk.path.is_file():
                yield chunk

    with _pool(workers, len(pictures) + len(pictures) // chunk_size) as pool:
        states = list(_bounded(pool, _thumbnail, pictures, 64 * workers))
        for _ in _bounded(pool, _write_details, changed_chunks(), 2 * workers):
            pass
    atomic_bytes(out / DETAILS_MADE, json.dumps(made_from).encode())
    thumbs = {p.scene: digest for p, (_, digest, _) in zip(pictures, states) if digest is not None}
    atomic_bytes(out / THUMBS_MADE, json.dumps(thumbs).encode())
    index = Index()
    for record, (state, _, _) in zip(render.records(), states):
        index.add(record, "not verified" if kept is None else kept.state(record.id), state)
    _write_script(out / "data" / "index.js", "tabletestIndex(", index.document(per_page, chunk_size))
    for name in SITE_FILES:
        atomic_bytes(out / name, (resources.files("tabletest.show") / "site" / name).read_bytes())
    made = sum(new for _, _, new in states)
    return {
        "scenes": len(pictures), "thumbnails_made": made, "unusable": sum(1 for s in index.columns["image"] if s),
        "unreadable_verdicts": list(kept.unreadable) if kept else [],
    }  # fmt: skip


def _start(out: Path, dataset: Path, image_folders: set[Path]) -> None:
    """Before anything is written: refuse a folder the site writes in that is a link out of it; remove what a
    killed build left half-written; mark the folder a gallery, so that a build stopped before its index (a
    full disk) is continued by the next, not refused as a folder of other files."""
    folders = [out / "data", out / "thumbs", *sorted(image_folders)]
    for path in (out / MARKER, *(out / name for name in SITE_FILES), *folders):
        no_link_out(out, path, "a gallery")
    for folder in (out, *folders):
        clean_stale(folder)
    atomic_bytes(out / MARKER, json.dumps({"dataset": str(dataset.resolve())}).encode())


def _pictures(render: RenderDataset, out: Path) -> list[Picture]:
    """Every record's image and where it goes in the site, each path and id checked before anything is
    written (one naming a file outside the folder would be linked, and its copy in the site deleted)."""
    made_before = _read_json(out / THUMBS_MADE)
    pictures = []
    for record in render.records():
        scene = record_id(record.id)
        source = record_path(render.root, record.file_name, "file_name")
        placed, thumb = out / record.file_name, out / "thumbs" / f"{scene}.jpg"
        pictures.append(Picture(scene, source, placed, thumb, made_before.get(scene)))
    return pictures


@dataclass(frozen=True)
class Chunk:
    """The details of a few scenes, one file a click loads."""

    path: Path
    number: int
    records: list[dict]
    verdicts: dict[str, list[str]]
    folder: Path  # the render's: what describes a record from before records named their camera
    catalog: Path | None

    def digest(self) -> str:
        """What the chunk's file is made from: its records, their verdicts, the catalog and TableTest's version."""
        notes = [self.verdicts.get(r["id"]) for r in self.records]
        made_of = [__version__, str(self.catalog), self.records, notes]
        return hashlib.sha256(json.dumps(made_of, sort_keys=True).encode()).hexdigest()


@functools.cache
def _catalog(catalog: Path | None) -> Catalog:
    """Read once per process, not once per chunk."""
    return load_catalog(catalog)


def _write_details(chunk: Chunk) -> None:
    catalog = _catalog(chunk.catalog)
    scenes = [details(r, described(r, chunk.folder), chunk.verdicts.get(r["id"], []), catalog) for r in chunk.records]
    _write_script(chunk.path, f"tabletestDetails({chunk.number}, ", scenes)


def _batched(records: Iterable[RenderRecord], size: int) -> Iterator[tuple[int, list[RenderRecord]]]:
    """(position of the first, the next `size` records)."""
    batch: list[RenderRecord] = []
    start = 0
    for k, record in enumerate(records):
        if not batch:
            start = k
        batch.append(record)
        if len(batch) == size:
            yield start, batch
            batch = []
    if batch:
        yield start, batch


@contextlib.contextmanager
def _pool(workers: int, tasks: int) -> Iterator[ProcessPoolExecutor | None]:
    """Processes for a large build, which end with the build's own process even when it is killed; None (the
    calling process itself) for one worker or a handful of tasks."""
    if workers == 1 or tasks < 8:
        yield None
        return
    with ProcessPoolExecutor(workers, initializer=end_with, initargs=(os.getpid(),)) as pool:
        yield pool


def _bounded(pool: ProcessPoolExecutor | None, function, items: Iterable, in_flight: int) -> Iterator:
    """`function` of each item, in order, with at most `in_flight` items handed to the pool at a time (so a
    100,000-scene folder is never all in memory, nor all pickled at once)."""
    if pool is None:
        yield from map(function, items)
        return
    waiting: collections.deque = collections.deque()
    for item in items:
        waiting.append(pool.submit(function, item))
        if len(waiting) >= in_flight:
            yield waiting.popleft().result()
    while waiting:
        yield waiting.popleft().result()


def _digest(path: Path) -> str:
    """What a thumbnail is made from: the image's bytes (a time stamp can go back, or stay, as they change)."""
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _thumbnail(picture: Picture) -> tuple[str, str | None, int]:
    """Place the image in the site and write its thumbnail, unless one made from the same bytes is there:
    (the image's state, the digest its thumbnail is made from, 1 if made now). An image that cannot be
    read is left without, and a thumbnail of what it held before is removed."""
    if not picture.source.is_file():
        return "missing", None, 0
    try:
        digest = _digest(picture.source)
        if digest == picture.made_from and picture.thumb.is_file() and picture.placed.is_file():
            return "ok", digest, 0
        image = open_image(picture.source)
        image.thumbnail((THUMB_PX, THUMB_PX))
        small = image.convert("RGB")
    except (OSError, UserError):
        picture.thumb.unlink(missing_ok=True)
        return "unreadable", None, 0
    for folder in (picture.placed.parent, picture.thumb.parent):
        folder.mkdir(parents=True, exist_ok=True)
    picture.placed.unlink(missing_ok=True)  # an image rendered again replaces the one placed before
    place(picture.source, picture.placed)
    jpeg = io.BytesIO()
    small.save(jpeg, format="JPEG", quality=85)
    atomic_bytes(picture.thumb, jpeg.getvalue())  # a full disk leaves no temporary behind
    return "ok", digest, 1


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_script(path: Path, call: str, data) -> None:
    """`data` as a script calling the page's loader: `call(<json>);`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_bytes(path, f"{call}{json.dumps(data, separators=(',', ':'))});\n".encode())
