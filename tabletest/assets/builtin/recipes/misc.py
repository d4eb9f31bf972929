"""Household odds and ends: bucket, watering can, padlock."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tabletest.assets.builtin.parts import Material, Part
from tabletest.assets.builtin.recipes.common import STEEL
from tabletest.assets.builtin.shapes import (
    arc,
    box,
    cylinder,
    lathe,
    loop,
    moved,
    rounded_box,
    smooth_path,
    tube,
)


def _circle(radius: float, z: float, points: int = 48) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, points, endpoint=False)
    return np.c_[radius * np.cos(t), radius * np.sin(t), np.full(points, z)]


def bucket() -> list[Part]:
    """A galvanised pail with ribs, a rolled rim and a wire bail standing up over it."""
    outside = lathe(
        [
            (0, 0),
            (0.098, 0),
            (0.1, 0.006),
            (0.104, 0.04),
            (0.107, 0.045),
            (0.105, 0.05),
            (0.12, 0.16),
            (0.123, 0.165),
            (0.121, 0.17),
            (0.13, 0.255),
        ],
        48,
    )
    inside = lathe([(0.13, 0.255), (0.126, 0.255), (0.097, 0.008), (0, 0.008)], 48)
    rim = loop(_circle(0.13, 0.256), 0.004, 8)
    ears = [moved(rounded_box((0.012, 0.028, 0.03), 0.004), (sx * 0.13, 0, 0.21)) for sx in (-1, 1)]
    bail = tube(
        smooth_path(
            [
                (-0.136, 0, 0.215),
                (-0.142, 0, 0.28),
                (-0.1, 0, 0.345),
                (0, 0, 0.37),
                (0.1, 0, 0.345),
                (0.142, 0, 0.28),
                (0.136, 0, 0.215),
            ],
            6,
        ),
        0.0028,
        8,
    )
    grip = moved(tube(smooth_path([(-0.04, 0, -0.004), (0, 0, 0.0), (0.04, 0, -0.004)], 4), 0.009, 14), (0, 0, 0.37))
    galvanised = Material("galvanised steel", (0.66, 0.69, 0.71), roughness=0.4, metallic=0.8)
    return [
        Part("pail", outside, galvanised),
        Part("inside", inside, Material("inside", (0.5, 0.52, 0.54), roughness=0.5, metallic=0.8)),
        Part("rim", rim, galvanised),
        *[Part(f"ear {i}", e, galvanised) for i, e in enumerate(ears)],
        Part("bail", bail, STEEL),
        Part("grip", grip, Material("wooden grip", (0.55, 0.35, 0.18), roughness=0.6)),
    ]


def watering_can() -> list[Part]:
    """A plastic garden can: long spout with a rose on the left (−X), a looped handle on the right."""
    body = lathe([(0, 0), (0.08, 0), (0.085, 0.008), (0.085, 0.15), (0.078, 0.175), (0.05, 0.19), (0.0, 0.192)], 40)
    filler = moved(
        lathe([(0.03, 0.0), (0.034, 0.0), (0.034, 0.025), (0.03, 0.025), (0.03, 0.0)], 32), (0.018, 0, 0.172)
    )
    spout_path = np.array([(-0.07, 0, 0.035), (-0.24, 0, 0.2)])
    spout = tube(spout_path, [0.016, 0.009], 16)
    direction = spout_path[1] - spout_path[0]
    tilt = np.degrees(np.arctan2(direction[0], direction[2]))  # turns the lathe's +Z onto the spout's direction
    rose = moved(
        lathe([(0, 0), (0.01, 0), (0.026, 0.025), (0.027, 0.03), (0, 0.031)], 28),
        spout_path[1] - direction / np.linalg.norm(direction) * 0.004,
        (0, tilt, 0),
    )
    grip = tube(
        smooth_path(
            [(-0.02, 0, 0.188), (0.04, 0, 0.245), (0.1, 0, 0.235), (0.125, 0, 0.17), (0.115, 0, 0.1), (0.083, 0, 0.06)],
            6,
        ),
        0.011,
        14,
    )
    green = Material("green plastic", (0.12, 0.5, 0.22), roughness=0.35)
    return [
        Part("body", body, green),
        Part("filler", filler, Material("dark green plastic", (0.05, 0.28, 0.12), roughness=0.4)),
        Part("spout", spout, green),
        Part("rose", rose, Material("brass rose", (0.8, 0.6, 0.25), roughness=0.3, metallic=0.9)),
        Part("handle", grip, green),
    ]


def padlock() -> list[Part]:
    """A brass padlock with a steel shackle and a keyhole on the front (−Y)."""
    body = rounded_box((0.05, 0.022, 0.046), 0.006)
    legs_top = 0.062
    shackle = tube(
        np.vstack([[(-0.015, 0, 0.04)], arc(0.015, 180, 0, 16) + (0, 0, legs_top), [(0.015, 0, 0.04)]]), 0.0042, 12
    )
    plug = moved(cylinder(0.0075, 0.002, 28), (0, -0.0105, 0.02), (90, 0, 0))
    keyhole = moved(cylinder(0.0021, 0.0008, 16), (0, -0.0124, 0.0225), (90, 0, 0))
    slot = moved(box((0.0016, 0.0008, 0.005)), (0, -0.0128, 0.016))
    dark = Material("keyhole", (0.02, 0.02, 0.02), roughness=0.6)
    return [
        Part("body", body, Material("brass", (0.85, 0.62, 0.22), roughness=0.3, metallic=1.0)),
        Part("shackle", shackle, STEEL),
        Part("plug", plug, Material("plug", (0.93, 0.78, 0.4), roughness=0.2, metallic=1.0)),
        Part("keyhole", keyhole, dark),
        Part("keyhole slot", slot, dark),
    ]


RECIPES: dict[str, Callable[[], list[Part]]] = {
    "bucket": bucket,
    "watering can": watering_can,
    "padlock": padlock,
}
