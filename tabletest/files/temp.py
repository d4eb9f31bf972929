"""Temporary names that say who owns them, and the clean-up of those whose owner is gone.

A file is written under `.<name>.<host>.<pid>.tmp` beside its final name, then renamed. A run killed
mid-write (kill -9, a node lost) leaves that name behind; the next run removes every temporary name of
its own host whose process is no longer alive. A name of another host is never touched: on a file
system shared by a cluster, a pid means nothing outside the host that gave it.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
from pathlib import Path

_TEMP = re.compile(r"^\..+\.(?P<host>[A-Za-z0-9-]+)\.(?P<pid>\d+)\.tmp$")


def host() -> str:
    """This host's name as it appears in temporary names (letters, digits and `-` only)."""
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname()) or "localhost"


def temp_path(path: Path) -> Path:
    """Where this process writes `path` before renaming it into place."""
    return path.with_name(f".{path.name}.{host()}.{os.getpid()}.tmp")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def clean_stale(folder: Path) -> list[Path]:
    """Remove the temporary files and folders in `folder` left by dead processes of this host; return them."""
    removed = []
    here = host()
    try:
        entries = list(Path(folder).iterdir())
    except OSError:  # no folder yet: nothing to clean
        return removed
    for entry in entries:
        match = _TEMP.match(entry.name)
        if not match or match["host"] != here or _alive(int(match["pid"])):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry)
    return removed
