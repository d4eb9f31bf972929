"""Prepared food: a cupcake, a doughnut, a cake and a hamburger, stacked from lathed layers with
frosting, glaze, sprinkles and seeds scattered on seeded random points."""

from __future__ import annotations

import numpy as np
import trimesh
from PIL import Image

from tabletest.assets.builtin import textures
from tabletest.assets.builtin.parts import Material, Part
from tabletest.assets.builtin.recipes.produce import profile, stalk, strawberry
from tabletest.assets.builtin.shapes import decal, ellipsoid, lathe, lathe_arc, moved, ribbed, tube

SPRINKLE_COLORS = [(0.95, 0.2, 0.25), (0.2, 0.55, 0.95), (0.98, 0.85, 0.2), (0.3, 0.8, 0.35), (0.98, 0.98, 0.95)]


def scattered(surface: trimesh.Trimesh, piece: trimesh.Trimesh, count: int, seed: int, min_z: float = -np.inf,
              spin: bool = True) -> list[trimesh.Trimesh]:
    """Copies of `piece` (built along +Z) standing on seeded random points of `surface` above `min_z`,
    each along the surface normal and, with `spin`, turned at random about it (sprinkles, sesame seeds)."""
    rng = np.random.default_rng(seed)
    points, faces = trimesh.sample.sample_surface(surface, count * 4, seed=seed)
    keep = points[:, 2] >= min_z
    points, normals = points[keep][:count], surface.face_normals[faces[keep]][:count]
    copies = []
    for point, normal in zip(points, normals):
        turn = trimesh.transformations.rotation_matrix(rng.uniform(0, 2 * np.pi) if spin else 0, [0, 0, 1])
        align = trimesh.geometry.align_vectors([0, 0, 1], normal)
        copy = piece.copy()
        copy.apply_transform(trimesh.transformations.translation_matrix(point) @ align @ turn)
        copies.append(copy)
    return copies


def sprinkles(surface: trimesh.Trimesh, count: int, length: float, seed: int, min_z: float = -np.inf) -> list[Part]:
    """Little coloured rods lying on a surface, one part per colour."""
    rod = moved(trimesh.creation.capsule(height=length, radius=length / 5, count=[6, 6]), (0, 0, length / 6), (0, 90, 0))
    pieces = scattered(surface, rod, count, seed, min_z)
    return [
        Part("sprinkles", trimesh.util.concatenate(pieces[k :: len(SPRINKLE_COLORS)]), Material(f"sprinkle {k}", color, 0.4))
        for k, color in enumerate(SPRINKLE_COLORS)
        if pieces[k :: len(SPRINKLE_COLORS)]
    ]


def cupcake() -> list[Part]:
    wrapper = ribbed(lathe([(0, 0), (0.025, 0), (0.0325, 0.036), (0.0, 0.036)], 72), 24, 0.035)
    crumb = lathe(profile([(0.0315, 0.034), (0.035, 0.04), (0.03, 0.046), (0, 0.048)]), 40)
    turns = np.linspace(0, 1, 120)
    angle = turns * 2 * np.pi * 3.2
    radius = 0.026 * (1 - turns) ** 0.9 + 0.002
    swirl_path = np.column_stack([radius * np.cos(angle), radius * np.sin(angle), 0.045 + 0.03 * turns**0.85])
    frosting = tube(swirl_path, 0.0105 * (1 - 0.45 * turns), 14)
    top = swirl_path[-1] + (0, 0, 0.008)
    return [
        Part("wrapper", wrapper, Material("paper cup", (0.45, 0.7, 0.92), 0.75)),
        Part("cake", crumb, Material("crumb", (0.55, 0.32, 0.16), 0.9)),
        Part("frosting", frosting, Material("frosting", (0.97, 0.66, 0.78), 0.5)),
        Part("cherry", moved(ellipsoid((0.0075, 0.0075, 0.007), 2), top), Material("cherry", (0.75, 0.02, 0.06), 0.2)),
        Part("cherry stem", stalk([top, top + (0.002, 0, 0.008), top + (0.006, 0, 0.012)], 0.0007, 6), Material("cherry stem", (0.3, 0.4, 0.1), 0.6)),
        *sprinkles(frosting, 40, 0.005, seed=2, min_z=0.05),
    ]


def doughnut() -> list[Part]:
    ring, tube_r = 0.034, 0.016
    t = np.linspace(-np.pi / 2, 3 * np.pi / 2, 33)
    dough_profile = np.column_stack([ring + tube_r * np.cos(t), tube_r * 0.85 * (1 + np.sin(t))])
    g = np.radians(np.linspace(-25, 205, 26))
    glaze_profile = np.column_stack([ring + 1.07 * tube_r * np.cos(g), tube_r * 0.85 + 1.08 * tube_r * 0.85 * np.sin(g)])
    glaze = lathe(glaze_profile, 64)
    return [
        Part("dough", lathe(dough_profile, 64), Material("dough", (1, 1, 1), 0.8, texture=textures.mottled((0.82, 0.55, 0.28), 0.15, seed=3))),
        Part("glaze", glaze, Material("pink glaze", (0.95, 0.48, 0.65), 0.25)),
        *sprinkles(glaze, 70, 0.006, seed=4, min_z=tube_r * 1.2),
    ]


SPONGE, CREAM, JAM = (0.93, 0.76, 0.42), (0.98, 0.96, 0.9), (0.78, 0.08, 0.18)


def layers_texture(bands: list[tuple[float, tuple[float, float, float]]], size: int = 128) -> Image.Image:
    """Horizontal bands from the top down: (start as a fraction of the height, colour), like a cut cake."""
    depth = np.linspace(0, 1, size, endpoint=False)  # image row 0 is the top
    rows = np.zeros((size, 3))
    for start, color in bands:
        rows[depth >= start] = color
    return textures.image_of(np.repeat(rows[:, None, :], size, axis=1))


def cake() -> list[Part]:
    """A frosted round layer cake on a plate with a slice taken out towards the camera, showing its layers."""
    radius, height, gap = 0.1, 0.075, (-115, -65)  # the missing slice, centred on −Y
    body = lathe_arc([(0, 0.006), (radius, 0.006), (radius, 0.006 + height), (0, 0.006 + height)], gap[1], gap[0] + 360, 64)
    face_image = layers_texture([(0.0, CREAM), (0.07, SPONGE), (0.3, JAM), (0.33, CREAM), (0.38, SPONGE), (0.62, JAM), (0.65, CREAM), (0.7, SPONGE)])
    cut_faces = []
    for angle, flip in ((gap[1], False), (gap[0], True)):
        face = moved(moved(decal(radius, height), (radius / 2, 0, 0.006 + height / 2)), rotate_deg=(0, 0, angle))
        if flip:
            face.invert()
        cut_faces.append(face)
    rosette = ribbed(lathe(profile([(0, 0), (0.01, 0.0), (0.0115, 0.005), (0.008, 0.011), (0.003, 0.016), (0, 0.018)], 2), 24), 8, 0.16)
    top_z = 0.006 + height
    rosettes = [moved(rosette, (0.086 * np.cos(a), 0.086 * np.sin(a), top_z - 0.002))
                for a in np.radians(np.arange(0, 360, 20)) if not gap[0] - 8 <= (np.degrees(a) + 180) % 360 - 180 <= gap[1] + 8]
    berries = []
    for x, y, turn in [(-0.035, 0.035, 20), (0.03, 0.04, 150), (0.0, 0.0, 80), (-0.04, -0.02, -60)]:
        for part in strawberry():
            part.mesh.apply_transform(trimesh.transformations.rotation_matrix(np.radians(turn), [0, 0, 1]))
            part.mesh.apply_translation((x, y, top_z + 0.003))
            berries.append(part)
    return [
        Part("plate", lathe(profile([(0, 0), (0.11, 0.0), (0.115, 0.004), (0.11, 0.006), (0, 0.006)]), 64), Material("plate", (0.96, 0.96, 0.96), 0.2)),
        Part("frosting", body, Material("frosting", (0.99, 0.9, 0.8), 0.55)),
        Part("cut", trimesh.util.concatenate(cut_faces), Material("cake layers", (1, 1, 1), 0.8, texture=face_image)),
        Part("rosettes", trimesh.util.concatenate(rosettes), Material("cream rosettes", (0.97, 0.75, 0.82), 0.5)),
        *berries,
    ]


def hamburger() -> list[Part]:
    bun = textures.mottled((0.85, 0.55, 0.25), 0.12, seed=5)
    bottom = lathe(profile([(0, 0), (0.044, 0), (0.05, 0.006), (0.051, 0.014), (0.049, 0.018), (0, 0.018)]), 48)
    patty = lathe(profile([(0, 0.017), (0.05, 0.017), (0.054, 0.024), (0.052, 0.031), (0, 0.032)]), 48)
    cheese = trimesh.creation.box(extents=(0.095, 0.095, 0.003))
    cheese = cheese.subdivide().subdivide().subdivide().subdivide()
    r = np.hypot(cheese.vertices[:, 0], cheese.vertices[:, 1])
    cheese.vertices[:, 2] -= 0.5 * np.clip(r - 0.045, 0, None) ** 1.3
    cheese = moved(cheese, (0, 0, 0.034), (0, 0, 45))
    lettuce = ribbed(lathe([(0, 0.0), (0.056, 0.0), (0.058, 0.002), (0, 0.003)], 96), 16, 0.05)
    angle = np.arctan2(lettuce.vertices[:, 1], lettuce.vertices[:, 0])
    rr = np.hypot(lettuce.vertices[:, 0], lettuce.vertices[:, 1])
    lettuce.vertices[:, 2] += 0.003 * np.sin(11 * angle) * (rr / 0.056) ** 2
    lettuce = moved(lettuce, (0, 0, 0.0355))
    tomato = lathe(profile([(0, 0), (0.045, 0), (0.047, 0.003), (0.045, 0.006), (0, 0.006)]), 40)
    top = lathe(profile([(0, 0.044), (0.05, 0.044), (0.0535, 0.05), (0.051, 0.064), (0.04, 0.077), (0.022, 0.085), (0, 0.087)]), 48)
    seed = moved(ellipsoid((0.0028, 0.0016, 0.0009), 1), (0, 0, 0.0005))
    seeds = scattered(top, seed, 30, seed=6, min_z=0.065)
    return [
        Part("bottom bun", bottom, Material("bun", (1, 1, 1), 0.6, texture=bun)),
        Part("patty", patty, Material("patty", (1, 1, 1), 0.9, texture=textures.mottled((0.32, 0.17, 0.08), 0.35, seed=7))),
        Part("cheese", cheese, Material("cheese", (0.98, 0.72, 0.12), 0.4)),
        Part("lettuce", lettuce, Material("lettuce", (0.35, 0.7, 0.18), 0.5)),
        Part("tomato", moved(tomato, (0, 0, 0.037)), Material("tomato slice", (0.85, 0.15, 0.1), 0.3)),
        Part("top bun", top, Material("bun top", (1, 1, 1), 0.45, texture=bun)),
        Part("sesame", trimesh.util.concatenate(seeds), Material("sesame", (0.96, 0.9, 0.72), 0.6)),
    ]


RECIPES = {
    "cupcake": cupcake,
    "doughnut": doughnut,
    "cake": cake,
    "hamburger": hamburger,
}
