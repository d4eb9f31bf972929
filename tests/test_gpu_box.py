"""What a GPU render box needs, tested without one: one denoiser everywhere, Blender's own error and a run
that stops on a cause its first scenes share, and Cycles' kernels compiled ahead of time by a real ptxas."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import zstandard

from tabletest.config import load_catalog, load_config
from tabletest.errors import UserError
from tabletest.write.families import Benchmark
from tabletest.layout.selection import Selection
from tabletest.render.blender_log import blender_error
from tabletest.render.devices import OPTIX_WEIGHTS, check_denoiser, denoiser_for, parse_compute_caps
from tabletest.files.temp import host, temp_path
from tabletest.render.kernels import STAMP, CyclesKernels, missing_kernel_notes, parse_architectures
from tabletest.render.run import dataset_settings
from tabletest.render.run_options import RenderOptions
from tabletest.render.supervisor import Outcome, SharedCause
from tabletest.files.run_output import read_runs
from tabletest.files.settings import settings_differences

from conftest import REPO, run_cli
from processes import alive

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
    benchmark = Benchmark(catalog, Selection(2))
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
    """A Cycles kernel folder laid out as the bpy wheel installs it, with a tiny PTX and one shipped cubin,
    both pinned by the wheel's RECORD as pip writes it."""
    folder = tmp_path / "bpy" / "5.0" / "scripts" / "addons_core" / "cycles" / "lib"
    folder.mkdir(parents=True)
    files = {
        "kernel_compute_75.ptx.zst": zstandard.ZstdCompressor().compress(TINY_PTX),
        "kernel_sm_86.cubin.zst": b"shipped",
    }
    record = []
    for name, data in files.items():
        (folder / name).write_bytes(data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"bpy/5.0/scripts/addons_core/cycles/lib/{name},sha256={digest},{len(data)}")
    (tmp_path / "bpy-5.0.1.dist-info").mkdir()
    (tmp_path / "bpy-5.0.1.dist-info" / "RECORD").write_text("\n".join(["bpy/__init__.pyi,,", *record]) + "\n")
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
    for bad in ("ninety", "", "8", "sm_", "²", "٩٠", "sm_９０", "8\n0", "\x00"):  # Python's digits, not CUDA's
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
    cached = f"kernel_sm_90-{digest}.cubin.zst"
    assert sorted(p.name for p in (cache / "blender-5.0").iterdir()) == [cached, f"{cached}.sha256"]
    assert cycles_lib.state(90) == "prepared" and missing_kernel_notes(cycles_lib, {"0": 90}) == ([], [])

    again = kernels("--arch", "90", "--cycles-lib", str(cycles_lib.folder), "--cache", str(cache))
    assert "sm_90: prepared, nothing to do" in again.stdout

    # another build of Cycles (pip upgraded bpy in place): the cubin left behind is refused until made again
    cycles_lib.ptx.write_bytes(zstandard.ZstdCompressor().compress(TINY_PTX.replace(b"noop", b"none")))
    assert cycles_lib.state(90) == "stale"
    notes, refusals = missing_kernel_notes(cycles_lib, {"0": 90, "1": 80})
    assert "neither the kernel this Blender ships nor one compiled from its PTX" in refusals[0]
    assert "tabletest kernels --arch 90" in refusals[0]
    assert len(notes) == 1 and "sm_80 (GPU 1)" in notes[0] and "`tabletest kernels --arch 80`" in notes[0]
    assert kernels("--arch", "90", "--cycles-lib", str(cycles_lib.folder), "--cache", str(cache)).returncode == 0
    assert cycles_lib.state(90) == "prepared" and len(list((cache / "blender-5.0").iterdir())) == 4


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


def one_line_error(result: subprocess.CompletedProcess) -> str:
    """The error a user sees: exit status 2 and one line, no traceback."""
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: "), result.stderr
    return result.stderr


def test_an_architecture_that_is_not_one_is_one_line(cycles_lib):
    said = one_line_error(kernels("--arch", "²", "--cycles-lib", str(cycles_lib.folder)))
    assert "--arch '²' is not a list of CUDA architectures; write e.g. --arch 80,90" in said


@pytest.mark.parametrize("check", [(), ("--check",)])
def test_a_folder_that_is_not_cycles_lib_is_one_line(tmp_path, check):
    said = one_line_error(run_cli("kernels", "--arch", "90", "--cycles-lib", ".", *check, cwd=tmp_path))
    assert f"--cycles-lib {tmp_path.resolve()} is not Cycles' lib folder" in said and "leave the flag out" in said


def test_a_damaged_ptx_or_a_folder_in_its_place_is_one_line(cycles_lib, tmp_path):
    args = ("--arch", "90", "--cycles-lib", str(cycles_lib.folder), "--cache", str(tmp_path / "cache"))
    whole = cycles_lib.ptx.read_bytes()
    for damaged in (b"not zstd at all", whole[: len(whole) // 2]):
        cycles_lib.ptx.write_bytes(damaged)
        said = one_line_error(kernels(*args))
        assert f"Cycles' PTX {cycles_lib.ptx} is damaged" in said and "pip install --force-reinstall" in said
    cycles_lib.ptx.unlink()
    (cycles_lib.folder / "kernel_compute_75.ptx.zst").mkdir()
    said = one_line_error(kernels(*args))
    assert f"{cycles_lib.folder / 'kernel_compute_75.ptx.zst'} is not a file" in said and "reinstall" in said
    assert cycles_lib.state(90) == "missing" and not any(cycles_lib.folder.glob(".*"))


def test_a_file_where_the_cache_folder_goes_is_one_line(cycles_lib, tmp_path):
    file = tmp_path / "cache"
    file.write_text("not a folder")
    said = one_line_error(kernels("--arch", "90", "--cycles-lib", str(cycles_lib.folder), "--cache", str(file)))
    assert f"--cache {file} cannot be a folder: {file} is a file; give another folder" in said
    assert cycles_lib.state(90) == "missing"


@pytest.mark.parametrize("where", ["cached", "cached-digest", "installed", "stamp"])
def test_a_folder_where_a_cubin_its_digest_or_its_stamp_goes_is_one_line_before_any_compile(cycles_lib, tmp_path, where):
    cache = tmp_path / "cache"
    cached = cache / "blender-5.0" / f"kernel_sm_90-{cycles_lib.ptx_digest()}.cubin.zst"
    installed = cycles_lib.cubin(90)
    folder = {"cached": cached, "cached-digest": Path(f"{cached}.sha256"), "installed": installed, "stamp": Path(f"{installed}{STAMP}")}[where]
    (folder / "keep.txt").parent.mkdir(parents=True)
    (folder / "keep.txt").write_text("not yours to replace")
    said = one_line_error(kernels("--arch", "90", "--cycles-lib", str(cycles_lib.folder), "--cache", str(cache)))
    assert f"error: {folder} is a folder where " in said and "move it aside" in said, said
    assert (folder / "keep.txt").read_text() == "not yours to replace"
    assert not any(cycles_lib.folder.glob(".*")) and not any(cache.rglob(".*"))  # no compile was begun
    assert (where == "installed" or not installed.exists()) and (where == "stamp" or not Path(f"{installed}{STAMP}").exists())


def slow_ptx(chain: int) -> bytes:
    """A valid PTX that keeps ptxas -O3 busy for seconds: one long chain of dependent multiply-adds."""
    head = [".version 7.0", ".target sm_75", ".address_size 64", ".visible .entry kernel_busy(.param .u64 out)", "{"]
    body = [f"\t.reg .f32 %f<{chain + 2}>;", "\t.reg .u64 %rd<2>;", "\tld.param.u64 %rd1, [out];"]
    body += ["\tmov.f32 %f0, 0f3F800000;", "\tmov.f32 %f1, 0f40000000;"]
    body += [f"\tfma.rn.f32 %f{i}, %f{i - 1}, %f{i - 2}, %f{i - 1};" for i in range(2, chain + 2)]
    return "\n".join([*head, *body, f"\tst.global.f32 [%rd1], %f{chain + 1};", "\tret;", "}", ""]).encode()


def ptxas_children(parent: int) -> list[int]:
    """The running ptxas processes whose parent is `parent`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, fields = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()
        if name == "ptxas" and int(fields[1]) == parent and fields[0] not in "ZX":
            found.append(int(stat.parent.name))
    return found


def wait_for(condition: Callable[[], object], seconds: float) -> object:
    """The condition's first true value within `seconds`, else its last (false) one."""
    deadline = time.monotonic() + seconds
    while not (value := condition()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return value


def start_kernels(*args: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "tabletest.cli", "kernels", *args]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_kill_9_mid_compile_takes_ptxas_along_and_the_next_run_removes_its_temp_folder(cycles_lib, tmp_path):
    cycles_lib.ptx.write_bytes(zstandard.ZstdCompressor().compress(slow_ptx(80_000)))
    cache, slow_digest = tmp_path / "cache", cycles_lib.ptx_digest()
    args = ("--arch", "90", "--cycles-lib", str(cycles_lib.folder), "--cache", str(cache))
    run = start_kernels(*args)
    ptxas = wait_for(lambda: ptxas_children(run.pid), 30)
    assert ptxas, "ptxas never started"
    run.kill()
    run.communicate()
    try:
        assert wait_for(lambda: not any(map(alive, ptxas)), 1), "ptxas outlived a kill -9 of tabletest kernels"
    finally:
        for pid in filter(alive, ptxas):
            os.kill(pid, signal.SIGKILL)
    left = f".kernel_sm_90-{slow_digest}.cubin.zst.{host()}.{run.pid}.tmp"
    assert [p.name for p in (cache / "blender-5.0").iterdir()] == [left]  # named for its dead owner

    cycles_lib.ptx.write_bytes(zstandard.ZstdCompressor().compress(TINY_PTX))
    assert kernels(*args).returncode == 0 and cycles_lib.state(90) == "prepared"
    assert not [p for folder in (cache / "blender-5.0", cycles_lib.folder) for p in folder.glob(".*")]


def test_two_runs_at_once_write_under_names_of_their_own(cycles_lib, tmp_path):
    # another live process halfway through writing the kernel: under a name shared by every process (as a fixed
    # `.<name>.tmp` would be), and under its own; neither may be written over, renamed or removed
    theirs = [cycles_lib.folder / ".kernel_sm_90.cubin.zst.tmp", temp_path(cycles_lib.cubin(90))]
    for path in theirs:
        path.write_bytes(b"half of another process's kernel")
    cycles_lib.ptx.write_bytes(zstandard.ZstdCompressor().compress(slow_ptx(5_000)))  # long enough to overlap
    args = ("--arch", "90", "--cycles-lib", str(cycles_lib.folder), "--cache", str(tmp_path / "cache"))
    runs = [start_kernels(*args) for _ in range(2)]
    for run in runs:
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0 and "sm_90: prepared" in out, err
    assert cycles_lib.state(90) == "prepared"
    assert sorted(cycles_lib.folder.glob(".*")) == sorted(theirs)
    assert all(path.read_bytes() == b"half of another process's kernel" for path in theirs)
    assert not list((tmp_path / "cache" / "blender-5.0").glob(".*"))


def test_a_cubin_is_shipped_only_where_the_wheels_record_pins_its_bytes(cycles_lib, tmp_path):
    args = ("--cycles-lib", str(cycles_lib.folder), "--cache", str(tmp_path / "cache"))
    assert cycles_lib.state(86) == "shipped"
    assert kernels("--arch", "90", *args).returncode == 0
    Path(f"{cycles_lib.cubin(90)}{STAMP}").unlink()  # installed, but its stamp never written
    cycles_lib.cubin(86).write_bytes(b"shipped, then written over")
    assert cycles_lib.state(90) == "stale" and cycles_lib.state(86) == "stale"
    assert "sm_90: stale (" in kernels("--arch", "90", "--check", *args).stdout
    assert missing_kernel_notes(cycles_lib, {"0": 90})[1], "a render must refuse it"

    again = kernels("--arch", "86,90", *args)
    assert "sm_86: prepared (compiled in" in again.stdout and "sm_90: prepared (from the cache)" in again.stdout
    assert cycles_lib.state(86) == cycles_lib.state(90) == "prepared"


def test_a_stamp_vouches_only_for_its_own_architecture_and_bytes(cycles_lib, tmp_path):
    args = ("--cycles-lib", str(cycles_lib.folder), "--cache", str(tmp_path / "cache"))
    assert kernels("--arch", "80", *args).returncode == 0
    sm_80 = cycles_lib.cubin(80).read_bytes()
    cycles_lib.cubin(90).write_bytes(sm_80)
    Path(f"{cycles_lib.cubin(90)}{STAMP}").write_bytes(Path(f"{cycles_lib.cubin(80)}{STAMP}").read_bytes())
    assert cycles_lib.state(90) == "stale"  # a stamp saying sm_80 on the file for sm_90
    assert "sm_90: prepared (compiled in" in kernels("--arch", "90", *args).stdout
    assert cycles_lib.state(90) == "prepared" and cycles_lib.cubin(90).read_bytes() != sm_80

    cycles_lib.cubin(80).write_bytes(zstandard.ZstdCompressor().compress(b"other bytes under sm_80's stamp"))
    assert cycles_lib.state(80) == "stale"


def test_a_cached_cubin_whose_bytes_fail_their_digest_is_compiled_again(cycles_lib, tmp_path):
    cache = tmp_path / "cache"
    args = ("--arch", "90", "--cycles-lib", str(cycles_lib.folder), "--cache", str(cache))
    assert kernels(*args).returncode == 0
    cached = cache / "blender-5.0" / f"kernel_sm_90-{cycles_lib.ptx_digest()}.cubin.zst"
    good = cached.read_bytes()
    damages = (lambda: cached.write_bytes(zstandard.ZstdCompressor().compress(b"not a kernel")),
               lambda: Path(f"{cached}.sha256").unlink())
    for damage in damages:
        damage()
        cycles_lib.cubin(90).unlink()
        assert "sm_90: prepared (compiled in" in kernels(*args).stdout
        assert cycles_lib.cubin(90).read_bytes() == cached.read_bytes() == good
    assert Path(f"{cached}.sha256").read_text() == hashlib.sha256(good).hexdigest()  # kept whole again
