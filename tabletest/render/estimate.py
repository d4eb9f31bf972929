"""How long a run will take before it starts, so that a run of days is never started by accident.

Cycles on a CPU costs about the same per sample and pixel on every scene: the quick start's four
1024x768 images at 64 samples took 81.9 s of render calls on 2 quiet AMD EPYC cores (0.81 core-seconds
per million samples). EEVEE and Workbench are rasterisers, far faster and not estimated; neither is a GPU.
"""

from __future__ import annotations

CORE_SECONDS_PER_MEGASAMPLE = 81.9 / 4 * 2 / (1024 * 768 * 64 / 1e6)
LONG_S = 3600.0  # a run estimated longer than this is announced, or refused without an explicit selection


def cpu_seconds(images: int, engine: str, samples: int, resolution: tuple[int, int], cores: int) -> float | None:
    """The time `images` Cycles images take on `cores` CPU cores; None for the rasterisers."""
    if engine != "cycles":
        return None
    width, height = resolution
    megasamples = width * height * samples / 1e6
    return images * megasamples * CORE_SECONDS_PER_MEGASAMPLE / max(cores, 1)


def duration(seconds: float) -> str:
    """`40 h`, `3 h 20 min`, `12 min`."""
    minutes = round(seconds / 60)
    hours, rest = divmod(minutes, 60)
    if hours >= 10:
        return f"{round(seconds / 3600)} h"
    return f"{hours} h {rest} min" if hours else f"{max(minutes, 1)} min"
