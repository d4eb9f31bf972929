"""Cycles' CUDA kernels compiled ahead of time (no bpy), for the NVIDIA GPUs the bpy wheel has no binary for.

A bpy wheel carries a cubin for some architectures (`kernel_sm_86.cubin.zst`) and one PTX
(`kernel_compute_75.ptx.zst`) that the driver compiles on the first render for any other GPU: minutes on
an A100 (sm_80) or an H100 or H200 (sm_90), in every fresh container. Cycles takes `kernel_sm_XY.cubin.zst`
from its `lib` folder where one is there, so compiling the PTX ahead with ptxas (the `gpu` extra) on any
machine, a login node without a GPU included, takes that wait out of every render. Each cubin is kept in
the user's cache under the Blender version and the PTX's digest, and a stamp beside the installed copy
names the PTX it came from: a cubin left behind by another build of Cycles is never used unnoticed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tabletest.cache import user_cache
from tabletest.errors import UserError
from tabletest.render.devices import nvidia_architectures, usable_cores

STAMP = ".tabletest.json"  # beside a cubin this command installed: the PTX it was compiled from
# One CPU core per architecture for ptxas -O3 on the wheel's PTX (`scripts/bench_kernels.py`).
COMPILE_MINUTES = 7
INSTALL_GPU = "pip install -e '.[gpu]'"
CACHE_ALTERNATIVE = (
    "or let the driver keep the kernel it compiles on the first render: export CUDA_CACHE_PATH to a folder "
    "that stays (e.g. ~/.cache/nv) and CUDA_CACHE_MAXSIZE=4294967296 (the guide's GPU page)"
)


@dataclass(frozen=True)
class CyclesKernels:
    """Cycles' kernel folder: `bpy/<X.Y>/scripts/addons_core/cycles/lib` (a Blender install's is laid out alike)."""

    folder: Path

    @classmethod
    def installed(cls) -> CyclesKernels | None:
        """The installed bpy's kernel folder, found without importing Blender; None without bpy."""
        spec = importlib.util.find_spec("bpy")
        if spec is None or not spec.submodule_search_locations:
            return None
        for package in spec.submodule_search_locations:
            for folder in sorted(Path(package).glob("[0-9]*.[0-9]*/scripts/addons_core/cycles/lib")):
                return cls(folder)
        return None

    @property
    def blender(self) -> str:
        """The Blender version the folder belongs to (`5.0`), from its place in the install."""
        return self.folder.parents[3].name

    @property
    def ptx(self) -> Path:
        """The PTX the driver would compile: the newest `kernel_compute_XY.ptx.zst` there."""
        found = sorted(self.folder.glob("kernel_compute_*.ptx.zst"), key=lambda p: _number(p.name, "kernel_compute_"))
        if not found:
            raise UserError(f"{self.folder} holds no kernel_compute_*.ptx.zst: is it Cycles' lib folder?")
        return found[-1]

    def ptx_digest(self) -> str:
        """What a cubin is keyed by: the first 16 hex digits of the compressed PTX's sha256."""
        return hashlib.sha256(self.ptx.read_bytes()).hexdigest()[:16]

    def cubin(self, arch: int) -> Path:
        """The file Cycles looks for on a GPU of compute capability `arch` (90 for 9.0)."""
        return self.folder / f"kernel_sm_{arch}.cubin.zst"

    def state(self, arch: int) -> str:
        """`shipped` (in the wheel), `prepared` (compiled here from this PTX), `stale` (from another PTX) or `missing`."""
        cubin = self.cubin(arch)
        if not cubin.is_file():
            return "missing"
        stamp = Path(f"{cubin}{STAMP}")
        if not stamp.is_file():
            return "shipped"
        try:
            compiled_from = json.loads(stamp.read_text(encoding="utf-8")).get("ptx_sha256")
        except (OSError, ValueError, AttributeError):
            return "stale"
        return "prepared" if compiled_from == self.ptx_digest() else "stale"


def parse_architectures(text: str) -> list[int]:
    """`80,90` (or `sm_80`, `8.0`) -> [80, 90]."""
    archs = []
    for item in (part.strip().lower().removeprefix("sm_") for part in text.split(",")):
        major, dot, minor = item.partition(".")
        digits = major + minor if dot else item
        if not (digits.isdigit() and 50 <= int(digits) < 1000):
            raise UserError(
                f"--arch {text!r} is not a list of CUDA architectures; write e.g. --arch 80,90 (A100: 80, H100 and H200: 90)"
            )
        archs.append(int(digits))
    return sorted(set(archs))


def machine_architectures() -> list[int]:
    """The architectures of this machine's NVIDIA GPUs, as the driver reports them."""
    archs = sorted(set(nvidia_architectures().values()))
    if not archs:
        raise UserError("nvidia-smi lists no NVIDIA GPU here; name the architectures to compile for, e.g. --arch 80,90")
    return archs


def find_ptxas() -> Path:
    """ptxas from the `nvidia-cuda-nvcc-cu12` wheel (the `gpu` extra), else from a CUDA toolkit on PATH."""
    spec = importlib.util.find_spec("nvidia.cuda_nvcc") if importlib.util.find_spec("nvidia") else None
    for package in (spec.submodule_search_locations or []) if spec else []:
        if (ptxas := Path(package) / "bin" / "ptxas").is_file():
            return ptxas
    if on_path := shutil.which("ptxas"):
        return Path(on_path)
    raise UserError(f"compiling Cycles' kernels needs ptxas, which is not installed: run {INSTALL_GPU}")


def kernel_cache(kernels: CyclesKernels, root: Path | None = None) -> Path:
    """Where compiled cubins are kept: by Blender version, each named with its PTX's digest."""
    return (root or user_cache() / "kernels") / f"blender-{kernels.blender}"


def compile_cubin(ptx_zst: Path, arch: int, out: Path, ptxas: Path) -> None:
    """Compile a zstd-compressed PTX for sm_`arch` and store the cubin zstd-compressed at `out`, atomically."""
    import zstandard

    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".sm_{arch}-", dir=out.parent) as work:
        ptx, cubin = Path(work) / "kernel.ptx", Path(work) / "kernel.cubin"
        with open(ptx_zst, "rb") as source, open(ptx, "wb") as target:
            zstandard.ZstdDecompressor().copy_stream(source, target)
        done = subprocess.run(
            [str(ptxas), f"-arch=sm_{arch}", "-O3", str(ptx), "-o", str(cubin)], capture_output=True, text=True, check=False
        )
        if done.returncode != 0 or not cubin.is_file():
            said = next((line for line in done.stderr.splitlines() if line.strip()), f"exit code {done.returncode}")
            raise UserError(f"ptxas could not compile {ptx_zst.name} for sm_{arch}: {said.strip()}")
        packed = Path(work) / "kernel.cubin.zst"
        packed.write_bytes(zstandard.ZstdCompressor(level=19, threads=-1).compress(cubin.read_bytes()))
        os.replace(packed, out)


def install(kernels: CyclesKernels, arch: int, cubin: Path, digest: str) -> None:
    """Put a compiled cubin where Cycles reads it, with the stamp naming its PTX (each file atomically)."""
    target = kernels.cubin(arch)
    for path, data in ((target, cubin.read_bytes()), (Path(f"{target}{STAMP}"), _stamp(digest, arch))):
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            tmp.write_bytes(data)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)


def check_writable(kernels: CyclesKernels, archs: Iterable[int]) -> None:
    """Refuse before compiling for minutes when the kernels could not be put where Cycles reads them."""
    if not os.access(kernels.folder, os.W_OK):
        wanted = ",".join(map(str, archs))
        raise UserError(
            f"Cycles' kernel folder {kernels.folder} is read-only (a shared install?): ask its owner to run "
            f"`tabletest kernels --arch {wanted}` once, {CACHE_ALTERNATIVE}"
        )


def prepare(kernels: CyclesKernels, archs: list[int], cache_root: Path | None = None, jobs: int | None = None) -> dict[int, str]:
    """Compile and install a cubin for each architecture that needs one, several at once; what happened to each."""
    digest = kernels.ptx_digest()
    todo = [arch for arch in archs if kernels.state(arch) not in ("shipped", "prepared")]
    results = {arch: f"{kernels.state(arch)}, nothing to do" for arch in archs if arch not in todo}
    if not todo:
        return results
    check_writable(kernels, todo)
    ptxas, cache = find_ptxas(), kernel_cache(kernels, cache_root)

    def one(arch: int) -> str:
        cached = cache / f"kernel_sm_{arch}-{digest}.cubin.zst"
        started = time.perf_counter()
        kept = cached.is_file()
        if not kept:
            compile_cubin(kernels.ptx, arch, cached, ptxas)
        install(kernels, arch, cached, digest)
        took = "from the cache" if kept else f"compiled in {_minutes(time.perf_counter() - started)}"
        return f"prepared ({took}): {kernels.cubin(arch)}"

    with ThreadPoolExecutor(max_workers=jobs or max(1, min(len(todo), usable_cores()))) as pool:
        results.update(zip(todo, pool.map(one, todo)))
    return results


def missing_kernel_notes(kernels: CyclesKernels | None, archs_by_gpu: dict[str, int]) -> tuple[list[str], list[str]]:
    """(notes, refusals) for a render on these GPUs: a missing kernel costs minutes on the first render; a
    stale one (compiled from another build's PTX) must not be used."""
    if kernels is None or not archs_by_gpu:
        return [], []
    notes, refusals = [], []
    for arch in sorted(set(archs_by_gpu.values())):
        gpus = ", ".join(gpu for gpu, a in archs_by_gpu.items() if a == arch)
        state = kernels.state(arch)
        if state == "missing":
            notes.append(
                f"this Blender has no Cycles kernel for sm_{arch} (GPU {gpus}): the driver compiles one for minutes on "
                f"the first render; prepare it once with `tabletest kernels --arch {arch}` "
                f"(about {COMPILE_MINUTES} min of one CPU core, no GPU needed)"
            )
        elif state == "stale":
            refusals.append(
                f"{kernels.cubin(arch)} was compiled from another build of Cycles than this one; "
                f"run `tabletest kernels --arch {arch}` again (or delete that file)"
            )
    return notes, refusals


def _stamp(digest: str, arch: int) -> bytes:
    return json.dumps({"ptx_sha256": digest, "arch": arch, "made_by": "tabletest kernels"}).encode()


def _number(name: str, prefix: str) -> int:
    digits = name.removeprefix(prefix).split(".", 1)[0]
    return int(digits) if digits.isdigit() else -1


def _minutes(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {round(seconds % 60):02d} s"
