"""Benchmark: `tabletest export` of all 249,984 three-object scenes, every format, without rendering.

    python scripts/bench_export.py [--scenes 249984] [--formats imagefolder,coco,...] [--work DIR]

Builds a stand-in render folder: `metadata.jsonl` with one record per scene in the render record
layout (the vignette record's fields; per object `name`, `slot`, `source`, `uid`, `position_m`,
`yaw_deg`, `size_m`, `center_px`, `bbox_px` at the default 1024x768 slots; `render`, its resolution the
placeholders' 64x48, which an export checks; `mask_file_name`), and `images/<id>.png` and
`masks/<id>.png` as hard links to a 64x48 placeholder image and a placeholder mask (copies of them,
30,000 links each: ext4 allows 65,000), so every export still places, reads or embeds one file per scene.
Then it times each `tabletest export` command as a user runs it (a fresh process each) and prints
the wall time, the output size and the peak memory of each export process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

from tabletest.config import load_catalog
from tabletest.layout.selection import Selection, select_scenes
from tabletest.truth.records import vignette_record
from tabletest.truth.relations import table_sides
from tabletest.files.jsonl import dumps, write_lines

RUNS = {  # label: (format, options); `llava-paper` (11.7 million samples) runs only when asked for
    "imagefolder": ("imagefolder", []),
    "parquet": ("parquet", []),
    "webdataset": ("webdataset", []),
    "coco": ("coco", ["--no-segmentation"]),
    "coco-masks": ("coco", ["--segmentation"]),
    "llava": ("llava", ["--variations", "one"]),
    "sharegpt": ("sharegpt", ["--variations", "one"]),
    "hf-chat": ("hf-chat", ["--variations", "one"]),
    "vlmevalkit": ("vlmevalkit", ["--variations", "one"]),
    "lmms-eval": ("lmms-eval", ["--variations", "one"]),
    "llava-paper": ("llava", ["--variations", "paper"]),
}
DEFAULT_RUNS = [label for label in RUNS if label != "llava-paper"]
# `tabletest` as the user runs it, reporting at exit its own peak memory (VmHWM: the high-water mark of this
# process alone; getrusage and wait4 would also count the memory of the process it was started from).
MEASURED_CLI = """
import atexit, sys
from tabletest.commands.main import main
def peak():
    hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM"))
    print(f"peak_kib={hwm.split()[1]}", file=sys.stderr)
atexit.register(peak)
sys.argv[0] = "tabletest"
main()
"""
LINKS_PER_FILE = 30_000
SLOT_U = {"left": 312.0, "middle": 512.0, "right": 712.0}


def stand_in_render(folder: Path, scenes: int) -> int:
    catalog = load_catalog()
    size = {o.name: o.size_m for o in catalog.objects}
    (folder / "images").mkdir(parents=True)
    (folder / "masks").mkdir()
    image, mask = folder / "placeholder.png", folder / "placeholder-mask.png"
    Image.fromarray(np.linspace(0, 255, 64 * 48 * 3).astype(np.uint8).reshape(48, 64, 3)).save(image)
    Image.fromarray(np.repeat(np.arange(64, dtype=np.uint8)[None] // 16, 48, axis=0)).save(mask)

    def records():
        for i, scene in enumerate(select_scenes(catalog, Selection(n_objects=3, limit=scenes))):
            record = vignette_record(scene)
            group = i // LINKS_PER_FILE  # a file takes at most 65,000 links on ext4; leave room for an export's
            for source, kind in ((image, "images"), (mask, "masks")):
                copy = source.with_name(f"{source.stem}-{group}.png")
                if not copy.exists():
                    shutil.copyfile(source, copy)
                os.link(copy, folder / kind / f"{scene.id}.png")
            objects = []
            for name, slot in zip(scene.objects, table_sides(3)):
                half = 300 * size[name]
                u = SLOT_U[slot]
                objects.append(
                    {"name": name, "slot": slot, "source": "builtin", "uid": None,
                     "position_m": [(u - 512) / 600, 0.0, 0.75], "yaw_deg": 0.0,
                     "size_m": [size[name], size[name] * 0.8, size[name] * 0.9],
                     "center_px": [u, 430.0], "bbox_px": [u - half, 430 - half, u + half, 430 + half]}
                )  # fmt: skip
            yield dumps(
                {"file_name": f"images/{scene.id}.png", "mask_file_name": f"masks/{scene.id}.png", **record,
                 "objects": objects,
                 "render": {"engine": "cycles", "device": "CPU", "samples": 64, "resolution": [64, 48],
                            "mode": "direct", "seed": scene.index}}
            )  # fmt: skip

    return write_lines(folder / "metadata.jsonl", records())


def folder_size(folder: Path) -> int:
    """Bytes of the export's own files (hard-linked images count once, as on disk)."""
    seen, total = set(), 0
    for path in folder.rglob("*"):
        stat = path.stat()
        if path.is_file() and stat.st_ino not in seen:
            seen.add(stat.st_ino)
            total += stat.st_size if stat.st_nlink == 1 else 0
    return total


def cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    names = (
        [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if line.startswith("model name")]
        if cpuinfo.exists()
        else []
    )
    return names[0] if names else platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=249_984)
    parser.add_argument("--formats", default=",".join(DEFAULT_RUNS), help=f"Any of {', '.join(RUNS)}.")
    parser.add_argument("--work", type=Path, default=None, help="Folder for the stand-in render and the exports.")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-export-", dir=args.work))
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    start = time.perf_counter()
    count = stand_in_render(work / "render", args.scenes)
    print(
        f"stand-in render: {count:,} three-object records and hard-linked placeholders in {time.perf_counter() - start:.1f} s"
    )
    try:
        for run in args.formats.split(","):
            fmt, options = RUNS[run]
            out = work / run
            start = time.perf_counter()
            result = subprocess.run(
                [sys.executable, "-c", MEASURED_CLI, "export", "--dataset", str(work / "render"),
                 "--format", fmt, "--out", str(out), *options],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            wall = time.perf_counter() - start
            if result.returncode:
                sys.exit(f"{run} failed: {result.stderr}")
            peak = int(result.stderr.rsplit("peak_kib=", 1)[1]) / 1024
            summary = json.loads((out / ".tabletest-export.json").read_text())
            kind = next((key for key in ("samples", "questions", "annotations", "rows") if key in summary), None)
            made = f"{sum(summary[kind].values()):,} {kind}" if kind else ""
            print(f"{run:12} {' '.join(options):22} {wall:6.1f} s  {count / wall:8,.0f} scenes/s  "
                  f"{made:26} {folder_size(out) / 2**20:7,.0f} MiB written  peak RSS {peak:,.0f} MiB")  # fmt: skip
            shutil.rmtree(out)
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
