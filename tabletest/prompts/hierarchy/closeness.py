"""How near a value comes to a quantity question's exact answer (a length in metres, an angle in degrees):
what `tabletest score` judges an answer by (`score/quantities.py` reads the values from its words) and
what the text-only reader scores its guesses by (`text_only.py`), so both measure alike.
"""

from __future__ import annotations

from dataclasses import dataclass

ANGLE_FLOOR = 10.0  # degrees: an angle's error is relative to at least this, as a turn's truth may be 0
CORRECT_WITHIN = 0.10  # relative error below which an answer is correct
THRESHOLDS = tuple((10 - k) / 20 for k in range(10))  # MRA's 1 - θ for θ = 0.50, 0.55, ..., 0.95


@dataclass(frozen=True, slots=True)
class Closeness:
    """How near an answer comes to the truth: its relative error, VSI-Bench's mean relative accuracy, and
    SpatialVLM's within-2x (the answer between half and twice the truth)."""

    error: float
    mra: float
    within_2x: bool

    @property
    def correct(self) -> bool:
        return self.error < CORRECT_WITHIN


def closeness(value: float, truth: float, kind: str) -> Closeness:
    """`value` against `truth`, both in SI. A length's error is relative to the truth (never 0). An angle's is
    relative to max(|truth|, 10°), as a turn may be 0 or negative; its MRA and within-2x compare magnitudes,
    each at least 10°. Errors and ratios are rounded to 9 decimals, so that a boundary reads as written
    (2.5 against 2 is an error of exactly 0.25)."""
    if kind == "angle":
        scale = max(abs(truth), ANGLE_FLOOR)
        error = abs(value - truth) / scale
        magnitude = abs(abs(value) - abs(truth)) / scale
        ratio = max(abs(value), ANGLE_FLOOR) / scale
    else:
        error = magnitude = abs(value - truth) / truth
        ratio = value / truth
    magnitude = round(magnitude, 9)
    mra = sum(magnitude < t for t in THRESHOLDS) / len(THRESHOLDS)
    return Closeness(round(error, 9), mra, 0.5 <= round(ratio, 9) <= 2)
