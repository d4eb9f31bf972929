"""The output folder of a render run, kept consistent through kills and reruns.

Commit protocol for one image: the worker writes `images/.<id>.png.tmp` (and, with masks,
`masks/.<id>.png.tmp` and `depth/.<id>.png.tmp`); the writer appends the metadata line (flushed to disk), then renames the
PNGs into place. The metadata line is the commit point, so on restart `recover` can finish or undo
any image caught half-way: no half-written image is ever kept, nothing complete is rendered again,
and metadata has exactly one line per image.

A render deletes only what it wrote itself and can prove it: files under its own names (an image id, its
temporary and hand-over names) in its own image folders, and only in a folder that is a render's. A
folder holding anything else is refused before any work (`check_render_folder`), and so is a link out of the
folder where a render writes (`images/` a link to someone's pictures would have them replaced).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
from pathlib import Path

from PIL import Image

from tabletest.errors import UserError
from tabletest.files.family import IMAGE_ID
from tabletest.files.jsonl import UnfitNumber, atomic_output, bounded_lines, dumps, loads
from tabletest.files.lock import LOCK
from tabletest.files.paths import no_link_out, output_outside
from tabletest.files.settings import SETTINGS

METADATA = "metadata.jsonl"
FAILURES = "failures.jsonl"
RUN = "run.json"
IMAGE_FOLDERS = ("images", "masks", "depth")
# What a render writes in its image folders: `<id>.png`, and while an image is on its way `.<id>.png.tmp`
# with the worker's hand-over files beside it (the raw TIFF, the passes, the silhouettes).
_OWN_FINAL = re.compile(rf"^(?P<id>{IMAGE_ID})\.png$")
_OWN_TEMPORARY = re.compile(rf"^\.(?P<id>{IMAGE_ID})\.png\.tmp(?:\.tif|\.passes\.exr|\.silhouettes\.npz)?$")
# What a render that stopped before writing its settings may have left in a new folder.
_STARTED = frozenset({LOCK, "logs", *IMAGE_FOLDERS})
# Every file and folder a render writes in its folder (a merge too): none may be a link out of it.
WRITTEN = (*IMAGE_FOLDERS, "logs", METADATA, FAILURES, RUN, SETTINGS, LOCK)


class RunOutput:
    def __init__(self, root: Path, masks: bool = False) -> None:
        self.root = Path(root)
        self.images = self.root / "images"
        self.masks = self.root / "masks"
        self.depth = self.root / "depth"
        self.with_masks = masks
        self.metadata_path = self.root / METADATA
        self.failures_path = self.root / FAILURES
        self._metadata = None
        self._failures = None
        self._runs: list[dict] = []
        self.set_aside: list[tuple[Path, Path]] = []  # (where, to where): files under images' names no record holds

    def tmp_image(self, scene_id: str) -> Path:
        return self.images / f".{scene_id}.png.tmp"

    def final_image(self, scene_id: str) -> Path:
        return self.images / f"{scene_id}.png"

    def tmp_mask(self, scene_id: str) -> Path:
        return self.masks / f".{scene_id}.png.tmp"

    def final_mask(self, scene_id: str) -> Path:
        return self.masks / f"{scene_id}.png"

    def tmp_depth(self, scene_id: str) -> Path:
        return self.depth / f".{scene_id}.png.tmp"

    def final_depth(self, scene_id: str) -> Path:
        return self.depth / f"{scene_id}.png"

    def _files(self, record: dict) -> list[tuple[Path, Path]]:
        """(final, temporary) paths of a record's image and, if it has them, its mask and depth."""
        sid = record["id"]
        files = [(self.final_image(sid), self.tmp_image(sid))]
        if "mask_file_name" in record:
            files.append((self.final_mask(sid), self.tmp_mask(sid)))
        if "depth_file_name" in record:
            files.append((self.final_depth(sid), self.tmp_depth(sid)))
        return files

    def recover(self) -> set[str]:
        """Bring the folder to a consistent state after any interruption; return the ids that are complete.
        Only the render's own files are removed: a temporary file under its own names, and an image whose record
        (which names it) is not whole. A file under an image's name that no record names was not written by a
        render, which writes an image's file only after its record: it is set aside (`set_aside`), never
        replaced by that image. Anything else in its folders is left where it is."""
        for folder in (self.images, *((self.masks, self.depth) if self.with_masks else ())):
            folder.mkdir(parents=True, exist_ok=True)
        kept: list[str] = []
        done: set[str] = set()
        named: set[str] = set()  # the ids whole records name: files under their names are the render's
        changed = False
        if self.metadata_path.exists():
            with open(self.metadata_path, "rb") as fh:
                for number, raw in enumerate(bounded_lines(fh, self.metadata_path), start=1):
                    line = raw.decode("utf-8", errors="replace")
                    record = _parse(line, self.metadata_path, number)
                    if record is None or record["id"] in done:
                        changed = True
                        continue
                    named.add(record["id"])
                    files = self._files(record)
                    for final, tmp in files:
                        if not final.exists() and _decodes(tmp):
                            os.replace(tmp, final)
                    if all(final.exists() for final, _ in files):
                        kept.append(line if line.endswith("\n") else line + "\n")
                        done.add(record["id"])
                    else:
                        changed = True
        if changed:
            with atomic_output(self.metadata_path) as fh:
                fh.writelines(kept)
        self.discard_temporaries()
        for folder in (self.images, self.masks, self.depth):
            for path in folder.iterdir() if folder.is_dir() else ():
                own = _OWN_FINAL.match(path.name)
                if own and own["id"] not in done and path.is_file():
                    if own["id"] in named:
                        path.unlink()
                    else:
                        self.set_aside.append((path, _set_aside(path)))
        return done

    def discard_temporaries(self) -> list[Path]:
        """Remove every temporary and hand-over file, so that a run stopped by a full disk leaves no hidden file
        holding the space it asks the user to free; only once each committed image was moved into place (a
        whole run's were with their commits; `recover` moves those a signal cut short). Returns what it removed."""
        removed = []
        for folder in (self.images, self.masks, self.depth):
            for path in folder.iterdir() if folder.is_dir() else ():
                if _OWN_TEMPORARY.match(path.name) and path.is_file():
                    path.unlink(missing_ok=True)
                    removed.append(path)
        return removed

    def open(self) -> None:
        self._metadata = open(self.metadata_path, "a", encoding="utf-8")
        self._failures = open(self.failures_path, "w", encoding="utf-8")

    def commit(self, record: dict) -> None:
        """Append the record (the commit point), then move the finished PNGs into place."""
        self._metadata.write(dumps(record) + "\n")
        self._metadata.flush()
        os.fsync(self._metadata.fileno())
        for final, tmp in self._files(record):
            os.replace(tmp, final)

    def committed(self) -> int:
        """How many images the folder keeps: records wholly on disk (a rerun finishes any caught mid-rename)."""
        if not self.metadata_path.exists():
            return 0
        with open(self.metadata_path, "rb") as fh:
            return sum(1 for line in fh if line.endswith(b"\n"))

    def fail(self, failure: dict) -> None:
        self._failures.write(dumps(failure) + "\n")
        self._failures.flush()

    def close(self, sort: bool) -> None:
        """Close the files; with `sort`, rewrite metadata in index order (a scene's views and partners, which share
        its index, after it by id) so reruns give the same bytes."""
        with contextlib.ExitStack() as closing:  # each is closed, even when the other's last write finds a full disk
            for fh in (self._metadata, self._failures):
                if fh:
                    closing.callback(fh.close)
        if sort and self.metadata_path.exists():
            with open(self.metadata_path, encoding="utf-8") as fh:
                lines = fh.readlines()
            lines.sort(key=_order)
            with atomic_output(self.metadata_path) as out:
                out.writelines(lines)

    def start_run(self, info: dict) -> None:
        """Append this invocation's record to the folder's run history."""
        self._runs = read_runs(self.root) + [info]
        self._write_runs()

    def update_run(self, info: dict) -> None:
        """Replace this invocation's record (the last one) with `info`."""
        self._runs[-1] = info
        self._write_runs()

    def _write_runs(self) -> None:
        with atomic_output(self.root / RUN) as fh:
            fh.write(json.dumps({"runs": self._runs}, indent=2, allow_nan=False) + "\n")


def check_render_folder(root: Path) -> None:
    """`--out` must be new, empty, or a render's folder (its settings, or from before them its records and run
    history): a render never writes into, nor cleans up, a folder of someone else's files. The refusal
    names what is there."""
    root = Path(root)
    if not root.exists():
        return
    if not root.is_dir():
        raise UserError(f"--out {root} is a file; give a folder (new, or an earlier render to continue)")
    for name in WRITTEN:
        no_link_out(root, root / name, "a render")
    if (root / SETTINGS).exists() or ((root / METADATA).is_file() and last_render_run(root) is not None):
        for name in (*IMAGE_FOLDERS, "logs"):
            if (root / name).exists() and not (root / name).is_dir():
                raise UserError(f"{root / name} is a file where a render keeps its {name}; move it aside and rerun")
        return
    others = _foreign_entries(root)
    if others:
        shown = ", ".join(str(path.relative_to(root)) for path in others[:3])
        more = " and more" if len(others) > 3 else ""
        raise UserError(
            f"--out {root} holds files no tabletest render wrote ({shown}{more}); a render writes only into a new or "
            "empty folder or an earlier render's: give another --out"
        )


def output_outside_datasets(out: Path, flag: str) -> Path:
    """`out`, refused (`output_outside`) where it lies in a dataset (a folder of records, or a render's begun) of a
    command that reads none: what it writes must not replace an image or a record of one."""
    for folder in (resolved := Path(out).resolve(), *resolved.parents):
        if (folder / METADATA).is_file() or (folder / SETTINGS).is_file():
            output_outside(out, folder, flag)
    return Path(out)


def _foreign_entries(root: Path, at_most: int = 4) -> list[Path]:
    """Up to `at_most` entries of `root` that a render just begun there would not have made (its lock, and its
    folders while empty): files first, in name order."""
    found: list[Path] = []
    for entry in sorted(root.iterdir(), key=lambda p: (p.is_dir(), p.name)):
        if entry.name == LOCK and entry.is_file():
            continue
        if entry.name in _STARTED and entry.is_dir() and not entry.is_symlink():
            found += sorted(itertools.islice(entry.iterdir(), at_most))
        else:
            found.append(entry)
        if len(found) >= at_most:
            break
    return found[:at_most]


def last_render_run(root: Path) -> dict | None:
    """The latest run that rendered into `root` (with the config it rendered with): a merge's own run,
    recorded after its parts', has none."""
    return next((run for run in reversed(read_runs(root)) if "config" in run), None)


def read_runs(root: Path) -> list[dict]:
    """Every invocation's record in `root/run.json`, oldest first (a run.json from before the history
    was kept, a single record, counts as one)."""
    path = Path(root) / RUN
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UserError(f"{path} is damaged ({err}); move it aside and rerun (the images are kept)") from None
    runs = data["runs"] if isinstance(data, dict) and "runs" in data else [data]
    if not isinstance(runs, list) or not all(isinstance(run, dict) for run in runs):
        raise UserError(f'{path} is not a run history ({{"runs": [{{...}}, ...]}}); move it aside and rerun (the images are kept)')
    return runs


def _parse(line: str, path: Path, number: int) -> dict | None:
    """A whole record line's record; None for a line torn by a kill mid-write. A record that names no image of
    a render is refused: its id decides which files recovery moves and removes."""
    if not line.endswith("\n"):
        return None
    try:
        record = loads(line)
    except json.JSONDecodeError:
        return None
    except UnfitNumber as err:
        raise UserError(f"{path}: line {number}: {err}; remove that line, then rerun") from None
    sid = record.get("id") if isinstance(record, dict) else None
    if not (isinstance(sid, str) and _OWN_FINAL.match(f"{sid}.png")):
        raise UserError(
            f"{path}: line {number} names {str(sid)[:80]!r}, which is not an image id a render gives; "
            "remove that line (or restore the file), then rerun"
        )
    return record


def _set_aside(path: Path) -> Path:
    """Rename `path` to a free name beside it that no image has (`<id>.png.set-aside`, `-2`, ...); return it."""
    number, target = 1, path.with_name(f"{path.name}.set-aside")
    while os.path.lexists(target):
        number += 1
        target = path.with_name(f"{path.name}.set-aside-{number}")
    os.rename(path, target)
    return target


def set_aside_note(root: Path, moved: list[tuple[Path, Path]]) -> str | None:
    """The line that says which files a render set aside, and where (None where it set none aside)."""
    if not moved:
        return None
    shown = ", ".join(f"{path.relative_to(root)} to {target.name}" for path, target in moved[:3])
    more = f" (and {len(moved) - 3} more, each to its name and .set-aside)" if len(moved) > 3 else ""
    return (
        f"note: set aside {len(moved)} file(s) under the names of images no record in {root / METADATA} holds, which "
        f"no render wrote (it writes an image only with its record) and this one would have replaced: {shown}{more}"
    )


def _decodes(path: Path) -> bool:
    """A PNG that is whole: decodes to the end."""
    if not path.exists():
        return False
    try:
        with Image.open(path) as img:
            img.load()
        return True
    except (OSError, SyntaxError, ValueError):
        return False


def _order(line: str) -> tuple[int, str]:
    record = json.loads(line)
    return record["index"], record["id"]
