"""`tabletest render` starts its first Blender worker the moment it is invoked, before the CLI imports
its commands: Blender (about 1 s to load) then loads on another core while the CLI imports, checks
the inputs and resumes the output folder, which shortens the wait for the first image.

Only the plain case starts early: a direct-mode render on a machine without NVIDIA GPUs, without
--workers or --gpus. The run takes the worker if it is the one it would start (worker 0, no GPU, the
same log file), and kills it otherwise; so does any error before the run starts.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tabletest.render.spawn import Spawned

DEFAULT_OUT = "out"  # `tabletest render --out`'s default
_early: Spawned | None = None


def start(argv: list[str]) -> None:
    """Spawn worker 0 for `argv` (the command line) if it is a plain direct-mode CPU render."""
    global _early
    args = argv[1:]
    if not args or args[0] != "render" or shutil.which("nvidia-smi"):
        return
    if any(a.split("=")[0] in ("--help", "--mode", "--workers", "--gpus") for a in args):
        return
    verbose = "--verbose" in args or "-v" in args
    _early = Spawned.start(0, None, Path(_value(args, ("--out", "-o")) or DEFAULT_OUT) / "logs", verbose)


def _value(args: list[str], names: tuple[str, ...]) -> str | None:
    for i, arg in enumerate(args):
        if arg in names and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--out="):
            return arg.split("=", 1)[1]
    return None


def take(number: int, gpu: str | None, log_dir: Path) -> Spawned | None:
    """The early worker if it is the one the run would start now; otherwise it is ended and None returned."""
    global _early
    early, _early = _early, None
    if early is None:
        return None
    if number == 0 and gpu is None and early.log_path.resolve() == (log_dir / "worker-0.log").resolve():
        return early
    early.discard()
    return None


def discard() -> None:
    """End the early worker if no run took it (an error before the run, composite mode)."""
    take(-1, None, Path())
