"""Kitchen objects: blender, toaster, mug, wine bottle, teapot, kettle, bowl, water bottle.

Vessels are lathed profiles (outside up, over the rim, inside down) so they have real walls; handles
sit on +X, spouts on −X, labels and controls face −Y (the camera).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PIL import Image, ImageDraw

from tabletest.assets.builtin.parts import Material, Part
from tabletest.assets.builtin.recipes.common import BLACK_PLASTIC, STEEL
from tabletest.assets.builtin.shapes import (
    box,
    cylinder,
    handle,
    lathe,
    loop,
    moved,
    rounded_box,
    smooth_path,
    tube,
)

WHITE_CERAMIC = Material("white ceramic", (0.93, 0.92, 0.88), roughness=0.2)


def _front_label(
    width_px: int, height_px: int, background: tuple, ink: tuple, band: tuple, front_share: float
) -> Image.Image:
    """A wrap-around label for a lathed body: a coloured panel centred on u = 0.75 (the −Y side) with a
    title band and a few lines of fake print; the rest of the wrap stays plain."""
    image = Image.new("RGB", (width_px, height_px), background)
    draw = ImageDraw.Draw(image)
    centre, half = 0.75 * width_px, front_share * width_px / 2
    left, right = centre - half, centre + half
    draw.rectangle([left, height_px * 0.3, right, height_px * 0.55], fill=band)
    for k, row in enumerate((0.15, 0.68, 0.78, 0.88)):
        inset = half * (0.25 if k == 0 else 0.45)
        draw.rectangle([left + inset, height_px * row, right - inset, height_px * (row + 0.05)], fill=ink)
    return image


def mug() -> list[Part]:
    outside = lathe([(0, 0), (0.036, 0), (0.039, 0.004), (0.04, 0.02), (0.041, 0.095), (0.0395, 0.097)], 40)
    inside = lathe([(0.0395, 0.097), (0.037, 0.095), (0.036, 0.012), (0.03, 0.008), (0, 0.008)], 40)
    grip = moved(handle(0.027, 0.0065, -75, 75), (0.041, 0, 0.052))
    glaze = Material("blue glaze", (0.09, 0.27, 0.62), roughness=0.2)
    return [Part("body", outside, glaze), Part("inside", inside, WHITE_CERAMIC), Part("handle", grip, glaze)]


def wine_bottle() -> list[Part]:
    glass = lathe(
        [
            (0, 0.004),
            (0.03, 0),
            (0.036, 0.003),
            (0.037, 0.012),
            (0.037, 0.2),
            (0.034, 0.214),
            (0.026, 0.23),
            (0.018, 0.243),
            (0.0148, 0.258),
            (0.014, 0.286),
            (0.0162, 0.288),
            (0.0162, 0.298),
            (0, 0.299),
        ],
        40,
    )
    capsule = lathe([(0.0152, 0.252), (0.0152, 0.299), (0.0168, 0.299), (0.0168, 0.301), (0, 0.302)], 32)
    label = lathe([(0.0374, 0.07), (0.0374, 0.16)], 48)
    art = _front_label(512, 160, (237, 227, 199), (60, 40, 30), (120, 20, 35), 0.4)
    return [
        Part("bottle", glass, Material("green glass", (0.03, 0.16, 0.06), roughness=0.08, metallic=0.1)),
        Part("capsule", capsule, Material("foil", (0.45, 0.04, 0.08), roughness=0.3, metallic=0.7)),
        Part("label", label, Material("label", (1, 1, 1), roughness=0.7, texture=art)),
    ]


def blender() -> list[Part]:
    base = rounded_box((0.17, 0.17, 0.12), 0.02)
    collar = lathe([(0.062, 0.115), (0.066, 0.12), (0.066, 0.15), (0.0, 0.15)], 32)
    smoothie = lathe([(0, 0.15), (0.058, 0.15), (0.063, 0.26), (0.0, 0.26)], 32)
    jar = lathe([(0.063, 0.26), (0.074, 0.37), (0.0, 0.37)], 32)
    jar_wall = lathe([(0.0605, 0.15), (0.0615, 0.152), (0.0655, 0.26), (0.064, 0.26)], 32)
    lid = lathe([(0, 0.368), (0.077, 0.368), (0.077, 0.385), (0.025, 0.388), (0.022, 0.402), (0, 0.403)], 32)
    jar_handle = tube(
        [(0.06, 0, 0.34), (0.1, 0, 0.335), (0.112, 0, 0.3), (0.104, 0, 0.2), (0.09, 0, 0.17), (0.06, 0, 0.17)],
        0.011,
        12,
    )
    dial = moved(cylinder(0.022, 0.014, 28), (0, -0.083, 0.06), (90, 0, 0))
    knob = moved(box((0.008, 0.01, 0.03)), (0, -0.098, 0.045))
    buttons = [moved(rounded_box((0.018, 0.01, 0.012), 0.003), (x, -0.085, 0.022)) for x in (-0.045, 0.045)]
    return [
        Part("base", base, Material("brushed steel", (0.72, 0.72, 0.74), roughness=0.35, metallic=0.85)),
        Part("collar", collar, BLACK_PLASTIC),
        Part("smoothie", smoothie, Material("smoothie", (0.85, 0.3, 0.42), roughness=0.5)),
        Part("jar wall", jar_wall, Material("glass rim", (0.8, 0.86, 0.9), roughness=0.05)),
        Part("jar", jar, Material("glass", (0.78, 0.86, 0.9), roughness=0.05)),
        Part("lid", lid, BLACK_PLASTIC),
        Part("handle", jar_handle, BLACK_PLASTIC),
        Part("dial", dial, Material("dial", (0.1, 0.1, 0.1), roughness=0.3)),
        Part("dial mark", knob, Material("chrome", (0.9, 0.9, 0.92), roughness=0.15, metallic=1.0)),
        *[Part(f"button {i}", b, Material("button", (0.15, 0.15, 0.16), roughness=0.4)) for i, b in enumerate(buttons)],
    ]


def toaster() -> list[Part]:
    body = rounded_box((0.27, 0.16, 0.18), 0.03, bottom_z=0.012)
    base = rounded_box((0.28, 0.17, 0.02), 0.006)
    slots = [box((0.2, 0.028, 0.004), bottom_z=0.19) for _ in range(2)]
    slots = [moved(s, (0, y, 0)) for s, y in zip(slots, (-0.035, 0.035))]
    toast = [moved(rounded_box((0.12, 0.012, 0.11), 0.012), (x, y, 0.12)) for x, y in ((-0.02, -0.035), (0.025, 0.035))]
    crust = [
        moved(rounded_box((0.126, 0.01, 0.116), 0.013), (x, y, 0.117)) for x, y in ((-0.02, -0.035), (0.025, 0.035))
    ]
    lever = moved(rounded_box((0.03, 0.035, 0.016), 0.005), (0.146, 0, 0.14))
    dial = moved(cylinder(0.014, 0.01, 24), (0.095, -0.078, 0.07), (90, 0, 0))
    bread = Material("toast", (0.86, 0.66, 0.36), roughness=0.9)
    return [
        Part("body", body, Material("red enamel", (0.72, 0.06, 0.06), roughness=0.25, metallic=0.2)),
        Part("base", base, BLACK_PLASTIC),
        *[Part(f"slot {i}", s, BLACK_PLASTIC) for i, s in enumerate(slots)],
        *[Part(f"toast {i}", t, bread) for i, t in enumerate(toast)],
        *[Part(f"crust {i}", c, Material("crust", (0.55, 0.3, 0.1), roughness=0.9)) for i, c in enumerate(crust)],
        Part("lever", lever, BLACK_PLASTIC),
        Part("dial", dial, STEEL),
    ]


def teapot() -> list[Part]:
    body = lathe(
        [
            (0, 0),
            (0.05, 0),
            (0.055, 0.006),
            (0.074, 0.035),
            (0.08, 0.06),
            (0.075, 0.09),
            (0.06, 0.11),
            (0.045, 0.118),
            (0.0, 0.118),
        ],
        40,
    )
    lid = lathe([(0, 0.116), (0.047, 0.116), (0.04, 0.13), (0.02, 0.137), (0.0, 0.138)], 32)
    knob = lathe([(0, 0.136), (0.008, 0.136), (0.005, 0.142), (0.011, 0.15), (0.007, 0.157), (0, 0.158)], 20)
    spout = tube(
        [(-0.06, 0, 0.035), (-0.09, 0, 0.06), (-0.108, 0, 0.095), (-0.125, 0, 0.118)], [0.02, 0.013, 0.009, 0.008], 16
    )
    grip = tube(
        smooth_path([(0.07, 0, 0.03), (0.105, 0, 0.04), (0.122, 0, 0.075), (0.11, 0, 0.1), (0.065, 0, 0.105)], 6),
        0.008,
        12,
    )
    gold = Material("gold trim", (0.85, 0.65, 0.25), roughness=0.25, metallic=1.0)
    porcelain = Material("porcelain", (0.2, 0.45, 0.55), roughness=0.15)
    return [
        Part("body", body, porcelain),
        Part("lid", lid, porcelain),
        Part("knob", knob, gold),
        Part("spout", spout, porcelain),
        Part("handle", grip, porcelain),
    ]


def kettle() -> list[Part]:
    body = lathe(
        [(0, 0), (0.1, 0), (0.108, 0.01), (0.11, 0.04), (0.1, 0.09), (0.075, 0.13), (0.06, 0.14), (0.0, 0.14)],
        48,
    )
    lid = lathe([(0, 0.138), (0.058, 0.138), (0.05, 0.15), (0.0, 0.152)], 32)
    knob = lathe([(0, 0.15), (0.01, 0.15), (0.008, 0.158), (0.016, 0.168), (0, 0.172)], 20)
    spout = tube(
        [(-0.085, 0, 0.05), (-0.12, 0, 0.09), (-0.145, 0, 0.13), (-0.155, 0, 0.15)], [0.024, 0.016, 0.012, 0.011], 16
    )
    whistle = moved(cylinder(0.013, 0.018, 20), (-0.158, 0, 0.148), (0, -35, 0))
    arch = tube(
        [(-0.055, 0, 0.13), (-0.06, 0, 0.2), (-0.03, 0, 0.235), (0.03, 0, 0.235), (0.06, 0, 0.2), (0.055, 0, 0.13)],
        0.006,
        12,
    )
    grip = tube([(-0.04, 0, 0.227), (-0.02, 0, 0.237), (0.02, 0, 0.237), (0.04, 0, 0.227)], 0.012, 16)
    return [
        Part("body", body, STEEL),
        Part("lid", lid, STEEL),
        Part("knob", knob, BLACK_PLASTIC),
        Part("spout", spout, STEEL),
        Part("whistle", whistle, BLACK_PLASTIC),
        Part("handle frame", arch, STEEL),
        Part("grip", grip, BLACK_PLASTIC),
    ]


def bowl() -> list[Part]:
    outside = lathe(
        [
            (0, 0.0),
            (0.032, 0.0),
            (0.034, 0.008),
            (0.045, 0.012),
            (0.065, 0.03),
            (0.077, 0.05),
            (0.08, 0.065),
            (0.079, 0.067),
        ],
        48,
    )
    inside = lathe([(0.079, 0.067), (0.075, 0.064), (0.072, 0.05), (0.06, 0.032), (0.04, 0.018), (0.0, 0.014)], 48)
    return [
        Part("outside", outside, Material("terracotta glaze", (0.75, 0.32, 0.14), roughness=0.3)),
        Part("inside", inside, Material("cream glaze", (0.94, 0.9, 0.8), roughness=0.2)),
    ]


def water_bottle() -> list[Part]:
    ridges = [(0.033 - 0.0015 * (k % 2), 0.03 + 0.008 * k) for k in range(6)]
    body = lathe(
        [
            (0, 0.003),
            (0.022, 0.0),
            (0.031, 0.004),
            (0.033, 0.015),
            *ridges,
            (0.033, 0.17),
            (0.031, 0.185),
            (0.022, 0.205),
            (0.014, 0.215),
            (0.0135, 0.22),
            (0, 0.22),
        ],
        40,
    )
    label = lathe([(0.0335, 0.085), (0.0335, 0.15)], 48)
    cap = lathe([(0, 0.219), (0.0145, 0.219), (0.0145, 0.236), (0.013, 0.238), (0, 0.238)], 14)
    neck_ring = moved(
        loop(
            np.c_[
                0.0145 * np.cos(np.linspace(0, 2 * np.pi, 24, endpoint=False)),
                0.0145 * np.sin(np.linspace(0, 2 * np.pi, 24, endpoint=False)),
                np.zeros(24),
            ],
            0.0015,
            8,
        ),
        (0, 0, 0.216),
    )
    art = _front_label(512, 128, (30, 110, 200), (255, 255, 255), (255, 255, 255), 0.5)
    blue_cap = Material("cap", (0.05, 0.3, 0.75), roughness=0.4)
    return [
        Part("bottle", body, Material("clear plastic", (0.72, 0.84, 0.92), roughness=0.05)),
        Part("label", label, Material("label", (1, 1, 1), roughness=0.5, texture=art)),
        Part("cap", cap, blue_cap),
        Part("neck ring", neck_ring, blue_cap),
    ]


RECIPES: dict[str, Callable[[], list[Part]]] = {
    "blender": blender,
    "toaster": toaster,
    "mug": mug,
    "wine bottle": wine_bottle,
    "teapot": teapot,
    "kettle": kettle,
    "bowl": bowl,
    "water bottle": water_bottle,
}
