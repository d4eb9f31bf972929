"""Text from models and file names, made safe for the report's two readers: a Markdown table, and a
spreadsheet opening a CSV (where a cell starting with `=` is run as a formula)."""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from tabletest.files.jsonl import atomic_output

FORMULA_STARTS = ("=", "+", "@", "\t", "\r")  # a spreadsheet runs what follows as a formula
LINE_BREAK = re.compile(r"(\r\n|\r|\n)")  # what ends a row for a spreadsheet, `csv` and a line reader alike
# After a leading `-`, an expression: a digit, a decimal point, a bracket, a quote, an absolute reference or another
# operator (`-2+3`, `-(1)`, `--1`, `-$A$1`) ...
DASH_EXPRESSION = re.compile(r"-\s*[\d.(\"$=+\-@]")
# ... or a cell reference to start with (`-A1`); and anywhere, a function call (`HYPERLINK(`, no space before its
# bracket), a DDE call (`cmd|`) or a reference to another sheet (`Sheet1!A1`): what makes a formula reach further
DASH_REFERENCE = re.compile(r"-\s*[A-Za-z]{1,3}\d+\b")
REACHES = re.compile(r"[A-Za-z_][\w.]*\(|\||[\w'\]]!\$?[A-Za-z]")


def markdown_cell(value: object) -> str:
    """One table cell: on one line, with `|` escaped (a name with `|` or a newline would split the table)."""
    return " ".join(str(value).split()).replace("|", "\\|")


def spreadsheet_cell(value: object) -> object:
    """A string a spreadsheet would read as a formula (`_inert`) gets a leading `'` (OWASP's CSV-injection advice),
    and so does each line of it after a line break, which a reader that splits rows there would make a cell of
    its own; numbers, and strings that are plain numbers such as "-3", are left as they are."""
    if not isinstance(value, str):
        return value
    pieces = LINE_BREAK.split(value)  # text, break, text, ...: the texts are the lines
    pieces[::2] = [_inert(line) for line in pieces[::2]]
    return _inert("".join(pieces))


def _inert(text: str) -> str:
    """`text` with a leading `'` where a spreadsheet would run it as a formula: one that starts with `=`, `+`, `@`,
    a tab or a carriage return, or with `-` followed by an expression, a cell reference, or a function call,
    DDE call or sheet reference anywhere (`-2+3`, `-A1`, `- see =HYPERLINK(...)`). A plain number (`-3`, `+4`)
    and a sentence after a dash (`- The mug is on the left.`) stay as the model wrote them."""
    if _number(text):
        return text
    if text.startswith(FORMULA_STARTS):
        return "'" + text
    if text.startswith("-") and (DASH_EXPRESSION.match(text) or DASH_REFERENCE.match(text) or REACHES.search(text)):
        return "'" + text
    return text


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def write_csv(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    """Every CSV of a report: each cell escaped and quoted, so that a line break or comma a cell holds stays
    in it for a reader that honours quotes (`csv` leaves a cell with a bare `\\r` unquoted under a `\\n` line
    end, and a spreadsheet would start a row there)."""
    with atomic_output(path) as fh:
        if rows:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]), quoting=csv.QUOTE_ALL, lineterminator="\n")
            writer.writeheader()
            writer.writerows({key: spreadsheet_cell(value) for key, value in row.items()} for row in rows)
    return path
