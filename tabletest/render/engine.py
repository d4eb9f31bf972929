"""Engine and device settings on a Blender scene (bpy): Cycles, EEVEE or Workbench, output format.

Runs inside a worker. The device choice itself is made by `devices.choose_device` (pure Python).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import bpy

from tabletest.render.devices import GPU_PREFERENCE, choose_device, denoiser_for, detect_nvidia_gpus

ENGINE_IDS = {"cycles": "CYCLES", "eevee": "BLENDER_EEVEE", "workbench": "BLENDER_WORKBENCH"}


def configure(scene: bpy.types.Scene, setup: dict) -> str:
    """Apply resolution, engine, samples and device; return the device in words, e.g. `OPTIX (NVIDIA H200)`."""
    width, height = setup["resolution"]
    render = scene.render
    render.resolution_x, render.resolution_y = width, height
    render.resolution_percentage = 100
    render.dither_intensity = 0.0  # no noise added at 8-bit encoding: composites and direct renders compare exactly
    png_output(scene)
    render.use_file_extension = False
    render.engine = ENGINE_IDS[setup["engine"]]
    if setup.get("threads"):
        render.threads_mode = "FIXED"
        render.threads = setup["threads"]
    if setup["engine"] == "cycles":
        return _cycles(scene, setup)
    if setup["engine"] == "eevee":
        scene.eevee.taa_render_samples = setup["samples"]
        return "GPU (EEVEE)" if detect_nvidia_gpus() else "CPU: no GPU found (EEVEE in software OpenGL)"
    shading = scene.display.shading
    shading.light = "STUDIO"
    shading.color_type = "TEXTURE"  # image textures where a part has one (as in the contact sheet), else its colour
    scene.display.render_aa = "8" if setup["samples"] >= 8 else "OFF"
    return "CPU/GPU raster (Workbench)"


def png_output(scene: bpy.types.Scene) -> None:
    """8-bit RGB PNG, zlib level 1: what `render.render(write_still=True)` writes for an image."""
    settings = scene.render.image_settings
    settings.media_type = "IMAGE"
    settings.file_format = "PNG"
    settings.color_mode = "RGB"
    settings.color_depth = "8"
    settings.compression = 15


@contextlib.contextmanager
def multilayer_exr_output(scene: bpy.types.Scene, codec: str = "ZIP") -> Iterator[None]:
    """Within the block, renders are saved as linear 32-bit float multilayer EXR with every pass."""
    settings = scene.render.image_settings
    settings.media_type = "MULTI_LAYER_IMAGE"
    settings.file_format = "OPEN_EXR_MULTILAYER"
    settings.color_depth = "32"
    settings.exr_codec = codec
    try:
        yield
    finally:
        png_output(scene)


@contextlib.contextmanager
def raw_output(scene: bpy.types.Scene) -> Iterator[None]:
    """Within the block, renders are saved as uncompressed 8-bit RGB TIFF: the PNG's pixels, colour-managed,
    in a quarter of the time Blender takes to write the PNG (the encoding is left to `write.finish`)."""
    settings = scene.render.image_settings
    settings.file_format = "TIFF"
    settings.tiff_codec = "NONE"
    try:
        yield
    finally:
        png_output(scene)


def available_devices() -> dict[str, list[str]]:
    """Blender's devices per compute type, as names."""
    prefs = bpy.context.preferences.addons["cycles"].preferences
    found: dict[str, list[str]] = {"CPU": ["CPU"]}
    for kind in GPU_PREFERENCE:
        try:
            devices = prefs.get_devices_for_type(kind)
        except (TypeError, ValueError):  # a type this build or platform does not know
            continue
        found[kind] = [d.name for d in devices if d.type == kind]
    return found


def _cycles(scene: bpy.types.Scene, setup: dict) -> str:
    kind, names = choose_device(setup["device"], available_devices())
    prefs = bpy.context.preferences.addons["cycles"].preferences
    cycles = scene.cycles
    if kind == "CPU":
        cycles.device = "CPU"
    else:
        prefs.compute_device_type = kind
        for device in prefs.get_devices_for_type(kind):
            device.use = device.type == kind
        cycles.device = "GPU"
    cycles.samples = setup["samples"]
    cycles.use_adaptive_sampling = True
    cycles.use_denoising = setup["samples"] > 1
    denoiser, on_gpu = denoiser_for(setup["config"]["render"]["denoiser"], kind)
    try:
        cycles.denoiser = denoiser
    except TypeError:  # Cycles lists only the denoisers this machine can run
        raise ValueError(f"Blender finds no {denoiser} denoiser on {kind}; use --denoiser openimagedenoise") from None
    cycles.denoising_use_gpu = on_gpu
    cycles.denoising_prefilter = setup["config"]["render"]["denoise_prefilter"].upper()
    # A table top seen from the front: short light paths carry all the light that shows.
    cycles.max_bounces, cycles.diffuse_bounces, cycles.glossy_bounces = 4, 2, 2
    cycles.transmission_bounces, cycles.transparent_max_bounces = 4, 4
    cycles.caustics_reflective = cycles.caustics_refractive = False
    scene.render.use_persistent_data = True
    for name, value in setup.get("cycles", {}).items():  # a quality preset's settings, by their names in `scene.cycles`
        setattr(cycles, name, value)
    return f"{kind} ({', '.join(names)})"


def denoising(scene: bpy.types.Scene) -> str | None:
    """The denoiser a Cycles scene uses, in words (`OPENIMAGEDENOISE on the GPU`), None when it does not denoise."""
    cycles = scene.cycles
    if scene.render.engine != "CYCLES" or not cycles.use_denoising:
        return None
    where = "GPU" if cycles.device == "GPU" and cycles.denoising_use_gpu else "CPU"
    return f"{cycles.denoiser} on the {where}"
