"""Fruit and vegetables: lathed bodies with lobes, ribs and peel textures, plus stems, leaves and calyxes.

Long produce lies on its side along X (the camera sees its length); round produce stands stem up.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import trimesh

from tabletest.assets.builtin import textures
from tabletest.assets.builtin.parts import Material, Part
from tabletest.assets.builtin.shapes import (
    ellipsoid,
    extrude_polygon,
    lathe,
    lathe_arc,
    leaf,
    moved,
    ribbed,
    smooth_path,
    tube,
)

STEM_BROWN = Material("stem", (0.36, 0.25, 0.12), roughness=0.8)
LEAF_GREEN = Material("leaf", (0.18, 0.5, 0.12), roughness=0.6)
CALYX_GREEN = Material("calyx", (0.22, 0.45, 0.12), roughness=0.7)
DARK_TIP = Material("dark tip", (0.2, 0.14, 0.06), roughness=0.8)


def profile(points: Sequence[tuple[float, float]], samples: int = 4) -> np.ndarray:
    """A smooth (radius, z) lathe profile through a few sketched points, radius kept non-negative."""
    pts = smooth_path(points, samples)
    pts[:, 0] = np.clip(pts[:, 0], 0, None)
    return pts


def round_profile(radius: float, height: float, bulge: float = 0.0, top_dip: float = 0.0, bottom_dip: float = 0.0,
                  rings: int = 24) -> np.ndarray:
    """A sphere-like profile of `radius` and `height`: `bulge` > 0 widens the top half (apples), the dips
    sink the poles (stem and blossom ends)."""
    t = np.linspace(-np.pi / 2, np.pi / 2, rings)
    r = radius * np.cos(t) * (1 + bulge * np.sin(t))
    z = height / 2 * (1 + np.sin(t))
    near_axis = np.exp(-((r / (0.3 * radius)) ** 2))
    z = z - top_dip * near_axis * (t > 0) + bottom_dip * near_axis * (t < 0)
    return np.column_stack([r, z])


def lying(mesh: trimesh.Trimesh) -> trimesh.Trimesh:
    """A lathed (+Z axis) mesh turned to lie along +X."""
    return moved(mesh, rotate_deg=(0, 90, 0))


def bent(mesh: trimesh.Trimesh, rise: float, span: tuple[float, float]) -> trimesh.Trimesh:
    """Bend a mesh lying along X into a gentle smile: z rises by `rise` at both ends of the x `span`
    (give every part of an object the same span so they stay together)."""
    out = mesh.copy()
    mid, half = (span[0] + span[1]) / 2, (span[1] - span[0]) / 2
    out.vertices[:, 2] += rise * ((out.vertices[:, 0] - mid) / half) ** 2
    return out


def calyx(count: int, length: float, width: float, top: tuple[float, float, float], rise_deg: float = 5,
          droop_deg: float = 40, twist_deg: float = 0) -> trimesh.Trimesh:
    """A star of `count` sepals spreading from a point (tomato, strawberry, eggplant tops)."""
    sepal = leaf(length, width, rise_deg=rise_deg, droop_deg=droop_deg, points=8)
    return trimesh.util.concatenate(
        [moved(sepal, top, (0, 0, twist_deg + k * 360 / count)) for k in range(count)]
    )


def stalk(points: Sequence[Sequence[float]], radius: float | Sequence[float], sections: int = 10) -> trimesh.Trimesh:
    """A stem along a smooth curve through a few points."""
    path = smooth_path(points, 4)
    radii = np.interp(np.linspace(0, 1, len(path)), np.linspace(0, 1, np.size(radius)), np.ravel(radius))
    return tube(path, radii, sections)


def tomato() -> list[Part]:
    height = 0.05
    body = ribbed(lathe(round_profile(0.035, height, top_dip=0.006, bottom_dip=0.002), 40), 6, 0.035)
    skin = Material("tomato skin", (1, 1, 1), 0.3, texture=textures.mottled((0.82, 0.1, 0.05), 0.12, seed=1))
    top = (0, 0, height - 0.0055)
    return [
        Part("body", body, skin),
        Part("calyx", calyx(5, 0.017, 0.006, top, rise_deg=15, droop_deg=45), CALYX_GREEN),
        Part("stem", stalk([top, (0, 0, height + 0.002), (0.002, 0, height + 0.005)], 0.0018), CALYX_GREEN),
    ]


def banana() -> list[Part]:
    angles = np.radians(np.linspace(215, 325, 40))
    path = np.column_stack([0.12 * np.cos(angles), np.zeros_like(angles), 0.12 + 0.12 * np.sin(angles)])
    s = np.linspace(0, 1, len(path))
    radius = 0.017 * np.clip(np.sin(np.pi * s), 0.12, None) ** 0.55
    end_dir = path[-1] - path[-2]
    end_dir /= np.linalg.norm(end_dir)
    neck = [path[-2], path[-1] + 0.012 * end_dir, path[-1] + 0.026 * end_dir + (0, 0, 0.002)]
    start_dir = path[0] - path[1]
    start_dir /= np.linalg.norm(start_dir)
    return [
        Part("peel", tube(path, radius, 12), Material("banana peel", (0.95, 0.8, 0.15), 0.5)),
        Part("neck", stalk(neck, [0.0045, 0.004, 0.0042]), Material("banana neck", (0.55, 0.55, 0.18), 0.6)),
        Part("stem end", moved(ellipsoid((0.0045, 0.0045, 0.0045), 2), neck[-1]), DARK_TIP),
        Part("tip", moved(ellipsoid((0.004, 0.004, 0.004), 2), path[0] + 0.002 * start_dir), DARK_TIP),
    ]


def apple() -> list[Part]:
    height = 0.068
    rng = np.random.default_rng(3)
    streaks = textures.smooth_noise(128, 16, 3) * 0.5 + 0.5 * np.repeat(rng.random((1, 128)), 128, axis=0)
    skin = textures.blend((0.72, 0.06, 0.05), (0.95, 0.6, 0.2), 0.45 * streaks**2)
    top = (0, 0, height - 0.009)
    return [
        Part("body", lathe(round_profile(0.04, height, bulge=0.12, top_dip=0.01, bottom_dip=0.004), 40),
             Material("apple skin", (1, 1, 1), 0.35, texture=skin)),
        Part("stem", stalk([top, (0.001, 0, height + 0.004), (0.004, 0, height + 0.012)], [0.0018, 0.0014]), STEM_BROWN),
        Part("leaf", moved(leaf(0.032, 0.014, rise_deg=25, droop_deg=45), (0.002, 0, height + 0.004), (0, 0, -30)), LEAF_GREEN),
    ]


def lemon() -> list[Part]:
    length, radius = 0.08, 0.028
    s = np.linspace(0, 1, 26)
    r = radius * np.sin(np.pi * s) ** 0.75
    body = np.column_stack([r, 0.006 + (length - 0.012) * s])
    tips = [(0.0, 0.0), (0.0035, 0.0012), (0.005, 0.004)]
    prof = np.vstack([tips, body[1:-1], [(x, length - z) for x, z in reversed(tips)]])
    peel = textures.mottled((1.0, 0.87, 0.16), 0.08, seed=5, cells=40)
    return [Part("body", lying(lathe(prof, 36)), Material("lemon peel", (1, 1, 1), 0.45, texture=peel))]


def orange() -> list[Part]:
    height = 0.076
    peel = textures.mottled((1.0, 0.56, 0.08), 0.12, seed=7, cells=48)
    top = (0, 0, height - 0.003)
    return [
        Part("body", lathe(round_profile(0.04, height, top_dip=0.003, bottom_dip=0.002), 40),
             Material("orange peel", (1, 1, 1), 0.55, texture=peel)),
        Part("button", moved(ellipsoid((0.005, 0.005, 0.0025), 2), top), CALYX_GREEN),
        Part("stem", stalk([top, (0, 0, height + 0.004), (0.001, 0, height + 0.007)], 0.0014), STEM_BROWN),
        Part("leaf", moved(leaf(0.038, 0.016, rise_deg=20, droop_deg=30), (0.001, 0, height + 0.005), (0, 0, 25)),
             Material("orange leaf", (0.1, 0.38, 0.08), 0.4)),
    ]


def pear() -> list[Part]:
    prof = profile([(0, 0.002), (0.022, 0.0), (0.037, 0.016), (0.041, 0.036), (0.033, 0.058), (0.021, 0.074),
                    (0.016, 0.088), (0.01, 0.1), (0, 0.103)])
    skin = textures.speckled((0.74, 0.76, 0.22), (0.55, 0.45, 0.18), 180, 1.6, seed=11)
    return [
        Part("body", lathe(prof, 40), Material("pear skin", (1, 1, 1), 0.5, texture=skin)),
        Part("stem", stalk([(0, 0, 0.1), (0.002, 0, 0.112), (0.007, 0, 0.122)], [0.0022, 0.0016]), STEM_BROWN),
    ]


def pineapple() -> list[Part]:
    body_height = 0.17
    size = 256
    v, u = np.mgrid[0:size, 0:size] / size
    a, b = (u * 12 + v * 9) % 1.0, (u * 12 - v * 9) % 1.0
    edge = np.minimum(np.minimum(a, 1 - a), np.minimum(b, 1 - b))  # distance to the diamond's border
    scale = textures.blend((0.42, 0.3, 0.08), (0.85, 0.6, 0.18), np.clip(edge * 8, 0, 1))
    body = lathe(round_profile(0.058, body_height, bulge=-0.08, top_dip=0.004), 40)
    leaves = []
    for ring, (count, rise, length) in enumerate([(7, 82, 0.13), (9, 65, 0.12), (11, 45, 0.1)]):
        for k in range(count):
            blade = leaf(length, 0.018, rise_deg=rise, droop_deg=25 + 12 * ring, points=10)
            leaves.append(moved(blade, (0, 0, body_height - 0.008), (0, 0, k * 360 / count + ring * 17)))
    return [
        Part("body", body, Material("pineapple skin", (1, 1, 1), 0.7, texture=scale)),
        Part("crown", trimesh.util.concatenate(leaves), Material("pineapple leaves", (0.2, 0.45, 0.15), 0.55)),
    ]


def carrot() -> list[Part]:
    length = 0.14
    s = np.linspace(0, 1, 24)
    prof = np.vstack([np.column_stack([0.017 * s**0.65, length * s]), [(0.013, length + 0.003), (0, length + 0.004)]])
    rings = textures.stripes((0.95, 0.47, 0.08), (0.78, 0.32, 0.05), 28, 0.12, 0.4, seed=13, across=True)
    body = lying(lathe(prof, 28))
    greens = []
    for k, (dy, dz) in enumerate([(-0.012, 0.02), (0.0, 0.03), (0.012, 0.02), (-0.005, 0.008), (0.006, 0.012)]):
        end = (length + 0.055 + 0.006 * (k % 2), dy * 1.5, dz)
        greens.append(stalk([(length, 0, 0), (length + 0.02, dy * 0.5, dz * 0.5), end], 0.0013, 6))
        greens.append(moved(leaf(0.025, 0.012, rise_deg=10, droop_deg=20, points=8), end, (0, -10, np.degrees(np.arctan2(dy, 0.05)))))
    return [
        Part("root", body, Material("carrot", (1, 1, 1), 0.6, texture=rings)),
        Part("greens", trimesh.util.concatenate(greens), Material("carrot greens", (0.22, 0.55, 0.15), 0.6)),
    ]


def eggplant() -> list[Part]:
    prof = profile([(0, 0), (0.024, 0.004), (0.036, 0.03), (0.035, 0.062), (0.027, 0.1), (0.019, 0.135),
                    (0.0155, 0.158), (0, 0.165)])
    sepal = moved(leaf(0.042, 0.016, rise_deg=4, droop_deg=0, points=8), rotate_deg=(0, 79, 0))
    sepals = [moved(moved(sepal, (0.0165, 0, 0.16)), rotate_deg=(0, 0, k * 72 + 10)) for k in range(5)]
    cap = lathe(profile([(0.0175, 0.15), (0.016, 0.162), (0.008, 0.17), (0, 0.171)]), 24)
    stem = stalk([(0, 0, 0.165), (0, 0, 0.18), (0.004, 0, 0.192)], [0.0055, 0.0045], 8)
    parts = [
        Part("body", lathe(prof, 36), Material("eggplant skin", (0.2, 0.05, 0.25), 0.15)),
        Part("cap", trimesh.util.concatenate([cap, *sepals, stem]), CALYX_GREEN),
    ]
    span = (0.0, 0.195)
    return [Part(p.name, bent(lying(p.mesh), 0.02, span), p.material) for p in parts]


def avocado() -> list[Part]:
    """A half avocado standing with its cut face (flesh and stone) towards the camera, like the emoji."""
    prof = profile([(0, 0), (0.026, 0.003), (0.035, 0.022), (0.033, 0.047), (0.025, 0.071), (0.016, 0.089), (0, 0.097)])
    skin = lathe_arc(prof, 0, 180, 24)
    outline = np.vstack([prof, prof[::-1][1:-1] * (-1, 1)])
    size = 128
    v, u = np.mgrid[0:size, 0:size] / size
    rim = np.clip(1 - np.hypot((u - 0.5) * 2.1, (v - 0.42) * 1.7), 0, 1)
    flesh = textures.blend((0.35, 0.55, 0.1), (0.88, 0.86, 0.45), np.clip(rim * 2.2, 0, 1))
    face = moved(extrude_polygon(outline, 0.0015), (0, 0.0015, 0), (90, 0, 0))
    parts = [
        Part("skin", skin, Material("avocado skin", (0.12, 0.2, 0.05), 0.8)),
        Part("flesh", face, Material("avocado flesh", (1, 1, 1), 0.6, texture=flesh)),
        Part("stone", moved(ellipsoid((0.0155, 0.014, 0.017), 3), (0, -0.001, 0.032)), Material("avocado stone", (0.45, 0.25, 0.11), 0.35)),
    ]
    tilt = trimesh.transformations.rotation_matrix(np.radians(-25), [1, 0, 0])
    for part in parts:
        part.mesh.apply_transform(tilt)
    return parts


def strawberry() -> list[Part]:
    prof = profile([(0, 0), (0.006, 0.004), (0.014, 0.015), (0.019, 0.028), (0.018, 0.036), (0.01, 0.041), (0, 0.04)])
    seeds = textures.speckled((0.85, 0.07, 0.09), (0.96, 0.86, 0.35), 260, 2.2, seed=17)
    top = (0, 0, 0.0425)
    parts = [
        Part("berry", lathe(prof, 32), Material("strawberry", (1, 1, 1), 0.35, texture=seeds)),
        Part("calyx", calyx(7, 0.021, 0.008, top, rise_deg=8, droop_deg=45, twist_deg=10), CALYX_GREEN),
        Part("stem", stalk([top, (0, 0, 0.048), (0.002, 0, 0.054)], 0.0014), CALYX_GREEN),
    ]
    lay = trimesh.transformations.rotation_matrix(np.radians(-70), [0, 1, 0])  # tip to +X, slightly down
    turn = trimesh.transformations.rotation_matrix(np.radians(35), [0, 0, 1])  # the leaves towards the camera
    for part in parts:
        part.mesh.apply_transform(turn @ lay)
    return parts


def mushroom() -> list[Part]:
    stem = profile([(0, 0), (0.013, 0.0), (0.0135, 0.006), (0.011, 0.02), (0.0105, 0.038), (0, 0.04)])
    cap = profile([(0.0105, 0.035), (0.028, 0.034), (0.038, 0.036), (0.04, 0.041), (0.036, 0.052), (0.025, 0.06),
                   (0.012, 0.064), (0, 0.065)])
    size = 256
    v, u = np.mgrid[0:size, 0:size] / size
    gills = 0.5 + 0.5 * np.cos(u * 2 * np.pi * 60)
    under = v > 0.78  # the image's bottom rows are the start of the profile: the underside
    weight = np.where(under, 0.4 + 0.2 * gills, textures.smooth_noise(size, 12, 19) * 0.3)
    cap_tex = textures.blend((0.58, 0.4, 0.26), (0.86, 0.8, 0.7), weight)
    return [
        Part("stem", lathe(stem, 28), Material("mushroom stem", (0.93, 0.9, 0.82), 0.7)),
        Part("cap", lathe(cap, 40), Material("mushroom cap", (1, 1, 1), 0.6, texture=cap_tex)),
    ]


def egg() -> list[Part]:
    t = np.linspace(-np.pi / 2, np.pi / 2, 24)
    prof = np.column_stack([0.022 * np.cos(t) * (1 - 0.14 * np.sin(t)), 0.03 * (1 + np.sin(t))])
    shell = textures.mottled((0.98, 0.93, 0.84), 0.04, seed=23)
    return [Part("shell", lying(lathe(prof, 32)), Material("eggshell", (1, 1, 1), 0.55, texture=shell))]


def watermelon() -> list[Part]:
    length = 0.3
    t = np.linspace(-np.pi / 2, np.pi / 2, 28)
    prof = np.column_stack([0.11 * np.cos(t) ** 0.9, length / 2 * (1 + np.sin(t))])
    rind = textures.stripes((0.55, 0.74, 0.35), (0.1, 0.3, 0.08), 16, 0.5, 0.1, seed=29, cells=24)
    return [
        Part("rind", lying(lathe(prof, 48)), Material("watermelon rind", (1, 1, 1), 0.35, texture=rind)),
        Part("stem", stalk([(length - 0.002, 0, 0), (length + 0.01, 0, 0.004), (length + 0.016, 0.004, 0.012)], 0.003), STEM_BROWN),
    ]


def pumpkin() -> list[Part]:
    height = 0.16
    body = ribbed(lathe(round_profile(0.125, height, top_dip=0.025, bottom_dip=0.012, rings=28), 60), 10, 0.06)
    grooves = textures.stripes((0.95, 0.5, 0.08), (0.7, 0.3, 0.04), 10, 0.14, 0.0, seed=31)
    return [
        Part("body", body, Material("pumpkin", (1, 1, 1), 0.5, texture=grooves)),
        Part("stem", stalk([(0, 0, height - 0.03), (0, 0, height + 0.01), (0.012, 0, height + 0.035), (0.03, 0, height + 0.04)],
                           [0.014, 0.011, 0.009, 0.008], 8), Material("pumpkin stem", (0.38, 0.36, 0.16), 0.8)),
    ]


def bell_pepper() -> list[Part]:
    prof = profile([(0, 0.012), (0.02, 0.004), (0.036, 0.008), (0.043, 0.03), (0.043, 0.06), (0.039, 0.083),
                    (0.024, 0.092), (0.011, 0.087), (0, 0.085)])
    top = (0, 0, 0.086)
    return [
        Part("body", ribbed(lathe(prof, 48), 4, 0.1), Material("red pepper", (0.78, 0.05, 0.03), 0.18)),
        Part("cap", moved(ellipsoid((0.012, 0.012, 0.004), 2), top), CALYX_GREEN),
        Part("stem", stalk([top, (0, 0, 0.1), (0.006, 0, 0.112)], [0.0055, 0.0045]), Material("pepper stem", (0.2, 0.42, 0.12), 0.5)),
    ]


def broccoli() -> list[Part]:
    rng = np.random.default_rng(37)
    trunk = lathe(profile([(0, 0), (0.016, 0.0), (0.014, 0.03), (0.02, 0.055), (0, 0.06)]), 20)
    branches, florets = [], []
    for k in range(6):
        a = np.radians(k * 60 + 15)
        tip = (0.035 * np.cos(a), 0.035 * np.sin(a), 0.085)
        branches.append(stalk([(0, 0, 0.045), (0.02 * np.cos(a), 0.02 * np.sin(a), 0.068), tip], [0.008, 0.005], 8))
    golden = np.pi * (3 - np.sqrt(5))
    count = 46
    for i in range(count):
        h = i / (count - 1)
        polar = np.radians(80) * np.sqrt(h)
        azimuth = i * golden
        direction = np.array([np.sin(polar) * np.cos(azimuth), np.sin(polar) * np.sin(azimuth), np.cos(polar)])
        centre = np.array([0, 0, 0.085]) + direction * (0.045, 0.045, 0.04)
        bump = ellipsoid(tuple(0.016 * (0.85 + 0.3 * rng.random(3))), 2)
        bump.vertices += rng.normal(0, 0.0008, bump.vertices.shape)
        florets.append(moved(bump, centre))
    return [
        Part("stalk", trimesh.util.concatenate([trunk] + branches), Material("broccoli stalk", (0.55, 0.7, 0.35), 0.6)),
        Part("florets", trimesh.util.concatenate(florets[0::2]), Material("broccoli florets", (0.12, 0.36, 0.1), 0.8)),
        Part("florets", trimesh.util.concatenate(florets[1::2]), Material("broccoli florets dark", (0.08, 0.28, 0.08), 0.8)),
    ]


def cucumber() -> list[Part]:
    length = 0.2
    s = np.linspace(0, 1, 30)
    prof = np.column_stack([0.021 * (1 - np.abs(2 * s - 1) ** 6) ** 0.25, length * s])
    stripe = textures.stripe_weight(10, 0.3, 0.06, seed=41, cells=32)[..., None]
    skin = (1 - stripe) * np.array([0.12, 0.32, 0.1]) + stripe * np.array([0.32, 0.52, 0.2])
    peel = textures.blend(skin, (0.55, 0.7, 0.4), 0.6 * textures.spots(160, 1.4, seed=43))
    return [
        Part("body", bent(lying(lathe(prof, 32)), 0.012, (0.0, length)), Material("cucumber skin", (1, 1, 1), 0.4, texture=peel)),
    ]


def pinecone() -> list[Part]:
    core = lathe(round_profile(0.022, 0.095), 16)
    golden = np.pi * (3 - np.sqrt(5))
    count = 110
    scales = [[], []]
    for i in range(count):
        h = (i + 0.5) / count
        z = 0.004 + 0.088 * h
        envelope = 0.045 * np.sin(np.pi * (0.08 + 0.86 * h)) ** 0.7
        length = max(envelope * 0.75, 0.006)
        scale = ellipsoid((length / 2, length * 0.42, length * 0.16), 1)
        scale.apply_translation((length / 2, 0, 0))
        scale = moved(scale, (envelope - length * 0.6, 0, 0), (0, 20 - 40 * h, 0))
        scale = moved(scale, (0, 0, z), (0, 0, np.degrees(i * golden)))
        scales[i % 2].append(scale)
    return [
        Part("core", core, Material("pinecone core", (0.25, 0.15, 0.08), 0.9)),
        Part("scales", trimesh.util.concatenate(scales[0]), Material("pinecone scale", (0.5, 0.32, 0.16), 0.85)),
        Part("scales", trimesh.util.concatenate(scales[1]), Material("pinecone scale dark", (0.4, 0.25, 0.12), 0.85)),
    ]


RECIPES = {
    "tomato": tomato,
    "banana": banana,
    "apple": apple,
    "lemon": lemon,
    "orange": orange,
    "pear": pear,
    "pineapple": pineapple,
    "carrot": carrot,
    "eggplant": eggplant,
    "avocado": avocado,
    "strawberry": strawberry,
    "mushroom": mushroom,
    "egg": egg,
    "watermelon": watermelon,
    "pumpkin": pumpkin,
    "bell pepper": bell_pepper,
    "broccoli": broccoli,
    "cucumber": cucumber,
    "pinecone": pinecone,
}
