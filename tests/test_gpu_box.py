"""What a GPU render box needs, tested without one: one denoiser everywhere, Blender's own error and a run
that stops on a cause its first scenes share, and Cycles' kernels compiled ahead of time by a real ptxas."""

from __future__ import annotations

import json
import subprocess

import pytest
import zstandard

from tabletest.config import load_catalog, load_config
from tabletest.errors import UserError
from tabletest.layout.scene_source import BenchmarkScenes
from tabletest.layout.selection import Selection
from tabletest.render.blender_log import blender_error
from tabletest.render.devices import OPTIX_WEIGHTS, check_denoiser, denoiser_for, parse_compute_caps
from tabletest.render.kernels import CyclesKernels, missing_kernel_notes, parse_architectures
from tabletest.render.run import dataset_settings
from tabletest.render.run_options import RenderOptions
from tabletest.render.supervisor import Outcome, SharedCause
from tabletest.files.run_output import read_runs
from tabletest.files.settings import settings_differences

from conftest import run_cli

# A kernel as small as PTX allows, of the ISA version Cycles' own PTX is compiled for.
TINY_PTX = b""".version 7.0
.target sm_75
.address_size 64

.visible .entry kernel_noop()
{
\tret;
}
"""


def test_openimagedenoise_everywhere_on_the_gpu_where_the_device_is_one():
    assert denoiser_for("openimagedenoise", "OPTIX") == ("OPENIMAGEDENOISE", True)
    assert denoiser_for("openimagedenoise", "CUDA") == ("OPENIMAGEDENOISE", True)
    assert denoiser_for("openimagedenoise", "CPU") == ("OPENIMAGEDENOISE", False)
    assert denoiser_for("optix", "OPTIX") == ("OPTIX", True)


def test_the_optix_denoiser_is_checked_before_the_first_scene(tmp_path):
    missing = tmp_path / "nvoptix.bin"
    with pytest.raises(UserError, match=f"needs the OptiX denoiser's weights file {missing}, .*--denoiser openimagedenoise"):
        check_denoiser("optix", "auto", missing)
    missing.write_bytes(b"weights")
    check_denoiser("optix", "optix", missing)
    check_denoiser("openimagedenoise", "auto", tmp_path / "absent")  # never looked for
    with pytest.raises(UserError, match="not with --device cpu"):
        check_denoiser("optix", "cpu", missing)
    with pytest.raises(UserError, match="--denoiser 'oidn' is not one of openimagedenoise, optix"):
        check_denoiser("oidn", "auto")


@pytest.mark.render
@pytest.mark.skipif(OPTIX_WEIGHTS.exists(), reason="this machine has the OptiX denoiser's weights")
def test_render_refuses_optix_without_its_weights_in_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    result = run_cli("render", "--objects", "2", "--limit", "1", "--denoiser", "optix", "--device", "cuda", "--out", str(out))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert str(OPTIX_WEIGHTS) in result.stderr and "--denoiser openimagedenoise" in result.stderr
    assert not out.exists()


def test_a_folder_made_with_one_denoiser_refuses_another_and_old_folders_keep_matching(tmp_path):
    catalog, config = load_catalog(), load_config()
    options = RenderOptions(out=tmp_path, assets=tmp_path, build_missing_assets=False, device="cpu")
    benchmark = BenchmarkScenes(catalog, Selection(2))
    default = dataset_settings(catalog, config, options, benchmark)
    assert "denoiser" not in default["config"]["render"]  # as pinned before the setting existed
    optix = config.model_copy(update={"render": config.render.model_copy(update={"denoiser": "optix"})})
    assert settings_differences(default, dataset_settings(catalog, optix, options, benchmark)) == [
        "config.render.denoiser: (none) → optix"
    ]


BLENDER_LOG = """\
00:00.412  cycles           | WARNING CUEW initialization failed: Error opening the library
Fra:1 Mem:36.51M (Peak 36.51M) | Time:00:00.05 | Rendering 1 / 64 samples
00:03.512  cycles           | ERROR Unable to load denoiser weights: Could not open optix denoiser weights file /usr/share/nvidia/nvoptix.bin
Error: Image 'Render Result' could not be saved to '/out/images/.3obj-000000.png.tmp.tif'
"""


def test_blenders_own_error_is_the_one_reported():
    assert blender_error(BLENDER_LOG) == (
        "Unable to load denoiser weights: Could not open optix denoiser weights file /usr/share/nvidia/nvoptix.bin"
    )
    bare = "Fra:1 Mem:36.51M | Rendering\nCUDA error: out of memory in cuMemAlloc(&device_pointer, size)\nError: Image not saved\n"
    assert blender_error(bare) == "CUDA error: out of memory in cuMemAlloc(&device_pointer, size)"
    assert blender_error(BLENDER_LOG.splitlines()[0] + "\nFra:1 Mem:36.51M | Rendering\n") is None


def _failed(error: str, recurs: bool = False) -> Outcome:
    return Outcome(spec=None, ok=False, error=error, recurs=recurs)


def test_a_cause_the_first_scenes_share_stops_the_run(tmp_path):
    stop = SharedCause(tmp_path)
    stop(_failed("Blender: no device"))
    stop(_failed("mug.glb does not load in Blender", recurs=True))  # a scene's own input: not counted
    stop(_failed("Blender: no device"))
    with pytest.raises(UserError, match="the first 3 scenes all failed the same way, so the run stops: Blender: no device"):
        stop(_failed("Blender: no device"))
    after_one_image = SharedCause(tmp_path)
    after_one_image(Outcome(spec=None, ok=True))
    for _ in range(5):
        after_one_image(_failed("Blender: out of memory"))  # a run that made an image goes on, failing what fails
    different = SharedCause(tmp_path)
    for error in ("a", "b", "a", "a"):
        different(_failed(error))


@pytest.mark.render
def test_a_render_whose_first_scenes_fail_alike_stops_in_one_line(tmp_path, builtin_assets):
    out = tmp_path / "out"
    result = run_cli(
        "render", "--objects", "2", "--only", "mug,lamp,wine bottle", "--assets", str(builtin_assets), "--out", str(out),
        "--device", "cpu", "--workers", "1", "--resolution", "640x480", "--samples", "4096", "--item-timeout", "1",
        "--retries", "0", "--quiet",
    )
    assert result.returncode == 2, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: the first 3 scenes all failed the same way, so the run stops: worker 0 gave no answer within 1 s")
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert len(failures) == 3 and read_runs(out)[-1]["status"] == "stopped"  # not the 6 scenes it was asked for


@pytest.fixture
def cycles_lib(tmp_path) -> CyclesKernels:
    """A Cycles kernel folder laid out as bpy's, with a tiny PTX and one shipped cubin."""
    folder = tmp_path / "bpy" / "5.0" / "scripts" / "addons_core" / "cycles" / "lib"
    folder.mkdir(parents=True)
    (folder / "kernel_compute_75.ptx.zst").write_bytes(zstandard.ZstdCompressor().compress(TINY_PTX))
    (folder / "kernel_sm_86.cubin.zst").write_bytes(b"shipped")
    return CyclesKernels(folder)


@pytest.mark.render
def test_the_installed_blender_is_read_where_cycles_reads_it():
    installed = CyclesKernels.installed()
    assert installed is not None and installed.folder.name == "lib" and installed.folder.parent.name == "cycles"
    assert installed.ptx.name.startswith("kernel_compute_") and installed.ptx.name.endswith(".ptx.zst")
    shipped = [int(p.name.removeprefix("kernel_sm_").split(".")[0]) for p in installed.folder.glob("kernel_sm_*.cubin.zst")]
    assert shipped and all(installed.state(arch) in ("shipped", "prepared") for arch in shipped)
    assert installed.cubin(90).name == "kernel_sm_90.cubin.zst"
    assert installed.blender[0].isdigit() and "." in installed.blender


def test_the_drivers_compute_capabilities_are_read_as_cycles_names_kernels():
    assert parse_compute_caps("0, 9.0\n1, 8.0\n2, 12.0\n") == {"0": 90, "1": 80, "2": 120}
    assert parse_compute_caps("No devices were found\n") == {}


def test_architectures_are_read_in_every_spelling():
    assert parse_architectures("90,80, sm_86,9.0") == [80, 86, 90]
    for bad in ("ninety", "", "8", "sm_"):
        with pytest.raises(UserError, match="is not a list of CUDA architectures"):
            parse_architectures(bad)


def kernels(*args: str) -> subprocess.CompletedProcess:
    return run_cli("kernels", *args)


def test_a_real_compile_lands_where_cycles_reads_it_keyed_by_its_ptx(cycles_lib, tmp_path):
    cache = tmp_path / "cache"
    result = kernels("--arch", "90,86", "--cycles-lib", str(cycles_lib.folder), "--cache", str(cache))
    assert result.returncode == 0, result.stderr
    assert "sm_86: shipped, nothing to do" in result.stdout and "sm_90: prepared (compiled in" in result.stdout
    cubin = zstandard.ZstdDecompressor().decompress(cycles_lib.cubin(90).read_bytes(), max_output_size=1 << 24)
    assert cubin.startswith(b"\x7fELF") and b"kernel_noop" in cubin
    digest = cycles_lib.ptx_digest()
    assert [p.name for p in (cache / "blender-5.0").iterdir()] == [f"kernel_sm_90-{digest}.cubin.zst"]
    assert cycles_lib.state(90) == "prepared" and missing_kernel_notes(cycles_lib, {"0": 90}) == ([], [])

    again = kernels("--arch", "90", "--cycles-lib", str(cycles_lib.folder), "--cache", str(cache))
    assert "sm_90: prepared, nothing to do" in again.stdout

    # another build of Cycles (pip upgraded bpy in place): the cubin left behind is refused until made again
    cycles_lib.ptx.write_bytes(zstandard.ZstdCompressor().compress(TINY_PTX.replace(b"noop", b"none")))
    assert cycles_lib.state(90) == "stale"
    notes, refusals = missing_kernel_notes(cycles_lib, {"0": 90, "1": 80})
    assert "compiled from another build of Cycles" in refusals[0] and "tabletest kernels --arch 90" in refusals[0]
    assert len(notes) == 1 and "sm_80 (GPU 1)" in notes[0] and "`tabletest kernels --arch 80`" in notes[0]
    assert kernels("--arch", "90", "--cycles-lib", str(cycles_lib.folder), "--cache", str(cache)).returncode == 0
    assert cycles_lib.state(90) == "prepared" and len(list((cache / "blender-5.0").iterdir())) == 2


def test_a_read_only_install_is_told_what_to_do_before_any_compile(cycles_lib, tmp_path):
    frozen = tmp_path / "frozen"
    frozen.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(frozen)], capture_output=True).returncode:
        pytest.fail("this test mounts a read-only tmpfs: run it as root (the CI container is)")
    try:
        target = frozen / "5.0" / "scripts" / "addons_core" / "cycles" / "lib"
        target.mkdir(parents=True)
        (target / cycles_lib.ptx.name).write_bytes(cycles_lib.ptx.read_bytes())
        subprocess.run(["mount", "-o", "remount,ro", str(frozen)], check=True)
        result = kernels("--arch", "90", "--cycles-lib", str(target), "--cache", str(tmp_path / "cache"))
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert f"{target} is read-only" in result.stderr and "tabletest kernels --arch 90" in result.stderr
        assert "CUDA_CACHE_PATH" in result.stderr and not (tmp_path / "cache").exists()
    finally:
        subprocess.run(["umount", str(frozen)], check=True)


def test_a_ptx_ptxas_refuses_is_one_line(cycles_lib, tmp_path):
    cycles_lib.ptx.write_bytes(zstandard.ZstdCompressor().compress(b".version 7.0\n.target sm_75\nthis is not PTX\n"))
    result = kernels("--arch", "90", "--cycles-lib", str(cycles_lib.folder), "--cache", str(tmp_path / "cache"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ptxas could not compile kernel_compute_75.ptx.zst for sm_90: ")
    assert cycles_lib.state(90) == "missing"
