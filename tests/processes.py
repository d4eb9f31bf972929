"""What the tests read of processes from /proc: whether one still runs, and which a process started."""

from __future__ import annotations

from pathlib import Path


def _stat(pid: int | str) -> list[str]:
    """The fields of /proc/<pid>/stat after the command's name (which may hold spaces and parentheses)."""
    return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()


def alive(pid: int) -> bool:
    """Whether `pid` still runs: an exited process nobody reaped yet (a zombie) does not."""
    try:
        return _stat(pid)[0] not in "ZX"
    except OSError:
        return False


def descendants(pid: int) -> set[int]:
    """Every process `pid` started, and those they started, still in /proc."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(_stat(entry.name)[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found
