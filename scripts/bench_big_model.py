"""What importing a huge model costs: write a PLY of N triangles (a flat-shaded grid, binary), run
`tabletest assets import` on it as a user would, and report its wall time and peak memory.

    python scripts/bench_big_model.py --triangles 5000000                  # refused from the header
    python scripts/bench_big_model.py --triangles 5000000 --code /old/tree  # the same with other code
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def write_ply(path: Path, triangles: int) -> None:
    """A square grid of quads split in two, `triangles` faces (rounded up to a full grid)."""
    side = int(np.ceil(np.sqrt(triangles / 2)))
    u, v = np.meshgrid(np.arange(side + 1, dtype=np.float32), np.arange(side + 1, dtype=np.float32))
    vertices = np.stack([u.ravel(), v.ravel(), np.sin(u.ravel() / 7) * np.cos(v.ravel() / 5)], axis=1)
    index = np.arange((side + 1) ** 2, dtype=np.int32).reshape(side + 1, side + 1)
    a, b, c, d = index[:-1, :-1].ravel(), index[:-1, 1:].ravel(), index[1:, 1:].ravel(), index[1:, :-1].ravel()
    faces = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
    face_records = np.empty(len(faces), dtype=[("n", "u1"), ("i", "<i4", 3)])
    face_records["n"], face_records["i"] = 3, faces
    header = (
        f"ply\nformat binary_little_endian 1.0\nelement vertex {len(vertices)}\nproperty float x\n"
        f"property float y\nproperty float z\nelement face {len(faces)}\nproperty list uchar int vertex_indices\n"
        "end_header\n"
    )
    with open(path, "wb") as fh:
        fh.write(header.encode())
        fh.write(vertices.astype("<f4").tobytes())
        fh.write(face_records.tobytes())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--triangles", type=int, default=5_000_000)
    parser.add_argument("--code", type=Path, default=REPO, help="the tabletest source tree to run")
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)  # internal: only write the PLY there
    args = parser.parse_args()
    if args.write:
        write_ply(args.write, args.triangles)
        return
    with tempfile.TemporaryDirectory(prefix="bench-big-model-") as tmp:
        models = Path(tmp) / "models"
        models.mkdir()
        writer = [sys.executable, __file__, "--write", str(models / "mug.ply"), "--triangles", str(args.triangles)]
        subprocess.run(writer, check=True)
        size = (models / "mug.ply").stat().st_size
        env = {**os.environ, "PYTHONPATH": str(args.code), "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        command = [sys.executable, "-m", "tabletest.cli", "assets", "import", str(models), "--out", str(Path(tmp) / "assets")]
        log = Path(tmp) / "stderr.txt"
        start = time.perf_counter()
        with open(log, "w") as err:
            child = subprocess.Popen(command, cwd=args.code, env=env, stdout=subprocess.DEVNULL, stderr=err)
            _, status, usage = os.wait4(child.pid, 0)  # this child's own peak memory
        wall = time.perf_counter() - start
        print(f"code: {args.code}")
        print(f"PLY: {args.triangles} triangles requested, {size / 1e6:.0f} MB")
        print(f"import: exit {os.waitstatus_to_exitcode(status)} in {wall:.1f} s, peak memory {usage.ru_maxrss / 1024:.0f} MB")
        stored = Path(tmp) / "assets" / "mug.glb"
        print(f"stored GLB: {stored.stat().st_size / 1e6:.0f} MB" if stored.exists() else "stored GLB: none")
        print("first line:", (log.read_text().strip().splitlines() or [""])[0][:300])


if __name__ == "__main__":
    main()
