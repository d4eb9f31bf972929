"""An exclusive lock on an output folder for a whole run, so two processes never write one folder.

`fcntl.flock` on a lock file: the kernel releases it when its holder exits, however it exits (even
`kill -9`), so a lock left behind never blocks a rerun. The file keeps the holder's pid and host,
which the refused process names.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Iterator
from pathlib import Path

from tabletest.errors import UserError

LOCK = ".tabletest.lock"


def lock_file(root: Path, beside: bool = False) -> Path:
    """The lock of `root`: inside it, or (for a folder replaced by a rename, as an export's) beside it."""
    root = Path(root)
    return root.parent / f".{root.name}{LOCK}" if beside else root / LOCK


@contextlib.contextmanager
def output_lock(root: Path, flag: str = "--out", beside: bool = False) -> Iterator[None]:
    """Hold `root`'s lock until the block ends; another holder is a UserError naming it (pid, host)."""
    path = lock_file(root, beside)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if holder := _taken_by(fd, fcntl.LOCK_EX):
            raise UserError(
                f"{flag} {root} is in use by another tabletest run ({holder}); "
                f"wait for it to finish, or give another {flag}"
            )
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def reading_lock(root: Path, verb: str) -> Iterator[None]:
    """Read `root` only while no run writes it: a shared hold on its lock for the whole read, so a render
    running into it is named now, and one started meanwhile waits its turn (refused, as for a second
    writer). A folder without a lock file (a copy, a read-only mount) is read as it is."""
    path = lock_file(root)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        if holder := _taken_by(fd, fcntl.LOCK_SH):
            raise UserError(f"{root} is being written by a tabletest run ({holder}); {verb} it once that run has finished")
        yield
    finally:
        os.close(fd)


def _taken_by(fd: int, mode: int) -> str | None:
    """Take the lock in `mode` without waiting: None once taken, else who holds it (pid and host, as it wrote)."""
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        return os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "a process that just started"
    return None
