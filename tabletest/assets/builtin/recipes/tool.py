"""Tools: screwdriver, hammer, wrench, scissors, flashlight, stapler.

The camera looks at the table from only ~16° above, so a flat tool lying down shows nothing but its
edge. Tools whose identity is their outline (hammer, wrench, scissors) therefore stand in the x–z
plane facing the camera, as in a shop display; round tools (screwdriver, flashlight) lie along x;
the stapler shows its side profile. Handles point to +X.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PIL import Image

from tabletest.assets.builtin.parts import Material, Part
from tabletest.assets.builtin.recipes.common import STEEL
from tabletest.assets.builtin.shapes import (
    box,
    cylinder,
    extrude_polygon,
    lathe,
    loop,
    moved,
    rounded_box,
    smooth_path,
    tube,
)

DARK_STEEL = Material("dark steel", (0.35, 0.36, 0.38), roughness=0.35, metallic=1.0)
BLACK_RUBBER = Material("black rubber", (0.04, 0.04, 0.04), roughness=0.85)


def _upright(mesh, depth: float):
    """A flat x–y build (extruded along +Z by `depth`) turned to stand in the x–z plane, centred on y = 0."""
    return moved(mesh, (0, depth / 2, 0), (90, 0, 0))


def _wood_grain(seed: int) -> Image.Image:
    """Lengthwise grain for lathed handles (lathe UVs: u around, v along): pale streaks on warm wood."""
    rng = np.random.default_rng(seed)
    u = np.linspace(0, 1, 256)
    streaks = sum(np.sin(2 * np.pi * (k * u + rng.random())) * rng.random() / k for k in range(3, 40, 3))
    tone = 0.5 + 0.5 * streaks / np.abs(streaks).max()
    base, light = np.array([150, 95, 50]), np.array([205, 150, 90])
    row = (base + (light - base) * tone[:, None]).astype(np.uint8)
    return Image.fromarray(np.repeat(row[None], 64, axis=0))


def screwdriver() -> list[Part]:
    tip = box((0.0066, 0.0014, 0.014))
    shaft = moved(cylinder(0.0032, 0.1, 16), (0, 0, 0.008))
    bolster = lathe([(0, 0.1), (0.006, 0.1), (0.0095, 0.108), (0.0095, 0.112), (0, 0.112)], 24)
    grip = lathe(
        [(0, 0.108), (0.0115, 0.108), (0.013, 0.13), (0.0125, 0.17), (0.0148, 0.19), (0.0142, 0.205), (0, 0.207)], 24
    )
    bands = [
        lathe([(0.0128, z), (0.0136, z + 0.003), (0.0136, z + 0.02), (0.0128, z + 0.023)], 24) for z in (0.128, 0.16)
    ]
    lie = (0, 90, 0)  # the lathe axis +Z becomes +X: tip to −X, handle to +X
    handle = Material("amber plastic", (0.95, 0.55, 0.05), roughness=0.2)
    return [
        Part("tip", moved(tip, rotate_deg=lie), DARK_STEEL),
        Part("shaft", moved(shaft, rotate_deg=lie), STEEL),
        Part("bolster", moved(bolster, rotate_deg=lie), handle),
        Part("handle", moved(grip, rotate_deg=lie), handle),
        *[Part(f"grip band {i}", moved(b, rotate_deg=lie), BLACK_RUBBER) for i, b in enumerate(bands)],
    ]


def hammer() -> list[Part]:
    """A claw hammer standing on its head, handle up: the T outline faces the camera."""
    eye = rounded_box((0.04, 0.03, 0.046), 0.006)
    neck = lathe([(0, 0), (0.013, 0), (0.013, 0.03), (0.017, 0.045), (0.0195, 0.056), (0.019, 0.062), (0, 0.062)], 28)
    neck = moved(neck, (-0.014, 0, 0.023), (0, -90, 0))  # lathe +Z becomes −X: striking face on the left
    claw_outline = np.vstack(
        [
            smooth_path([(0.014, 0.044), (0.045, 0.047), (0.075, 0.06), (0.1, 0.086)], 5),
            smooth_path([(0.095, 0.088), (0.068, 0.04), (0.042, 0.014), (0.014, 0.005)], 5),
        ]
    )
    claw = _upright(extrude_polygon(claw_outline, 0.022), 0.022)
    grip = lathe(
        [
            (0, 0.03),
            (0.013, 0.03),
            (0.014, 0.06),
            (0.0122, 0.15),
            (0.0128, 0.25),
            (0.0158, 0.305),
            (0.014, 0.326),
            (0, 0.33),
        ],
        24,
    )
    return [
        Part("head", eye, DARK_STEEL),
        Part("face", neck, DARK_STEEL),
        Part("claw", claw, DARK_STEEL),
        Part("handle", grip, Material("ash wood", (1, 1, 1), roughness=0.55, texture=_wood_grain(7))),
    ]


def _open_jaw(radius: float, gap: float) -> np.ndarray:
    """The outline of a wrench's open end: a disc with a parallel-sided slot opening towards −X."""
    half = gap / 2
    alpha = np.arcsin(half / radius)
    arc_t = np.linspace(-(np.pi - alpha), np.pi - alpha, 28)
    rim = np.c_[radius * np.cos(arc_t), radius * np.sin(arc_t)]
    floor_x = radius * 0.15
    slot = [
        (floor_x, half),
        (floor_x + half * 0.7, half * 0.45),
        (floor_x + half * 0.7, -half * 0.45),
        (floor_x, -half),
    ]
    return np.vstack([rim, slot])


def wrench() -> list[Part]:
    """A combination wrench standing on edge: open jaw on the left, box ring on the right."""
    depth = 0.005
    jaw = _open_jaw(0.021, 0.014)
    turn = np.radians(15)
    jaw = jaw @ np.array([[np.cos(turn), np.sin(turn)], [-np.sin(turn), np.cos(turn)]]) + (-0.083, 0)
    shank = [
        (-0.07, -0.0085),
        (-0.02, -0.0068),
        (0.05, -0.0068),
        (0.078, -0.009),
        (0.078, 0.009),
        (0.05, 0.0068),
        (-0.02, 0.0068),
        (-0.07, 0.0085),
    ]
    ring = lathe(
        [(0.0092, -0.0005), (0.0165, -0.0005), (0.0165, depth + 0.0005), (0.0092, depth + 0.0005), (0.0092, -0.0005)],
        24,
    )
    return [
        Part("open jaw", _upright(extrude_polygon(jaw, depth), depth), STEEL),
        Part("shank", _upright(extrude_polygon(shank, depth * 0.8), depth * 0.8), DARK_STEEL),
        Part("box end", _upright(moved(ring, (0.088, 0, 0)), depth), STEEL),
    ]


def _scissor_half(open_deg: float, mirror: float, layer: float) -> tuple:
    """One blade with its handle and finger loop, turned about the pivot (origin)."""
    blade = np.array(
        [
            (0.012, -0.003),
            (0.01, 0.011),
            (-0.02, 0.0135),
            (-0.06, 0.009),
            (-0.098, 0.0018),
            (-0.1, -0.0008),
            (-0.06, -0.0022),
            (-0.02, -0.0035),
        ]
    )
    turn = np.radians(open_deg)
    rot = np.array([[np.cos(turn), np.sin(turn)], [-np.sin(turn), np.cos(turn)]])
    blade = (blade * (1, mirror)) @ rot
    thick = 0.0022
    blade_mesh = moved(extrude_polygon(blade, thick), (0, 0, layer))
    centre, radii = np.array([0.066, 0.024 * mirror]), np.array([0.021 if mirror > 0 else 0.016, 0.012])
    t = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    ring = np.c_[centre[0] + radii[0] * np.cos(t), centre[1] + radii[1] * np.sin(t)] @ rot
    shank = (
        smooth_path(
            [(0.004, 0.002 * mirror), (0.025, 0.008 * mirror), (centre[0] - radii[0] * 0.7, (0.024 - 0.0095) * mirror)],
            4,
        )
        @ rot
    )
    z = layer + thick / 2
    loop_mesh = loop(np.c_[ring, np.full(len(ring), z)], 0.0038, 10)
    shank_mesh = tube(np.c_[shank, np.full(len(shank), z)], 0.0042, 10)
    return blade_mesh, shank_mesh, loop_mesh


def scissors() -> list[Part]:
    """Slightly open scissors standing on edge: blades to the left, two finger loops to the right."""
    plastic = Material("orange plastic", (0.95, 0.38, 0.05), roughness=0.35)
    parts = []
    for name, open_deg, mirror, layer in (("upper", -7, 1.0, 0.0022), ("lower", 7, -1.0, 0.0)):
        blade, shank, ring = _scissor_half(open_deg, mirror, layer)
        parts += [
            Part(f"{name} blade", _upright(blade, 0.0044), STEEL),
            Part(f"{name} shank", _upright(shank, 0.0044), plastic),
            Part(f"{name} finger loop", _upright(ring, 0.0044), plastic),
        ]
    pivot = moved(cylinder(0.0035, 0.006, 16), (0, 0, -0.0008))
    return parts + [Part("pivot screw", _upright(pivot, 0.0044), DARK_STEEL)]


def flashlight() -> list[Part]:
    """A torch lying on the table, its head turned 30° towards the camera so the lens shows."""
    body = lathe(
        [(0, 0.004), (0.0135, 0.004), (0.013, 0.12), (0.016, 0.132), (0.021, 0.16), (0.021, 0.168), (0, 0.168)], 32
    )
    tail = lathe([(0, 0), (0.0125, 0), (0.0138, 0.004), (0.0138, 0.02), (0, 0.02)], 32)
    knurl = lathe([(0.0132, 0.04), (0.0138, 0.042), (0.0138, 0.1), (0.0132, 0.102)], 32)
    bezel = lathe([(0.0205, 0.166), (0.0225, 0.168), (0.0225, 0.18), (0.0175, 0.18), (0.0175, 0.176), (0, 0.176)], 32)
    lens = lathe([(0, 0.1765), (0.0176, 0.1765), (0.0176, 0.1775), (0, 0.1775)], 32)
    button = moved(rounded_box((0.012, 0.009, 0.006), 0.0025), (0, 0, 0.108), (0, 90, 0))
    button = moved(button, (0.0138, 0, 0))
    pose = (0, -90, 30)  # lathe +Z becomes −X (head left), then turned 30° towards −Y
    return [
        Part(
            "body",
            moved(body, rotate_deg=pose),
            Material("anodised aluminium", (0.08, 0.09, 0.1), roughness=0.35, metallic=0.7),
        ),
        Part("tail cap", moved(tail, rotate_deg=pose), BLACK_RUBBER),
        Part(
            "grip",
            moved(knurl, rotate_deg=pose),
            Material("knurled grip", (0.22, 0.23, 0.25), roughness=0.6, metallic=0.6),
        ),
        Part("bezel", moved(bezel, rotate_deg=pose), STEEL),
        Part("lens", moved(lens, rotate_deg=pose), Material("lens", (1.0, 0.97, 0.75), roughness=0.05)),
        Part("switch", moved(button, rotate_deg=pose), Material("switch", (0.75, 0.08, 0.05), roughness=0.5)),
    ]


def stapler() -> list[Part]:
    """A desk stapler seen from the side: black base, red top arm hinged at the back (+X)."""
    width = 0.036
    base = [(-0.08, 0.0), (0.08, 0.0), (0.081, 0.01), (0.076, 0.014), (-0.074, 0.014), (-0.08, 0.009)]
    arm = np.vstack(
        [
            [(0.078, 0.019), (-0.074, 0.022)],
            smooth_path(
                [
                    (-0.084, 0.026),
                    (-0.078, 0.034),
                    (-0.04, 0.044),
                    (0.02, 0.051),
                    (0.062, 0.05),
                    (0.08, 0.042),
                    (0.085, 0.028),
                ],
                5,
            ),
        ]
    )
    magazine = [(0.07, 0.015), (-0.076, 0.018), (-0.076, 0.024), (0.07, 0.022)]
    anvil = box((0.03, 0.022, 0.0012), bottom_z=0.014)
    hinge = moved(cylinder(0.0045, width + 0.004, 20), (0.07, (width + 0.004) / 2, 0.02), (90, 0, 0))
    return [
        Part("base", _upright(extrude_polygon(base, width + 0.004), width + 0.004), BLACK_RUBBER),
        Part("magazine", _upright(extrude_polygon(magazine, width * 0.7), width * 0.7), STEEL),
        Part(
            "top arm",
            _upright(extrude_polygon(arm, width), width),
            Material("red plastic", (0.75, 0.05, 0.05), roughness=0.3),
        ),
        Part("anvil", moved(anvil, (-0.06, 0, 0)), STEEL),
        Part("hinge", hinge, DARK_STEEL),
    ]


RECIPES: dict[str, Callable[[], list[Part]]] = {
    "screwdriver": screwdriver,
    "hammer": hammer,
    "wrench": wrench,
    "scissors": scissors,
    "flashlight": flashlight,
    "stapler": stapler,
}
