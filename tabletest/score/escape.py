"""Text from models and file names, made safe for the report's two readers: a Markdown table, and a
spreadsheet opening a CSV (where a cell starting with `=` is run as a formula)."""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def markdown_cell(value: object) -> str:
    """One table cell: on one line, with `|` escaped (a name with `|` or a newline would split the table)."""
    return " ".join(str(value).split()).replace("|", "\\|")


def spreadsheet_cell(value: object) -> object:
    """A string a spreadsheet would read as a formula gets a leading `'` (OWASP's CSV-injection advice);
    numbers, and strings that are plain numbers such as "-3", are left as they are."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value
