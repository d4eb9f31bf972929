"""One exception type for user mistakes, so the CLI can print one clear line instead of a traceback."""

from __future__ import annotations

import difflib
from collections.abc import Sequence


class UserError(Exception):
    """A problem the user can fix: the message names the thing and the fix, on one line."""


class Interrupted(Exception):
    """Ctrl-C or SIGTERM stopped a run; the message says what is kept and how to resume, on one line."""

    def __init__(self, message: str, signal_number: int) -> None:
        super().__init__(message)
        self.exit_code = 128 + signal_number


def not_one_of(flag: str, given: str, choices: Sequence[str], example: str) -> UserError:
    """`--format 'llama' is not one of ...; did you mean --format llava?` (else `e.g. --format <example>`)."""
    near = difflib.get_close_matches(given.lower(), choices, n=1)
    hint = f"did you mean {flag} {near[0]}?" if near else f"e.g. {flag} {example}"
    return UserError(f"{flag} {given!r} is not one of {', '.join(choices)}; {hint}")
