"""COCO detection and segmentation: `annotations/instances_<split>.json` and `images/`, for grounding work.

Categories are the catalog's objects (id = catalog position + 1, supercategory = its group). Each
object the image shows is one annotation, as COCO annotates partly hidden objects: `segmentation` is
the compressed RLE of its pixels in the render's mask (`tabletest render --masks`, whose value there is
1 + the object's position from the left), `bbox` ([x, y, width, height]) the box of those pixels, and
`amodal_bbox` the render's `bbox_px`, the box of the whole projected mesh, hidden parts included.
An object no pixel of the image shows has no annotation. Without masks, `bbox` is the whole box.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import IO

import numpy as np
from PIL import Image

from tabletest.config import unknown_name_message
from tabletest.errors import UserError
from tabletest.files.rle import encode
from tabletest.export.run import Job
from tabletest.files.jsonl import atomic_output
from tabletest.files.records import RandomSceneObject, RenderRecord


def categories(job: Job) -> list[dict]:
    return [{"id": i + 1, "name": obj.name, "supercategory": obj.group} for i, obj in enumerate(job.catalog.objects)]


def _category(job: Job, name: str) -> int:
    if name not in job.catalog.names:
        raise UserError(f"the render shows {unknown_name_message(name, job.catalog.names)}; pass the --catalog it used")
    return job.catalog.index_of(name) + 1


def _with_segmentation(job: Job) -> bool:
    has_masks = job.dataset.has_masks()
    if job.options.segmentation and not has_masks:
        raise UserError(
            f"--dataset {job.dataset.root} has no masks, so no segmentation: render it with "
            "`tabletest render --masks`, or export boxes only with --no-segmentation"
        )
    return has_masks if job.options.segmentation is None else job.options.segmentation


def _mask_pixels(job: Job, record: RenderRecord) -> np.ndarray:
    path = job.dataset.mask(record)
    if path is None:
        raise UserError(
            f"--dataset {job.dataset.root}: {record.id} has no mask but the first image has one; "
            "render the folder with --masks throughout, or export boxes only with --no-segmentation"
        )
    with Image.open(io.BytesIO(job.picture(record, path))) as image:
        return np.asarray(image)


def annotations(job: Job, record: RenderRecord, image_id: int, first_id: int, segment: bool) -> list[dict]:
    """One annotation per object the image shows, left to right, as COCO has them: with masks, `bbox` is
    the box of the object's visible pixels and `amodal_bbox` that of its whole projected mesh, and an
    object with no visible pixel gets no annotation (a ground truth no detection could ever match);
    without masks, `bbox` is the whole projected box and objects the record measured wholly hidden are left out."""
    masks = _mask_pixels(job, record) if segment else None
    out = []
    for position, obj in enumerate(record.objects):
        x0, y0, x1, y1 = obj.bbox_px
        annotation = {
            "id": first_id + len(out),
            "image_id": image_id,
            "category_id": _category(job, obj.name),
            "bbox": [x0, y0, round(x1 - x0, 3), round(y1 - y0, 3)],
            "area": round((x1 - x0) * (y1 - y0), 3),
            "iscrowd": 0,
            "slot": obj.slot,
        }
        if masks is not None:
            pixels = masks == position + 1
            if not pixels.any():
                continue
            rows, columns = np.flatnonzero(pixels.any(axis=1)), np.flatnonzero(pixels.any(axis=0))
            top, left = int(rows[0]), int(columns[0])
            annotation["amodal_bbox"] = annotation["bbox"]
            annotation["bbox"] = [left, top, int(columns[-1]) + 1 - left, int(rows[-1]) + 1 - top]
            annotation["segmentation"] = encode(pixels)
            annotation["area"] = int(pixels.sum())
        elif isinstance(obj, RandomSceneObject) and obj.visible_fraction == 0:
            continue
        out.append(annotation)
    return out


class _Spool:
    """JSON array elements kept in a temporary file, so a file of 750,000 annotations streams in flat memory."""

    def __init__(self, path: Path) -> None:
        self.path, self.count = path, 0
        self.fh = open(path, "w", encoding="utf-8")

    def add(self, item: dict) -> None:
        self.fh.write(("," if self.count else "") + json.dumps(item, separators=(",", ":")))
        self.count += 1

    def copy_to(self, out: IO[str]) -> None:
        self.fh.close()
        with open(self.path, encoding="utf-8") as fh:
            shutil.copyfileobj(fh, out)
        self.path.unlink()


def export_coco(job: Job) -> dict:
    segment = _with_segmentation(job)
    spools = {
        (split, part): _Spool(job.staging.file(f".{part}-{split}.tmp"))
        for split in job.split.names
        for part in ("images", "annotations")
    }
    annotation_id = 0
    for image_id, (split, record) in enumerate(job.scenes(), start=1):
        job.place_image(record)
        width, height = record.render.resolution
        spools[split, "images"].add(
            {
                "id": image_id,
                "file_name": record.file_name.removeprefix("images/"),
                "width": width,
                "height": height,
                "scene_id": record.id,
            }
        )
        for annotation in annotations(job, record, image_id, annotation_id + 1, segment):
            spools[split, "annotations"].add(annotation)
            annotation_id += 1
    info = {
        "description": "TableTest: everyday objects side by side on a table",
        "version": job.staging.fingerprint["tabletest"],
    }
    for split in job.split.names:
        with atomic_output(job.staging.file(f"annotations/instances_{split}.json")) as fh:
            fh.write(f'{{"info":{json.dumps(info)},"licenses":[],"images":[')
            spools[split, "images"].copy_to(fh)
            fh.write('],"annotations":[')
            spools[split, "annotations"].copy_to(fh)
            fh.write(f'],"categories":{json.dumps(categories(job))}}}\n')
    job.write_card(
        "TableTest (COCO)",
        f"""Everyday objects side by side on a table as COCO {"instance segmentation" if segment else "detection"}:
the 64 catalog objects are the categories; {"`segmentation` is each visible object's RLE mask, `bbox` the box of its visible pixels and `amodal_bbox` its whole projected box; an object the image does not show has no annotation" if segment else "`bbox` is each object's whole projected box from the render (no masks: render with `--masks` for segmentation and visible boxes)"}.
Images keep their `scene_id`, annotations their `slot` (left, middle, right; null in random scenes).

```python
from pycocotools.coco import COCO
coco = COCO("{job.out}/annotations/instances_{job.split.names[0]}.json")   # images in {job.out}/images/
```""",
        {"task_categories": ["object-detection"]},
    )
    return {"segmentation": segment, "annotations": {s: spools[s, "annotations"].count for s in job.split.names}}
