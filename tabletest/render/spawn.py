"""Starting a render worker process, kept light (no third-party imports) so that `tabletest render` can
start its first worker before the CLI has imported anything else (see `early`)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from tabletest.render.devices import worker_env


@dataclass
class Spawned:
    """A worker process started before its setup is known: it imports Blender meanwhile."""

    proc: subprocess.Popen
    log: IO[str]
    log_path: Path

    @classmethod
    def start(cls, number: int, gpu: str | None, log_dir: Path, verbose: bool) -> Spawned:
        log_path = log_dir / f"worker-{number}.log"
        log_dir.mkdir(parents=True, exist_ok=True)
        log = open(log_path, "a", encoding="utf-8")
        proc = subprocess.Popen(
            [sys.executable, "-m", "tabletest.render.worker", "--log", str(log_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None if verbose else log,
            text=True,
            env={**os.environ, **worker_env(gpu)},
        )
        return cls(proc, log, log_path)

    def discard(self) -> None:
        """End a worker that was never used: it holds nothing yet, so it is simply killed."""
        self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.log):
            stream.close()
