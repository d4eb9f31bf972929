"""The output folder of an export appears whole or not at all, an interrupted export resumes, and replacing an
earlier export deletes only the files that export wrote.

Everything is written into `.<OUT>.partial/` beside OUT; when the export completes, that folder is
renamed to OUT in one step. The marker file records what is being exported: a rerun with the same
dataset, format and options continues in the partial folder (closed shards and placed images are kept),
any other run starts it afresh.

A complete export lists the files it wrote, with their sizes, beside its marker. Replacing an earlier
export, the new one moves every file the earlier one cannot prove its own (not listed, or changed since)
into its folder, and deletes the rest; such a file at a path the new export writes is refused before the
swap. Of an earlier export without a list, every file the new one does not write is kept.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from tabletest.errors import UserError
from tabletest.files.jsonl import atomic_output, read_jsonl
from tabletest.files.paths import no_link_out
from tabletest.files.temp import temp_path

MARKER = ".tabletest-export.json"
FILES = ".tabletest-export.files.jsonl"  # the files a complete export wrote: [path, bytes] a line
JOURNAL = ".shards.jsonl"
OWN = (MARKER, FILES)  # the export's by name


def check_out(out: Path) -> None:
    """OUT must be new, empty, or an earlier export (which this one replaces)."""
    if out.is_file():
        raise UserError(f"--out {out} is a file; give a folder path for the export")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise UserError(
            f"--out {out} already exists and holds other files; give a new or empty folder "
            "(an earlier `tabletest export` output there would be replaced)"
        )


class Staging:
    def __init__(self, out: Path, fingerprint: dict) -> None:
        check_out(out)
        self.out = out
        self.path = out.parent / f".{out.name}.partial"
        self.replaced = out.parent / f".{out.name}.replaced"  # the earlier export while the new one takes its place
        self.fingerprint = json.loads(json.dumps(fingerprint))  # as the marker will read back (lists, not tuples)
        self.resumed = False
        self._folders: set[Path] = set()

    def open(self) -> None:
        self._finish_an_interrupted_swap()
        marker = self.path / MARKER
        if self.path.is_symlink():  # an export makes that folder itself, never a link
            raise UserError(
                f"{self.path} is a link to {self.path.resolve()}, where an export keeps its unfinished files, and an "
                "export writes nothing through a link; move the link away and rerun"
            )
        if marker.is_file() and _read(marker).get("fingerprint") == self.fingerprint:
            _no_link_out_of(self.path)  # an export makes none: one there was put there since, maybe out of it
            self.resumed = True
            for leftover in self.path.rglob(".*.tmp"):  # files a kill caught half-written
                leftover.unlink()
        elif self.path.exists():
            shutil.rmtree(self.path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._write_marker({"status": "running"})

    def file(self, relative: str) -> Path:
        """A path in the partial folder, its parent folder made (once: 250,000 images share a few folders)."""
        path = self.path / relative
        if path.parent not in self._folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._folders.add(path.parent)
        return path

    def closed_shards(self) -> list[dict]:
        """The shards an earlier run of this export completed, in the order it closed them."""
        return list(read_jsonl(self.path / JOURNAL)) if (self.path / JOURNAL).is_file() else []

    def record_shard(self, entry: dict) -> None:
        with open(self.path / JOURNAL, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def finish(self, summary: dict) -> int:
        """Record the files written and the summary, then put the folder in OUT's place, keeping the files in OUT
        that the earlier export cannot prove its own; return how many were kept. A clash with one of them is
        refused before anything moves, the partial folder kept for a rerun."""
        written = {path: size for path, size in _files(self.path).items() if path not in (*OWN, JOURNAL)}
        kept = _kept(self.out, written) if self.out.is_dir() else 0
        (self.path / JOURNAL).unlink(missing_ok=True)
        with atomic_output(self.path / FILES) as fh:
            fh.writelines(json.dumps([path, size]) + "\n" for path, size in sorted(written.items()))
        self._write_marker({"status": "complete", **summary, "kept": kept})
        if self.out.is_dir():
            os.replace(self.out, self.replaced)
        os.replace(self.path, self.out)
        if self.replaced.exists():
            _settle(self.replaced, self.out)
        return kept

    def discard_unless_resumable(self) -> None:
        """After a mistake in the input: drop the partial folder, unless it holds shards a rerun can keep."""
        if not self.closed_shards():
            shutil.rmtree(self.path, ignore_errors=True)

    def _finish_an_interrupted_swap(self) -> None:
        """A kill between the renames of `finish` left the earlier export beside OUT: put it back where OUT is
        missing, else move the files of its that were kept into OUT and delete the rest, as `finish` would have."""
        if not self.replaced.exists():
            return
        if self.out.exists():
            _settle(self.replaced, self.out)
        else:
            os.replace(self.replaced, self.out)

    def _write_marker(self, state: dict) -> None:
        with atomic_output(self.path / MARKER) as fh:
            fh.write(json.dumps({"fingerprint": self.fingerprint, **state}, indent=1) + "\n")


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


def _no_link_out_of(root: Path) -> None:
    """Refuse a partial export to resume through a link out of its folder (a folder of images, a shard)."""
    for folder, folders, files in os.walk(root):
        for name in (*folders, *files):
            if os.path.islink(link := os.path.join(folder, name)):
                no_link_out(root, Path(link), "an export")


def _files(root: Path) -> dict[str, int]:
    """Every file under `root` (links and other non-folders included, never followed): its path inside, in
    `/` form, and its size."""
    found: dict[str, int] = {}
    folders = [(root, "")]
    while folders:
        folder, prefix = folders.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    folders.append((Path(entry.path), f"{prefix}{entry.name}/"))
                else:
                    found[prefix + entry.name] = entry.stat(follow_symlinks=False).st_size
    return found


def _folders_of(path: str) -> list[str]:
    """The folders a path lies in, innermost first: `images/a/b.png` -> `images/a`, `images`."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[:n]) for n in range(len(parts), 0, -1)]


def _listed(export: Path) -> dict[str, int] | None:
    """The files an export lists as its own, with their sizes; None for an export without a list."""
    if not (export / FILES).is_file():
        return None
    return dict(map(tuple, read_jsonl(export / FILES)))


def _goes(path: str, size: int, listed: dict[str, int] | None, written: dict[str, int]) -> bool:
    """Whether a file of the earlier export goes with it: one it proves its own (listed, at the size it wrote
    it), or, of an export without a list, one at a path the new export writes."""
    if listed is None:
        return path in OWN or path in written
    return path in OWN or listed.get(path) == size


def _kept(out: Path, written: dict[str, int]) -> int:
    """How many files of the earlier export `out` stay, moved into the new one: those that do not go with it
    (`_goes`). One at a path the new export writes, where it needs a folder, or under one of its files is refused."""
    listed = _listed(out)
    kept = sorted(path for path, size in _files(out).items() if not _goes(path, size, listed, written))
    folders = {folder for path in written for folder in _folders_of(path)} if kept else set()
    for path in kept:
        if path in written or path in folders or any(folder in written for folder in _folders_of(path)):
            raise UserError(
                f"--out {out}: {path} is not a file the earlier export wrote (added or changed since), and this "
                f"export writes {'that path' if path in written else 'a file in its place'}; move it out of {out} "
                "and run the same command again (it resumes)"
            )
    return len(kept)


def _settle(old: Path, new: Path) -> None:
    """Finish replacing the earlier export `old` by `new`: move the files that do not go with it into `new`
    (never over or under one of its files), delete the rest, then `old` itself."""
    listed, written = _listed(old), _listed(new) or {}
    for path, size in _files(old).items():
        if _goes(path, size, listed, written):
            (old / path).unlink()
        else:
            _move(old / path, new / path)
    for folder, _, _ in os.walk(old, topdown=False):
        if not os.listdir(folder):
            os.rmdir(folder)
    if old.exists():
        raise UserError(
            f"{old} holds files that could not be moved into {new}, whose export took their names; "
            "move them where you want them and delete that folder"
        )


def _move(source: Path, target: Path) -> None:
    """Move a file into the new export, never over or under one of its files (it then stays where it is)."""
    if os.path.lexists(target):
        return
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        return
    os.rename(source, target)


def place(source: Path, target: Path) -> None:
    """`target` becomes the same file as `source`: a hard link where possible, else a copy made whole first."""
    try:
        os.link(source, target)
    except FileExistsError:
        return  # placed by an earlier run of this export
    except OSError:
        tmp = temp_path(target)  # this process's own name: one a kill leaves is cleaned by the next run
        try:
            shutil.copyfile(source, tmp)
            os.replace(tmp, target)
        finally:  # a full disk leaves no half copy holding the space it asks for
            tmp.unlink(missing_ok=True)
