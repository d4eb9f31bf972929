"""Writing what a render worker hands over (no bpy), in a process beside the next render: a Blender
worker's time is the GPU's, and encoding a PNG or measuring silhouettes there would keep it idle.

A worker renders a scene and saves, next to the image's temporary name, the image as an uncompressed
TIFF (already colour-managed, so the PNG holds Blender's pixels exactly), and where they are needed
the Object Index and Depth passes as an EXR and each object's silhouette triangles. `finish` writes the
image, mask and depth PNGs under their temporary names, adds each random scene object's visible
fraction to the facts, and removes the hand-over files. Nothing here is committed: the run output's
commit protocol is unchanged, and a kill leaves only temporary names, which a rerun removes.
"""

from __future__ import annotations

import os

import numpy as np
from PIL import Image

from tabletest.compose.exr import depth_millimetres, read_passes
from tabletest.truth.visibility import visibility

PNG_LEVEL = 1  # zlib level: Blender's own PNGs at its 15 % compression


def finish(facts: dict) -> dict:
    """The worker's facts with the hand-over done (`facts["finish"]` names the files)."""
    job = facts.pop("finish")
    with Image.open(job["raw"]) as raw:
        raw.save(job["image"], format="PNG", compress_level=PNG_LEVEL)
    os.unlink(job["raw"])
    if "passes" not in job:
        return facts
    passes = read_passes(job["passes"])
    os.unlink(job["passes"])
    index = passes["Object Index"]
    if job.get("mask"):
        Image.fromarray(np.rint(index).astype(np.uint8)).save(job["mask"], format="PNG")
    if job.get("depth"):
        Image.fromarray(depth_millimetres(passes["Depth"])).save(job["depth"], format="PNG")
    if "silhouettes" in job:
        with np.load(job["silhouettes"]) as saved:
            silhouettes = [saved[f"arr_{i}"] for i in range(len(saved.files))]
        os.unlink(job["silhouettes"])
        names = [obj["name"] for obj in facts["objects"]]
        for position, (obj, silhouette) in enumerate(zip(facts["objects"], silhouettes)):
            obj["visible_fraction"], covering = visibility(silhouette, index, position + 1)
            obj["covered_by"] = [names[label - 1] for label in covering]
    return facts
