"""Reading JSONL inputs (render metadata, prompts, responses) with one clear line per mistake."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from tabletest.errors import UserError
from tabletest.write.jsonl import read_jsonl


def read_records(path: Path, what: str) -> Iterator[tuple[int, dict]]:
    """(line number, record) pairs; a missing file or a line that is not a JSON object is a UserError.

    `what` names the file's role in messages, e.g. "responses file".
    """
    if not path.is_file():
        raise UserError(f"{what} {path} not found: check the path")
    records = read_jsonl(path)
    line = 0
    while True:
        line += 1
        try:
            record = next(records)
        except StopIteration:
            return
        except json.JSONDecodeError as err:
            raise UserError(f"{path}: line {line} is not valid JSON ({err.msg}); fix or remove that line") from None
        if not isinstance(record, dict):
            raise UserError(f"{path}: line {line} is not a JSON object; write one {{...}} record per line")
        yield line, record


def require(record: dict, fields: tuple[str, ...], path: Path, line: int, fix: str) -> None:
    """Every field in `fields` must be present; otherwise name the first missing one and the fix."""
    for field in fields:
        if field not in record:
            raise UserError(f"{path}: line {line} has no {field!r} field; {fix}")
