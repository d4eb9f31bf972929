"""Which device renders: GPU discovery for the supervisor and Cycles device choice for the workers.

Pure Python (no bpy): the worker passes in what Blender reports, so the choice is testable on CPU.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tabletest.errors import UserError, not_one_of

DEVICE_CHOICES = ("auto", "optix", "cuda", "hip", "oneapi", "metal", "cpu")
GPU_PREFERENCE = ("OPTIX", "CUDA", "HIP", "ONEAPI", "METAL")
DENOISERS = ("openimagedenoise", "optix")
# The OptiX denoiser's trained weights, which the NVIDIA driver reads from here. Containers and many
# cluster images mount the driver's libraries without it: the denoiser then fails inside every render.
OPTIX_WEIGHTS = Path("/usr/share/nvidia/nvoptix.bin")


def choose_device(requested: str, available: dict[str, list[str]]) -> tuple[str, list[str]]:
    """(Cycles compute type, device names to use) for `--device requested`, given Blender's devices per type.

    `auto` takes the first GPU type in GPU_PREFERENCE that has a device, else the CPU.
    """
    requested = check_device(requested)
    if requested == "cpu":
        return "CPU", available.get("CPU", ["CPU"])
    types = GPU_PREFERENCE if requested == "auto" else (requested.upper(),)
    for kind in types:
        if available.get(kind):
            return kind, available[kind]
    if requested == "auto":
        return "CPU", available.get("CPU", ["CPU"])
    seen = ", ".join(f"{k}: {len(v)}" for k, v in available.items() if v) or "none"
    raise UserError(f"--device {requested}: Blender finds no {requested.upper()} device (it sees {seen}); use --device auto or cpu")


def check_device(requested: str) -> str:
    """The `--device` name, lower case; an unknown one is refused with the choices."""
    if requested.lower() not in DEVICE_CHOICES:
        raise not_one_of("--device", requested, DEVICE_CHOICES, "auto")
    return requested.lower()


def device_class(requested: str) -> str:
    """`cpu` or `gpu`: what `--device` will render on, as far as it decides the pixels (CPU and GPU
    path tracing differ in the last bits). `auto` counts as `gpu` where `nvidia-smi` lists a GPU."""
    requested = check_device(requested)
    if requested == "auto":
        return "gpu" if detect_nvidia_gpus() else "cpu"
    return "cpu" if requested == "cpu" else "gpu"


def denoiser_for(requested: str, device_type: str) -> tuple[str, bool]:
    """(Cycles' denoiser, whether it runs on the GPU) for `render.denoiser` on `device_type`.

    OpenImageDenoise everywhere unless OptiX is asked for, so a dataset's pixels do not depend on which
    denoiser a machine happens to ship; on a GPU device it denoises there (OpenImageDenoise on the
    CPU took 0.3 s of a 0.44 s render call on an H100).
    """
    if requested == "optix":
        return "OPTIX", True
    return "OPENIMAGEDENOISE", device_type != "CPU"


def check_denoiser(requested: str, device: str, weights: Path = OPTIX_WEIGHTS) -> None:
    """Refuse, before any scene, a denoiser this machine cannot run: OptiX on the CPU or without its weights."""
    if requested not in DENOISERS:
        raise not_one_of("--denoiser", requested, DENOISERS, "openimagedenoise")
    if requested != "optix":
        return
    if check_device(device) == "cpu":
        raise UserError("--denoiser optix runs on NVIDIA GPUs, not with --device cpu; use --denoiser openimagedenoise")
    if not weights.is_file():
        raise UserError(
            f"--denoiser optix needs the OptiX denoiser's weights file {weights}, which this machine lacks "
            "(containers often mount the driver without it); use --denoiser openimagedenoise (the default)"
        )


def parse_gpus(text: str | None, detected: list[str]) -> list[str]:
    """`--gpus 0,2` -> ["0", "2"]; no flag -> every detected GPU."""
    if text is None:
        return detected
    ids = [t.strip() for t in text.split(",") if t.strip()]
    if not ids or not all(i.isdigit() for i in ids):
        raise UserError(f"--gpus {text!r} is not a comma-separated list of GPU numbers, e.g. --gpus 0,1")
    if detected and (unknown := [i for i in ids if i not in detected]):
        raise UserError(f"--gpus names GPU {', '.join(unknown)}, but this machine has {', '.join(detected)}")
    return ids


def detect_nvidia_gpus() -> list[str]:
    """Indices of the NVIDIA GPUs `nvidia-smi` lists (empty without a driver)."""
    if not shutil.which("nvidia-smi"):
        return []
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [str(i) for i, line in enumerate(l for l in out.splitlines() if l.startswith("GPU "))]


def nvidia_architectures() -> dict[str, int]:
    """Each NVIDIA GPU's compute capability as Cycles names its kernels (8.0 -> 80), by GPU index;
    empty without a driver."""
    if not shutil.which("nvidia-smi"):
        return {}
    command = ["nvidia-smi", "--query-gpu=index,compute_cap", "--format=csv,noheader"]
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return parse_compute_caps(out)


def parse_compute_caps(out: str) -> dict[str, int]:
    """`nvidia-smi --query-gpu=index,compute_cap --format=csv,noheader` ("0, 9.0" a line) -> {"0": 90}."""
    found = {}
    for line in out.splitlines():
        index, _, capability = (part.strip() for part in line.partition(","))
        major, dot, minor = capability.partition(".")
        if index.isdigit() and dot and major.isdigit() and minor.isdigit():
            found[index] = int(major) * 10 + int(minor)
    return found


def usable_cores() -> int:
    """The cores this process may run on: the CPU set SLURM or a container gives it, not the whole node."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def worker_env(gpu: str | None) -> dict[str, str]:
    """Environment that shows a worker only its own GPU, for every vendor's runtime."""
    if gpu is None:
        return {}
    return {
        "CUDA_VISIBLE_DEVICES": gpu,
        "HIP_VISIBLE_DEVICES": gpu,
        "ONEAPI_DEVICE_SELECTOR": f"level_zero:{gpu}",
    }
