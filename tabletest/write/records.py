"""The metadata record of a rendered image: the vignette record's fields plus what the render measured."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from tabletest.assets.footprint import Footprints
from tabletest.layout.arrangements import Contact
from tabletest.layout.instances import kind_of, label_of
from tabletest.layout.random_config import RelationMargins
from tabletest.layout.spec import SceneSpec
from tabletest.layout.camera import PinholeCamera
from tabletest.truth.described import boxed
from tabletest.truth.geometry import camera_record, object_geometry, pinhole_record
from tabletest.truth.nouns import Nouns
from tabletest.truth.records import companion_fields, random_truth
from tabletest.truth.relations import relations
from tabletest.truth.vignettes import vignettes


def image_record(spec: SceneSpec, measured: list[dict], render: dict, mask: bool, camera: PinholeCamera, footprints: Footprints) -> dict:
    """`measured` holds per object (left to right) `center_px` and `bbox_px`; `render` the settings used;
    `mask` adds `mask_file_name`, the scene's object mask (pixel value = 1 + position from the left), and
    `depth_file_name`, its depth (16-bit, millimetres along the camera's viewing axis, 0 for none). The record
    describes itself: each object's 3D box (its model's `footprints` box where it has one) and the `camera` it
    was shot with, so no reader needs the config."""
    names = tuple(o.name for o in spec.objects)
    objects = [boxed(o, footprints.of(o["name"])) for o in _objects(spec, measured)]
    return {
        **_files(spec, mask),
        "id": spec.id,
        "index": spec.index,
        "n_objects": spec.n_objects,
        "objects": objects,
        "relations": relations(names),
        "vignettes": vignettes(names),
        "render": {**render, "seed": spec.seed},
        "camera": pinhole_record(camera.at(tuple(render["resolution"]))),
    }


def _files(spec: SceneSpec, mask: bool) -> dict:
    passes = {"mask_file_name": f"masks/{spec.id}.png", "depth_file_name": f"depth/{spec.id}.png"} if mask else {}
    return {"file_name": f"images/{spec.id}.png", **passes}


def _objects(spec: SceneSpec, measured: list[dict]) -> list[dict]:
    return [
        {
            "name": kind_of(obj.name),
            **({"instance": obj.name} if obj.name != kind_of(obj.name) else {}),
            "slot": obj.slot,
            "source": obj.source,
            "uid": obj.uid,
            "position_m": list(obj.position_m),
            "yaw_deg": obj.yaw_deg,
            "size_m": list(obj.size_m),
            "center_px": facts["center_px"],
            "bbox_px": facts["bbox_px"],
        }
        for obj, facts in zip(spec.objects, measured)
    ]

def random_record(spec: SceneSpec, measured: list[dict], render: dict, mask: bool, truth: RandomTruth) -> dict:
    """A random scene's record: the benchmark record's fields (`slot` null), plus the camera, each
    object's 3D box, camera-frame centre, depth and measured visible fraction, every relation in the
    viewer's frame with what the margin withheld, and the scene's appearance. Objects measured less
    visible than `min_visible_fraction` stay listed (with their geometry) but are `hidden`: no relation,
    vignette or count includes them."""
    scene = spec.random
    camera = scene.camera.pinhole(tuple(render["resolution"]))
    objects = _objects(spec, measured)
    for obj, placed, facts in zip(objects, scene.objects, measured):
        obj.update(object_geometry(camera, placed, truth.footprints.of(placed.model)), visible_fraction=facts["visible_fraction"], covered_by=facts["covered_by"])
        if placed.variant is not None:
            obj["variant"] = placed.variant.record()
    hidden = frozenset(label_of(o) for o in objects if o["visible_fraction"] < truth.margins.min_visible_fraction)
    text = random_truth(scene, tuple(render["resolution"]), truth.margins, truth.kinds, hidden, truth.nouns, truth.contact)
    pose = scene.camera
    appearance = {
        "config_sha256": truth.config_sha256,
        "seed": truth.seed,
        "table": asdict(scene.table),
        "key_light": asdict(scene.key_light),
        "world": asdict(scene.world),
        "backdrop": asdict(scene.backdrop),
    }
    return {
        **_files(spec, mask),
        "id": spec.id,
        "index": spec.index,
        "n_objects": spec.n_objects,
        "objects": objects,
        "camera": {
            **camera_record(camera),
            "azimuth_deg": pose.azimuth_deg,
            "elevation_deg": pose.elevation_deg,
            "distance_m": pose.distance_m,
            "focal_mm": pose.focal_mm,
        },
        **text,
        "scene": appearance,
        "render": {**render, "seed": spec.seed},
        **companion_fields(scene),
    }


@dataclass(frozen=True)
class RandomTruth:
    """What a random record needs besides its spec: the relation margins, the objects' kinds, the set's identity."""

    margins: RelationMargins
    kinds: Mapping[str, str]
    config_sha256: str
    seed: int
    footprints: Footprints
    nouns: Nouns = Nouns()
    contact: Contact | None = None
