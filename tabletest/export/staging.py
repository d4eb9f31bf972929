"""The output folder of an export appears whole or not at all, and an interrupted export resumes.

Everything is written into `.<OUT>.partial/` beside OUT; when the export completes, that folder is
renamed to OUT in one step (a previous export in OUT is replaced the same way). The marker file
records what is being exported: a rerun with the same dataset, format and options continues in the
partial folder (closed shards and placed images are kept), any other run starts it afresh.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from tabletest.errors import UserError
from tabletest.files.jsonl import atomic_output, read_jsonl

MARKER = ".tabletest-export.json"
JOURNAL = ".shards.jsonl"


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
        self.fingerprint = json.loads(json.dumps(fingerprint))  # as the marker will read back (lists, not tuples)
        self.resumed = False
        self._folders: set[Path] = set()

    def open(self) -> None:
        marker = self.path / MARKER
        if marker.is_file() and _read(marker).get("fingerprint") == self.fingerprint:
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

    def finish(self, summary: dict) -> None:
        """Record the summary, then put the folder in OUT's place."""
        (self.path / JOURNAL).unlink(missing_ok=True)
        self._write_marker({"status": "complete", **summary})
        old = self.out.parent / f".{self.out.name}.old-{os.getpid()}"
        if self.out.is_dir():
            os.replace(self.out, old)
        os.replace(self.path, self.out)
        if old.exists():
            shutil.rmtree(old)

    def discard_unless_resumable(self) -> None:
        """After a mistake in the input: drop the partial folder, unless it holds shards a rerun can keep."""
        if not self.closed_shards():
            shutil.rmtree(self.path, ignore_errors=True)

    def _write_marker(self, state: dict) -> None:
        with atomic_output(self.path / MARKER) as fh:
            fh.write(json.dumps({"fingerprint": self.fingerprint, **state}, indent=1) + "\n")


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


def place(source: Path, target: Path) -> None:
    """`target` becomes the same file as `source`: a hard link where possible, else a copy made whole first."""
    try:
        os.link(source, target)
    except FileExistsError:
        return  # placed by an earlier run of this export
    except OSError:
        tmp = target.with_name(f".{target.name}.tmp")
        shutil.copyfile(source, tmp)
        os.replace(tmp, target)
