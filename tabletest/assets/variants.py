"""Many of a kind: the looks a built-in object may take beyond its catalog model (`configs/looks.yaml`).

A look is a model and a colour. Model 0 of a kind is its catalog model; model n (n >= 1) is its recipe
stretched in height and footprint and scaled to a real size, each drawn within the kind's ranges from the
seed `<kind>/<n>` alone, built once into the assets folder like any model (same canonical frame, rest pose
and checks). A colour costs no model: the render multiplies the kind's `recolour` materials by
colour / own, channel by channel.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import asdict, dataclass
from functools import cache
from typing import Annotated

from pydantic import AfterValidator, Field, model_validator

from tabletest.config import CONFIG_DIR, Strict, load_validated, slugify

DEFAULT_LOOKS = CONFIG_DIR / "looks.yaml"
SEPARATOR = "/"  # a model key: `mug/3`; never in a catalog name (the catalog refuses it)
BUILD = 1  # how a look's model is made from its recipe (`builtin/build.py`): bump when that changes

Channel = Annotated[float, Field(ge=0.0, le=1.0)]
Rgb = tuple[Channel, Channel, Channel]


def _stretch(pair: tuple[float, float]) -> tuple[float, float]:
    if not 0.5 <= pair[0] <= 1.0 <= pair[1] <= 2.0:
        raise ValueError(f"range [{pair[0]:g}, {pair[1]:g}] must hold 1 and stay within [0.5, 2]; write e.g. [0.9, 1.1]")
    return pair


Stretch = Annotated[tuple[float, float], AfterValidator(_stretch)]


class OwnColour(Strict):
    name: str
    rgb: Rgb


class KindLooks(Strict):
    """What one kind may look like: its stretch and size ranges, and the colours its `recolour` materials take."""

    height: Stretch = (1.0, 1.0)
    width: Stretch = (1.0, 1.0)
    size: Stretch = (1.0, 1.0)
    recolour: tuple[str, ...] = ()
    own: OwnColour | None = None
    colours: dict[str, Rgb] = {}

    @model_validator(mode="after")
    def _colours_need_their_material(self) -> KindLooks:
        if self.colours and (not self.recolour or self.own is None):
            raise ValueError("colours need `recolour` (the materials they change) and `own` (those materials' own colour)")
        if self.own is not None and self.own.name in self.colours:
            raise ValueError(f"colour {self.own.name!r} is the kind's own; name the others differently")
        return self

    @property
    def varies(self) -> bool:
        """Whether its models may differ at all (a kind without ranges has one model, the catalog's)."""
        return (self.height, self.width, self.size) != ((1.0, 1.0),) * 3

    @property
    def colour_names(self) -> tuple[str, ...]:
        """Every colour a look of the kind may name: its own first (none when it has no palette)."""
        return ((self.own.name, *self.colours) if self.own is not None else ())

    def tint(self, colour: str | None) -> dict[str, tuple[float, float, float]]:
        """What the render multiplies each recoloured material by for `colour` (empty: the model's own colours)."""
        if colour is None or self.own is None or colour == self.own.name:
            return {}
        target = self.colours[colour]
        factor = tuple(round(t / max(o, 0.01), 4) for t, o in zip(target, self.own.rgb))
        return {material: factor for material in self.recolour}


class LooksCatalog(Strict):
    kinds: dict[str, KindLooks] = {}

    def of(self, kind: str) -> KindLooks:
        """A kind's looks; a kind the file does not list has one: its catalog model in its own colours."""
        return self.kinds.get(kind, KindLooks())


@cache
def load_looks() -> LooksCatalog:
    return load_validated(LooksCatalog, DEFAULT_LOOKS, "looks")


@dataclass(frozen=True)
class ModelLook:
    """Model `number` of a kind: its height and footprint stretch and its largest extent as a factor of the
    catalog's (all 1 for model 0, the catalog model itself, and for another model file of the kind)."""

    kind: str
    number: int
    height: float = 1.0
    width: float = 1.0
    size: float = 1.0
    file: bool = False  # another model file of the kind (`assets fetch --per-object`), not drawn from a seed

    @property
    def key(self) -> str:
        """The model's name in the manifest and every per-model map: the kind itself for model 0."""
        return self.kind if self.number == 0 else f"{self.kind}{SEPARATOR}{self.number}"

    @property
    def digest(self) -> str:
        """Of its parameters and the way it is built: a model built otherwise (another looks.yaml, `size_spread` or
        `BUILD`) is made again."""
        return hashlib.sha256(json.dumps({**asdict(self), "build": BUILD}, sort_keys=True).encode()).hexdigest()[:8]

    @property
    def slug(self) -> str:
        """Its model file's name, less `.glb`: `mug__3_<digest>`."""
        return model_slug(self.kind, self.number, self.digest)

    def shape(self) -> dict[str, float]:
        return {"height": self.height, "width": self.width, "size": self.size}


def model_look(kind: str, number: int, size_spread: float = 1.0) -> ModelLook:
    """Model `number` of `kind`, drawn from the seed `<kind>/<number>` within the kind's ranges; `size_spread`
    scales how far its size strays from the catalog's (0: the catalog size)."""
    if number == 0:
        return ModelLook(kind, 0)
    looks = load_looks().of(kind)
    rng = random.Random(f"{kind}{SEPARATOR}{number}")
    height, width, size = (round(rng.uniform(*span), 3) for span in (looks.height, looks.width, looks.size))
    return ModelLook(kind, number, height, width, round(1 + size_spread * (size - 1), 3))


def model_slug(kind: str, number: int, tag: str) -> str:
    """The file name (less `.glb`) of a kind's model `number` beyond its first: `mug__3_<tag>`, where the tag tells
    its source's models apart (a digest of its parameters, an Objaverse uid's start, an imported file's name)."""
    return f"{slugify(kind)}__{number}_{slugify(tag)}"


def model_of_key(key: str) -> tuple[str, int]:
    """`mug/3` -> (`mug`, 3); a plain kind -> (kind, 0)."""
    kind, _, number = key.partition(SEPARATOR)
    return kind, int(number or 0)
