"""Pool processes that end when the process they work for is gone.

A process killed with -9 cannot stop its pool, and a pool process forked from it waits on the task
pipe for ever (it holds that pipe's write end itself, so it never reads an end of file). Started with
`end_with` as the pool's initializer, it watches for its owner and exits on its own instead.
"""

from __future__ import annotations

import os
import threading
import time

CHECK_S = 0.5  # how often a pool process looks for its owner: it outlives it by at most this (and its current item)


def end_with(owner_pid: int) -> None:
    """Pool initializer: exit this process as soon as `owner_pid` has ended or this process's parent has
    changed (the owner died and left it to init, or the fork server it came from ended with the owner; a
    killed owner not yet reaped by its own parent still answers to its pid)."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(CHECK_S)
            if os.getppid() != parent or not _alive(owner_pid):
                os._exit(0)

    threading.Thread(target=watch, name="end-with-owner", daemon=True).start()


def _alive(pid: int) -> bool:
    """Whether a process of this pid exists (one of another user's counts: it cannot be signalled but is there)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
