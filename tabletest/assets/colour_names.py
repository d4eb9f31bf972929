"""What a colour's name means in pixels: the lightness, chroma and hue (CIE LCh, D65) a person would still call
red, white or silver, and how far apart two rendered colours look (CIEDE2000).

A look's colour is named in its record ("the black wine bottle"), so its name must be what its pixels show: the
palettes are checked on renders of every colour (`scripts/palette_renders.py`, `tests/test_looks.py`), and
`tabletest verify` checks each object of a render against its named colour (`verify/audit_looks.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np
from coloraide import Color


@dataclass(frozen=True)
class Named:
    """The pixels a colour name fits: hue within `hues` (degrees, each span may wrap past 360), chroma and lightness
    within their bounds."""

    hues: tuple[tuple[float, float], ...] = ((0.0, 360.0),)
    chroma: tuple[float, float] = (0.0, 200.0)
    lightness: tuple[float, float] = (0.0, 100.0)

    def fits(self, lightness: float, chroma: float, hue: float) -> bool:
        in_hue = chroma < 1 or any(_within(hue, lo, hi) for lo, hi in self.hues)
        return in_hue and self.chroma[0] <= chroma <= self.chroma[1] and self.lightness[0] <= lightness <= self.lightness[1]


def _within(hue: float, lo: float, hi: float) -> bool:
    return lo <= hue <= hi if lo <= hi else hue >= lo or hue <= hi


# Measured on the palettes' renders under a neutral light (scripts/palette_renders.py): the bounds a look's median
# pixel must keep to be called so. Hues: red 0-40, orange 40-70, yellow 70-105, green 105-190, blue 190-300,
# purple 290-345, wrapping to red; teal between green and blue; cream a light, weak
# yellow; brown and gold are dark and light oranges and
# yellows; pink a light, weak red.
NAMES: dict[str, Named] = {
    "red": Named(((340, 45),), chroma=(30, 200), lightness=(10, 70)),
    "orange": Named(((35, 75),), chroma=(35, 200), lightness=(35, 90)),
    "yellow": Named(((65, 110),), chroma=(30, 200), lightness=(50, 100)),
    "gold": Named(((55, 100),), chroma=(18, 200), lightness=(40, 95)),
    "green": Named(((100, 200),), chroma=(12, 200), lightness=(10, 95)),
    "blue": Named(((190, 305),), chroma=(10, 200), lightness=(10, 95)),
    "purple": Named(((285, 350),), chroma=(12, 200), lightness=(5, 75)),
    "pink": Named(((330, 40),), chroma=(8, 200), lightness=(50, 100)),
    "brown": Named(((20, 90),), chroma=(8, 80), lightness=(5, 65)),
    "teal": Named(((165, 225),), chroma=(10, 200), lightness=(10, 95)),
    "cream": Named(((50, 100),), chroma=(8, 40), lightness=(78, 100)),
    "white": Named(chroma=(0, 22), lightness=(66, 100)),
    "silver": Named(chroma=(0, 14), lightness=(50, 88)),
    "grey": Named(chroma=(0, 14), lightness=(25, 68)),
    "black": Named(chroma=(0, 16), lightness=(0, 42)),
}


@dataclass(frozen=True)
class Seen:
    """A colour as pixels show it: the median sRGB of the pixels, and its CIE LCh."""

    srgb: tuple[int, int, int]

    @property
    def colour(self) -> Color:
        return Color("srgb", [c / 255 for c in self.srgb])

    @property
    def lch(self) -> tuple[float, float, float]:
        lightness, chroma, hue = self.colour.convert("lch").coords(nans=False)
        return round(lightness, 1), round(chroma, 1), round(hue % 360, 1)

    def fits(self, name: str) -> bool:
        """Whether a person would call it `name` (a name the table does not know fits anything)."""
        named = NAMES.get(name)
        return named is None or named.fits(*self.lch)

    def described(self) -> str:
        lightness, chroma, hue = self.lch
        return f"sRGB {list(self.srgb)}, lightness {lightness:.0f}, chroma {chroma:.0f}, hue {hue:.0f}°"

    def distance(self, other: Seen) -> float:
        """CIEDE2000 between the two: about 2 is a difference a person just sees, 10 a plain one."""
        return float(self.colour.delta_e(other.colour, method="2000"))


LEVELS = 32  # per channel: pixels are judged at 5 bits a channel (at most 4 sRGB levels off, about 1 CIEDE2000)


def lch(pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each pixel's CIE lightness, chroma and hue in degrees (n x 3 sRGB 0-255 in), converted once per colour seen."""
    quantised = (np.asarray(pixels, dtype=np.int64).reshape(-1, 3) * LEVELS) // 256
    codes = (quantised[:, 0] * LEVELS + quantised[:, 1]) * LEVELS + quantised[:, 2]
    unique, inverse = np.unique(codes, return_inverse=True)
    table = np.array([_lch_of(int(code)) for code in unique]).reshape(-1, 3)
    lightness, chroma, hue = table[inverse.reshape(-1)].T
    return lightness, chroma, hue


@lru_cache(maxsize=LEVELS**3)
def _lch_of(code: int) -> tuple[float, float, float]:
    channels = (code // LEVELS**2, code // LEVELS % LEVELS, code % LEVELS)
    lightness, chroma, hue = Color("srgb", [(c + 0.5) / LEVELS for c in channels]).convert("lch").coords(nans=False)
    return lightness, chroma, hue % 360


def seen_in(pixels: np.ndarray) -> Seen:
    """The colour of some pixels (n x 3, sRGB 0-255): their median, channel by channel."""
    median = np.median(np.asarray(pixels, dtype=float).reshape(-1, 3), axis=0)
    return Seen(tuple(round(float(v)) for v in median))


def separation(looks: Mapping[str, Seen]) -> tuple[float, tuple[str, str]]:
    """The least CIEDE2000 between two of the colours, and which two (inf with fewer than two)."""
    pairs = [(a.distance(b), (x, y)) for (x, a), (y, b) in combinations(looks.items(), 2)]
    return min(pairs) if pairs else (float("inf"), ("", ""))
