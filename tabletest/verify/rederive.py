"""A record's labels derived again from its own geometry, for `tabletest verify`.

The pixel audit checks what a record says about where things are (2D boxes and visibility against the
masks, 3D boxes and the camera against the depth pass). Everything else a record states follows from
those facts by the same code a render runs: the camera-frame centres, depths and projected centres,
every relation, the counts and the vignettes. Deriving them again here means a changed label cannot
pass unless the geometry it came from was changed too, which the pixels then refute.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from tabletest.assets.footprint import Footprints, measured_footprint
from tabletest.assets.manifest import load_manifest
from tabletest.assets.variants import model_of_key
from tabletest.config import Config, excerpt
from tabletest.errors import UserError
from tabletest.files.family import family_of
from tabletest.layout.arrangements import Contact, Shape
from tabletest.layout.camera import CameraView, PinholeCamera
from tabletest.layout.instances import label_of
from tabletest.layout.placement import place
from tabletest.layout.random_config import Arrangements, Looks, RandomConfig, RelationMargins
from tabletest.layout.random_scene import PlacedObject, scene_table
from tabletest.layout.variants import Variant
from tabletest.truth.contact import gaps, slides
from tabletest.truth.geometry import box3d, camera_record, object_geometry, pinhole_record, scene_relations
from tabletest.truth.nouns import Nouns
from tabletest.truth.relations import relations
from tabletest.truth.vignettes import relation_vignettes, vignettes

# A relation's margin nudged both ways by this much: a pair whose offset sits within it of the margin may
# fall either way from the record's rounded numbers, so either label is accepted there.
MARGIN_SLACK = 1e-4
# The pose's angles are recorded to 3 decimals, its position to 6: what they may differ by when derived again.
POSE_TOLERANCE = {"deg": 0.002, "m": 0.0005, "mm": 0.002}
# The record rounds to 6 decimals; a value derived through the rounded camera pose (a centre in the camera's
# frame, a depth) also carries the pose's rounding times the distance to the camera: a few millionths.
FLOAT_TOLERANCE = 5e-6
CENTER_TOLERANCE_PX = 0.01  # Blender's projection of the box centre against the pinhole's


@dataclass(frozen=True)
class Derivation:
    """What a record's labels are derived from besides the record: the run's config (the benchmark's
    placement), the random set's relation margins, and each object's kind (natural or artifact)."""

    config: Config | None
    margins: RelationMargins | None
    kinds: Mapping[str, str]
    nouns: Nouns = Nouns()  # the set's pair nouns, pinned in settings.json (a folder from before has none)
    ground: bool = True  # "in front of" by where objects stand (settings.json `scenes.front`); a set from before: box centres
    contact: Contact | None = None  # the models and arrangements of a set with objects off the table plane
    unmeasured: str = ""  # why its relations are not derived (its models are not at hand), else ""
    looks: Looks | None = None  # the random set's `looks`, where its run recorded them on
    footprints: Footprints | None = None  # the models' footprint boxes; None where the models are not at hand
    random_config: RandomConfig | None = None  # the random set's config, which draws each scene's table again
    fronts: Mapping[str, float] | None = None  # the kinds a rotate may turn and their `front_deg` (settings.json `scenes.fronts`)


def recorded_contact(settings: Mapping, arrangements: Arrangements, assets: Path) -> tuple[Contact | None, str]:
    """The shapes a render placed and labelled its scenes with: the models its settings pin (by sha256),
    found in `assets`, with the carriers its settings name; else None and why."""
    why = f"relations of a set with objects off the table plane ({assets} does not hold the models the render used; pass --assets)"
    try:
        manifest = load_manifest(assets)
    except UserError:
        return None, why
    carriers = (settings.get("scenes") or {}).get("carriers") or {}
    shapes = {}
    for name, sha in (settings.get("models") or {}).items():
        entry = manifest.model(name)
        if entry is None or entry.sha256 != sha:
            return None, why
        role = carriers.get(model_of_key(name)[0]) or {}
        support, container = (tuple(role[k]) if role.get(k) else None for k in ("support", "container"))
        shapes[name] = Shape(entry.size_m, str(assets / entry.file), sha, support, container)
    return Contact(shapes, arrangements), ""


def differences(record: dict, derivation: Derivation) -> Iterator[str]:
    """Each field of `record` that is not what its geometry gives, as `field: recorded X, derived Y`."""
    objects = record["objects"]
    names = tuple(o["name"] for o in objects)
    if record.get("n_objects") != len(objects):
        yield f"n_objects: recorded {record.get('n_objects')}, but it lists {len(objects)} objects"
    family = family_of(record)
    if family is not None and family.placement == "free":  # each record its own camera: derived from its geometry
        yield from _random_differences(record, objects, derivation)
        return
    yield from _compare_fields("relations", record.get("relations"), relations(names))
    yield from _compare_fields("vignettes", record.get("vignettes"), vignettes(names))
    if derivation.config is not None and names:
        resolution = tuple(record["render"]["resolution"])
        placements = place(derivation.config, [tuple(o["size_m"]) for o in objects], resolution)
        for obj, placement in zip(objects, placements):
            yield from _compare(f"{obj['name']}.position_m", obj["position_m"], list(placement.position_m))
            yield from _compare(f"{obj['name']}.yaw_deg", obj["yaw_deg"], placement.yaw_deg)
            yield from _compare(f"{obj['name']}.slot", obj.get("slot"), placement.slot)
        camera = PinholeCamera.from_config(derivation.config, resolution)
        yield from _centers(objects, camera, [(p.position_m, p.size_m) for p in placements])
        if "camera" in record:  # what a benchmark record says of itself: its camera and 3D boxes
            yield from _compare("camera", record["camera"], pinhole_record(camera))
        for obj in objects:
            if "box3d" in obj and (box := derived_box(obj, obj["name"], derivation.footprints)) is not None:
                yield from _compare(f"{obj['name']}.box3d", obj["box3d"], box)


def _random_differences(record: dict, objects: list[dict], derivation: Derivation) -> Iterator[str]:
    yield from _table_differences(record, derivation.random_config)
    camera = CameraView.from_record(record["camera"]).pinhole()
    yield from _compare("camera", {k: record["camera"][k] for k in ("K", "world_to_camera", "resolution")}, camera_record(camera))
    sensor_mm = derivation.config.camera.sensor_width_mm if derivation.config is not None else None
    yield from _pose_angles(record["camera"], camera, (record.get("scene") or {}).get("key_light"), sensor_mm)
    placed = [PlacedObject(label_of(o), tuple(o["position_m"]), o["yaw_deg"], tuple(o["size_m"]), Variant.of_record(o)) for o in objects]
    for obj, item in zip(objects, placed):
        derived = object_geometry(camera, item)
        if (box := derived_box(obj, item.model, derivation.footprints)) is None:
            del derived["box3d"]
        else:
            derived["box3d"] = box
        yield from _compare_fields(label_of(obj), obj, derived)
    yield from _centers(objects, camera, [(p.position_m, p.size_m) for p in placed])
    recorded = record.get("relations") or {}
    hidden = frozenset(recorded.get("hidden") or ())
    if derivation.margins is not None and derivation.ground and not (derivation.unmeasured and "on" in recorded):
        threshold = derivation.margins.min_visible_fraction
        measured = [label_of(o) for o in objects if o["visible_fraction"] < threshold]
        yield from _compare("relations.hidden", sorted(hidden), sorted(measured))
        hidden = frozenset(measured)
        kinds = {o["name"]: derivation.kinds.get(o["name"], "") for o in objects}
        candidates = [
            scene_relations(placed, camera, _nudged(derivation.margins, slack), kinds, hidden, derivation.contact)
            for slack in (0.0, -MARGIN_SLACK, MARGIN_SLACK)
        ]
        if not any(_same({k: recorded.get(k) for k in c}, c) for c in candidates):
            yield from _compare_fields("relations", recorded, candidates[0])
    seen = tuple(label_of(o) for o in objects if label_of(o) not in hidden)
    yield from _compare_fields("vignettes", record.get("vignettes"), relation_vignettes(seen, recorded, derivation.nouns))
    if derivation.contact is not None and "gaps_m" in record:  # each pair's gap, measured again on the models
        shown = [p for p in placed if p.name not in hidden]
        yield from _compare("gaps_m", record["gaps_m"], gaps(shown, derivation.contact.shapes))
    if derivation.contact is not None and "slides_m" in record:  # each slide until two meet, measured again on the models
        table_top = min(p.position_m[2] for p in placed)
        contact = derivation.contact
        again = slides(placed, seen, contact.shapes, contact.arrangements.contact_m, table_top, measured_footprint)
        yield from _compare("slides_m", record["slides_m"], again)


def _table_differences(record: dict, config: RandomConfig | None) -> Iterator[str]:
    """The scene's table as its random set draws it again (the set's config, the seed its id names, its index):
    its size decides which objects stand at its edge or in its middle."""
    seed = re.match(r"rnd(\d+)-", str(record.get("id")))
    if config is None or seed is None:
        return
    scene = record.get("scene") if isinstance(record.get("scene"), dict) else {}
    yield from _compare("scene.config_sha256", scene.get("config_sha256"), config.digest)
    yield from _compare("scene.table", scene.get("table"), asdict(scene_table(config, int(seed[1]), record["index"])))


def _pose_angles(recorded: dict, camera: PinholeCamera, key_light: dict | None, sensor_mm: float | None) -> Iterator[str]:
    """`azimuth_deg`, `elevation_deg`, `distance_m` and `focal_mm` as the pose and K give them: the azimuth
    decides which of two photos shows an object further left. The distance is to the point the camera
    looks at, which the key light aims at too; the focal length in mm needs the sensor the config names."""
    back = -camera.axes[2]  # from the look-at point towards the camera
    derived = {
        "azimuth_deg": (math.degrees(math.atan2(back[0], -back[1])), POSE_TOLERANCE["deg"]),
        "elevation_deg": (math.degrees(math.asin(float(np.clip(back[2], -1, 1)))), POSE_TOLERANCE["deg"]),
    }
    if isinstance(key_light, dict) and key_light.get("target") is not None:
        distance = float(np.linalg.norm(np.subtract(camera.position, key_light["target"])))
        derived["distance_m"] = (distance, POSE_TOLERANCE["m"])
    if sensor_mm is not None:
        width, height = recorded["resolution"]
        derived["focal_mm"] = (float(recorded["K"][0][0]) * sensor_mm / max(width, height), POSE_TOLERANCE["mm"])
    for key, (value, tolerance) in derived.items():
        given = recorded.get(key)
        if not isinstance(given, (int, float)) or not abs(given - value) <= tolerance:
            yield f"camera.{key}: recorded {given}, the camera's pose gives {value:.4f}"


def placed_relations_of(record: dict, derivation: Derivation, slack: float = 0.0) -> dict | None:
    """A random record's relations from its geometry, every object included (hidden ones too): what a
    counterfactual partner's difference compares. None where they cannot be derived here."""
    if derivation.margins is None or not derivation.ground or derivation.unmeasured or not isinstance(record.get("camera"), dict):
        return None
    objects = record["objects"]
    kinds = {o["name"]: derivation.kinds.get(o["name"], "") for o in objects}
    camera = CameraView.from_record(record["camera"]).pinhole()
    return scene_relations(placed_objects(record), camera, _nudged(derivation.margins, slack), kinds, frozenset(), derivation.contact)


def placed_objects(record: dict) -> list[PlacedObject]:
    """A render record's objects as placement put them: where each stands, how it is turned, its size and look."""
    return [PlacedObject(label_of(o), tuple(o["position_m"]), o["yaw_deg"], tuple(o["size_m"]), Variant.of_record(o)) for o in record["objects"]]


def derived_box(obj: dict, model: str, footprints: Footprints | None) -> dict | None:
    """The 3D box an object's pose and model give (`truth.geometry.box3d`): its model's footprint box where the
    model lies diagonally in its own box. Without the models (`footprints` None) only a model box is derived: None
    where the record holds another box, which only the model could confirm (`boxes_unchecked`)."""
    pose = (obj["position_m"], obj["yaw_deg"], obj["size_m"])
    if footprints is not None:
        return box3d(*pose, footprints.of(model))
    own = box3d(*pose)
    return own if _same(obj.get("box3d"), own) else None


def boxes_unchecked(record: dict) -> int:
    """How many of a record's objects hold a 3D box other than their model box: what no check confirms without the models."""
    return sum(1 for obj in record["objects"] if "box3d" in obj and derived_box(obj, "", None) is None)


def _centers(objects: list[dict], camera: PinholeCamera, boxes: list[tuple]) -> Iterator[str]:
    """`center_px`: the projection of the box centre."""
    for obj, (position, size) in zip(objects, boxes):
        center = np.array([[position[0], position[1], position[2] + size[2] / 2]])
        u, v = camera.project(center)[0]
        off = max(abs(u - obj["center_px"][0]), abs(v - obj["center_px"][1]))
        if off > CENTER_TOLERANCE_PX:
            yield f"{obj['name']}.center_px: recorded {obj['center_px']}, the box centre projects to [{u:.3f}, {v:.3f}]"


def _nudged(margins: RelationMargins, slack: float) -> RelationMargins:
    return margins.model_copy(
        update={
            "margin_m": max(0.0, margins.margin_m + slack),
            "margin_px": max(0.0, margins.margin_px + slack),
            "distance_margin_m": max(0.0, margins.distance_margin_m + slack),
            "size_ratio": max(1.0, margins.size_ratio + slack),
            "side_margin_m": max(0.0, margins.side_margin_m + slack),
        }
    )


def _compare_fields(prefix: str, recorded: object, derived: dict) -> Iterator[str]:
    """Each field the derivation gives (fields it does not know are left alone)."""
    recorded = recorded if isinstance(recorded, dict) else {}
    for key, value in derived.items():
        yield from _compare(f"{prefix}.{key}", recorded.get(key), value)


def _compare(field: str, recorded: object, derived: object) -> Iterator[str]:
    if not _same(recorded, derived):
        yield f"{field}: recorded {excerpt(recorded)}, derived {excerpt(derived)}"


def _same(a: object, b: object) -> bool:
    """Equal, numbers within the record's rounding; lists and dicts compared item by item."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= FLOAT_TOLERANCE * max(1.0, abs(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b

