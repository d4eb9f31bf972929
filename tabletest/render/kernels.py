"""Cycles' CUDA kernels compiled ahead of time (no bpy), for the NVIDIA GPUs the bpy wheel has no binary for.

A bpy wheel carries a cubin for some architectures (`kernel_sm_86.cubin.zst`) and one PTX
(`kernel_compute_75.ptx.zst`) that the driver compiles on the first render for any other GPU: minutes on
an A100 (sm_80) or an H100 or H200 (sm_90), in every fresh container. Cycles takes `kernel_sm_XY.cubin.zst`
from its `lib` folder where one is there, so compiling the PTX ahead with ptxas (the `gpu` extra) on any
machine, a login node without a GPU included, takes that wait out of every render. Each cubin is kept in
the user's cache under the Blender version and the PTX's digest, with the digest of its bytes beside it.
Nothing in the `lib` folder is taken on trust: a cubin is Blender's own only where the wheel's RECORD pins
its bytes, and one this command made only where its stamp names this PTX, this architecture and its bytes.
"""

from __future__ import annotations

import base64
import csv
import ctypes
import hashlib
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tabletest.cache import cache_entry, user_cache
from tabletest.errors import UserError
from tabletest.files.jsonl import atomic_bytes
from tabletest.files.temp import clean_stale, temp_path
from tabletest.render.devices import nvidia_architectures, usable_cores

STAMP = ".tabletest.json"  # beside a cubin this command installed: the PTX, architecture and bytes it vouches for
DIGEST = ".sha256"  # beside a cached cubin: the sha256 of its bytes
# One CPU core per architecture for ptxas -O3 on the wheel's PTX (`scripts/bench_kernels.py`).
COMPILE_MINUTES = 7
INSTALL_GPU = "pip install -e '.[gpu]'"
CACHE_ALTERNATIVE = (
    "or let the driver keep the kernel it compiles on the first render: export CUDA_CACHE_PATH to a folder "
    "that stays (e.g. ~/.cache/nv) and CUDA_CACHE_MAXSIZE=4294967296 (the guide's GPU page)"
)
LIB_LAYOUT = ("scripts", "addons_core", "cycles", "lib")  # under the Blender version's folder (`5.0`)
GIVE_LIB = (
    "give the lib folder of a Blender or bpy install (<X.Y>/scripts/addons_core/cycles/lib), "
    "or leave the flag out for the installed bpy's"
)
REINSTALL = "reinstall the Blender it belongs to (the bpy wheel: pip install --force-reinstall --no-deps bpy)"
PR_SET_PDEATHSIG = 1  # linux/prctl.h


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

    @classmethod
    def given(cls, folder: Path) -> CyclesKernels:
        """The folder `--cycles-lib` names, refused in one line unless it is Cycles' lib folder with its PTX:
        any other folder would read as a Blender with no kernel at all, or fail minutes later."""
        found = cls(folder.resolve())
        if not found.folder.is_dir():
            raise UserError(f"--cycles-lib {found.folder} is not a folder; {GIVE_LIB}")
        version = found.folder.parents[3].name if len(found.folder.parents) > 3 else ""
        laid_out = found.folder.parts[-4:] == LIB_LAYOUT and re.fullmatch(r"[0-9]+\.[0-9]+", version)
        if not laid_out or not any(found.folder.glob("kernel_compute_*.ptx.zst")):
            raise UserError(
                f"--cycles-lib {found.folder} is not Cycles' lib folder (no kernel_compute_*.ptx.zst in it); {GIVE_LIB}"
            )
        found.ptx_digest()  # a PTX that is not a readable file is refused here, before any work
        return found

    @property
    def blender(self) -> str:
        """The Blender version the folder belongs to (`5.0`), from its place in the install."""
        return self.folder.parents[3].name

    @property
    def ptx(self) -> Path:
        """The PTX the driver would compile: the newest `kernel_compute_XY.ptx.zst` there."""
        found = sorted(self.folder.glob("kernel_compute_*.ptx.zst"), key=lambda p: _number(p.name, "kernel_compute_"))
        if not found:
            raise UserError(f"{self.folder} holds no kernel_compute_*.ptx.zst, Cycles' PTX; {REINSTALL}")
        if not found[-1].is_file():
            raise UserError(f"Cycles' PTX {found[-1]} is not a file; {REINSTALL}")
        return found[-1]

    def ptx_digest(self) -> str:
        """What a cubin is keyed by: the first 16 hex digits of the compressed PTX's sha256."""
        return hashlib.sha256(self.ptx.read_bytes()).hexdigest()[:16]

    def cubin(self, arch: int) -> Path:
        """The file Cycles looks for on a GPU of compute capability `arch` (90 for 9.0)."""
        return self.folder / f"kernel_sm_{arch}.cubin.zst"

    def state(self, arch: int) -> str:
        """`shipped` (the bytes the wheel's RECORD pins), `prepared` (its stamp vouches for this PTX, this
        architecture and these bytes), `stale` (anything else: Cycles would load it unproven) or `missing`."""
        cubin = self.cubin(arch)
        if not cubin.is_file():
            return "missing"
        data = cubin.read_bytes()
        if _read_stamp(cubin) == _stamp(self.ptx_digest(), arch, data):
            return "prepared"
        return "shipped" if self._shipped_digests().get(cubin.name) == _record_digest(data) else "stale"

    def _shipped_digests(self) -> dict[str, str]:
        """What pip installed in this folder (`kernel_sm_86.cubin.zst` -> `sha256=...`), from the wheel's RECORD:
        the only proof that a cubin without a stamp is Blender's own. Empty outside a pip install."""
        if len(self.folder.parents) < 6:
            return {}
        site, package = self.folder.parents[5], self.folder.parents[4].name
        prefix = f"{self.folder.relative_to(site).as_posix()}/"
        digests = {}
        for record in site.glob(f"{package}-*.dist-info/RECORD"):
            with open(record, newline="", encoding="utf-8") as rows:
                ours = (row for row in csv.reader(rows) if len(row) > 1 and row[0].startswith(prefix))
                digests.update((row[0].removeprefix(prefix), row[1]) for row in ours)
        return digests


def parse_architectures(text: str) -> list[int]:
    """`80,90` (or `sm_80`, `8.0`) -> [80, 90]; ASCII digits only (`²` and `٩٠` are digits to Python only)."""
    archs = []
    for item in (part.strip().lower().removeprefix("sm_") for part in text.split(",")):
        major, dot, minor = item.partition(".")
        digits = major + minor if dot else item
        if not (re.fullmatch(r"[0-9]+", digits) and 50 <= int(digits) < 1000):
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
    """Where compiled cubins are kept: by Blender version, each named with its PTX's digest. Refused in one
    line where a file stands in the way, before minutes of compiling that could not be kept."""
    cache = (root or user_cache() / "kernels") / f"blender-{kernels.blender}"
    blocking = next(path for path in (cache, *cache.parents) if path.exists())
    if not blocking.is_dir():
        named = f"--cache {root}" if root else f"the kernel cache {cache}"
        raise UserError(
            f"{named} cannot be a folder: {blocking} is a file; give another folder for compiled kernels with --cache, "
            "or move that file away"
        )
    return cache


def unpack_ptx(ptx_zst: Path, target: Path) -> None:
    """Decompress Cycles' PTX for ptxas; a damaged one is refused in one line (a frame cut short would
    otherwise reach ptxas as half a PTX)."""
    import zstandard

    unpack = zstandard.ZstdDecompressor().decompressobj()
    try:
        with open(ptx_zst, "rb") as source, open(target, "wb") as out:
            for chunk in iter(lambda: source.read(1 << 20), b""):
                out.write(unpack.decompress(chunk))
    except zstandard.ZstdError as err:
        raise UserError(f"Cycles' PTX {ptx_zst} is damaged ({err}); {REINSTALL}") from None
    if not unpack.eof:
        raise UserError(f"Cycles' PTX {ptx_zst} is damaged (it ends before its zstd frame does); {REINSTALL}")


def compile_cubin(ptx_zst: Path, arch: int, out: Path, ptxas: Path) -> bytes:
    """Compile a zstd-compressed PTX for sm_`arch`, keep the zstd-compressed cubin at `out` with its digest,
    and return it. The work folder is this process's own temporary name, which a later run removes if
    this one is killed; ptxas is killed with this process."""
    import zstandard

    work = temp_path(out)
    shutil.rmtree(work, ignore_errors=True)  # under this process's own name: left by a dead one of the same pid
    work.mkdir(parents=True)
    try:
        ptx, cubin = work / "kernel.ptx", work / "kernel.cubin"
        unpack_ptx(ptx_zst, ptx)
        done = subprocess.run(
            [str(ptxas), f"-arch=sm_{arch}", "-O3", str(ptx), "-o", str(cubin)],
            capture_output=True, text=True, check=False, preexec_fn=_dies_with_parent(),
        )
        if done.returncode != 0 or not cubin.is_file():
            said = next((line for line in done.stderr.splitlines() if line.strip()), f"exit code {done.returncode}")
            raise UserError(f"ptxas could not compile {ptx_zst.name} for sm_{arch}: {said.strip()}")
        packed = zstandard.ZstdCompressor(level=19, threads=-1).compress(cubin.read_bytes())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    atomic_bytes(out, packed)
    atomic_bytes(Path(f"{out}{DIGEST}"), hashlib.sha256(packed).hexdigest().encode())
    return packed


def cached_cubin(cached: Path) -> bytes | None:
    """A cached cubin's bytes if they match the digest kept beside them; None if either is missing or they
    differ (a damaged or half-written cache entry is compiled again, never installed)."""
    try:
        data, digest = cached.read_bytes(), Path(f"{cached}{DIGEST}").read_text(encoding="ascii").strip()
    except (OSError, ValueError):
        return None
    return data if hashlib.sha256(data).hexdigest() == digest else None


def install(kernels: CyclesKernels, arch: int, cubin: bytes, digest: str) -> None:
    """Put a compiled cubin where Cycles reads it, with the stamp that vouches for it: each file under this
    process's own temporary name, then renamed into place."""
    target = kernels.cubin(arch)
    atomic_bytes(target, cubin)
    atomic_bytes(Path(f"{target}{STAMP}"), json.dumps(_stamp(digest, arch, cubin)).encode())


def check_writable(kernels: CyclesKernels, archs: Iterable[int]) -> None:
    """Refuse before compiling for minutes when the kernels could not be put where Cycles reads them."""
    if not os.access(kernels.folder, os.W_OK):
        wanted = ",".join(map(str, archs))
        raise UserError(
            f"Cycles' kernel folder {kernels.folder} is read-only (a shared install?): ask its owner to run "
            f"`tabletest kernels --arch {wanted}` once, {CACHE_ALTERNATIVE}"
        )


def cached_path(cache: Path, arch: int, digest: str) -> Path:
    """A compiled cubin in the cache, named by its architecture and its PTX's digest (its own digest beside it)."""
    return cache / f"kernel_sm_{arch}-{digest}.cubin.zst"


def check_no_folder_in_the_way(kernels: CyclesKernels, cache: Path, archs: Iterable[int], digest: str) -> None:
    """Refuse before compiling for minutes a folder where a cubin, its digest or its stamp is to be written."""
    for arch in archs:
        cached, installed = cached_path(cache, arch, digest), kernels.cubin(arch)
        for path in (cached, Path(f"{cached}{DIGEST}")):
            cache_entry(path, "move it aside, or give another folder for compiled kernels with --cache")
        for path in (installed, Path(f"{installed}{STAMP}")):
            if path.is_dir():
                raise UserError(f"{path} is a folder where Cycles' kernel folder keeps a file (a kernel or its stamp); move it aside")


def prepare(kernels: CyclesKernels, archs: list[int], cache_root: Path | None = None, jobs: int | None = None) -> dict[int, str]:
    """Compile and install a cubin for each architecture that needs one, several at once; what happened to each."""
    cache = kernel_cache(kernels, cache_root)
    states = {arch: kernels.state(arch) for arch in archs}
    todo = [arch for arch, state in states.items() if state not in ("shipped", "prepared")]
    results = {arch: f"{state}, nothing to do" for arch, state in states.items() if arch not in todo}
    if not todo:
        return results
    check_writable(kernels, todo)
    digest = kernels.ptx_digest()
    check_no_folder_in_the_way(kernels, cache, todo, digest)
    ptxas = find_ptxas()
    for folder in (cache, kernels.folder):  # what runs killed before this one left behind
        clean_stale(folder)

    def one(arch: int) -> str:
        cached = cached_path(cache, arch, digest)
        started = time.perf_counter()
        cubin = cached_cubin(cached)
        took = "from the cache"
        if cubin is None:
            cubin = compile_cubin(kernels.ptx, arch, cached, ptxas)
            took = f"compiled in {_minutes(time.perf_counter() - started)}"
        install(kernels, arch, cubin, digest)
        return f"prepared ({took}): {kernels.cubin(arch)}"

    with ThreadPoolExecutor(max_workers=jobs or max(1, min(len(todo), usable_cores()))) as pool:
        results.update(zip(todo, pool.map(one, todo)))
    return results


def missing_kernel_notes(kernels: CyclesKernels | None, archs_by_gpu: dict[str, int]) -> tuple[list[str], list[str]]:
    """(notes, refusals) for a render on these GPUs: a missing kernel costs minutes on the first render; a
    stale one (neither Blender's own nor vouched for by its stamp) must not be used."""
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
                f"{kernels.cubin(arch)} is neither the kernel this Blender ships nor one compiled from its PTX for "
                f"sm_{arch} (another build's, or one without its stamp); "
                f"run `tabletest kernels --arch {arch}` again (or delete that file)"
            )
    return notes, refusals


def _stamp(ptx_digest: str, arch: int, cubin: bytes) -> dict:
    """What the stamp beside an installed cubin says: the PTX, architecture and bytes it vouches for."""
    cubin_digest = hashlib.sha256(cubin).hexdigest()
    return {"ptx_sha256": ptx_digest, "arch": arch, "cubin_sha256": cubin_digest, "made_by": "tabletest kernels"}


def _read_stamp(cubin: Path) -> object:
    """The stamp beside an installed cubin as written, or None: an unreadable one vouches for nothing."""
    try:
        return json.loads(Path(f"{cubin}{STAMP}").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _dies_with_parent() -> Callable[[], None] | None:
    """What ptxas runs before it starts: a kill -9 of this command must not leave minutes of compiling
    running alone (Linux's parent-death signal; elsewhere nothing)."""
    if not sys.platform.startswith("linux"):
        return None
    prctl, parent = ctypes.CDLL(None, use_errno=True).prctl, os.getpid()  # looked up here: the child only calls

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return arm


def _record_digest(data: bytes) -> str:
    """A digest as pip's RECORD writes it: `sha256=` and the urlsafe base64 of the sha256, unpadded."""
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _number(name: str, prefix: str) -> int:
    digits = name.removeprefix(prefix).split(".", 1)[0]
    return int(digits) if re.fullmatch(r"[0-9]+", digits) else -1


def _minutes(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {round(seconds % 60):02d} s"
