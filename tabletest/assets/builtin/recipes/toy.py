"""Toys and prizes: basketball, tennis ball, teddy bear, rubber duck, trophy."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import trimesh
from PIL import Image

from tabletest.assets.builtin.parts import Material, Part
from tabletest.assets.builtin.shapes import (
    box,
    ellipsoid,
    lathe,
    limb,
    loop,
    moved,
    smooth_path,
    tube,
    uv_sphere,
)

BLACK_GLOSS = Material("black gloss", (0.02, 0.02, 0.02), roughness=0.1)


def _pebbled(base: tuple[int, int, int], spread: int, seed: int, size: int = 128) -> Image.Image:
    """A fine speckle of lighter and darker dots: leather pebbling, felt fuzz."""
    rng = np.random.default_rng(seed)
    noise = rng.integers(-spread, spread + 1, size=(size, size, 1))
    return Image.fromarray(np.clip(np.array(base)[None, None] + noise, 0, 255).astype(np.uint8))


def _tilted(points: np.ndarray, rotate_deg: tuple[float, float, float]) -> np.ndarray:
    """Points turned like `moved` turns a mesh, so seam curves follow their ball."""
    rx, ry, rz = np.radians(rotate_deg)
    matrix = trimesh.transformations.euler_matrix(rx, ry, rz, "sxyz")[:3, :3]
    return points @ matrix.T


def basketball() -> list[Part]:
    """Orange pebbled ball with black seams: two great circles and two curved side seams."""
    radius = 0.12
    t = np.linspace(0, 2 * np.pi, 96, endpoint=False)
    seams = [np.c_[np.zeros_like(t), np.cos(t), np.sin(t)], np.c_[np.cos(t), np.sin(t), np.zeros_like(t)]]
    for side in (-1, 1):
        polar = np.radians(52 + 16 * np.cos(2 * t))  # angle from the ±X pole, swinging twice around it
        seams.append(np.c_[side * np.cos(polar), np.sin(polar) * np.cos(t), np.sin(polar) * np.sin(t)])
    turn = (18, 0, 28)
    ball = moved(uv_sphere(radius, 24, 48), rotate_deg=turn)
    seam_material = Material("seam", (0.03, 0.02, 0.02), roughness=0.6)
    return [
        Part(
            "ball", ball, Material("orange leather", (1, 1, 1), roughness=0.75, texture=_pebbled((214, 92, 26), 14, 3))
        )
    ] + [
        Part(f"seam {i}", loop(_tilted(curve * radius, turn), radius * 0.022, 8), seam_material)
        for i, curve in enumerate(seams)
    ]


def tennis_ball() -> list[Part]:
    """Fuzzy optic-yellow ball with the white curved seam."""
    radius = 0.0335
    t = np.linspace(0, 2 * np.pi, 120, endpoint=False)
    a, b = 0.72, 0.28  # a + b = 1 keeps the curve on the unit sphere
    seam = np.c_[
        a * np.cos(t) + b * np.cos(3 * t), a * np.sin(t) - b * np.sin(3 * t), 2 * np.sqrt(a * b) * np.sin(2 * t)
    ]
    turn = (70, 0, 20)
    return [
        Part(
            "ball",
            uv_sphere(radius, 20, 40),
            Material("felt", (1, 1, 1), roughness=1.0, texture=_pebbled((212, 236, 48), 16, 5)),
        ),
        Part(
            "seam",
            loop(_tilted(seam * radius, turn), radius * 0.035, 8),
            Material("seam", (0.96, 0.96, 0.92), roughness=0.8),
        ),
    ]


def teddy_bear() -> list[Part]:
    """A sitting bear facing −Y: round ears, pale muzzle and belly, dark nose and eyes, stubby limbs, a red bow."""
    fur = Material("brown fur", (0.32, 0.16, 0.065), roughness=0.95)
    pale = Material("pale fur", (0.72, 0.52, 0.32), roughness=0.95)
    parts = [
        Part("body", moved(ellipsoid((0.072, 0.062, 0.085)), (0, 0, 0.09)), fur),
        Part("belly", moved(ellipsoid((0.046, 0.02, 0.055)), (0, -0.047, 0.085)), pale),
        Part("head", moved(ellipsoid((0.064, 0.058, 0.058)), (0, -0.008, 0.215)), fur),
        Part("muzzle", moved(ellipsoid((0.03, 0.024, 0.022)), (0, -0.058, 0.2)), pale),
        Part("nose", moved(ellipsoid((0.012, 0.008, 0.008)), (0, -0.081, 0.21)), BLACK_GLOSS),
    ]
    for side in (-1, 1):
        parts += [
            Part(
                f"eye {side:+d}",
                moved(ellipsoid((0.0075, 0.006, 0.0075), 2), (side * 0.024, -0.058, 0.232)),
                BLACK_GLOSS,
            ),
            Part(f"ear {side:+d}", moved(ellipsoid((0.024, 0.013, 0.024)), (side * 0.048, -0.006, 0.262)), fur),
            Part(
                f"inner ear {side:+d}", moved(ellipsoid((0.014, 0.006, 0.014), 2), (side * 0.048, -0.016, 0.26)), pale
            ),
            Part(f"arm {side:+d}", limb((side * 0.06, -0.015, 0.14), (side * 0.08, -0.045, 0.085), 0.025), fur),
            Part(f"leg {side:+d}", limb((side * 0.042, -0.03, 0.035), (side * 0.058, -0.1, 0.032), 0.03), fur),
            Part(
                f"foot pad {side:+d}", moved(ellipsoid((0.022, 0.006, 0.024), 2), (side * 0.058, -0.128, 0.034)), pale
            ),
            Part(
                f"bow loop {side:+d}",
                moved(ellipsoid((0.022, 0.008, 0.014), 2), (side * 0.02, -0.058, 0.157), (0, side * 15, 0)),
                Material("red ribbon", (0.78, 0.05, 0.08), roughness=0.4),
            ),
        ]
    knot = moved(ellipsoid((0.009, 0.008, 0.01), 2), (0, -0.063, 0.157))
    return parts + [Part("bow knot", knot, Material("red ribbon", (0.78, 0.05, 0.08), roughness=0.4))]


def rubber_duck() -> list[Part]:
    """The classic yellow bath duck, facing left (−X) and turned 30° towards the camera so beak and eye show."""
    yellow = Material("yellow rubber", (1.0, 0.8, 0.05), roughness=0.3)
    pose = (0, 0, 30)
    pieces = [
        ("body", moved(ellipsoid((0.05, 0.038, 0.03)), (0, 0, 0.03)), yellow),
        ("tail", moved(ellipsoid((0.022, 0.018, 0.012), 2), (0.043, 0, 0.048), (0, -35, 0)), yellow),
        ("head", moved(ellipsoid((0.026, 0.025, 0.025)), (-0.026, 0, 0.074)), yellow),
        (
            "beak",
            moved(ellipsoid((0.018, 0.013, 0.0055), 2), (-0.052, 0, 0.069), (0, 8, 0)),
            Material("orange beak", (1.0, 0.4, 0.02), roughness=0.3),
        ),
    ]
    for side in (-1, 1):
        pieces += [
            (
                f"wing {side:+d}",
                moved(ellipsoid((0.026, 0.008, 0.014), 2), (0.006, side * 0.034, 0.038), (side * 12, -15, 0)),
                yellow,
            ),
            (f"eye {side:+d}", moved(ellipsoid((0.0052, 0.004, 0.006), 2), (-0.041, side * 0.017, 0.083)), BLACK_GLOSS),
        ]
    return [Part(name, moved(mesh, rotate_deg=pose), material) for name, mesh, material in pieces]


def trophy() -> list[Part]:
    """A gold cup with two handles on a stem, standing on a black plinth with a plaque on the front."""
    gold = Material("gold", (1.0, 0.76, 0.28), roughness=0.2, metallic=1.0)
    plinth = box((0.12, 0.12, 0.05))
    step = box((0.09, 0.09, 0.02), bottom_z=0.05)
    plaque = box((0.07, 0.002, 0.025), bottom_z=0.0125)
    stem = lathe(
        [
            (0, 0.07),
            (0.035, 0.07),
            (0.033, 0.078),
            (0.012, 0.09),
            (0.008, 0.115),
            (0.016, 0.125),
            (0.008, 0.135),
            (0.008, 0.15),
            (0.02, 0.165),
            (0, 0.168),
        ],
        32,
    )
    cup = lathe(
        [
            (0, 0.16),
            (0.03, 0.165),
            (0.05, 0.19),
            (0.062, 0.23),
            (0.068, 0.27),
            (0.072, 0.285),
            (0.068, 0.287),
            (0.063, 0.27),
            (0.057, 0.23),
            (0.045, 0.195),
            (0, 0.185),
        ],
        40,
    )
    handles = [
        tube(
            smooth_path(
                [
                    (side * 0.06, 0, 0.265),
                    (side * 0.1, 0, 0.262),
                    (side * 0.102, 0, 0.225),
                    (side * 0.075, 0, 0.195),
                    (side * 0.045, 0, 0.188),
                ],
                5,
            ),
            0.0055,
            12,
        )
        for side in (-1, 1)
    ]
    return [
        Part("plinth", plinth, Material("black marble", (0.03, 0.03, 0.035), roughness=0.15)),
        Part("step", step, Material("black marble", (0.03, 0.03, 0.035), roughness=0.15)),
        Part(
            "plaque",
            moved(plaque, (0, -0.061, 0)),
            Material("brass plaque", (0.85, 0.65, 0.3), roughness=0.3, metallic=1.0),
        ),
        Part("stem", stem, gold),
        Part("cup", cup, gold),
        *[Part(f"handle {i}", h, gold) for i, h in enumerate(handles)],
    ]


RECIPES: dict[str, Callable[[], list[Part]]] = {
    "basketball": basketball,
    "tennis ball": tennis_ball,
    "teddy bear": teddy_bear,
    "rubber duck": rubber_duck,
    "trophy": trophy,
}
