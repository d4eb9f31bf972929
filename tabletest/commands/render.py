"""`tabletest render`: the main job, images plus exact ground truth, on CPU or a box of GPUs; and `tabletest
kernels`: Cycles' GPU kernels compiled ahead of time."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, Optional

import typer

from tabletest.cache import default_layer_cache
from tabletest.commands.options import (
    DEFAULT_ASSETS_DIR,
    CatalogOpt,
    ConfigOpt,
    CounterfactualsOpt,
    CountOpt,
    JsonOpt,
    LimitOpt,
    OnlyOpt,
    RandomConfigOpt,
    RenderSeedOpt,
    SampleOpt,
    FamilyOpt,
    ShardOpt,
    ViewLayoutOpt,
    ViewsOpt,
    SequenceOpt,
    FramesOpt,
    make_selection,
    parse_resolution,
    print_json,
    with_flags,
)
from tabletest.errors import UserError
from tabletest.render.devices import DEVICE_CHOICES, usable_cores
from tabletest.render.estimate import LONG_S, cpu_seconds, duration

if TYPE_CHECKING:
    from tabletest.config import RenderSettings

# What `render` needs beyond its flags (the configs, the scene families, the run) is imported when it runs:
# its --help and a mistyped flag answer without them.
LAYER_CACHE = default_layer_cache()


def announce_long_run(images: int, settings: RenderSettings, explicit: bool) -> None:
    """Say how long a run estimated over an hour takes before starting it; refuse one nobody chose scenes for
    (`tabletest render` alone is all 4,032 two-object scenes: days on a laptop)."""
    cores = usable_cores()
    seconds = cpu_seconds(images, settings.engine, settings.samples, settings.resolution, cores)
    if seconds is None or seconds <= LONG_S:
        return
    width, height = settings.resolution
    what = (
        f"{images:,} scenes at {width}x{height} with {settings.engine} ({settings.samples} samples): "
        f"about {duration(seconds)} on this machine's {cores} CPU cores"
    )
    if not explicit:
        raise UserError(
            f"with no scenes chosen, `tabletest render` renders all {what}; choose some (e.g. --objects 3 --limit 4), "
            "or ask for them all with --objects 2"
        )
    typer.echo(f"rendering {what} (a GPU is faster; Ctrl-C stops, the same command resumes)", err=True)


def render(
    objects: Annotated[Optional[int], typer.Option("--objects", "-n", help="Objects per scene: 1, 2 or 3 (default 2).")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (a Hugging Face ImageFolder).")] = Path("out"),
    engine: Annotated[Optional[Literal["cycles", "eevee", "workbench"]], typer.Option(help="Render engine (default from the config: cycles).")] = None,
    samples: Annotated[Optional[int], typer.Option(min=1, help="Samples per pixel (default from the config).")] = None,
    resolution: Annotated[Optional[str], typer.Option(help="WIDTHxHEIGHT (default from the config: 1024x768).")] = None,
    denoise_prefilter: Annotated[
        Optional[Literal["fast", "accurate"]],
        typer.Option(help="OpenImageDenoise's prefilter (default from the config: fast); the training preset is "
                     "--samples 16 --denoise-prefilter accurate."),
    ] = None,
    denoiser: Annotated[
        Optional[Literal["openimagedenoise", "optix"]],
        typer.Option(help="Cycles' denoiser (default from the config: openimagedenoise, on the GPU where the device is "
                     "one); optix needs an NVIDIA driver with the OptiX denoiser's weights."),
    ] = None,
    device: Annotated[str, typer.Option(help=f"Cycles device: {', '.join(DEVICE_CHOICES[:-1])} or {DEVICE_CHOICES[-1]}; auto picks the best.")] = "auto",
    workers: Annotated[Optional[int], typer.Option(min=1, help="Worker processes (default: one per GPU, else 1).")] = None,
    gpus: Annotated[Optional[str], typer.Option(help="GPUs to use, e.g. 0,1 (default: all).")] = None,
    retries: Annotated[int, typer.Option(min=0, help="Extra attempts for an item whose worker crashed or failed.")] = 2,
    item_timeout: Annotated[float, typer.Option(min=1, help="Seconds one image may take before its worker is restarted.")] = 600.0,
    assets: Annotated[Path, typer.Option(help="Assets folder (manifest.json + GLBs).")] = DEFAULT_ASSETS_DIR,
    source: Annotated[
        Optional[Literal["builtin", "objaverse", "dir"]],
        typer.Option(help="Require every model to come from this source (default: whatever the assets folder holds)."),
    ] = None,
    mode: Annotated[
        Literal["direct", "composite"],
        typer.Option(
            help="direct: path-trace every image; composite: compose them from cached renders of the empty table "
            "and of each object alone at each slot."
        ),
    ] = "direct",
    masks: Annotated[
        bool,
        typer.Option(
            "--masks",
            help="Also write masks/<id>.png (1 + the object's position from the left, 0 elsewhere) and depth/<id>.png "
            "(16-bit millimetres along the camera axis); what `tabletest verify` checks labels against.",
        ),
    ] = False,
    layer_cache: Annotated[
        Path,
        typer.Option(
            help="Composite mode: the layer cache folder, to share between runs, shards and machines "
            "(default: layers/ in the user cache, under $XDG_CACHE_HOME or ~/.cache).",
            show_default=False,
        ),
    ] = LAYER_CACHE,
    compose_jobs: Annotated[
        Optional[int], typer.Option(min=1, help="Composite mode: composer processes (default: one per core).")
    ] = None,
    scenes: FamilyOpt = "benchmark",
    count: CountOpt = None,
    random_config: RandomConfigOpt = None,
    counterfactuals: CounterfactualsOpt = None,
    views: ViewsOpt = None,
    view_layout: ViewLayoutOpt = None,
    sequence: SequenceOpt = None,
    frames: FramesOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Log lines instead of a progress bar (for clusters).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show Blender's own console output.")] = False,
    shard: ShardOpt = None,
    limit: LimitOpt = None,
    sample: SampleOpt = None,
    seed: RenderSeedOpt = None,
    only: OnlyOpt = None,
    config: ConfigOpt = None,
    catalog: CatalogOpt = None,
) -> None:
    """Render the selected scenes: images/, metadata.jsonl, run.json, failures.jsonl under --out."""
    from tabletest.config import load_catalog, load_config
    from tabletest.extras import require_render_extra
    from tabletest.render.run import render_run
    from tabletest.render.run_options import RenderOptions
    from tabletest.write.families import Asked, scene_family

    if mode == "composite":  # Blender only for layers missing from the cache: checked once that is known
        require_render_extra("render", "OpenEXR", "PyOpenColorIO")
    else:
        require_render_extra("render", "bpy", *(("OpenEXR",) if masks else ()))
    cat = load_catalog(catalog)
    cfg = load_config(config)
    overrides = {
        key: value
        for key, value in {
            "engine": engine,
            "samples": samples,
            "resolution": parse_resolution(resolution) if resolution else None,
            "seed": seed,
            "denoise_prefilter": denoise_prefilter,
            "denoiser": denoiser,
        }.items()
        if value is not None
    }
    cfg = cfg.model_copy(update={"render": with_flags(cfg.render, overrides, resolution)})
    selection = make_selection(objects, shard, limit, sample, cfg.render.seed, only)
    family = scene_family(
        scenes, Asked(cat, selection, cfg.render.seed, count, random_config, counterfactuals, views, view_layout, sequence, frames)
    )
    if mode == "direct":
        chosen = (objects, shard, limit, sample, only, count, random_config)
        announce_long_run(family.images(), cfg.render, explicit=any(x is not None for x in chosen) or scenes != "benchmark")
    options = RenderOptions(
        out=out,
        assets=assets,
        build_missing_assets=assets == DEFAULT_ASSETS_DIR,
        source=source,
        device=device,
        workers=workers,
        gpus=gpus,
        retries=retries,
        item_timeout=item_timeout,
        quiet=quiet,
        verbose=verbose,
        mode=mode,
        masks=masks,
        layer_cache=layer_cache,
        compose_jobs=compose_jobs,
    )
    summary = render_run(cat, cfg, selection, options, family)
    typer.echo(
        f"{summary.rendered} rendered, {summary.skipped} already done, {summary.failed} failed "
        f"in {summary.wall_s:.1f} s -> {out}",
        err=True,
    )
    if summary.not_made:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(summary.not_made.items()))
        typer.echo(f"frames, views and partners not made, as their scene allows no such motion, view or change: {kinds}", err=True)
    if summary.failed:
        typer.echo(f"error: {summary.failed} image(s) failed; see {out}/failures.jsonl", err=True)
        sys.exit(1)


def kernels(
    arch: Annotated[
        Optional[str],
        typer.Option(help="CUDA architectures to compile for, e.g. 80,90 (A100: 80, H100 and H200: 90); default: this machine's GPUs."),
    ] = None,
    check: Annotated[bool, typer.Option("--check", help="Only say which kernels are there, compile nothing.")] = False,
    cycles_lib: Annotated[
        Optional[Path],
        typer.Option(help="Cycles' kernel folder (default: the installed bpy's, .../cycles/lib)."),
    ] = None,
    cache: Annotated[
        Optional[Path], typer.Option(help="Where compiled kernels are kept (default: ~/.cache/tabletest/kernels).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Compile Cycles' GPU kernels ahead of time for NVIDIA GPUs the installed Blender has none for (A100,
    H100, H200), so their first render takes seconds instead of minutes. Needs no GPU: run it on a login node."""
    from tabletest.extras import require_render_extra
    from tabletest.render.kernels import CyclesKernels, machine_architectures, parse_architectures, prepare

    found = CyclesKernels.given(cycles_lib) if cycles_lib else CyclesKernels.installed()
    if found is None:
        require_render_extra("kernels", "bpy")
    archs = parse_architectures(arch) if arch else machine_architectures()
    if check:
        said = {one: {"state": found.state(one), "file": str(found.cubin(one))} for one in archs}
    else:
        said = {one: {"result": what} for one, what in prepare(found, archs, cache).items()}
    if as_json:
        print_json({"kernels": [{"arch": f"sm_{one}", **facts} for one, facts in said.items()]})
        return
    for one, facts in said.items():
        typer.echo(f"sm_{one}: {facts['state']} ({facts['file']})" if check else f"sm_{one}: {facts['result']}")
