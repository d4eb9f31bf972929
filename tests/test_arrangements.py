"""Random scenes off the table plane: objects on, in and touching others, placed in pure Python from
the models' shapes, checked with real engines (python-fcl on the exact meshes, MuJoCo), and labelled
from the final geometry."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import REPO, one_look_random_data, run_cli

from tabletest.assets.manifest import load_manifest
from tabletest.config import load_catalog, load_config
from tabletest.layout.arrangements import Contact, Pose, Shape, carry, slide_to
from tabletest.assets.canonical import model_mesh
from physics import plausibility
from tabletest.layout.instances import kind_of
from tabletest.layout.random_config import RandomConfig
from tabletest.layout.random_scene import PlacedObject, sample_scene
from tabletest.layout.random_set import make_random_set
from tabletest.truth.contact import contact_relations
from tabletest.truth.geometry import scene_relations
from tabletest.truth.vignettes import relation_vignettes

TOP = load_config().table.height_m
RES = (512, 384)
CATALOG = load_catalog()


# The shipped random config with its looks off (each object in its catalog model): the scenes these tests pin.
SHIPPED = RandomConfig.model_validate(one_look_random_data())


def shipped_without_repeats() -> dict:
    """The shipped random config, looks off and every kind once per scene (several of a kind:
    test_counting_and_wording.py)."""
    return one_look_random_data(repeats=None)


def config_with(**arrangements) -> RandomConfig:
    """The shipped random config with its `arrangements` replaced (others at their defaults)."""
    data = shipped_without_repeats()
    data["arrangements"] = arrangements
    return RandomConfig.model_validate(data)


def with_count(config: RandomConfig, lo: int, hi: int) -> RandomConfig:
    data = config.model_dump(mode="json")
    data["objects"]["count"] = [lo, hi]
    return RandomConfig.model_validate(data)


@pytest.fixture(scope="module")
def entries(builtin_assets):
    return load_manifest(builtin_assets).objects


def scenes_of(config, entries, assets, pool, count, seed=0):
    random_set = make_random_set(CATALOG, config, seed, count, pool, None, None, None)
    contact = random_set.contact(entries, assets)
    sizes = {n: e.size_m for n, e in entries.items()}
    scenes = list(random_set.scenes(sizes, TOP, 36.0, RES, shapes=contact.shapes if contact else None))
    return scenes, contact


def relations_of(scene, contact):
    return scene_relations(scene.objects, scene.camera.pinhole(RES), SHIPPED.relations, {kind_of(o.name): "artifact" for o in scene.objects}, contact=contact)


@pytest.mark.parametrize(
    "pool,arrangement,key",
    [(("book", "apple"), {"stack": 0.4}, "on"), (("bowl", "egg"), {"contain": 0.4}, "inside"), (("mug", "apple"), {"touch": 0.4}, "touching")],
)
def test_each_arrangement_appears_at_its_configured_rate(entries, builtin_assets, pool, arrangement, key):
    config = with_count(config_with(**arrangement), 2, 2)
    scenes, contact = scenes_of(config, entries, builtin_assets, pool, 300)
    share = np.mean([bool(relations_of(s, contact)[key]) for s in scenes])
    assert abs(share - 0.4) < 0.08, share
    flat, flat_contact = scenes_of(with_count(config_with(), 2, 2), entries, builtin_assets, pool, 50)
    assert flat_contact is None and all(o.position_m[2] == TOP for s in flat for o in s.objects)


def test_two_levels_where_the_shapes_allow_and_not_beyond_max_levels(entries, builtin_assets):
    pool = ("book", "bowl", "egg")
    found = []
    for levels in (2, 1):
        scenes, contact = scenes_of(with_count(config_with(stack=0.5, contain=0.5, max_levels=levels), 3, 3), entries, builtin_assets, pool, 120)
        two = [s for s in scenes if {("egg", "bowl"), ("bowl", "book")} <= {tuple(p) for key in ("on", "inside") for p in relations_of(s, contact)[key]}]
        found.append(len(two))
        for scene in two:
            rel = relations_of(scene, contact)
            assert ["egg", "book"] in rel["above"] and ["book", "egg"] in rel["below"]
            assert ["egg", "bowl"] not in rel["above"]  # it sits below the bowl's rim
    assert found[0] > 0 and found[1] == 0


@pytest.mark.slow
def test_placed_scenes_are_physically_plausible_on_the_exact_meshes(entries, builtin_assets):
    """fcl on the meshes: nothing interpenetrates deeper than 1 mm, nothing carried floats more than 2 mm
    above its carrier, touching objects are within `contact_m`; MuJoCo: what is carried stays put."""
    config = SHIPPED
    pool = ("book", "laptop", "bowl", "mug", "trophy", "apple", "egg", "lemon", "strawberry", "tomato", "orange", "padlock", "cupcake")
    scenes, contact = scenes_of(with_count(config, 3, 6), entries, builtin_assets, pool, 150, seed=7)
    carried_total, simulated, touching = 0, 0, []
    for scene in scenes:
        rel, _ = contact_relations(scene.objects, contact.shapes, config.arrangements, 0.04, TOP)
        carried = [tuple(p) for p in rel["on"] + rel["inside"]]
        seconds = 2.0 if carried and simulated < 12 else 0.0
        result = plausibility(scene.objects, contact.shapes, carried, TOP, seconds)
        assert result.overlaps_over_1mm == 0 and result.deepest_overlap_m < 0.001, scene.id
        assert all(gap <= 0.002 for gap in result.carried_gaps_m), (scene.id, result.carried_gaps_m)
        at = {o.name: (contact.shapes[kind_of(o.name)], Pose(*o.position_m, o.yaw_deg)) for o in scene.objects}
        touching += [_mesh_gap(*at[a], *at[b]) for a, b in rel["touching"] if a < b]
        carried_total += len(carried)
        if seconds:
            simulated += 1
            moved = {a: result.moved_m[a] for a, _ in carried}
            assert max(moved.values()) < 0.005, (scene.id, moved)
    assert carried_total >= 30 and simulated == 12
    assert len(touching) >= 10 and max(touching) <= config.arrangements.contact_m, touching


def test_scene_i_is_a_pure_function_of_config_seed_and_i(entries, builtin_assets, tmp_path):
    config = SHIPPED
    pool = ("book", "bowl", "mug", "apple", "egg", "lemon", "lamp", "teapot")
    forwards, contact = scenes_of(config, entries, builtin_assets, pool, 12, seed=3)
    random_set = make_random_set(CATALOG, config, 3, 12, pool, None, None, None)
    sizes = {n: e.size_m for n, e in entries.items()}
    backwards = [sample_scene(config, random_set.pool, sizes, 3, i, TOP, 36.0, RES, contact.shapes) for i in reversed(range(12))]
    assert backwards[::-1] == forwards
    assert any(o.position_m[2] > TOP for s in forwards for o in s.objects)
    args = ["vignettes", "--scenes", "random", "--count", "6", "--seed", "3", "--assets", str(builtin_assets)]
    first = run_cli(*args, "--out", str(tmp_path / "a.jsonl"))
    second = run_cli(*args, "--out", str(tmp_path / "b.jsonl"))
    assert first.returncode == 0 and second.returncode == 0, first.stderr
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    records = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert all({"on", "under", "inside", "contains", "touching", "above", "below", "next_to"} <= r["relations"].keys() for r in records)


def _shape(entries, assets, name):
    entry = entries[name]
    role = CATALOG.by_name(name)
    return Shape(entry.size_m, str(assets / entry.file), entry.sha256, role.support, role.container)


def test_relations_come_from_the_geometry_with_their_margins(entries, builtin_assets):
    """An apple put on a book is on it, above it, touching it, and neither left/right nor in front/behind
    of it; two objects side by side are touching, withheld, next to, withheld or apart by their gap."""
    import random

    config = SHIPPED
    book, apple, mug = (_shape(entries, builtin_assets, n) for n in ("book", "apple", "mug"))
    shapes = {"book": book, "apple": apple, "mug": mug}
    book_pose = Pose(0.0, 0.0, TOP, 20.0)
    pose = carry(random.Random(1), "on", apple, book, book_pose, (0, 360), 50, [], 0.006)
    assert pose is not None and abs(pose.z - (TOP + book.size_m[2])) < 0.001
    placed = [PlacedObject("book", (0.0, 0.0, TOP), 20.0, book.size_m), PlacedObject("apple", (pose.x, pose.y, pose.z), pose.yaw_deg, apple.size_m)]
    camera_scene = sample_scene(with_count(config_with(), 1, 1), ("book",), {"book": book.size_m}, 0, 0, TOP, 36.0, RES)
    rel = scene_relations(placed, camera_scene.camera.pinhole(RES), config.relations, {"book": "artifact", "apple": "natural"}, contact=Contact(shapes, config.arrangements))
    assert rel["on"] == [["apple", "book"]] and rel["under"] == [["book", "apple"]]
    assert ["apple", "book"] in rel["above"] and ["apple", "book"] in rel["touching"] and ["book", "apple"] in rel["touching"]
    assert not rel["left_of"] and not rel["in_front_of"] and not rel["next_to"]
    assert {"left_right", "front_back"} <= {entry[2] for entry in rel["ambiguous"]}
    vignette = relation_vignettes(("book", "apple"), rel)
    assert vignette["left_first"] == "The book is on the table. The apple is on the book."

    c, near = config.arrangements.contact_m, config.arrangements.next_to_m
    for gap, expected in [(0.001, "touching"), (1.5 * c, "withheld touching"), (0.02, "next_to"), (near + 0.02, "withheld next_to"), (near + 0.08, None)]:
        mug_x = _side_by_side(apple, mug, gap)
        objs = [PlacedObject("apple", (0.0, 0.0, TOP), 0.0, apple.size_m), PlacedObject("mug", (mug_x, 0.0, TOP), 0.0, mug.size_m)]
        rel, withheld = contact_relations(objs, shapes, config.arrangements, config.relations.margin_m, TOP)
        kinds = {entry[2] for entry in withheld}
        assert (["apple", "mug"] in rel["touching"]) == (expected == "touching"), (gap, rel, withheld)
        assert ("touching" in kinds) == (expected == "withheld touching"), (gap, withheld)
        assert (["apple", "mug"] in rel["next_to"]) == (expected in ("touching", "withheld touching", "next_to")), (gap, rel)
        assert ("next_to" in kinds) == (expected == "withheld next_to"), (gap, withheld)


def _side_by_side(a: Shape, b: Shape, gap: float) -> float:
    """The x at which b (yaw 0) stands `gap` to the right of a (at the origin, yaw 0), from their meshes."""
    x = (a.size_m[0] + b.size_m[0]) / 2 + gap
    for _ in range(6):  # boxes touch before meshes do: close the difference
        x -= _mesh_gap(a, Pose(0, 0, TOP, 0), b, Pose(x, 0, TOP, 0)) - gap
    return x


@functools.lru_cache(maxsize=32)
def _fcl_model(path: str, sha256: str):
    """A model file's triangles as an fcl BVH, built here."""
    import fcl

    vertices, faces = model_mesh(path, sha256)
    model = fcl.BVHModel()
    model.beginModel(len(vertices), len(faces))
    model.addSubModel(vertices, faces)
    model.endModel()
    return model


def _fcl_placed(shape: Shape, pose: Pose, shift=(0.0, 0.0)):
    """A model as an fcl object where it stands, moved by `shift` on the table."""
    import math

    import fcl

    model = _fcl_model(shape.path, shape.sha256)
    t = math.radians(pose.yaw_deg)
    turn = np.array([[math.cos(t), -math.sin(t), 0.0], [math.sin(t), math.cos(t), 0.0], [0.0, 0.0, 1.0]])
    return fcl.CollisionObject(model, fcl.Transform(turn, np.array([pose.x + shift[0], pose.y + shift[1], pose.z])))


def _mesh_gap(a: Shape, pose_a: Pose, b: Shape, pose_b: Pose) -> float:
    """The least distance between the two meshes, measured here with fcl from the model files."""
    import fcl

    return max(0.0, float(fcl.distance(_fcl_placed(a, pose_a), _fcl_placed(b, pose_b), fcl.DistanceRequest(), fcl.DistanceResult())))


def test_touching_and_next_to_are_the_meshes_distance_in_3d_not_their_columns(entries, builtin_assets):
    """A bowl slid towards a lamp until their columns meet may stand under the lamp's arm, centimetres from
    its surface: touching only where the meshes are within `contact_m`. A bowl under the arm's far end is
    right under the lamp seen from above, yet 15 cm from it: not next to it."""
    config = SHIPPED
    c, near, margin = config.arrangements.contact_m, config.arrangements.next_to_m, config.relations.margin_m
    shapes = {n: _shape(entries, builtin_assets, n) for n in ("lamp", "bowl")}
    lamp = PlacedObject("lamp", (0.0, 0.0, TOP), 0.0, shapes["lamp"].size_m)
    far = 0
    for angle in range(0, 360, 30):
        pose = slide_to(shapes["bowl"], 0.0, TOP, shapes["lamp"], Pose(0.0, 0.0, TOP, 0.0), angle)
        bowl = PlacedObject("bowl", (pose.x, pose.y, TOP), 0.0, shapes["bowl"].size_m)
        rel, withheld = contact_relations([lamp, bowl], shapes, config.arrangements, margin, TOP)
        gap = _mesh_gap(shapes["bowl"], pose, shapes["lamp"], Pose(0.0, 0.0, TOP, 0.0))
        assert (["bowl", "lamp"] in rel["touching"]) == (gap <= c), (angle, gap)
        assert (["bowl", "lamp", "touching"] in withheld or ["lamp", "bowl", "touching"] in withheld) == (c < gap <= 2 * c), (angle, gap)
        far += gap > 2 * c
    assert far >= 4  # the slide did put the bowl under the arm
    under_arm = PlacedObject("bowl", (0.2, 0.0, TOP), 0.0, shapes["bowl"].size_m)
    assert _mesh_gap(shapes["bowl"], Pose(0.2, 0.0, TOP, 0.0), shapes["lamp"], Pose(0.0, 0.0, TOP, 0.0)) > near + margin
    rel, withheld = contact_relations([lamp, under_arm], shapes, config.arrangements, margin, TOP)
    assert not rel["next_to"] and not rel["touching"] and not withheld, (rel, withheld)


@pytest.mark.parametrize(
    "arrangements,message",
    [
        ({"stack": 1.5}, "arrangements.stack: Input should be less than or equal to 1"),
        ({"touch": -0.1}, "arrangements.touch: Input should be greater than or equal to 0"),
        ({"stack": 0.6, "contain": 0.6}, "arrangements: stack + contain + touch is 1.2: they share one draw per object"),
        ({"stack": 0.3, "max_levels": 7}, "arrangements: max_levels 7 stacks higher than the camera can frame over a table; use 1 to 3"),
    ],
)
def test_bad_arrangement_configs_are_refused_in_one_line(tmp_path, arrangements, message):
    data = yaml.safe_load((REPO / "configs" / "random.yaml").read_text())
    data["arrangements"] = arrangements
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    out = tmp_path / "out.jsonl"
    result = run_cli("vignettes", "--scenes", "random", "--count", "3", "--random-config", str(path), "--out", str(out))
    assert result.returncode == 2 and f"{path}: {message}" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not out.exists()


@pytest.mark.parametrize(
    "name,field,region,message",
    [
        ("bowl", "container", [0.45, 0.45, 0.55, 0.55], "the bowl's container opening (1.6 x 1.6 cm) is smaller than every other object of the catalog"),
        ("calculator", "support", [0.05, 0.05, 0.95, 0.95], "the calculator's support region is not flat"),
        ("book", "support", [0.5, 0.2, 0.4, 0.9], "region [0.5, 0.2, 0.4, 0.9] is not [x0, y0, x1, y1] with 0 <= x0 < x1 <= 1"),
    ],
)
@pytest.mark.render
def test_bad_carrier_declarations_are_refused_before_anything_starts(tmp_path, builtin_assets, name, field, region, message):
    data = yaml.safe_load((REPO / "configs" / "objects.yaml").read_text())
    next(o for o in data["objects"] if o["name"] == name)[field] = region
    catalog = tmp_path / "objects.yaml"
    catalog.write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "render"
    result = run_cli(
        "render", "--scenes", "random", "--count", "2", "--catalog", str(catalog), "--assets", str(builtin_assets),
        "--resolution", "32x24", "--samples", "1", "--out", str(out),
    )
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not out.exists()


def test_a_support_the_user_declares_carries_things(entries, builtin_assets, tmp_path):
    """Any model gets a flat top by a `support` region in the catalog (the hourglass has none built in)."""
    from tabletest.config import load_catalog as load

    data = yaml.safe_load((REPO / "configs" / "objects.yaml").read_text())
    next(o for o in data["objects"] if o["name"] == "hourglass")["support"] = [0.1, 0.1, 0.9, 0.9]
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    config = with_count(config_with(stack=1.0), 2, 2)
    for catalog, expected in ((CATALOG, 0), (load(path), 40)):
        random_set = make_random_set(catalog, config, 0, 40, ("hourglass", "strawberry"), None, None, None)
        contact = random_set.contact(entries, builtin_assets)
        scenes = list(random_set.scenes({n: e.size_m for n, e in entries.items()}, TOP, 36.0, RES, shapes=contact.shapes))
        assert sum(relations_of(s, contact)["on"] == [["strawberry", "hourglass"]] for s in scenes) == expected


def render_stacked(folder: Path, assets: Path, only: str, count: int, seed: int, *args: str) -> Path:
    """A real render of three-object scenes drawn from `only` with stacking and containment at 0.5 each."""
    data = shipped_without_repeats()
    data["arrangements"] = {"stack": 0.5, "contain": 0.5}
    data["objects"]["count"] = [3, 3]
    config = folder / "random.yaml"
    config.write_text(yaml.safe_dump(data))
    out = folder / "render"
    result = run_cli(
        "render", "--scenes", "random", "--count", str(count), "--seed", str(seed), "--only", only, "--random-config", str(config),
        "--assets", str(assets), "--samples", "1", "--out", str(out), "--quiet", *args,
    )
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def stacked_render(builtin_assets, tmp_path_factory):
    """A small real render with masks whose scenes hold an object on another and one in a bowl."""
    folder = tmp_path_factory.mktemp("stacked")
    return render_stacked(folder, builtin_assets, "book,bowl,apple,egg,lemon", 6, 1, "--resolution", "160x120", "--masks")


def _records(folder):
    return [json.loads(line) for line in (folder / "metadata.jsonl").read_text().splitlines()]


@pytest.mark.render
def test_verify_passes_a_real_render_and_catches_a_planted_wrong_on_and_inside(stacked_render, builtin_assets, tmp_path):
    import shutil

    records = _records(stacked_render)
    assert any(r["relations"]["on"] for r in records) and any(r["relations"]["inside"] for r in records)
    clean = run_cli("verify", str(stacked_render), "--assets", str(builtin_assets))
    assert clean.returncode == 0 and "on, inside, above (depth pass)" in clean.stdout, clean.stdout
    assert "touching and next to against the pixels" in clean.stdout
    for key in ("on", "inside"):
        planted = Path(shutil.copytree(stacked_render, tmp_path / key))
        edited = _records(planted)
        record = next(r for r in edited if r["relations"][key])
        a, b = record["relations"][key][0]
        record["relations"][key] = [[b, a]]  # the carrier on (or in) what it carries
        (planted / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in edited))
        result = run_cli("verify", str(planted), "--assets", str(builtin_assets))
        assert result.returncode == 1, result.stdout
        assert f"DISAGREES {record['id']} [off_plane] {key} ['{b}', '{a}']" in result.stdout, result.stdout
        assert f"DISAGREES {record['id']} [derived] relations.{key}" in result.stdout
    planted = Path(shutil.copytree(stacked_render, tmp_path / "gap"))
    edited = _records(planted)
    record = next(r for r in edited if r["gaps_m"])
    record["gaps_m"][0][2] += 0.05  # two surfaces 5 cm farther apart than the models stand
    (planted / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in edited))
    result = run_cli("verify", str(planted), "--assets", str(builtin_assets))
    assert result.returncode == 1 and f"DISAGREES {record['id']} [derived] gaps_m" in result.stdout, result.stdout


@pytest.mark.render
def test_verify_without_the_models_says_so(stacked_render, tmp_path):
    result = run_cli("verify", str(stacked_render), "--assets", str(tmp_path / "nowhere"))
    assert result.returncode == 3, result.stdout  # nothing disagrees, but not every label was checked: a partial verdict
    assert "relations of a set with objects off the table plane" in result.stdout and "pass --assets" in result.stdout
    assert result.stderr.startswith("error: the verdict is partial") and result.stderr.count("\n") == 1


@pytest.mark.render
def test_questions_ask_on_inside_and_touching_with_balanced_golds(stacked_render, tmp_path):
    """Every gold agrees with the render's relations; each "no" beside a "yes" (none without one), and each
    choice of which object is on (in, above) another asked with its options both ways round."""
    out = tmp_path / "questions.jsonl"
    result = run_cli("questions", "--from", str(stacked_render), "--forms", "questions", "--out", str(out))
    assert result.returncode == 0, result.stderr
    questions = [q for q in map(json.loads, out.read_text().splitlines()) if q["skill"] == "support"]
    records = {r["id"]: r for r in _records(stacked_render)}
    asked = {q["relation"] for q in questions}
    assert {"on", "inside", "touching"} <= asked
    turned = {"under": "on", "holding": "inside", "below": "above"}
    for q in questions:
        relations = records[q["scene_id"]]["relations"]
        if q["answer_type"] == "yes/no":
            assert q["answer"] == (q["objects"] in relations[q["relation"]]), q
            continue
        *options, of = q["objects"]
        key = turned.get(q["relation"], q["relation"])
        holding = [o for o in options if ([of, o] if q["relation"] in turned else [o, of]) in relations[key]]
        assert holding == [q["answer"]], q
    for relation in asked:
        golds = [q["answer"] for q in questions if q["relation"] == relation and q["answer_type"] == "yes/no"]
        assert golds.count(False) <= golds.count(True), relation
        places = [q["options"].index(q["answer"]) for q in questions if q["relation"] == relation and q["answer_type"] == "choice"]
        assert places.count(0) == places.count(1), relation


@pytest.mark.render
def test_stories_infer_above_from_what_is_inside_what_rests_on_something(builtin_assets, tmp_path):
    """SpartQA's rules off the table plane: an egg inside a bowl that is above a book is above the book
    (containment), and the book is below it (inverse); every gold agrees with the render's own relations."""
    out = render_stacked(tmp_path, builtin_assets, "book,bowl,egg", 12, 2, "--resolution", "64x48")
    stories = tmp_path / "stories.jsonl"
    assert run_cli("questions", "--from", str(out), "--forms", "stories", "--out", str(stories)).returncode == 0
    records = {r["id"]: r["relations"] for r in _records(out)}
    vertical = [q for q in map(json.loads, stories.read_text().splitlines()) if q["relation"] in ("above", "below")]
    assert any("containment" in q["derivation"]["rules"] for q in vertical)
    for q in vertical:
        a, b = q["objects"]
        assert q["answer"] == ([a, b] in records[q["scene_id"]][q["relation"]]), q
        assert q["frame"] is None and not q["text"].startswith("From the viewer")


@pytest.mark.render
def test_prompt_5_opt_in_asks_inside_where_it_is_true_and_scores_it(stacked_render, tmp_path):
    from tabletest.score.judge import judge
    from tabletest.score.lexicon import load_lexicon

    plain, opted = tmp_path / "plain.jsonl", tmp_path / "inside.jsonl"
    for out, extra in ((plain, []), (opted, ["--inside-true"])):
        result = run_cli("prompts", "--dataset", str(stacked_render), "--types", "5", "--out", str(out), *extra)
        assert result.returncode == 0, result.stderr
    before = [json.loads(line) for line in plain.read_text().splitlines()]
    after = [json.loads(line) for line in opted.read_text().splitlines()]
    assert [q for q in after if q["answer"]["relation"] != "inside"] == before  # the study's queries, unchanged
    assert all(q["answer"]["relation"] in ("left", "right") for q in before)  # the study's protocol: inside never true
    inside = [q for q in after if q["answer"]["relation"] == "inside"]
    records = {r["id"]: r for r in _records(stacked_render)}
    assert inside and all([q["objects"]["A"], q["objects"]["B"]] in records[q["scene_id"]]["relations"]["inside"] for q in inside)
    assert len({q["qid"] for q in after}) == len(after)
    lexicon = load_lexicon(CATALOG)
    q = inside[0]
    a, b = q["objects"]["A"], q["objects"]["B"]
    assert judge(q, f"The {a} is inside of the {b}.", lexicon).status == "correct"
    assert judge(q, f"The {a} is to the left of the {b}.", lexicon).status == "wrong"
    assert judge(q, f"The {b} is inside the {a}.", lexicon).status == "wrong"


@pytest.mark.render
def test_each_pair_s_gap_is_the_least_distance_between_its_meshes_and_the_lengths_asked_are_it(stacked_render, entries, builtin_assets, tmp_path):
    """`gaps_m` holds every pair of objects not hidden, each the least distance between their meshes as measured
    here from the model files; the questions asking how far apart two surfaces are, how far one would slide to
    touch the other (its record's `slides_m`) and how high one stands above the table state those lengths within 5 %."""
    records = _records(stacked_render)
    checked = 0
    for record in records:
        shown = [o for o in record["objects"] if o.get("instance", o["name"]) not in record["relations"]["hidden"]]
        gaps = {frozenset(entry[:2]): entry[2] for entry in record["gaps_m"]}
        assert len(gaps) == len(shown) * (len(shown) - 1) // 2 == len(record["gaps_m"])
        for i, a in enumerate(shown):
            for b in shown[i + 1:]:
                (shape_a, pose_a), (shape_b, pose_b) = [
                    (_shape(entries, builtin_assets, o["name"]), Pose(*o["position_m"], o["yaw_deg"])) for o in (a, b)
                ]
                measured = _mesh_gap(shape_a, pose_a, shape_b, pose_b)
                assert abs(gaps[frozenset((a.get("instance", a["name"]), b.get("instance", b["name"])))] - measured) <= 2e-4
                checked += 1
    assert checked >= 10
    out = tmp_path / "q.jsonl"
    assert run_cli("questions", "--dataset", str(stacked_render), "--forms", "questions", "--out", str(out)).returncode == 0
    lengths = [q for q in map(json.loads, out.read_text().splitlines()) if q["answer_type"] == "quantity"]
    by_id = {r["id"]: r for r in records}
    seen = set()
    for q in lengths:
        record = by_id[q["scene_id"]]
        if q["relation"] == "gap":
            truth = {frozenset(e[:2]): e[2] for e in record["gaps_m"]}[frozenset(q["objects"])]
        elif q["relation"] == "move_to_touch":  # the slide until they meet: test_move_to_touch_is_the_slide_...
            truth = {tuple(e[:2]): e[2] for e in record["slides_m"]}[tuple(q["objects"])]
        elif q["relation"] == "above_table":
            (name,) = q["objects"]
            bottom = {o["name"]: o["box3d"]["center_m"][2] - o["box3d"]["size_m"][2] / 2 for o in record["objects"]}
            truth = bottom[name] - min(o["position_m"][2] for o in record["objects"])
        else:
            continue
        seen.add(q["relation"])
        factor = 100 if q["unit"] == "cm" else 1
        assert q["exact"] == {"value": pytest.approx(truth, abs=1e-6), "unit": "m"}, q["qid"]
        assert abs(q["answer"] / factor - truth) <= 0.05 * truth and truth >= 0.02, q["qid"]
    assert seen == {"gap", "move_to_touch", "above_table"}


@pytest.mark.render
def test_captions_of_the_relation_table_off_the_table_plane_hold_as_the_record_says(stacked_render, tmp_path):
    """Under, below, holding, outside, off, against and detached, each read here straight from the record's
    own lists of on, inside, above and touching pairs: every caption's gold holds, true and false ones alike."""
    out = tmp_path / "c.jsonl"
    assert run_cli("questions", "--dataset", str(stacked_render), "--forms", "captions", "--out", str(out)).returncode == 0
    records = {r["id"]: r for r in _records(stacked_render)}
    catalog = {o.name: o for o in load_catalog().objects}
    checked = set()
    for q in map(json.loads, out.read_text().splitlines()):
        if len(q["objects"]) != 2:  # a relation of an object to the table
            continue
        relations = records[q["scene_id"]]["relations"]
        held = {key: {tuple(pair[:2]) for pair in relations.get(key, [])} for key in ("on", "inside", "above", "touching")}
        withheld = {frozenset(entry[:2]) for entry in relations["ambiguous"] if entry[2] == "touching"}
        x, y = q["objects"]
        stacked = any((a, b) in held[key] for key in ("on", "inside", "above") for a, b in ((x, y), (y, x)))
        sizes = {n: max(o["size_m"]) for n, o in ((o["name"], o) for o in records[q["scene_id"]]["objects"])}
        truth = {
            "under": lambda: (y, x) in held["on"],
            "below": lambda: (y, x) in held["above"],
            "contains": lambda: (y, x) in held["inside"],
            "against": lambda: (x, y) in held["touching"] and not stacked,
            "detached": lambda: (x, y) not in held["touching"],
            "outside": lambda: (x, y) not in held["inside"],
            "off": lambda: (x, y) not in held["on"],
        }
        if q["relation"] not in truth:
            continue
        assert frozenset((x, y)) not in withheld or q["relation"] not in ("against", "detached"), q["qid"]
        if q["relation"] in ("outside", "off"):  # asked only where the other could hold it
            assert (catalog[y].container if q["relation"] == "outside" else catalog[y].support) and sizes[x] < sizes[y], q["qid"]
        assert q["answer"] == truth[q["relation"]](), q["qid"]
        checked.add(q["relation"])
    assert checked >= {"under", "contains", "detached", "outside"}, checked


def _slide_here(a: Shape, pose_a: Pose, way: np.ndarray, b: Shape, pose_b: Pose, limit: float) -> float | None:
    """How far `a` moves along `way` before it meets `b`, measured here: moved on by the meshes' least distance
    (no point of `a` moves farther) until they are 0.1 mm apart; None past `limit` or after 500 moves."""
    import fcl

    other, moved = _fcl_placed(b, pose_b), 0.0
    for _ in range(500):
        apart = fcl.distance(_fcl_placed(a, pose_a, tuple(moved * way)), other, fcl.DistanceRequest(), fcl.DistanceResult())
        if apart <= 1e-4:
            return moved
        moved += apart
        if moved > limit:
            return None
    return None


def test_move_to_touch_is_the_slide_along_the_line_until_the_meshes_meet(entries, builtin_assets):
    """Twenty scenes with objects on, in and beside others: "how far would the X slide straight towards the Y to
    touch it" is answered where, and only where, X stands on the same surface as Y (the table, or one carrier),
    carries nothing, and slid along the table towards Y's middle meets Y before anything else (measured here from
    the model files); its gold is that slide, not the least gap between them (which it often is not)."""
    from tabletest.assets.footprint import model_footprint
    from tabletest.prompts.hierarchy.generate import scene_questions
    from tabletest.truth.geometry import box3d, camera_record
    from tabletest.truth.records import random_truth

    config = RandomConfig.model_validate(shipped_without_repeats())
    pool = ("book", "padlock", "stapler", "mug", "apple", "bowl", "flashlight", "banana", "carrot", "laptop")
    scenes, contact = scenes_of(config, entries, builtin_assets, pool, 20)
    shapes = {n: _shape(entries, builtin_assets, n) for n in pool}
    kinds = {o.name: o.kind for o in CATALOG.objects}
    asked = differ = 0
    for scene in scenes:
        truth = random_truth(scene, RES, config.relations, kinds, contact=contact)
        rel, slid = truth["relations"], {tuple(e[:2]): e[2] for e in truth["slides_m"]}
        boxes = {o.name: box3d(o.position_m, o.yaw_deg, o.size_m, model_footprint(shapes[o.name].path, shapes[o.name].sha256)) for o in scene.objects}
        poses = {o.name: Pose(*o.position_m, o.yaw_deg) for o in scene.objects}
        top = min(o.position_m[2] for o in scene.objects)
        carriers = {a: b for key in ("on", "inside") for a, b in rel[key]}
        for a, b in ((p.name, q.name) for p in scene.objects for q in scene.objects if p is not q):
            line = np.subtract(boxes[b]["center_m"][:2], boxes[a]["center_m"][:2])
            way = line / np.linalg.norm(line)
            raised = [n for n in (a, b) if n in carriers or poses[n].z > top + 0.003]
            one_surface = not raised or (len(raised) == 2 and carriers.get(a) == carriers.get(b) and [a, carriers[a]] in rel["on"])
            reach = sum(np.hypot(*shapes[n].size_m[:2]) / 2 for n in (a, b)) + float(np.linalg.norm(line))
            here = _slide_here(shapes[a], poses[a], way, shapes[b], poses[b], reach) if one_surface and a not in carriers.values() else None
            others = [_slide_here(shapes[a], poses[a], way, shapes[o.name], poses[o.name], here) for o in scene.objects if here is not None and o.name not in (a, b)]
            first = here is not None and all(s is None or s > here for s in others)
            assert ((a, b) in slid) == first, (scene.id, a, b, here, others)
            if first:
                assert slid[(a, b)] == pytest.approx(here, abs=5e-4), (scene.id, a, b)
        record = {
            "id": scene.id, "index": scene.index, "file_name": f"images/{scene.id}.png", "camera": camera_record(scene.camera.pinhole(RES)),
            "objects": [{"name": o.name, "yaw_deg": o.yaw_deg, "box3d": boxes[o.name], "visible_fraction": 1.0} for o in scene.objects],
            **truth,
        }  # fmt: skip
        gaps = {frozenset(e[:2]): e[2] for e in truth["gaps_m"]}
        for q in scene_questions(record, CATALOG, seed=0):
            if q["template"] == "metric-move-to-touch":
                exact = slid[tuple(q["objects"])]
                assert q["exact"] == {"value": pytest.approx(exact), "unit": "m"}, q["qid"]
                assert abs(q["answer"] / (100 if q["unit"] == "cm" else 1) - exact) <= 0.05 * exact, q["qid"]
                asked += 1
                differ += abs(gaps[frozenset(q["objects"])] - exact) > 0.1 * exact
    assert asked >= 30 and differ >= asked // 5, (asked, differ)
