"""The stop of a run whose first scenes all fail the same way: the same cause is recognised when each
scene's error names that scene's own files, id or numbers, and different causes stay different."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.files.run_output import read_runs
from tabletest.layout.spec import SceneSpec, SpecObject
from tabletest.render.supervisor import Outcome, SharedCause

from conftest import run_cli

NAMES = ("mug", "wine bottle", "lamp")
STOPS = "the first 3 scenes all failed the same way, so the run stops: "


def spec(scene_id: str, *models: str) -> SceneSpec:
    """A scene as the supervisor hands it out: its id and its models' files."""
    objects = tuple(
        SpecObject(name, None, "builtin", None, f"/data/assets/{name.replace(' ', '_')}.glb", (0.0, 0.0, 0.75), 0.0, (0.1, 0.1, 0.1))
        for name in models
    )
    return SceneSpec(scene_id, int(scene_id.split("-")[1]), len(objects), objects, 7)


def failed(scene: SceneSpec, error: str) -> Outcome:
    return Outcome(spec=scene, ok=False, error=error)


SAME_CAUSE = {
    "its-image": [
        (spec("rnd0-0000001"), "cannot write /out/images/.rnd0-0000001.png.tmp: Permission denied"),
        (spec("rnd0-0000001-swap"), "cannot write /out/images/.rnd0-0000001-swap.png.tmp: Permission denied"),
        (spec("rnd0-0000002-view2"), "cannot write /out/images/.rnd0-0000002-view2.png.tmp: Permission denied"),
    ],
    "blender-temp-names": [
        (spec("2obj-000003"), 'Blender: OpenImageIO write failed: Could not open "/o/images/.2obj-000003.png.node7.4411.tmp.tif"'),
        (spec("2obj-000017"), 'Blender: OpenImageIO write failed: Could not open "/o/images/.2obj-000017.png.node7.4412.tmp.tif"'),
        (spec("2obj-000120"), 'Blender: OpenImageIO write failed: Could not open "/o/images/.2obj-000120.png.node7.4411.tmp.tif"'),
    ],
    "its-models": [
        (spec("2obj-000001", "mug", "lamp"), "Blender: cannot read /data/assets/mug.glb: Permission denied"),
        (spec("2obj-000002", "wine bottle", "mug"), "Blender: cannot read /data/assets/wine_bottle.glb: Permission denied"),
        (spec("2obj-000064", "lamp", "mug"), "Blender: cannot read /data/assets/lamp.glb: Permission denied"),
    ],
    "its-numbers": [
        (spec("rnd5-0000000"), "CUDA error: out of memory allocating 182452224 bytes at 0x7f3a2c000000 (scene 0)"),
        (spec("rnd5-0000001"), "CUDA error: out of memory allocating 98304 bytes at 0x7f3a2c1f0000 (scene 1)"),
        (spec("rnd5-0000002"), "CUDA error: out of memory allocating 7340032 bytes at 0x7e00ab000000 (scene 2)"),
    ],
}


@pytest.mark.parametrize("failures", SAME_CAUSE.values(), ids=SAME_CAUSE.keys())
def test_one_cause_is_recognised_whatever_scene_its_errors_name(tmp_path, failures):
    stop = SharedCause(tmp_path)
    for scene, error in failures[:-1]:
        stop(failed(scene, error))
    scene, error = failures[-1]
    with pytest.raises(UserError) as stopped:
        stop(failed(scene, error))
    assert str(stopped.value).startswith(STOPS + error + " (")  # the last scene's error, as it was


DIFFERENT_CAUSES = {
    "permission-then-full": [
        (spec("rnd0-0000001"), "cannot write /out/images/.rnd0-0000001.png.tmp: Permission denied"),
        (spec("rnd0-0000002"), "cannot write /out/images/.rnd0-0000002.png.tmp: No space left on device"),
    ],
    "another-folder": [
        (spec("rnd0-0000001"), "cannot write /out/images/.rnd0-0000001.png.tmp: Permission denied"),
        (spec("rnd0-0000002"), "cannot write /out/masks/.rnd0-0000002.png.tmp: Permission denied"),
    ],
    "another-error": [
        (spec("2obj-000001"), "CUDA error: out of memory in cuMemAlloc(&device_pointer, size)"),
        (spec("2obj-000002"), "CUDA error: an illegal memory access was encountered in cuCtxSynchronize()"),
    ],
}


@pytest.mark.parametrize("failures", DIFFERENT_CAUSES.values(), ids=DIFFERENT_CAUSES.keys())
def test_different_causes_stay_different_and_the_run_goes_on(tmp_path, failures):
    stop = SharedCause(tmp_path)
    for scene, error in failures:
        stop(failed(scene, error))
    for number in range(3, 8):  # the first failures differed: later ones, however alike, never stop it
        stop(failed(spec(f"rnd0-{number:07d}"), failures[0][1].replace("0000001", f"{number:07d}")))
    assert stop.settled


@pytest.fixture
def read_only_images(tmp_path) -> Path:
    """An output folder whose images/ is a read-only bind mount: Blender cannot write any scene's image,
    and says so naming that scene's own file."""
    out = tmp_path / "out"
    images = out / "images"
    images.mkdir(parents=True)
    for command in (["mount", "--bind", str(images), str(images)], ["mount", "-o", "remount,ro,bind", str(images)]):
        if subprocess.run(command, capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(images)], capture_output=True)
            pytest.fail("this test bind-mounts a folder read-only: run it as root (the CI container is)")
    yield out
    subprocess.run(["umount", "-l", str(images)], check=True)


@pytest.mark.render
def test_a_render_that_cannot_write_any_image_stops_after_its_first_three_scenes(tmp_path, read_only_images):
    assets = tmp_path / "assets"
    build_assets(load_catalog(), assets, list(NAMES), jobs=1)
    result = run_cli(
        "render", "--objects", "2", "--only", ",".join(NAMES), "--assets", str(assets), "--out", str(read_only_images),
        "--device", "cpu", "--workers", "1", "--resolution", "64x48", "--samples", "1", "--retries", "0", "--quiet",
    )
    assert result.returncode == 2, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: {STOPS}Blender: OpenImageIO write failed: Could not open "), last
    failures = [json.loads(line) for line in (read_only_images / "failures.jsonl").read_text().splitlines()]
    assert len(failures) == 3 and read_runs(read_only_images)[-1]["status"] == "stopped"  # not the 6 scenes it was asked for
    assert len({failure["error"] for failure in failures}) == 3  # each named its own file
