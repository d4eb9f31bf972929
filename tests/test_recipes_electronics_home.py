"""The electronics and home recipes: valid geometry, several materials, and the parts that make each object
recognisable (a lamp's shade, a laptop's screen, a piggy bank's snout...)."""

from __future__ import annotations

import numpy as np
import pytest

from tabletest.assets.builtin.recipes import electronics, home
from tabletest.config import load_catalog

RECIPES = electronics.RECIPES | home.RECIPES

CHARACTERISTIC_PARTS = {
    "telephone": {"body", "keypad", "handset", "cord"},
    "lamp": {"base", "arm", "shade", "bulb"},
    "camera": {"body", "lens", "lens glass"},
    "headphones": {"headband", "ear cups", "cushions"},
    "calculator": {"body", "keys and display"},
    "laptop": {"base", "keyboard", "lid", "screen"},
    "radio": {"case", "speaker grille", "tuning dial", "knobs", "handle", "antenna"},
    "fan": {"base", "stand", "blades", "cage"},
    "microphone": {"base", "pole", "handle", "grille"},
    "briefcase": {"case", "latches", "handle"},
    "book": {"covers", "spine", "pages", "cover art"},
    "alarm clock": {"case", "face", "hands", "bells", "legs"},
    "candle": {"wax", "wick", "flame"},
    "vase": {"body"},
    "globe": {"globe", "meridian", "stand"},
    "hourglass": {"glass", "sand", "plates", "posts"},
    "lantern": {"tank", "glass", "guard", "handle"},
    "piggy bank": {"body", "snout", "ears", "legs", "coin slot", "eyes"},
    "potted plant": {"pot", "soil", "leaves"},
}

TEXTURED_PARTS = {
    "telephone": "keypad", "calculator": "keys and display", "laptop": "screen", "radio": "speaker grille",
    "microphone": "grille", "book": "pages", "alarm clock": "face", "globe": "globe",
    "vase": "body", "candle": "flame",
}


@pytest.fixture(scope="module")
def built() -> dict:
    return {name: recipe() for name, recipe in RECIPES.items()}


def test_every_catalog_object_of_the_two_groups_has_a_recipe() -> None:
    catalog = load_catalog()
    assert set(electronics.RECIPES) == {o.name for o in catalog.objects if o.group == "electronics"}
    assert set(home.RECIPES) == {o.name for o in catalog.objects if o.group == "home"}


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_recipe_geometry_is_valid_and_light(built: dict, name: str) -> None:
    parts = built[name]
    assert parts
    for part in parts:
        assert len(part.mesh.faces) > 0, part.name
        assert np.isfinite(part.mesh.vertices).all(), part.name
        assert part.mesh.faces.max() < len(part.mesh.vertices), part.name
    assert sum(len(p.mesh.faces) for p in parts) <= 50_000
    extent = np.ptp(np.vstack([p.mesh.vertices for p in parts]), axis=0)
    assert extent.max() < 1.0 and extent.min() > 0.005  # real-size metres, no flat or exploded object


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_characteristic_parts_exist_in_several_materials(built: dict, name: str) -> None:
    parts = built[name]
    names = [p.name for p in parts]
    assert len(names) == len(set(names))
    assert CHARACTERISTIC_PARTS[name] <= set(names)
    looks = {(p.material.color, p.material.texture is not None) for p in parts}
    assert len(parts) == 1 or len(looks) > 1


@pytest.mark.parametrize("name", sorted(TEXTURED_PARTS))
def test_textured_parts_carry_uvs_inside_the_image(built: dict, name: str) -> None:
    part = next(p for p in built[name] if p.name == TEXTURED_PARTS[name])
    assert part.material.texture is not None
    uv = part.textured_mesh().visual.uv
    assert len(uv) == len(part.mesh.vertices)
    assert uv.min() >= -1e-9 and uv.max() <= 1 + 1e-9 and np.ptp(uv, axis=0).min() > 0.5


def _part(built: dict, name: str, part: str):
    return next(p for p in built[name] if p.name == part).mesh


def test_laptop_is_open_with_its_screen_facing_the_viewer(built: dict) -> None:
    screen, base = _part(built, "laptop", "screen"), _part(built, "laptop", "base")
    assert screen.face_normals[:, 1].mean() < -0.8
    assert screen.bounds[1][2] > base.bounds[1][2] + 0.15
    assert _part(built, "laptop", "lid").bounds[0][1] > base.bounds[0][1] + 0.15  # hinged at the back


def test_lamp_shade_hangs_above_and_beside_its_base(built: dict) -> None:
    shade, base = _part(built, "lamp", "shade"), _part(built, "lamp", "base")
    assert shade.bounds[0][2] > base.bounds[1][2] + 0.1
    assert shade.centroid[0] > base.centroid[0] + 0.1


def test_faces_and_keypads_face_the_viewer(built: dict) -> None:
    for name, part in (("alarm clock", "face"), ("radio", "tuning dial"), ("camera", "lens glass"),
                       ("telephone", "keypad")):
        assert _part(built, name, part).face_normals[:, 1].mean() < -0.3, name
        others = np.vstack([p.mesh.vertices for p in built[name] if p.name != part])
        assert _part(built, name, part).bounds[0][1] <= others[:, 1].min() + 0.06, name


def test_piggy_bank_slot_is_on_top_and_snout_in_front(built: dict) -> None:
    body = _part(built, "piggy bank", "body")
    assert _part(built, "piggy bank", "coin slot").bounds[0][2] >= body.bounds[1][2] - 0.005
    assert _part(built, "piggy bank", "snout").bounds[0][1] < body.bounds[0][1]
    assert _part(built, "piggy bank", "legs").bounds[0][2] <= body.bounds[0][2]


def test_recipes_are_deterministic() -> None:
    for name, recipe in RECIPES.items():
        first, second = recipe(), recipe()
        for a, b in zip(first, second, strict=True):
            assert np.array_equal(a.mesh.vertices, b.mesh.vertices), name
