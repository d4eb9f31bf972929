"""Composing in parallel processes, streaming: a bounded number of jobs in flight, results as they finish.

Each process holds one `Composer` (the layers memory-mapped, so the processes share one copy in
the page cache) and writes its images, masks and depth under the temporary names the writer gave it; the
caller's process stays the only writer of the metadata.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from itertools import islice
from multiprocessing import get_context
from pathlib import Path

from PIL import Image

from tabletest.compose.composer import Composer
from tabletest.compose.layers import LayerSet
from tabletest.compose.png import LEVEL

CHUNK = 8  # scenes per task: enough to hide the inter-process overhead


@dataclass(frozen=True)
class ComposeJob:
    scene_id: str
    stems: tuple[str, ...]  # the objects' layers, left to right
    image: str  # where to write the PNG (the writer's temporary name)
    mask: str | None
    depth: str | None


@dataclass(frozen=True)
class ComposeResult:
    scene_id: str
    error: str  # empty when the image (and mask) were written


_composer: Composer | None = None


def _start(layers: LayerSet, view: str, parent: int) -> None:
    global _composer
    _composer = Composer(layers, view)
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """A composer whose run was killed must not linger."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _compose(jobs: list[ComposeJob]) -> list[ComposeResult]:
    results = []
    for job in jobs:
        try:
            Path(job.image).write_bytes(_composer.png(job.stems))
            if job.mask:
                Image.fromarray(_composer.mask(job.stems)).save(job.mask, format="PNG", compress_level=LEVEL)
            if job.depth:
                Image.fromarray(_composer.depth(job.stems)).save(job.depth, format="PNG", compress_level=LEVEL)
            results.append(ComposeResult(job.scene_id, ""))
        except Exception as err:  # one bad scene fails alone; the caller records it
            Path(job.image).unlink(missing_ok=True)
            results.append(ComposeResult(job.scene_id, f"{type(err).__name__}: {err}"))
    return results


def compose_all(jobs: Iterable[ComposeJob], layers: LayerSet, view: str, processes: int) -> Iterator[ComposeResult]:
    """Compose every job in `processes` processes; yield results in the order they finish."""
    chunks = iter(lambda it=iter(jobs): list(islice(it, CHUNK)), [])
    context = get_context("spawn")  # the caller may hold threads (progress bar, supervisor): no fork
    with ProcessPoolExecutor(
        processes, mp_context=context, initializer=_start, initargs=(layers, view, os.getpid())
    ) as pool:
        running: set[Future] = set()
        for chunk in chunks:
            running.add(pool.submit(_compose, chunk))
            if len(running) >= 4 * processes:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                yield from (result for future in finished for result in future.result())
        for future in running:
            yield from future.result()
