"""JSON Lines output that streams, is byte-for-byte reproducible, and lands atomically; and JSON lines read with
a bound on each line and on each number."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, BinaryIO, NoReturn

from tabletest.errors import UserError
from tabletest.files.temp import temp_path

MAX_LINE_BYTES = 16 << 20  # a record is a few KB; a line past this is not one, and must not fill memory
MAX_INT_DIGITS = 20  # 2**64 has 20 digits: no index, count or seed a record holds is longer
SIGNED_ZERO = re.compile(r"-0\.0[,\]}]")  # -0.0 as json writes it, before what may follow a number (not -0.05)


def dumps(record: dict) -> str:
    """One record, one line; key order as built, so the same input gives the same bytes. A non-finite
    number is a ValueError: NaN and Infinity are not JSON. A zero is written `0.0`, never `-0.0`: which
    sign a value rounded to zero keeps depends on the machine's floating-point path (a camera's aim
    point at -1e-17 on one CPU, +1e-17 on another), and a record must read the same everywhere."""
    line = json.dumps(record, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)
    if SIGNED_ZERO.search(line) is None:  # most lines: searched in microseconds, never walked
        return line
    return json.dumps(_unsigned(record), ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


def _unsigned(value: object) -> object:
    """`value` with every negative zero (in lists and dicts, at any depth) made a positive one."""
    if isinstance(value, float):
        return value + 0.0  # -0.0 + 0.0 is 0.0; every other float is itself
    if isinstance(value, dict):
        return {key: _unsigned(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_unsigned(item) for item in value]
    return value


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


class UnfitNumber(ValueError):
    """A number a JSON line holds that no record may: `str()` says where it is and what it is."""


class _Unfit(Exception):
    """A number found unfit as the line is read: raised at once (most lines hold none), or, where the line is
    read again to name its field, kept in place of the number."""

    def __init__(self, said: str) -> None:
        super().__init__(said)
        self.said = said


def loads(text: str) -> object:
    """A JSON line as `json.loads` reads it, but with a number no record holds refused as an UnfitNumber
    naming its field: NaN and the infinities (not JSON, though Python's reader takes them), and an integer
    longer than MAX_INT_DIGITS (which Python refuses to read, or later to print, past 4300 digits). Floats
    are read at json's own pace: one past the largest (`1e400`, read as an infinity) is left to the record
    models, which take finite numbers only."""
    try:
        return _STRICT.decode(text)
    except _Unfit:
        field, unfit = _unfit_in(_MARKING.decode(text), ())
        raise UnfitNumber(f"{field or 'the line'} is {unfit.said}") from None


def _constant(name: str) -> NoReturn:
    raise _Unfit(f"{name}, which JSON does not allow")


def _integer(text: str) -> int:
    if len(text) > MAX_INT_DIGITS and (digits := len(text.lstrip("-"))) > MAX_INT_DIGITS:
        raise _Unfit(f"an integer of {digits} digits, longer than any a record holds ({MAX_INT_DIGITS} at most)")
    return int(text)


def _marking(parse: Callable[[str], object]) -> Callable[[str], object]:
    """`parse`, keeping the unfit number it finds in the value read, where its field can be named."""

    def mark(text: str) -> object:
        try:
            return parse(text)
        except _Unfit as unfit:
            return unfit

    return mark


_STRICT = json.JSONDecoder(parse_constant=_constant, parse_int=_integer)
_MARKING = json.JSONDecoder(parse_constant=_marking(_constant), parse_int=_marking(_integer))


def _unfit_in(value: object, path: tuple) -> tuple[str, _Unfit] | None:
    """The first unfit number in `value` in the line's order, with its field (`objects.0.bbox_px.2`)."""
    if isinstance(value, _Unfit):
        return ".".join(map(str, path)), value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if (found := _unfit_in(item, (*path, key))) is not None:
            return found
    return None


def read_jsonl(path: Path | str) -> Iterator[dict]:
    """Records of a JSONL file; a torn last line (from a kill mid-write) is skipped."""
    with open(path, "rb") as fh:
        for line in bounded_lines(fh, path):
            if line.endswith(b"\n") and line.strip():
                yield json.loads(line)
