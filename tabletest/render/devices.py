"""Which device renders: GPU discovery for the supervisor and Cycles device choice for the workers.

Pure Python (no bpy): the worker passes in what Blender reports, so the choice is testable on CPU.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from tabletest.errors import UserError, not_one_of

DEVICE_CHOICES = ("auto", "optix", "cuda", "hip", "oneapi", "metal", "cpu")
GPU_PREFERENCE = ("OPTIX", "CUDA", "HIP", "ONEAPI", "METAL")


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


def denoiser_for(device_type: str) -> str:
    """OptiX denoises on NVIDIA's OptiX devices; OpenImageDenoise everywhere else."""
    return "OPTIX" if device_type == "OPTIX" else "OPENIMAGEDENOISE"


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
