"""The random-scene config (`configs/random.yaml`), validated in full before any work starts.

Every `[lo, hi]` pair is a range sampled uniformly. The config's digest (sha256 of its validated
content) is part of what identifies a random scene: scene i is a pure function of (digest, seed, i).
"""

from __future__ import annotations

import hashlib
import json
from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from tabletest.config import CONFIG_DIR, Strict, load_validated
from tabletest.layout.exposure import HDRI_RADIANCE

DEFAULT_RANDOM_CONFIG = CONFIG_DIR / "random.yaml"
SURFACE_KINDS = ("wood", "painted", "stone", "cloth")
MIN_VISIBLE_FRACTION = 0.25  # the default; left out of the digest at this value (see `RandomConfig.digest`)
RANGE_BOUND = 1e6  # no angle, size or distance needs more; beyond it sampling overflows to inf


def _ordered(pair: tuple[float, float]) -> tuple[float, float]:
    if pair[0] > pair[1]:
        raise ValueError(f"range [{pair[0]}, {pair[1]}] runs backwards; write [low, high]")
    if max(abs(pair[0]), abs(pair[1])) > RANGE_BOUND:
        raise ValueError(f"range [{pair[0]:g}, {pair[1]:g}] is out of bounds; keep both ends within ±{RANGE_BOUND:,.0f}")
    return pair


Range = Annotated[tuple[float, float], AfterValidator(_ordered)]
Color = tuple[
    Annotated[float, Field(ge=0, le=1)], Annotated[float, Field(ge=0, le=1)], Annotated[float, Field(ge=0, le=1)]
]


class Repeats(Strict):
    """Several objects of one kind (two mugs, three apples), so counting is worth learning: per scene of two
    objects or more, the chance that one kind is drawn several times, and the most of one kind."""

    chance: float = Field(0.0, ge=0, le=1)
    max: int = Field(3, ge=2, le=10)


class ObjectRanges(Strict):
    count: tuple[Annotated[int, Field(ge=1)], Annotated[int, Field(ge=1)]] = (1, 6)
    held_out: tuple[str, ...] = ()
    yaw_deg: Range = (0.0, 360.0)
    repeats: Repeats = Repeats()

    @model_validator(mode="after")
    def _count_ordered(self) -> ObjectRanges:
        _ordered(self.count)
        return self


class Placement(Strict):
    area_m: tuple[Annotated[float, Field(gt=0)], Annotated[float, Field(gt=0)]] = (0.9, 0.6)
    min_gap_m: float = Field(0.03, ge=0)
    attempts: int = Field(60, ge=1, le=10_000)
    redraws: int = Field(40, ge=1, le=1_000)


MAX_LEVELS = 3  # stacks beyond this outgrow any frame the camera ranges allow around a table top


class Arrangements(Strict):
    """Per object, the chance it is stood on another (`stack`), put into a container (`contain`) or stood
    touching a neighbour (`touch`) rather than apart on the table; what can carry or hold what is the
    catalog's `support` and `container`. All 0 (the default): every object stands apart on the table."""

    stack: float = Field(0.0, ge=0, le=1)
    contain: float = Field(0.0, ge=0, le=1)
    touch: float = Field(0.0, ge=0, le=1)
    max_levels: int = Field(2, ge=1)
    attempts: int = Field(20, ge=1, le=1_000)
    contact_m: float = Field(0.003, gt=0, le=0.02)
    next_to_m: float = Field(0.05, ge=0, le=1)

    @model_validator(mode="after")
    def _sane(self) -> Arrangements:
        if self.stack + self.contain + self.touch > 1:
            raise ValueError(
                f"stack + contain + touch is {self.stack + self.contain + self.touch:g}: they share one draw per object, "
                "so their sum must be at most 1"
            )
        if self.max_levels > MAX_LEVELS:
            raise ValueError(
                f"max_levels {self.max_levels} stacks higher than the camera can frame over a table; use 1 to {MAX_LEVELS}"
            )
        return self

    @property
    def enabled(self) -> bool:
        return self.stack + self.contain + self.touch > 0


class Looks(Strict):
    """Many of a kind: each object drawn in one of its kind's looks, a model (`models` per kind: the catalog's
    and others stretched and sized within the kind's ranges, `configs/looks.yaml`) and, with `colours`, a colour
    of the kind's palette (no model is made for a colour). `held_out` looks (`mug/2`: a model, `red`: a colour,
    `mug/red`: a kind in a colour, `mug/2/red`) are never drawn while `split` is `train`; with `validation`
    each object is drawn in one of them, and kinds without one are not drawn. A config without `looks`: the
    catalog's models in their own colours (the shipped `configs/random.yaml` draws 4 models a kind, in colours)."""

    models: int = Field(1, ge=1, le=64, description="models per kind: the catalog's, then others drawn from the seeds kind/1, kind/2, ...")
    colours: bool = Field(False, strict=True, description="recolour each object from its kind's palette (configs/looks.yaml)")
    size_spread: float = Field(1.0, ge=0, le=1, description="how far the models' sizes spread over the kind's real range (0: the catalog size)")
    held_out: tuple[str, ...] = Field((), description="looks never drawn in training: mug/2 (a model), red (a colour), mug/red, mug/2/red")
    split: Literal["train", "validation"] = Field("train", description="train: never a held-out look; validation: only held-out looks")

    @model_validator(mode="after")
    def _held_out_needs_looks(self) -> Looks:
        if self.held_out and not self.enabled:
            raise ValueError("held_out needs looks: set models above 1 or colours: true, or leave held_out empty")
        return self

    @property
    def enabled(self) -> bool:
        return self.models > 1 or self.colours


class Surface(Strict):
    name: str
    kind: Literal["wood", "painted", "stone", "cloth"]
    color: Color


class TableRanges(Strict):
    width_m: Range = (1.2, 2.0)
    depth_m: Range = (0.8, 1.2)
    color_jitter: float = Field(0.15, ge=0, lt=1)
    surfaces: tuple[Surface, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _positive(self) -> TableRanges:
        if min(self.width_m[0], self.depth_m[0]) <= 0:
            raise ValueError("width_m and depth_m must be above 0 m")
        return self


class CameraRanges(Strict):
    azimuth_deg: Range = (-40.0, 40.0)
    elevation_deg: Range = (15.0, 50.0)
    distance_m: Range = (0.9, 2.2)
    focal_mm: Range = (35.0, 70.0)
    zoom_out: Range = (1.0, 1.6)
    frame_margin: float = Field(0.03, ge=0, lt=0.5)
    attempts: int = Field(40, ge=1, le=10_000)

    @model_validator(mode="after")
    def _sane(self) -> CameraRanges:
        if not (0 < self.elevation_deg[0] and self.elevation_deg[1] < 90):
            raise ValueError("elevation_deg must lie inside (0, 90): the camera looks down at the table")
        if self.distance_m[0] <= 0 or self.focal_mm[0] <= 0:
            raise ValueError("distance_m and focal_mm must be above 0")
        if self.zoom_out[0] < 1:
            raise ValueError("zoom_out must be at least 1 (1: the objects just fill the frame)")
        return self


class KeyLightRanges(Strict):
    azimuth_deg: Range = (-120.0, 120.0)
    elevation_deg: Range = (25.0, 75.0)
    distance_m: float = Field(2.5, gt=0)
    size_m: Range = (0.2, 1.5)
    power_w: Range = (120.0, 450.0)
    temperature_k: Range = (3200.0, 7500.0)

    @model_validator(mode="after")
    def _sane(self) -> KeyLightRanges:
        if not (0 < self.elevation_deg[0] and self.elevation_deg[1] <= 90):
            raise ValueError("elevation_deg must lie inside (0, 90]: the light shines from above")
        if self.size_m[0] <= 0 or self.power_w[0] < 0:
            raise ValueError("size_m must be above 0 and power_w at least 0")
        if not (800 <= self.temperature_k[0] and self.temperature_k[1] <= 20_000):
            raise ValueError("temperature_k must lie within [800, 20000] K")
        return self


class WorldRanges(Strict):
    hdris: tuple[str, ...] = Field(min_length=1)
    rotation_deg: Range = (0.0, 360.0)
    strength: Range = (0.25, 1.0)

    @model_validator(mode="after")
    def _sane(self) -> WorldRanges:
        if self.strength[0] < 0:
            raise ValueError("strength must be at least 0")
        return self

    @field_validator("hdris")
    @classmethod
    def _measured(cls, hdris: tuple[str, ...]) -> tuple[str, ...]:
        """Only HDRIs whose light `exposure.py` knows: a scene's exposure depends on it."""
        if unknown := [name for name in hdris if name not in HDRI_RADIANCE]:
            raise ValueError(
                f"has {', '.join(repr(n) for n in unknown)}, not among the HDRIs of Blender's wheel whose light is "
                f"measured (tabletest/layout/exposure.py); use some of: {', '.join(HDRI_RADIANCE)}"
            )
        return hdris


class BackdropRanges(Strict):
    hdri_probability: float = Field(0.4, ge=0, le=1)
    colors: tuple[Color, ...] = Field(min_length=1)


class RelationMargins(Strict):
    margin_m: float = Field(0.04, ge=0)
    margin_px: float = Field(4.0, ge=0)
    distance_margin_m: float = Field(0.04, ge=0)
    size_ratio: float = Field(1.2, ge=1)
    side_margin_m: float = Field(0.1, ge=0)
    # an object nothing hides measures 0.92-1.0 (edge noise), so a threshold above 0.9 would hide it
    min_visible_fraction: float = Field(MIN_VISIBLE_FRACTION, ge=0, le=0.9)


class RandomConfig(Strict):
    objects: ObjectRanges
    placement: Placement
    table: TableRanges
    camera: CameraRanges
    key_light: KeyLightRanges
    world: WorldRanges
    backdrop: BackdropRanges
    relations: RelationMargins
    arrangements: Arrangements = Arrangements()
    looks: Looks = Looks()

    @cached_property
    def digest(self) -> str:
        """sha256 of the validated content (key order and comments do not matter). `min_visible_fraction`
        came later and only decides which labels a render keeps: at its default it is left out, so the sets
        drawn before it existed keep their scenes; any other value is in the digest. So are `arrangements`
        while none is enabled (every object apart on the table, as before they existed), and `objects.repeats`
        while its chance is 0 (every kind once), and `looks` while off (the catalog's models in their own colours)."""
        content = self.model_dump(mode="json")
        if content["relations"]["min_visible_fraction"] == MIN_VISIBLE_FRACTION:
            del content["relations"]["min_visible_fraction"]
        if not self.arrangements.enabled:
            del content["arrangements"]
        if self.objects.repeats.chance == 0:
            del content["objects"]["repeats"]
        if not self.looks.enabled:
            del content["looks"]
        text = json.dumps(content, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def load_random_config(path: Path | str | None = None) -> RandomConfig:
    return load_validated(RandomConfig, Path(path) if path else DEFAULT_RANDOM_CONFIG, "random-config")
