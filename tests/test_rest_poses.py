"""Every model rests where a scene puts it: the built-in models measured in MuJoCo, and the rules that pose
a model (`tabletest/assets/rest.py`) on plain boxes."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import trimesh

from tabletest.assets.canonical import bake, load_world, to_canonical
from tabletest.assets.check import check_assets
from tabletest.assets.manifest import MANIFEST_NAME, load_manifest
from tabletest.assets.rest import rest_turn
from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.assets.needed import needed_assets
from tabletest.layout.arrangements import Shape
from physics import simulate
from tabletest.layout.random_scene import PlacedObject

TOP = 0.75


def test_every_builtin_model_alone_on_the_table_moves_less_than_2_mm(builtin_assets):
    """1 s of MuJoCo (a model that rolls or tips is centimetres away by then), every model a metre from the next
    (objects never collide with one another there)."""
    entries = load_manifest(builtin_assets).objects
    shapes = {name: Shape(e.size_m, str(builtin_assets / e.file), e.sha256) for name, e in entries.items()}
    objects = [PlacedObject(name, (float(k), 0.0, TOP), 0.0, e.size_m) for k, (name, e) in enumerate(sorted(entries.items()))]
    moved = simulate(objects, shapes, [], TOP, 1.0)
    assert len(moved) == len(load_catalog().objects)
    assert {name: round(m * 1000, 1) for name, m in moved.items() if m >= 0.002} == {}


def test_a_stored_model_is_at_rest_by_the_rule_that_posed_it(builtin_assets):
    entries = load_manifest(builtin_assets).objects
    for name in ("mug", "lamp", "banana", "wrench", "tennis ball", "teddy bear"):
        assert rest_turn([mesh for _, mesh in bake(load_world(builtin_assets / entries[name].file))]) is None, name


def test_a_model_stored_without_its_rest_pose_is_refused_with_the_command_that_makes_it_again(builtin_assets, tmp_path):
    """A manifest entry written before models were put at rest has no `rest_pose`."""
    data = json.loads((builtin_assets / MANIFEST_NAME).read_text())
    entry = data["objects"]["mug"]
    del entry["rest_pose"]
    (tmp_path / MANIFEST_NAME).write_text(json.dumps({**data, "objects": {"mug": entry}}))
    shutil.copy(builtin_assets / entry["file"], tmp_path / entry["file"])
    with pytest.raises(UserError) as err:
        needed_assets(load_catalog(), tmp_path, ["mug"], build_missing=True)
    assert f"model file for 'mug' was stored without its rest pose (it may roll, or stand on an edge): {tmp_path / 'mug.glb'}" in str(err.value)
    assert str(err.value).endswith(f"make it again with `tabletest assets build --only 'mug' --out {tmp_path}`")
    (problem,) = check_assets(load_catalog(), tmp_path, ["mug"])
    assert str(problem) == f'mug: {tmp_path / "mug.glb"} was stored without its rest pose (it may roll, or stand on an edge); rebuild it with `tabletest assets build --only "mug"`'


def box(extents, center=(0.0, 0.0, 0.0)) -> trimesh.Trimesh:
    return trimesh.creation.box(extents, trimesh.transformations.translation_matrix(center))


def test_a_model_at_rest_keeps_its_pose_exactly():
    flat = box((0.2, 0.1, 0.05), (0.0, 0.0, 0.025))
    assert rest_turn([flat]) is None
    assert np.array_equal(next(iter(to_canonical([("box", flat)], 0.2).geometry.values())).vertices, flat.vertices)


def test_a_box_on_its_edge_falls_back_onto_its_face():
    """Tipped 20° onto its front edge: it settles back flat, its nose (its front) towards −Y again."""
    body, nose = box((0.2, 0.1, 0.05)), box((0.02, 0.02, 0.02), (0.0, -0.06, 0.0))
    tipped = trimesh.transformations.rotation_matrix(np.radians(-20), [1, 0, 0])
    scene = to_canonical([(name, part.copy().apply_transform(tipped)) for name, part in (("body", body), ("nose", nose))], 0.2)
    assert np.allclose(scene.bounds, [[-0.1, -0.06, 0.0], [0.1, 0.06, 0.05]], atol=2e-4)
    assert scene.geometry["nose"].bounds[1][1] < -0.04


def test_a_pencil_on_its_end_falls_and_turns_its_front_back_towards_minus_y():
    """A square pencil turned 45° falls diagonally: tipped without a turn it would lie at 45° in plan; turned
    back so that what faced −Y still does, it lies along X."""
    pencil = box((0.006, 0.006, 0.2), (0.0, 0.0, 0.1)).apply_transform(trimesh.transformations.rotation_matrix(np.radians(45), [0, 0, 1]))
    assert np.allclose(to_canonical([("pencil", pencil)], 0.2).extents, [0.2, 0.006, 0.006], atol=2e-4)


def test_a_slab_standing_on_its_end_lies_on_a_broad_face_not_on_its_thin_edge():
    """It falls over its front or back without a turn: it lies along Y."""
    slab = box((0.04, 0.006, 0.2), (0.0, 0.0, 0.1))
    assert np.allclose(to_canonical([("slab", slab)], 0.2).extents, [0.04, 0.2, 0.006], atol=2e-4)
