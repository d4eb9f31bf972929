"""One exception type for user mistakes, so the CLI can print one clear line instead of a traceback."""


class UserError(Exception):
    """A problem the user can fix: the message names the thing and the fix, on one line."""


class Interrupted(Exception):
    """Ctrl-C or SIGTERM stopped a run; the message says what is kept and how to resume, on one line."""

    def __init__(self, message: str, signal_number: int) -> None:
        super().__init__(message)
        self.exit_code = 128 + signal_number
