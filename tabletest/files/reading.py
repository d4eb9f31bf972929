"""Reading JSONL inputs (render metadata, prompts, responses) with one clear line per mistake."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from tabletest.errors import UserError
from tabletest.files.jsonl import UnfitNumber, bounded_lines, loads


def read_records(path: Path, what: str) -> Iterator[tuple[int, dict]]:
    """(line number, record) pairs of a file a tool appends to as it runs (a render's metadata).

    A last line without its newline is a record still being written, or torn by a kill: skipped.
    """
    return _records(path, what, torn_tail=True)


def read_user_records(path: Path, what: str) -> Iterator[tuple[int, dict]]:
    """(line number, record) pairs of a file people write or edit (prompts, responses): every line counts,
    the last one even without its newline."""
    return _records(path, what, torn_tail=False)


def _records(path: Path, what: str, torn_tail: bool) -> Iterator[tuple[int, dict]]:
    """Records numbered as an editor shows the lines (blank ones count, and are skipped).

    A missing file, a line that is not a JSON object, or one holding a number no record holds (NaN, an
    infinity, an integer of thousands of digits: `loads`) is a UserError; `what` names the file's role in
    messages, e.g. "responses file".
    """
    if not path.is_file():
        raise UserError(f"{what} {path} not found: check the path")
    with open(path, "rb") as fh:
        for line, raw in enumerate(bounded_lines(fh, path), start=1):
            if not raw.strip() or (torn_tail and not raw.endswith(b"\n")):
                continue
            yield line, parse_record(raw, path, line)


def parse_record(raw: bytes, path: Path, line: int) -> dict:
    """One line's record: a line that is not UTF-8, not JSON, not an object, or holds a number no record holds
    (`loads`) is a UserError naming the file and line."""
    try:
        record = loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise UserError(
            f"{path}: line {line} is not UTF-8 text (byte {err.start + 1} of the line); save the file as UTF-8"
        ) from None
    except UnfitNumber as err:
        raise UserError(f"{path}: line {line}: {err}; fix or remove that line") from None
    except json.JSONDecodeError as err:
        raise UserError(f"{path}: line {line} is not valid JSON ({err.msg}); fix or remove that line") from None
    except RecursionError:
        raise UserError(f"{path}: line {line} is nested too deeply to be a record; fix or remove that line") from None
    if not isinstance(record, dict):
        raise UserError(f"{path}: line {line} is not a JSON object; write one {{...}} record per line")
    return record


def require(record: dict, fields: tuple[str, ...], path: Path, line: int, fix: str) -> None:
    """Every field in `fields` must be present; otherwise name the first missing one and the fix."""
    for field in fields:
        if field not in record:
            raise UserError(f"{path}: line {line} has no {field!r} field; {fix}")


def images_asked(question: dict) -> list[str]:
    """The images a question is asked of, in order: its `images` (a scene and its partner or view), else its one `image`."""
    return question.get("images") or [question["image"]]
