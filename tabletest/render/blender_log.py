"""Blender's own error in its console output (no bpy): what a render that failed inside Blender reports,
rather than the error that follows it (an image that "could not be saved" because the render made none).
"""

from __future__ import annotations

import re

# Blender 5 logs as `00:03.512  cycles           | ERROR message`; devices also print bare lines.
_LOGGED = re.compile(r"^\s*\d+:\d+\.\d+\s+\S+\s*\|\s*(?P<level>[A-Z]+)\s+(?P<message>.*\S)")
_SAYS_ERROR = re.compile(r"\b(error|unable to|failed|cannot|could not|out of memory)\b", re.IGNORECASE)
SEVERE = ("FATAL", "ERROR")
MAX_CHARS = 400


def blender_error(output: str) -> str | None:
    """The first line of `output` that says what went wrong: one logged at ERROR or FATAL level, else a bare
    line that says so in words (a Python traceback's lines are not Blender's); None when there is none."""
    worded = None
    for line in output.splitlines():
        if logged := _LOGGED.match(line):
            if logged["level"] in SEVERE:
                return logged["message"][:MAX_CHARS]
            continue  # a warning or a note, at whatever words it uses
        text = line.strip()
        if worded is None and _SAYS_ERROR.search(text) and not text.startswith(("Traceback", "File ")):
            worded = text[:MAX_CHARS]
    return worded
