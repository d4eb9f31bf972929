"""Shared geometry for the recipes: lathed profiles, tubes along paths, handles, boxes, blobs.

All sizes in metres, world frame (+Z up, front towards −Y). Each helper returns a watertight-ish
`trimesh.Trimesh` with UVs where a texture may be mapped. Keep helpers general: a recipe-specific
shape belongs in its recipe.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import trimesh
from trimesh.creation import box as _box


def lathe(profile: Sequence[tuple[float, float]], sections: int = 48) -> trimesh.Trimesh:
    """Revolve a (radius, z) profile about +Z, bottom to top; radius 0 at an end closes it.

    UVs: u around (0..1), v along the profile (0..1), so a stripe or label texture wraps the body.
    """
    prof = np.asarray(profile, dtype=float)
    angles = np.linspace(0, 2 * np.pi, sections + 1)
    rings = len(prof)
    r, z = prof[:, 0], prof[:, 1]
    xs = np.outer(r, np.cos(angles))
    ys = np.outer(r, np.sin(angles))
    zs = np.repeat(z[:, None], sections + 1, axis=1)
    vertices = np.stack([xs, ys, zs], axis=-1).reshape(-1, 3)
    seg = np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(prof, axis=0), axis=1))])
    v = seg / seg[-1] if seg[-1] > 0 else np.linspace(0, 1, rings)
    uv = np.stack(np.meshgrid(angles / (2 * np.pi), v), axis=-1).reshape(-1, 2)
    faces = []
    w = sections + 1
    for i in range(rings - 1):
        for j in range(sections):
            a, b, c, d = i * w + j, i * w + j + 1, (i + 1) * w + j + 1, (i + 1) * w + j
            faces.append((a, b, c))
            faces.append((a, c, d))
    mesh = trimesh.Trimesh(vertices, np.array(faces), process=False)
    mesh.visual = trimesh.visual.TextureVisuals(uv=uv)
    mesh.update_faces(mesh.nondegenerate_faces())
    mesh.remove_unreferenced_vertices()
    return mesh


def ellipsoid(radii: tuple[float, float, float], subdivisions: int = 3) -> trimesh.Trimesh:
    """A sphere scaled to three radii, centred on the origin."""
    mesh = trimesh.creation.icosphere(subdivisions=subdivisions)
    mesh.apply_scale(radii)
    return mesh


def cylinder(radius: float, height: float, sections: int = 40) -> trimesh.Trimesh:
    """An upright cylinder standing on z = 0."""
    mesh = trimesh.creation.cylinder(radius=radius, height=height, sections=sections)
    mesh.apply_translation([0, 0, height / 2])
    return mesh


def box(extents: tuple[float, float, float], bottom_z: float = 0.0) -> trimesh.Trimesh:
    """An axis-aligned box centred in x and y, its bottom at `bottom_z`."""
    mesh = _box(extents=extents)
    mesh.apply_translation([0, 0, bottom_z + extents[2] / 2])
    return mesh


def tube(path: Sequence[Sequence[float]], radius: float | Sequence[float], sections: int = 16) -> trimesh.Trimesh:
    """A closed tube along a 3D polyline; `radius` may vary per path point (tapered stems, bananas, cables)."""
    pts = np.asarray(path, dtype=float)
    radii = np.broadcast_to(np.asarray(radius, dtype=float), (len(pts),))
    tangents = np.gradient(pts, axis=0)
    tangents /= np.linalg.norm(tangents, axis=1, keepdims=True)
    ref = np.array([0.0, 0.0, 1.0]) if abs(tangents[0][2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    normal = np.cross(tangents[0], ref)
    normal /= np.linalg.norm(normal)
    angles = np.linspace(0, 2 * np.pi, sections, endpoint=False)
    rings = []
    for p, t, r in zip(pts, tangents, radii):
        normal = normal - np.dot(normal, t) * t  # parallel transport keeps the rings from twisting
        normal /= np.linalg.norm(normal)
        binormal = np.cross(t, normal)
        rings.append(p + r * (np.outer(np.cos(angles), normal) + np.outer(np.sin(angles), binormal)))
    vertices = np.concatenate(rings + [pts[:1], pts[-1:]])
    n, s = len(pts), sections
    faces = []
    for i in range(n - 1):
        for j in range(s):
            a, b = i * s + j, i * s + (j + 1) % s
            c, d = (i + 1) * s + (j + 1) % s, (i + 1) * s + j
            faces += [(a, b, c), (a, c, d)]
    start, end = n * s, n * s + 1
    for j in range(s):
        faces.append((start, (j + 1) % s, j))
        faces.append((end, (n - 1) * s + j, (n - 1) * s + (j + 1) % s))
    mesh = trimesh.Trimesh(vertices, np.array(faces), process=False)
    mesh.update_faces(mesh.nondegenerate_faces())
    return mesh


def arc(radius: float, start_deg: float, end_deg: float, points: int = 24, plane: str = "xz") -> np.ndarray:
    """Points on a circular arc in a coordinate plane, centred on the origin (for handles and arms)."""
    t = np.radians(np.linspace(start_deg, end_deg, points))
    a, b = radius * np.cos(t), radius * np.sin(t)
    zero = np.zeros_like(a)
    return {"xz": np.stack([a, zero, b], 1), "yz": np.stack([zero, a, b], 1), "xy": np.stack([a, b, zero], 1)}[plane]


def handle(radius: float, thickness: float, start_deg: float = -80, end_deg: float = 80, plane: str = "xz") -> trimesh.Trimesh:
    """A C-shaped handle: a tube along an arc (mugs, kettles, teapots, baskets)."""
    return tube(arc(radius, start_deg, end_deg, plane=plane), thickness)


def moved(mesh: trimesh.Trimesh, offset: Sequence[float] = (0, 0, 0), rotate_deg: Sequence[float] = (0, 0, 0)) -> trimesh.Trimesh:
    """A copy rotated about x, y, z (degrees, in that order) then translated."""
    out = mesh.copy()
    rx, ry, rz = np.radians(rotate_deg)
    out.apply_transform(trimesh.transformations.euler_matrix(rx, ry, rz, "sxyz"))
    out.apply_translation(offset)
    return out
