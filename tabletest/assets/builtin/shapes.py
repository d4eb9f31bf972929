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


def decal(width: float, height: float, elliptical: bool = False, sections: int = 48) -> trimesh.Trimesh:
    """A flat rectangle (or ellipse) in the x–z plane facing −Y, centred on the origin, UVs 0..1 across it.

    Laid just in front of a body it carries a texture: screens, keypads, labels, clock faces.
    """
    if elliptical:
        t = np.linspace(0, 2 * np.pi, sections, endpoint=False)
        rim = np.stack([np.cos(t), np.sin(t)], 1) * 0.5
        uv = np.vstack([[0.5, 0.5], rim + 0.5])
        faces = [(0, j % sections + 1, (j + 1) % sections + 1) for j in range(sections)]
    else:
        uv = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
        faces = [(0, 1, 2), (0, 2, 3)]
    xz = (uv - 0.5) * [width, height]
    vertices = np.stack([xz[:, 0], np.zeros(len(xz)), xz[:, 1]], 1)
    mesh = trimesh.Trimesh(vertices, np.array(faces), process=False)  # counter-clockwise in x–z: normal −Y
    mesh.visual = trimesh.visual.TextureVisuals(uv=uv)
    return mesh


def rounded_rect(width: float, height: float, radius: float, corner_points: int = 6) -> np.ndarray:
    """The outline of a rounded rectangle centred on the origin, counter-clockwise (for `extrude`)."""
    r = min(radius, width / 2, height / 2)
    cx, cy = width / 2 - r, height / 2 - r
    pts = []
    for (sx, sy), start in (((1, 1), 0), ((-1, 1), 90), ((-1, -1), 180), ((1, -1), 270)):
        t = np.radians(np.linspace(start, start + 90, corner_points))
        pts.append(np.stack([sx * cx + r * np.cos(t), sy * cy + r * np.sin(t)], 1))
    return np.concatenate(pts)


def extrude(outline: Sequence[Sequence[float]], depth: float) -> trimesh.Trimesh:
    """A solid from a closed counter-clockwise x–y outline, from z = 0 up to `depth`.

    The outline must be star-shaped about its centroid (caps are fans from it): rounded boxes, wedges, discs.
    UVs: each cap maps the outline's bounding box to 0..1 (a texture on the top face); sides run u along
    the perimeter, v up.
    """
    ring = np.asarray(outline, dtype=float)
    n = len(ring)
    centre = ring.mean(axis=0)
    lo, hi = ring.min(axis=0), ring.max(axis=0)
    cap_uv = (np.vstack([centre, ring]) - lo) / np.where(hi > lo, hi - lo, 1)
    perimeter = np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(np.vstack([ring, ring[:1]]), axis=0), axis=1))])
    u = perimeter / perimeter[-1]
    vertices, uvs, faces = [], [], []
    for z, flip in ((0.0, True), (depth, False)):
        base = sum(len(v) for v in vertices)
        vertices.append(np.column_stack([np.vstack([centre, ring]), np.full(n + 1, z)]))
        uvs.append(cap_uv)
        for j in range(n):
            tri = (base, base + 1 + j, base + 1 + (j + 1) % n)
            faces.append(tri[::-1] if flip else tri)
    base = sum(len(v) for v in vertices)
    side = np.vstack([ring, ring[:1]])
    vertices.append(np.vstack([np.column_stack([side, np.zeros(n + 1)]), np.column_stack([side, np.full(n + 1, depth)])]))
    uvs.append(np.vstack([np.column_stack([u, np.zeros(n + 1)]), np.column_stack([u, np.ones(n + 1)])]))
    for j in range(n):
        a, b, c, d = base + j, base + j + 1, base + n + 2 + j, base + n + 1 + j
        faces += [(a, b, c), (a, c, d)]
    mesh = trimesh.Trimesh(np.vstack(vertices), np.array(faces), process=False)
    mesh.visual = trimesh.visual.TextureVisuals(uv=np.vstack(uvs))
    return mesh


def uv_sphere(radius: float, rings: int = 24, sections: int = 48) -> trimesh.Trimesh:
    """A sphere centred on the origin with equirectangular UVs (u = longitude, v = latitude), for maps and seams."""
    t = np.linspace(-np.pi / 2, np.pi / 2, rings + 1)
    return lathe(np.stack([radius * np.cos(t), radius * np.sin(t)], 1), sections=sections)


def leaf(length: float, width: float, rise_deg: float = 40, droop_deg: float = 80, points: int = 12) -> trimesh.Trimesh:
    """A thin pointed leaf growing from the origin along +X, rising at `rise_deg` and bending down by `droop_deg`.

    Closed (a flat lens in section), so it shows from both sides; turn it about +Z to fan leaves out.
    """
    t = np.linspace(0, 1, points)
    heading = np.radians(rise_deg - droop_deg * t)
    step = length / (points - 1)
    xs = np.concatenate([[0], np.cumsum(np.cos(heading[:-1]) * step)])
    zs = np.concatenate([[0], np.cumsum(np.sin(heading[:-1]) * step)])
    half = width / 2 * np.sin(np.pi * np.clip(t, 0, 1) ** 0.7)
    thick = np.maximum(half * 0.08, 1e-4)
    up = np.stack([-np.sin(heading), np.zeros(points), np.cos(heading)], 1)
    centre = np.stack([xs, np.zeros(points), zs], 1)
    side = np.array([0.0, 1.0, 0.0])
    rings = np.stack(
        [centre - half[:, None] * side, centre + thick[:, None] * up, centre + half[:, None] * side, centre - thick[:, None] * up], 1
    )
    vertices = rings.reshape(-1, 3)
    faces = []
    for i in range(points - 1):
        for j in range(4):
            a, b = i * 4 + j, i * 4 + (j + 1) % 4
            c, d = (i + 1) * 4 + (j + 1) % 4, (i + 1) * 4 + j
            faces += [(a, c, b), (a, d, c)]
    mesh = trimesh.Trimesh(vertices, np.array(faces), process=False)
    mesh.update_faces(mesh.nondegenerate_faces())
    mesh.remove_unreferenced_vertices()
    return mesh


def rounded_box(
    extents: tuple[float, float, float], radius: float, bottom_z: float = 0.0, steps: int = 4
) -> trimesh.Trimesh:
    """A box with all edges and corners rounded by `radius`, centred in x and y, its bottom at `bottom_z`
    (appliances, locks, toast)."""
    half = np.asarray(extents, dtype=float) / 2
    radius = float(min(radius, *half))
    grid = np.linspace(-1, 1, 2 * steps)  # an even count keeps every vertex off the mid-planes
    u, v = np.meshgrid(grid, grid, indexing="ij")
    n = len(grid)
    cells = [(i, j) for i in range(n - 1) for j in range(n - 1)]
    quads = [(i * n + j, (i + 1) * n + j, (i + 1) * n + j + 1, i * n + j + 1) for i, j in cells]
    vertices, faces = [], []
    for axis in range(3):
        for sign in (1.0, -1.0):
            a, b = (axis + 1) % 3, (axis + 2) % 3
            face = np.zeros((n * n, 3))
            face[:, axis] = sign
            face[:, a], face[:, b] = u.ravel() * sign, v.ravel()
            base = len(vertices) * n * n
            vertices.append(face)
            faces += [(base + p, base + q, base + r) for p, q, r, _ in quads]
            faces += [(base + p, base + r, base + s) for p, _, r, s in quads]
    cube = np.concatenate(vertices)
    direction = cube / np.linalg.norm(cube, axis=1, keepdims=True)
    points = np.sign(cube) * (half - radius) + radius * direction
    mesh = trimesh.Trimesh(points, np.array(faces), process=True)
    mesh.fix_normals()
    mesh.apply_translation([0, 0, bottom_z + half[2]])
    return mesh


def _ear_clip(outline: np.ndarray) -> list[tuple[int, int, int]]:
    """Triangles of a simple counter-clockwise polygon (ear clipping; fine for the few hundred points of a recipe)."""
    remaining = list(range(len(outline)))
    triangles = []

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    while len(remaining) > 3:
        for k, cur in enumerate(remaining):
            prev, nxt = remaining[k - 1], remaining[(k + 1) % len(remaining)]
            a, b, c = outline[prev], outline[cur], outline[nxt]
            if cross(a, b, c) <= 1e-12:
                continue
            others = [outline[i] for i in remaining if i not in (prev, cur, nxt)]
            if any(cross(a, b, p) >= 0 and cross(b, c, p) >= 0 and cross(c, a, p) >= 0 for p in others):
                continue
            triangles.append((prev, cur, nxt))
            remaining.pop(k)
            break
        else:  # no ear left (nearly collinear points): close with a fan
            triangles += [(remaining[0], remaining[i], remaining[i + 1]) for i in range(1, len(remaining) - 1)]
            return triangles
    triangles.append(tuple(remaining))
    return triangles


def extrude_polygon(outline: Sequence[Sequence[float]], depth: float) -> trimesh.Trimesh:
    """Any simple x–y polygon, concave too (unlike `extrude`), as a solid from z = 0 up to `depth`
    (wrench jaws, blades, claws).

    Either winding is accepted. UVs map the outline's bounding box to 0..1, a plan-view texture on the caps.
    """
    pts = np.asarray(outline, dtype=float)[:, :2]
    if np.allclose(pts[0], pts[-1]):
        pts = pts[:-1]
    area = np.sum(pts[:, 0] * np.roll(pts[:, 1], -1) - np.roll(pts[:, 0], -1) * pts[:, 1])
    if area < 0:
        pts = pts[::-1]
    n = len(pts)
    caps = np.array(_ear_clip(pts))
    sides = [(i, (i + 1) % n, n + (i + 1) % n) for i in range(n)] + [(i, n + (i + 1) % n, n + i) for i in range(n)]
    faces = np.concatenate([caps[:, ::-1], caps + n, np.array(sides)])
    z = np.concatenate([np.zeros(n), np.full(n, depth)])
    vertices = np.column_stack([np.tile(pts, (2, 1)), z])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    mesh = trimesh.Trimesh(vertices, faces, process=False)
    mesh.visual = trimesh.visual.TextureVisuals(uv=(np.tile(pts, (2, 1)) - lo) / np.where(hi > lo, hi - lo, 1))
    return mesh


def loop(path: Sequence[Sequence[float]], radius: float, sections: int = 10) -> trimesh.Trimesh:
    """A closed ring tube along a closed 3D curve (do not repeat the first point): seams, finger loops, rims.

    Each cross-section is oriented towards the curve's centroid, so rings never twist at the join.
    """
    pts = np.asarray(path, dtype=float)
    tangents = np.roll(pts, -1, axis=0) - np.roll(pts, 1, axis=0)
    tangents /= np.linalg.norm(tangents, axis=1, keepdims=True)
    outward = pts - pts.mean(axis=0)
    outward -= np.sum(outward * tangents, axis=1, keepdims=True) * tangents
    outward /= np.linalg.norm(outward, axis=1, keepdims=True)
    binormal = np.cross(tangents, outward)
    angles = np.linspace(0, 2 * np.pi, sections, endpoint=False)
    rings = pts[:, None, :] + radius * (
        np.cos(angles)[None, :, None] * outward[:, None, :] + np.sin(angles)[None, :, None] * binormal[:, None, :]
    )
    n, s = len(pts), sections
    faces = []
    for i in range(n):
        for j in range(s):
            a, b = i * s + j, i * s + (j + 1) % s
            c, d = ((i + 1) % n) * s + (j + 1) % s, ((i + 1) % n) * s + j
            faces += [(a, c, b), (a, d, c)]
    mesh = trimesh.Trimesh(rings.reshape(-1, 3), np.array(faces), process=False)
    mesh.fix_normals()
    return mesh


def ribbed(mesh: trimesh.Trimesh, lobes: int, depth: float, phase_deg: float = 0.0) -> trimesh.Trimesh:
    """A copy whose distance from the Z axis swells and shrinks `lobes` times around it by ±`depth`
    (a fraction): pumpkin ribs, tomato and pepper lobes, fluted paper cups."""
    out = mesh.copy()
    x, y = out.vertices[:, 0], out.vertices[:, 1]
    factor = 1 + depth * np.cos(lobes * np.arctan2(y, x) - np.radians(phase_deg))
    out.vertices = np.column_stack([x * factor, y * factor, out.vertices[:, 2]])
    return out


def lathe_arc(profile: Sequence[tuple[float, float]], start_deg: float, end_deg: float, sections: int = 48) -> trimesh.Trimesh:
    """Like `lathe`, but revolved only from `start_deg` to `end_deg` about +Z (cut fruit, a cake with a
    slice out); the cut sides stay open, close them with their own parts. UVs as `lathe`."""
    mesh = lathe(profile, sections)
    u = mesh.visual.uv[:, 0]  # lathe's u is the angle over 2π, exact even at the seam
    angle = np.radians(start_deg + u * (end_deg - start_deg))
    radius = np.hypot(mesh.vertices[:, 0], mesh.vertices[:, 1])
    mesh.vertices = np.column_stack([radius * np.cos(angle), radius * np.sin(angle), mesh.vertices[:, 2]])
    return mesh


def smooth_path(points: Sequence[Sequence[float]], samples: int = 6) -> np.ndarray:
    """A Catmull-Rom curve through a few control points (any dimension), `samples` points per span:
    hand-placed handle, spout and limb paths become smooth without listing dozens of points."""
    pts = np.asarray(points, dtype=float)
    padded = np.vstack([2 * pts[0] - pts[1], pts, 2 * pts[-1] - pts[-2]])
    t = np.linspace(0, 1, samples, endpoint=False)[:, None]
    out = []
    for p0, p1, p2, p3 in zip(padded[:-3], padded[1:-2], padded[2:-1], padded[3:]):
        a, b, c = p2 - p0, 2 * p0 - 5 * p1 + 4 * p2 - p3, 3 * p1 - p0 - 3 * p2 + p3
        out.append(0.5 * (2 * p1 + a * t + b * t**2 + c * t**3))
    return np.vstack(out + [pts[-1:]])


def limb(start: Sequence[float], end: Sequence[float], radius: float, sections: int = 16) -> trimesh.Trimesh:
    """A capsule (round-ended cylinder) from `start` to `end`: plush arms and legs, pegs, rounded bars."""
    a, b = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    axis = b - a
    length = float(np.linalg.norm(axis))
    mesh = trimesh.creation.capsule(height=length, radius=radius, count=[sections, sections])
    mesh.apply_transform(trimesh.geometry.align_vectors([0, 0, 1], axis / length))
    mesh.apply_translation((a + b) / 2)
    return mesh
