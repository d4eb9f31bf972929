"""Run the exports guide's FiftyOne snippet as written, on a COCO export and its render, and check what it loaded.

    python scripts/check_fiftyone.py exports/coco renders/train [--split train]

Needs `fiftyone` and `pycocotools` (not test dependencies: FiftyOne brings a MongoDB server and about a
gigabyte of packages). The snippet is the first Python block under "Opening the COCO export in FiftyOne"
in docs/guide/exports.md; it runs in a scratch folder where `exports/coco` and `renders/train` link to
the folders given. Checked: one sample per COCO image, one box per annotation, each with its mask (as
many pixels as the annotation's `area`), and each sample's `relations`, `camera` and `objects` equal to
its record's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEADING = "### Opening the COCO export in FiftyOne"


def snippet() -> str:
    guide = (REPO / "docs" / "guide" / "exports.md").read_text()
    section = guide.split(HEADING, 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("export", type=Path)
    parser.add_argument("render", type=Path)
    parser.add_argument("--split", default="train")
    args = parser.parse_args()
    args.export, args.render = args.export.resolve(), args.render.resolve()  # read after the snippet's chdir below
    code = snippet().replace('"train"  #', f'"{args.split}"  #', 1)
    with tempfile.TemporaryDirectory() as scratch:
        for link, target in (("exports/coco", args.export), ("renders/train", args.render)):
            (Path(scratch) / link).parent.mkdir(parents=True, exist_ok=True)
            (Path(scratch) / link).symlink_to(target.resolve())
        os.chdir(scratch)
        start = time.perf_counter()
        names: dict = {}
        exec(compile(code, "docs/guide/exports.md", "exec"), names)
        took = time.perf_counter() - start
        dataset = names["dataset"]
        coco = json.loads((args.export / "annotations" / f"instances_{args.split}.json").read_text())
        records = {r["id"]: r for r in map(json.loads, (args.render / "metadata.jsonl").read_text().splitlines())}
        areas = sorted(a["area"] for a in coco["annotations"])
        masks = sorted(int(d.mask.sum()) for s in dataset for d in s.ground_truth.detections)
        fields = [f for f in ("relations", "camera", "objects") if dataset.has_field(f)]
        joined = sum(all(s[f] == records[s.scene_id][f] for f in fields) for s in dataset)
        import fiftyone

        print(f"fiftyone {fiftyone.__version__}: the snippet ran in {took:.1f} s")
        print(f"samples {dataset.count()} (COCO images {len(coco['images'])}), boxes {dataset.count('ground_truth.detections')} "
              f"(annotations {len(coco['annotations'])}), masks with the annotation's area {sum(m == a for m, a in zip(masks, areas))}")
        print(f"samples whose {', '.join(fields)} equal their record's: {joined} of {dataset.count()}")
        print(f"object kinds among the boxes: {len(dataset.distinct('ground_truth.detections.label'))}")
        ok = dataset.count() == len(coco["images"]) and masks == areas and joined == dataset.count()
        print("all checks pass" if ok else "CHECKS FAILED")
        raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
