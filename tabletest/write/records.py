"""The metadata record of a rendered image: the vignette record's fields plus what the render measured."""

from __future__ import annotations

from tabletest.layout.spec import SceneSpec
from tabletest.truth.relations import relations
from tabletest.truth.vignettes import vignettes


def image_record(spec: SceneSpec, measured: list[dict], render: dict, mask: bool = False) -> dict:
    """`measured` holds per object (left to right) `center_px` and `bbox_px`; `render` the settings used;
    `mask` adds `mask_file_name`, the scene's object mask (pixel value = 1 + position from the left), and
    `depth_file_name`, its depth (16-bit, millimetres along the camera's viewing axis, 0 for none)."""
    names = tuple(o.name for o in spec.objects)
    objects = []
    for obj, facts in zip(spec.objects, measured):
        objects.append(
            {
                "name": obj.name,
                "slot": obj.slot,
                "source": obj.source,
                "uid": obj.uid,
                "position_m": list(obj.position_m),
                "yaw_deg": obj.yaw_deg,
                "size_m": list(obj.size_m),
                "center_px": facts["center_px"],
                "bbox_px": facts["bbox_px"],
            }
        )
    return {
        "file_name": f"images/{spec.id}.png",
        **({"mask_file_name": f"masks/{spec.id}.png", "depth_file_name": f"depth/{spec.id}.png"} if mask else {}),
        "id": spec.id,
        "index": spec.index,
        "n_objects": spec.n_objects,
        "objects": objects,
        "relations": relations(names),
        "vignettes": vignettes(names),
        "render": {**render, "seed": spec.seed},
    }
