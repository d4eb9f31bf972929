"""The kitchen, tool, misc and toy recipes: sound geometry, several materials, and the parts that make
each object recognisable sitting where a viewer expects them (handles +X, spouts −X, fronts −Y)."""

from __future__ import annotations

import numpy as np
import pytest

from tabletest.assets import canonical
from tabletest.assets.builtin.parts import Part
from tabletest.assets.builtin.recipes import kitchen, misc, tool, toy
from tabletest.assets.builtin.shapes import extrude_polygon, limb, loop, moved, rounded_box, smooth_path
from tabletest.config import load_catalog

MODULES = {"kitchen": kitchen, "tool": tool, "misc": misc, "toy": toy}
CATALOG = {obj.name: obj for obj in load_catalog().objects}
NAMES = [name for module in MODULES.values() for name in module.RECIPES]
_CACHE: dict[str, list[Part]] = {}


def build(name: str) -> list[Part]:
    if name not in _CACHE:
        module = next(m for m in MODULES.values() if name in m.RECIPES)
        _CACHE[name] = module.RECIPES[name]()
    return _CACHE[name]


def part(name: str, part_name: str) -> Part:
    matches = [p for p in build(name) if p.name == part_name]
    assert matches, f"{name} has no part {part_name!r}: {[p.name for p in build(name)]}"
    return matches[0]


def parts_named(name: str, prefix: str) -> list[Part]:
    return [p for p in build(name) if p.name.startswith(prefix)]


def centre(p: Part) -> np.ndarray:
    return p.mesh.bounds.mean(axis=0)


def object_bounds(name: str) -> np.ndarray:
    return np.array(
        [
            np.min([p.mesh.bounds[0] for p in build(name)], axis=0),
            np.max([p.mesh.bounds[1] for p in build(name)], axis=0),
        ]
    )


def covers_xz(mesh, point) -> bool:
    """Whether any triangle, seen along Y (from the camera), covers the point's (x, z)."""
    tri = mesh.triangles[:, :, [0, 2]]
    p = np.asarray(point)[[0, 2]]
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]

    def side(u, v):
        return (v[:, 0] - u[:, 0]) * (p[1] - u[:, 1]) - (v[:, 1] - u[:, 1]) * (p[0] - u[:, 0])

    s1, s2, s3 = side(a, b), side(b, c), side(c, a)
    inside = ((s1 >= 0) & (s2 >= 0) & (s3 >= 0)) | ((s1 <= 0) & (s2 <= 0) & (s3 <= 0))
    return bool(np.any(inside & (np.abs(s1) + np.abs(s2) + np.abs(s3) > 0)))


@pytest.mark.parametrize("group", MODULES)
def test_each_module_covers_exactly_its_catalog_group(group):
    expected = {obj.name for obj in CATALOG.values() if obj.group == group}
    assert set(MODULES[group].RECIPES) == expected


@pytest.mark.parametrize("name", NAMES)
def test_recipe_is_sound_geometry_with_several_materials(name):
    parts = build(name)
    assert len(parts) >= 2 and all(isinstance(p, Part) for p in parts)
    assert len({p.name for p in parts}) == len(parts), "part names must be unique (they become node names)"
    for p in parts:
        assert len(p.mesh.faces) > 0, p.name
        assert np.isfinite(p.mesh.vertices).all(), p.name
        assert (p.mesh.faces < len(p.mesh.vertices)).all(), p.name
    assert sum(len(p.mesh.faces) for p in parts) <= 50_000
    looks = {(p.material.color, p.material.metallic, p.material.texture is not None) for p in parts}
    assert len(looks) >= 2, "a many-part object needs more than one material"


@pytest.mark.parametrize("name", NAMES)
def test_recipe_is_deterministic_and_normalises_to_catalog_size(name):
    again = (MODULES[CATALOG[name].group]).RECIPES[name]()
    for a, b in zip(build(name), again):
        assert np.array_equal(a.mesh.vertices, b.mesh.vertices)
    scene = canonical.to_canonical([(p.name, p.textured_mesh()) for p in build(name)], CATALOG[name].size_m)
    lo, hi = scene.bounds
    assert max(hi - lo) == pytest.approx(CATALOG[name].size_m)
    assert lo[2] == pytest.approx(0.0, abs=1e-9)


def test_mug_handle_sticks_out_to_the_right():
    body, handle = part("mug", "body"), part("mug", "handle")
    assert handle.mesh.bounds[1][0] > body.mesh.bounds[1][0] + 0.015
    assert abs(centre(handle)[1]) < 0.005


def test_wine_bottle_has_narrow_neck_label_band_and_capsule():
    glass = part("wine bottle", "bottle").mesh
    height = glass.bounds[1][2]
    radius = np.hypot(glass.vertices[:, 0], glass.vertices[:, 1])
    assert radius[glass.vertices[:, 2] > 0.85 * height].max() < 0.5 * radius.max()
    label = part("wine bottle", "label")
    assert label.material.texture is not None and 0.15 * height < centre(label)[2] < 0.6 * height
    assert part("wine bottle", "capsule").mesh.bounds[1][2] >= height


def test_blender_jar_stands_on_base_with_side_handle():
    base, jar, handle = part("blender", "base"), part("blender", "jar"), part("blender", "handle")
    assert jar.mesh.bounds[0][2] > base.mesh.bounds[1][2]
    assert centre(handle)[0] > jar.mesh.bounds[1][0]


@pytest.mark.parametrize("name", ["teapot", "kettle"])
def test_pouring_vessels_spout_left_of_body(name):
    body, spout = part(name, "body"), part(name, "spout")
    assert spout.mesh.bounds[0][0] < body.mesh.bounds[0][0] - 0.02


def test_teapot_handle_right_and_kettle_handle_over_the_top():
    assert part("teapot", "handle").mesh.bounds[1][0] > part("teapot", "body").mesh.bounds[1][0]
    assert part("kettle", "grip").mesh.bounds[0][2] > part("kettle", "lid").mesh.bounds[1][2]


def test_toaster_slots_on_top_with_toast_and_a_side_lever():
    body = part("toaster", "body").mesh
    assert all(s.mesh.bounds[1][2] >= body.bounds[1][2] for s in parts_named("toaster", "slot"))
    assert all(t.mesh.bounds[1][2] > body.bounds[1][2] for t in parts_named("toaster", "toast"))
    assert part("toaster", "lever").mesh.bounds[1][0] > body.bounds[1][0]


def test_hammer_has_metal_head_across_wooden_handle():
    head_parts = [part("hammer", n) for n in ("head", "face", "claw")]
    handle = part("hammer", "handle")
    assert all(p.material.metallic > 0.5 for p in head_parts) and handle.material.metallic == 0
    head_width = max(p.mesh.bounds[1][0] for p in head_parts) - min(p.mesh.bounds[0][0] for p in head_parts)
    assert head_width > 3 * (handle.mesh.bounds[1][0] - handle.mesh.bounds[0][0])
    assert handle.mesh.bounds[1][2] > 3 * max(p.mesh.bounds[1][2] for p in head_parts)  # standing on its head


def test_wrench_has_jaw_and_ring_at_opposite_ends():
    jaw, ring = part("wrench", "open jaw"), part("wrench", "box end")
    assert centre(jaw)[0] < 0 < centre(ring)[0]
    # the jaw is open: the middle of its slot, seen from the front, is not covered by any triangle
    slot = centre(jaw) + [-0.012, 0, 0.003]
    assert not covers_xz(jaw.mesh, slot) and covers_xz(jaw.mesh, centre(jaw) + [0.012, 0, 0])


def test_scissors_have_blades_left_and_two_finger_loops_right():
    blades, loops = (
        parts_named("scissors", "upper blade") + parts_named("scissors", "lower blade"),
        [p for p in build("scissors") if "finger loop" in p.name],
    )
    assert len(blades) == 2 and len(loops) == 2
    assert all(b.mesh.bounds[0][0] < -0.08 for b in blades) and all(centre(loop_)[0] > 0.04 for loop_ in loops)
    assert {b.material.metallic for b in blades} == {1.0} and all(loop_.material.metallic == 0 for loop_ in loops)
    tips = [b.mesh.vertices[np.argmin(b.mesh.vertices[:, 0])] for b in blades]
    assert abs(tips[0][2] - tips[1][2]) > 0.01, "blades slightly open"


def test_flashlight_lens_faces_the_camera_side():
    lens, body = centre(part("flashlight", "lens")), centre(part("flashlight", "body"))
    assert lens[0] < body[0] and lens[1] < body[1]


def test_stapler_arm_above_base():
    assert part("stapler", "top arm").mesh.bounds[0][2] > part("stapler", "base").mesh.bounds[0][2] + 0.01


def test_bucket_and_watering_can_handles():
    assert part("bucket", "grip").mesh.bounds[0][2] > part("bucket", "pail").mesh.bounds[1][2]
    can, spout, handle = part("watering can", "body"), part("watering can", "spout"), part("watering can", "handle")
    assert spout.mesh.bounds[0][0] < can.mesh.bounds[0][0] - 0.1
    assert handle.mesh.bounds[1][0] > can.mesh.bounds[1][0]
    assert centre(part("watering can", "rose"))[2] > can.mesh.bounds[1][2]


def test_padlock_shackle_on_top_and_keyhole_in_front():
    body = part("padlock", "body").mesh
    assert part("padlock", "shackle").mesh.bounds[1][2] > body.bounds[1][2] + 0.01
    assert part("padlock", "keyhole").mesh.bounds[0][1] < body.bounds[0][1]


def test_teddy_bear_has_ears_muzzle_and_limbs():
    head = part("teddy bear", "head").mesh
    for side in ("-1", "+1"):
        assert part("teddy bear", f"ear {side}").mesh.bounds[1][2] > head.bounds[1][2]
        for limb_name in ("arm", "leg"):
            assert part("teddy bear", f"{limb_name} {side}")
    assert part("teddy bear", "muzzle").mesh.bounds[0][1] < head.bounds[0][1]
    assert part("teddy bear", "nose").material.color != part("teddy bear", "muzzle").material.color


def test_rubber_duck_beak_in_front_of_head():
    head, beak = part("rubber duck", "head"), part("rubber duck", "beak")
    assert centre(beak)[0] < centre(head)[0] and centre(beak)[1] < centre(head)[1]
    assert beak.material.color != head.material.color


def test_trophy_has_two_cup_handles_and_a_base():
    handles = parts_named("trophy", "handle")
    assert sorted(np.sign(centre(h)[0]) for h in handles) == [-1, 1]
    assert part("trophy", "plinth").mesh.bounds[0][2] == pytest.approx(object_bounds("trophy")[0][2])
    assert part("trophy", "cup").mesh.bounds[1][2] == pytest.approx(object_bounds("trophy")[1][2])


@pytest.mark.parametrize("name", ["basketball", "tennis ball"])
def test_balls_have_seams_on_their_surface(name):
    ball = part(name, "ball").mesh
    radius = ball.bounds[1][2]
    for seam in [p for p in build(name) if p.name.startswith("seam")]:
        distance = np.linalg.norm(seam.mesh.vertices, axis=1)
        assert np.all(np.abs(distance - radius) < 0.05 * radius)


def test_rounded_box_is_closed_and_keeps_its_extents():
    mesh = rounded_box((0.3, 0.2, 0.1), 0.02, bottom_z=0.5)
    assert mesh.is_watertight
    assert np.allclose(mesh.extents, (0.3, 0.2, 0.1), atol=0.003)
    assert mesh.bounds[0][2] == pytest.approx(0.5, abs=0.002)


def test_extrude_polygon_fills_a_concave_outline_exactly():
    l_shape = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]
    mesh = extrude_polygon(l_shape[::-1], 0.5)
    assert mesh.is_watertight and mesh.volume == pytest.approx(3 * 0.5)
    assert not covers_xz(moved(mesh, rotate_deg=(90, 0, 0)), [1.5, 0, 1.5])


def test_loop_is_a_closed_ring_and_limb_spans_its_ends():
    t = np.linspace(0, 2 * np.pi, 64, endpoint=False)
    ring = loop(np.c_[np.cos(t), np.sin(t), np.zeros_like(t)], 0.1, 12)
    assert ring.is_watertight and ring.volume == pytest.approx(2 * np.pi**2 * 0.01, rel=0.05)
    capsule = limb((0, 0, 0), (0, 0.5, 0.5), 0.1)
    assert np.allclose(capsule.bounds, [[-0.1, -0.1, -0.1], [0.1, 0.6, 0.6]], atol=0.01)


def test_smooth_path_passes_through_its_control_points():
    points = [(0, 0), (1, 0), (1, 1), (3, 2)]
    path = smooth_path(points, 5)
    assert len(path) == 3 * 5 + 1
    assert np.allclose(path[::5], points)
