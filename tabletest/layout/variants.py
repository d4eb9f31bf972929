"""Which look each object of a random scene takes (config `looks`): a model of its kind and a colour.

Every look a kind may take is listed once per set (`kind_variants`), less the held-out ones (or only them, for
validation). A scene draws each object's look from its own stream; several of one kind in one scene take
different looks while the kind has enough of them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tabletest.assets.variants import SEPARATOR, ModelLook, load_looks, model_look
from tabletest.errors import UserError
from tabletest.layout.instances import kind_of
from tabletest.layout.random_config import Looks


@dataclass(frozen=True)
class Variant:
    """An object's look: its model and its colour (None: the model's own colours, on a kind without a palette)."""

    model: ModelLook
    colour: str | None = None

    @property
    def label(self) -> str:
        """`mug/2/red`: what a reader groups or splits by."""
        return SEPARATOR.join([self.model.kind, str(self.model.number), *([self.colour] if self.colour else [])])

    def record(self) -> dict:
        """What a record says of it: the look's label, the model's number, seed and parameters, the colour."""
        seed = self.model.key if self.model.number and not self.model.file else None
        return {"look": self.label, "model": self.model.number, "seed": seed, "shape": self.model.shape(), "colour": self.colour}

    @classmethod
    def of_record(cls, obj: Mapping) -> Variant | None:
        """A record object's look (its `variant`), None for an object in its catalog model and own colours."""
        look = obj.get("variant")
        if look is None:
            return None
        file = look["model"] > 0 and look["seed"] is None
        return cls(ModelLook(obj["name"], look["model"], **look["shape"], file=file), look["colour"])

    @property
    def names(self) -> frozenset[str]:
        """What a held-out spec may name it by: `mug/2`, `mug/2/red`, `mug/red`, `red`."""
        kind, number = self.model.kind, self.model.number
        if self.colour is None:
            return frozenset({f"{kind}/{number}"})
        return frozenset({f"{kind}/{number}", self.label, f"{kind}/{self.colour}", self.colour})


def model_key(label: str, variant: Variant | None) -> str:
    """The key of an object's model in the size, shape and asset maps: its look's (`mug/2`), else its kind's."""
    return variant.model.key if variant is not None else kind_of(label)


def model_key_of(obj: Mapping) -> str:
    """A record object's model key: `mug/2` for its look's model 2, else its name (its catalog model)."""
    return model_key(obj["name"], Variant.of_record(obj))


def kind_variants(pool: Sequence[str], looks: Looks, files: Mapping[str, int] | None = None) -> dict[str, tuple[Variant, ...]]:
    """Every look each kind of the pool may be drawn in under `looks` (its held-out ones left out while training,
    only they for validation); a kind left with none is not in the map. `files`: the kinds whose models are files
    (fetched or imported, not built from a recipe), and how many each has: those are drawn among, uncoloured. A
    held-out spec naming no look of the pool is refused."""
    every = {kind: _every(kind, looks, (files or {}).get(kind)) for kind in pool}
    named = {name for variants in every.values() for v in variants for name in v.names}
    if unknown := [spec for spec in looks.held_out if spec not in named]:
        raise UserError(
            f"looks.held_out {unknown[0]!r} names no look of the objects drawn: write a model (mug/2, numbered below "
            "looks.models), a colour of some kind's palette (red), a kind in a colour (mug/red) or all three (mug/2/red)"
        )
    held = set(looks.held_out)
    validation = looks.split == "validation"
    kept = {kind: tuple(v for v in variants if bool(v.names & held) == validation) for kind, variants in every.items()}
    return {kind: variants for kind, variants in kept.items() if variants}


def _every(kind: str, looks: Looks, files: int | None) -> list[Variant]:
    if files is not None:
        return [Variant(ModelLook(kind, number, file=number > 0)) for number in range(min(looks.models, files))]
    palette = load_looks().of(kind)
    return [
        Variant(model_look(kind, number, looks.size_spread), colour)
        for number in range(looks.models if palette.varies else 1)
        for colour in ((palette.colour_names if looks.colours else ()) or (None,))
    ]


def draw_variants(labels: Sequence[str], variants: Mapping[str, tuple[Variant, ...]], rng: random.Random) -> tuple[Variant, ...]:
    """Each object's look, in order: several of one kind take different looks while the kind has enough."""
    taken: set[Variant] = set()
    out = []
    for label in labels:
        choices = variants[kind_of(label)]
        fresh = [v for v in choices if v not in taken] or list(choices)
        out.append(rng.choice(fresh))
        taken.add(out[-1])
    return tuple(out)
