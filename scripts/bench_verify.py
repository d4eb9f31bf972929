"""Benchmark `tabletest verify` and the gallery's reading of its verdict on a folder of many full-size images.

    python scripts/bench_verify.py --scenes 300

The folder is a stand-in: a few random scenes rendered for real with masks (1 sample), their records copied
under new ids up to `--scenes`, each image, mask and depth map a hard link to a rendered one, so verify
decodes and checks full-size files and the gallery hashes every one of them. Each command runs in a fresh
process; `kept_verdict` (what the gallery adds to read verify.json: every scene's files hashed again) is
also timed alone, where this TableTest has it.
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

REAL = 6  # scenes rendered for real; the rest are copies of them
FILES = (("file_name", "images"), ("mask_file_name", "masks"), ("depth_file_name", "depth"))


def cli(*args: str) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tabletest.cli", *args], capture_output=True, text=True, cwd=REPO)
    if done.returncode not in (0, 1, 3):
        sys.exit(done.stderr[-3000:])
    return time.perf_counter() - start


def stand_in(real: Path, folder: Path, scenes: int) -> None:
    """`scenes` records copied from the real render's under new ids, their files hard links to its files."""
    records = [json.loads(line) for line in (real / "metadata.jsonl").read_text().splitlines()]
    for _, sub in FILES:
        (folder / sub).mkdir(parents=True, exist_ok=True)
    with open(folder / "metadata.jsonl", "w") as fh:
        for k in range(scenes):
            source, sid = records[k % len(records)], f"rnd0-{k:07d}"
            record = dict(source, id=sid, index=k)
            for key, sub in FILES:
                record[key] = f"{sub}/{sid}.png"
                os.link(real / source[key], folder / record[key])
            fh.write(json.dumps(record) + "\n")
    for name in ("run.json", "settings.json"):
        shutil.copyfile(real / name, folder / name)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=300)
    parser.add_argument("--resolution", default="1024x768")
    parser.add_argument("--assets", default="assets", help="the models to render with (built on first use)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f} at the start")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        real, folder = tmp / "real", tmp / "folder"
        cli("render", "--scenes", "random", "--count", str(REAL), "--seed", "0", "--samples", "1", "--masks",
            "--resolution", args.resolution, "--assets", args.assets, "--out", str(real), "--quiet")  # fmt: skip
        stand_in(real, folder, args.scenes)
        print(f"stand-in: {args.scenes} scenes at {args.resolution}, files hard links to {REAL} real renders")
        print(f"tabletest verify:  {cli('verify', str(folder)):6.1f} s")
        print(f"tabletest gallery: {cli('gallery', str(folder), '--out', str(tmp / 'site')):6.1f} s (first build)")
        print(f"tabletest gallery: {cli('gallery', str(folder), '--out', str(tmp / 'site')):6.1f} s (second build, nothing new)")
        try:
            from tabletest.files.reading import read_records
            from tabletest.files.verdict import kept_verdict
        except ImportError:
            return
        start = time.perf_counter()
        kept_verdict(folder, (r for _, r in read_records(folder / "metadata.jsonl", "metadata file")))
        print(f"kept_verdict alone: {time.perf_counter() - start:5.2f} s (every scene's image, mask and depth hashed)")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
