"""One exception type for user mistakes, so the CLI can print one clear line instead of a traceback."""


class UserError(Exception):
    """A problem the user can fix: the message names the thing and the fix, on one line."""
