"""Each object's look (`variant`) checked, for `tabletest verify`: derived again from its seed, its kind's palette
and the run's `looks`, and its named colour against the object's own pixels.

A look's model is a pure function of its seed (`kind/n`) and the run's `size_spread`, and its colour one of its
kind's palette: a record that says otherwise (another shape, label or seed, a colour the kind has not, a held-out
look in training) disagrees. Its pixels must not plainly show another colour of its palette instead: each pixel is
judged by what a person would call it (`assets/colour_names.py`, its bounds widened by `SLACK` for the random
scenes' lights), and an object named in a strong hue (`HUES`: red, green, blue...) whose pixels all but never show
it (under `ABSENT` of them) while most show another strong hue of its palette (at least `SHOWN`; one `APART` round
the hue circle, not a neighbour a light may shift it to) disagrees, as does an object named black, white, grey or
another weak colour whose pixels nearly all (`PLAINLY`) show a strong hue of its palette and few (under `SCANT`)
its own. A coloured light turns a white object cream and a pale blue one grey, and a colour covers only the
materials it recolours (a bowl's glaze, not a cake's fruit), so weaker evidence is not judged; an object seen in
fewer than `MIN_PIXELS` pixels is not judged either. Measured on three renders (docs/benchmarks.md): no real object
disagrees, and about a quarter of records naming another colour of the palette are caught.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from tabletest.assets.colour_names import NAMES, Named, lch
from tabletest.assets.variants import KindLooks, ModelLook, load_looks, model_look
from tabletest.layout.random_config import Looks
from tabletest.layout.variants import Variant

MIN_PIXELS = 30
MAX_PIXELS = 2000  # pixels judged per object at most (an even sample of its mask)
HUES = frozenset({"red", "orange", "yellow", "green", "blue", "purple", "teal"})  # colours no light turns into another
ABSENT = 0.03  # a strong hue named shows in fewer of the object's pixels than this
SHOWN = 0.5  # while another strong hue of its palette, at least APART degrees round from it, shows in this many
APART = 45.0
PLAINLY = 0.9  # a weak colour named, and a strong hue of its palette shows in this many
SCANT = 0.5  # while the weak colour shows in fewer than this
SLACK = {"hue": 10.0, "chroma": 0.8, "lightness": 10.0}  # the names' bounds widened so (measured: docs/benchmarks.md)


def look_problems(obj: Mapping, looks: Looks | None) -> Iterator[str]:
    """What an object's `variant` says that its seed, its kind's palette and the run's `looks` (None: not known) do
    not make."""
    look = obj.get("variant")
    if look is None:
        return
    kind, number, colour = obj["name"], look["model"], look["colour"]
    file = number > 0 and look["seed"] is None  # another model file of the kind (fetched or imported)
    made = ModelLook(kind, number, file=True) if file else model_look(kind, number, looks.size_spread if looks else 1.0)
    expected = Variant(made, colour)
    if look["look"] != expected.label:
        yield f"look {look['look']!r} is not {expected.label!r}, the kind, model and colour it names"
    if not file and look["seed"] != (made.key if number else None):
        yield f"seed {look['seed']!r} is not {made.key if number else None!r}, what model {number} of the {kind} is drawn from"
    shape = made.shape()
    if looks is None and not file:  # the size factor depends on the run's size_spread
        shape, look = {k: v for k, v in shape.items() if k != "size"}, {**look, "shape": {k: v for k, v in look["shape"].items() if k != "size"}}
    if look["shape"] != shape:
        yield f"shape {look['shape']} is not {shape}, what {'a model file keeps' if file else f'the seed {made.key} makes'}"
    palette = load_looks().of(kind)
    if colour is not None and (file or colour not in palette.colour_names):
        yield f"colour {colour!r} is not one of the {kind}'s " + ("(a model file is drawn uncoloured)" if file else f"palette ({', '.join(palette.colour_names)})")
    if looks is not None:
        yield from _drawn_as_run_draws(expected, looks)


def _drawn_as_run_draws(variant: Variant, looks: Looks) -> Iterator[str]:
    """What the run's `looks` could not have drawn: a model beyond `models`, a held-out look in training, another in
    validation."""
    if variant.model.number >= looks.models:
        yield f"model {variant.model.number} is beyond the run's looks.models ({looks.models})"
    held = bool(variant.names & set(looks.held_out))
    if looks.held_out and held != (looks.split == "validation"):
        yield (
            f"look {variant.label} is held out (looks.held_out {list(looks.held_out)}), yet drawn in training"
            if held else f"look {variant.label} is not held out, yet drawn in a validation set (looks.split validation)"
        )


def colour_problem(obj: Mapping, pixels: np.ndarray) -> str | None:
    """Whether the object's pixels (n x 3, sRGB) plainly show another colour of its palette than the one it names."""
    look = obj.get("variant") or {}
    colour = look.get("colour")
    palette: KindLooks = load_looks().of(obj["name"])
    if colour not in NAMES or colour not in palette.colour_names or len(palette.colour_names) < 2:
        return None
    step = max(1, len(pixels) // MAX_PIXELS)
    lightness, chroma, hue = lch(pixels[::step])
    shares = {name: float(_fits(NAMES[name], lightness, chroma, hue).mean()) for name in palette.colour_names if name in NAMES}
    rivals = [(share, name) for name, share in shares.items() if name in HUES and (colour not in HUES or _apart(name, colour) >= APART)]
    if not rivals:
        return None
    shown, rival = max(rivals)
    if (colour in HUES and shares[colour] < ABSENT and shown >= SHOWN) or (colour not in HUES and shown >= PLAINLY and shares[colour] < SCANT):
        return f"its pixels look {rival} ({shown:.0%} of them), not {colour} ({shares[colour]:.0%}): its look is {look['look']}"
    return None


def _apart(one: str, other: str) -> float:
    """Degrees round the hue circle between the middles of two names' hues."""
    middles = [(lo + hi + (360 if hi < lo else 0)) / 2 % 360 for lo, hi in (NAMES[one].hues[0], NAMES[other].hues[0])]
    gap = abs(middles[0] - middles[1])
    return min(gap, 360 - gap)


def _fits(named: Named, lightness: np.ndarray, chroma: np.ndarray, hue: np.ndarray) -> np.ndarray:
    """Which pixels a person might still call by the name under a random scene's light: its bounds widened by SLACK."""
    spans = named.hues
    in_hue = chroma < 1 if spans != ((0.0, 360.0),) else np.ones_like(chroma, bool)
    for lo, hi in spans:
        lo, hi = (lo - SLACK["hue"]) % 360, (hi + SLACK["hue"]) % 360
        in_hue |= (hue >= lo) & (hue <= hi) if lo <= hi else (hue >= lo) | (hue <= hi)
    low_c, high_c = named.chroma
    low_l, high_l = named.lightness
    return (
        in_hue & (chroma >= low_c * SLACK["chroma"]) & (chroma <= high_c + 10)
        & (lightness >= low_l - SLACK["lightness"]) & (lightness <= high_l + SLACK["lightness"])
    )
