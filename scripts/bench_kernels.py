"""How long `tabletest kernels` takes to compile Cycles' PTX for NVIDIA architectures the bpy wheel lacks.

Compiles the installed bpy's PTX into a scratch copy of its kernel folder (the installed Blender is left
as it is) with a cache of its own, so every architecture is compiled for real, in parallel as the command
does; prints one line per architecture and the wall time. No GPU needed.

    python scripts/bench_kernels.py --arch 90
    python scripts/bench_kernels.py --arch 80,90
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

import zstandard

from tabletest.extras import installed_bpy
from tabletest.render.kernels import CyclesKernels, find_ptxas, parse_architectures, prepare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arch", default="90", help="architectures, e.g. 80,90")
    args = parser.parse_args()
    installed = CyclesKernels.installed()
    if installed is None:
        raise SystemExit("error: bpy is not installed; run pip install -e '.[render,gpu]'")
    archs = parse_architectures(args.arch)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / installed.blender / "scripts" / "addons_core" / "cycles" / "lib"
        folder.mkdir(parents=True)
        shutil.copy(installed.ptx, folder / installed.ptx.name)
        copy = CyclesKernels(folder)
        ptx_mb = len(zstandard.ZstdDecompressor().decompress(installed.ptx.read_bytes(), max_output_size=1 << 31)) / 1e6
        print(f"bpy {installed_bpy()}: {installed.ptx.name} ({ptx_mb:.0f} MB of PTX), ptxas {find_ptxas()}")
        print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
        started = time.perf_counter()
        for arch, what in prepare(copy, archs, Path(scratch) / "cache").items():
            size = copy.cubin(arch).stat().st_size / 1e6
            print(f"sm_{arch}: {what.split(':')[0]}, {size:.1f} MB compressed")
        print(f"{len(archs)} architecture(s) in {time.perf_counter() - started:.0f} s wall")


if __name__ == "__main__":
    main()
