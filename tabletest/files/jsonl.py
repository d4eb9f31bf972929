"""JSON Lines output that streams, is byte-for-byte reproducible, and lands atomically."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, BinaryIO

from tabletest.errors import UserError
from tabletest.files.temp import temp_path

MAX_LINE_BYTES = 16 << 20  # a record is a few KB; a line past this is not one, and must not fill memory


def dumps(record: dict) -> str:
    """One record, one line; key order as built, so the same input gives the same bytes. A non-finite
    number is a ValueError: NaN and Infinity are not JSON."""
    return json.dumps(record, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


@contextlib.contextmanager
def atomic_output(path: Path | str) -> Iterator[IO[str]]:
    """A text file that appears under `path` only when complete; `-` means standard output. A path that
    is not a regular file (`/dev/null`, a FIFO) is written in place: renaming over it would replace the
    device itself, for everyone on the machine, when run as root."""
    if str(path) == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    path = Path(path)
    if path.exists() and not path.is_file() and not path.is_dir():
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            yield fh
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(path)
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_bytes(path: Path | str, data: bytes) -> None:
    """Write `data` so that it appears under `path` only when complete and on disk (as `atomic_output`)."""
    with atomic_output(path) as fh:
        fh.buffer.write(data)  # beneath the text layer, which has nothing buffered; it flushes this too


def write_lines(path: Path | str, lines: Iterable[str]) -> int:
    """Write text lines atomically (buffered in chunks, so memory stays flat); return the count."""
    count = 0
    with atomic_output(path) as fh:
        buffer: list[str] = []
        for line in lines:
            buffer.append(line)
            count += 1
            if len(buffer) >= 4096:
                fh.write("\n".join(buffer) + "\n")
                buffer.clear()
        if buffer:
            fh.write("\n".join(buffer) + "\n")
    return count


def bounded_lines(fh: BinaryIO, path: Path | str) -> Iterator[bytes]:
    """The lines of a binary file, each read with a bound: a line longer than `MAX_LINE_BYTES` is a
    one-line error naming it, not gigabytes read into memory."""
    number = 0
    while line := fh.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise UserError(
                f"{path}: line {number} is longer than {MAX_LINE_BYTES >> 20} MiB, which no record is; fix or remove that line"
            )
        yield line


def read_jsonl(path: Path | str) -> Iterator[dict]:
    """Records of a JSONL file; a torn last line (from a kill mid-write) is skipped."""
    with open(path, "rb") as fh:
        for line in bounded_lines(fh, path):
            if line.endswith(b"\n") and line.strip():
                yield json.loads(line)
