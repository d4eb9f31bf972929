"""Spatial questions beyond left and right, from a scene's ground truth (SPHERE's hierarchy, VSR's
captions, SpartQA's multi-hop stories), each with its skill, level, frame of reference and gold answer.

Frames of reference: `viewer` is the camera's left, right, front and behind (SPHERE calls it
allocentric, VSR relative); `intrinsic` is an object's own, from its front (SPHERE: egocentric).
"""
