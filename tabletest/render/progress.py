"""The run's progress: a bar with speed and ETA, or (with --quiet) a log line every 30 s for cluster logs.
Imported once a run's workers are started (rich takes a while to import)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn


class _SpeedColumn(ProgressColumn):
    """Items a second: rich's recent speed, else the mean since the start; nothing until the first is done."""

    def render(self, task) -> str:
        speed = task.speed or (task.completed / task.elapsed if task.completed and task.elapsed else None)
        return f"{speed:.2f} {task.fields['unit']}/s" if speed else ""


@contextlib.contextmanager
def progress_bar(console: Console, label: str, total: int, quiet: bool) -> Iterator[Callable[..., None]]:
    """Yields `advance(made=True)`: one item done, or (`made=False`) one that will not be made after all (a view
    or partner its scene allows none of), which leaves the total instead of counting as done."""
    unit = "img" if label == "render" else label
    if not quiet:
        bar = Progress(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            _SpeedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        task = bar.add_task(label, total=total, unit=unit)

        def step(made: bool = True) -> None:
            if made:
                bar.advance(task)
            else:
                bar.update(task, total=bar.tasks[0].total - 1)

        with bar:
            yield step
        return
    count, start, last = 0, time.time(), 0.0

    def advance(made: bool = True) -> None:
        nonlocal count, last, total
        if not made:
            total -= 1
            return
        count += 1
        now = time.time()
        if now - last >= 30 or count == total:
            rate = count / max(now - start, 1e-9)
            eta = (total - count) / rate if rate else 0
            console.print(f"{label} {count}/{total}, {rate:.2f} {unit}/s, ETA {eta / 60:.1f} min", highlight=False)
            last = now

    yield advance
