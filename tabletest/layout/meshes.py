"""Exact distances between two models' meshes where they stand, in 3D (python-fcl): what decides whether two
objects touch or stand next to each other. Columns seen from above cannot: an object under another's
overhang (a bowl under a lamp's arm) shares a column with it yet is centimetres from its surface.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from tabletest.layout.arrangements import Pose, Shape

CLOSE_STEPS = 12  # moves towards a neighbour when closing a gap: each removes all but the slack kept
SLIDE_CONTACT_M = 1e-4  # a slide ends where the surfaces are this near (beyond what it keeps): the models' own precision
SLIDE_STEPS = 64  # moves before a slide that keeps grazing the other object is given up (no answer)


def placed_mesh(shape: Shape, pose: Pose, shift: tuple[float, float, float] = (0.0, 0.0, 0.0)):
    """The model's mesh as an fcl collision object at `pose` (moved by `shift`)."""
    import fcl

    t = math.radians(pose.yaw_deg)
    rotation = np.array([[math.cos(t), -math.sin(t), 0.0], [math.sin(t), math.cos(t), 0.0], [0.0, 0.0, 1.0]])
    return fcl.CollisionObject(_bvh(shape.path, shape.sha256), fcl.Transform(rotation, np.add((pose.x, pose.y, pose.z), shift)))


def mesh_distance(a: Shape, pose_a: Pose, b: Shape, pose_b: Pose) -> float:
    """The least distance between the two meshes' surfaces in metres; 0 where they meet or overlap."""
    import fcl

    found = fcl.distance(placed_mesh(a, pose_a), placed_mesh(b, pose_b), fcl.DistanceRequest(), fcl.DistanceResult())
    return max(0.0, float(found))


def close_gap(shape: Shape, pose: Pose, neighbour: Shape, neighbour_pose: Pose, angle_deg: float, slack_m: float) -> Pose:
    """`shape` moved on along the horizontal direction `angle_deg` (pointing away from its neighbour) towards
    it until their meshes are about `slack_m` apart. Each move is the measured distance less the slack, so it
    never reaches into the neighbour (no point of a mesh moves farther than the move); an oblique face takes
    a few moves, and `CLOSE_STEPS` bounds them."""
    step_x, step_y = -math.cos(math.radians(angle_deg)), -math.sin(math.radians(angle_deg))
    for _ in range(CLOSE_STEPS):
        move = mesh_distance(shape, pose, neighbour, neighbour_pose) - slack_m
        if move < slack_m / 2:
            break
        pose = Pose(round(pose.x + move * step_x, 5), round(pose.y + move * step_y, 5), pose.z, pose.yaw_deg)
    return pose


def slide_until(shape: Shape, pose: Pose, way: np.ndarray, other: Shape, other_pose: Pose, limit: float, keep: float = 0.0) -> float | None:
    """How far `shape` moves along the horizontal unit vector `way` until its mesh comes within `keep` of `other`'s
    (advanced each time by the distance between them less `keep`, which no point of it outruns, until what is left is
    under `SLIDE_CONTACT_M`); None where it passes `limit` first, or grazes it for `SLIDE_STEPS` moves without coming
    that near."""
    moved = 0.0
    for _ in range(SLIDE_STEPS):
        apart = mesh_distance(shape, Pose(pose.x + moved * way[0], pose.y + moved * way[1], pose.z, pose.yaw_deg), other, other_pose) - keep
        if apart <= SLIDE_CONTACT_M:
            return moved
        moved += apart
        if moved > limit:
            return None
    return None


@lru_cache(maxsize=128)
def _bvh(path: str, sha256: str):
    import fcl

    from tabletest.assets.canonical import model_mesh  # loading a model file: trimesh, only when first needed

    vertices, faces = model_mesh(path, sha256)
    model = fcl.BVHModel()
    model.beginModel(len(vertices), len(faces))
    model.addSubModel(vertices, faces)
    model.endModel()
    return model
