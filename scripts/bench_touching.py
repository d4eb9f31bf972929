"""Measure the touching and next-to labels of random scenes against the exact distance between the meshes.

    python scripts/bench_touching.py --count 2000                       # the shipped random config
    python scripts/bench_touching.py --count 1000 --random-config dense.yaml

Draws `--count` scenes as `tabletest vignettes` does (pure Python), labels each with the project's own
relations, then measures every pair of objects with python-fcl, independently of how the labels were made:
the gaps of the pairs labelled touching (within 3 mm, 3-6 mm, more), the pairs whose meshes are within
`contact_m` yet not labelled touching, the pairs labelled next to whose meshes are farther apart than
`next_to_m`, and the share of scenes with a touching pair.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from bench_arrangements import ASSETS, RESOLUTION, _setup  # scripts/ is on the path when a script runs
from bench_assets_build import cpu_model

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _mesh(fcl, shape, obj):
    """The object's mesh where it stands, built here from the model file (not by the code under test)."""
    from tabletest.assets.canonical import model_mesh

    vertices, faces = model_mesh(shape.path, shape.sha256)
    model = fcl.BVHModel()
    model.beginModel(len(vertices), len(faces))
    model.addSubModel(vertices, faces)
    model.endModel()
    t = math.radians(obj.yaw_deg)
    rotation = np.array([[math.cos(t), -math.sin(t), 0.0], [math.sin(t), math.cos(t), 0.0], [0.0, 0.0, 1.0]])
    return fcl.CollisionObject(model, fcl.Transform(rotation, np.asarray(obj.position_m, dtype=float)))


def main() -> None:
    import fcl

    from tabletest.layout.instances import kind_of
    from tabletest.layout.random_scene import sample_scene
    from tabletest.truth.contact import contact_relations

    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--random-config", default=None)
    args = parser.parse_args()
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    started = time.perf_counter()
    scenes, config, entries = _setup(args.random_config, args.count, args.seed)
    contact = scenes.contact(entries, ASSETS)
    sizes = {n: e.size_m for n, e in entries.items()}
    top, c, next_to = config.table.height_m, scenes.config.arrangements.contact_m, scenes.config.arrangements.next_to_m
    touching_gaps, missed, far_next_to, with_touching, pairs = [], 0, [], 0, 0
    for index in range(args.count):
        scene = sample_scene(scenes.config, scenes.pool, sizes, args.seed, index, top, 36.0, RESOLUTION, contact.shapes)
        rel, _ = contact_relations(scene.objects, contact.shapes, scenes.config.arrangements, 0.04, top)
        touching = {frozenset(p) for p in rel["touching"]}
        beside = {frozenset(p) for p in rel["next_to"]}
        with_touching += bool(touching)
        meshes = {o.name: _mesh(fcl, contact.shapes[kind_of(o.name)], o) for o in scene.objects}
        for a, b in itertools.combinations(scene.objects, 2):
            pair = frozenset((a.name, b.name))
            if math.dist(a.position_m[:2], b.position_m[:2]) > math.hypot(*a.size_m[:2]) / 2 + math.hypot(*b.size_m[:2]) / 2 + 0.2:
                continue
            pairs += 1
            gap = max(0.0, float(fcl.distance(meshes[a.name], meshes[b.name], fcl.DistanceRequest(), fcl.DistanceResult())))
            if pair in touching:
                touching_gaps.append(gap)
            elif gap <= c:
                missed += 1
            if pair in beside and gap > next_to:
                far_next_to.append((scene.id, a.name, b.name, gap))
    n = len(touching_gaps)
    print(f"{args.count} scenes (seed {args.seed}, {args.random_config or 'the shipped random config'}): "
          f"{with_touching / args.count:.1%} with a touching pair; {pairs} pairs measured")
    if n:
        print(f"labelled touching: {n} pairs, mesh gap within {c * 1000:g} mm {sum(g <= c for g in touching_gaps)}, "
              f"{c * 1000:g}-{2 * c * 1000:g} mm {sum(c < g <= 2 * c for g in touching_gaps)}, more {sum(g > 2 * c for g in touching_gaps)}; "
              f"median {statistics.median(touching_gaps) * 1000:.1f} mm, largest {max(touching_gaps) * 1000:.1f} mm")
    print(f"within {c * 1000:g} mm but not labelled touching: {missed} pairs")
    print(f"labelled next to but farther than {next_to * 100:g} cm apart in 3D: {len(far_next_to)} pairs"
          + "".join(f"\n  {s} {a} {b}: {g * 100:.1f} cm" for s, a, b, g in sorted(far_next_to, key=lambda x: -x[3])[:5]))
    print(f"wall {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
