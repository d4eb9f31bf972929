"""What keeps a worker's time on its render calls: the run's models loaded in one batch after the first
scene when the run will use them, silhouettes measured and PNGs written by processes started with the
workers, beside the next render, and none of those processes outliving a run killed with -9; and the
training preset's prefilter."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

from tabletest.assets.manifest import AssetEntry
from tabletest.config import load_catalog, load_config
from tabletest.layout.selection import Selection, select_scenes
from tabletest.layout.spec import scene_spec
from tabletest.render.run_options import run_models
from tabletest.render.supervisor import Finisher, Outcome
from tabletest.truth.visibility import SUPERSAMPLE, visibility

from conftest import REPO, run_cli
from processes import alive, descendants

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)


def _entry(name: str, drawn_from: tuple[float, ...] | None = None) -> AssetEntry:
    return AssetEntry(name=name, file=f"{name}.glb", source="builtin", sha256="0" * 64, bytes=1, triangles=1, materials=(),
                      bbox_m=((0, 0, 0), (0.1, 0.1, 0.1)), drawn_from=drawn_from)  # fmt: skip


def test_a_run_loads_all_its_models_at_once_only_when_it_will_place_as_many_objects():
    entries = {name: _entry(name) for name in ("mug", "lamp", "banana", "tomato")}
    assets = Path("/models")
    assert run_models(entries, assets, objects_to_place=3) == []  # a short run imports what it meets
    assert run_models(entries, assets, objects_to_place=4) == [
        (name, f"/models/{name}.glb") for name in ("banana", "lamp", "mug", "tomato")
    ]
    drawn = _entry("mug_1", (1.2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1.1, 0))  # shown with the mug's model
    assert run_models({**entries, "mug/1": drawn}, assets, objects_to_place=4) == run_models(entries, assets, 4)


def test_the_run_names_its_models_as_its_scenes_do_whatever_the_form_of_the_assets_path(tmp_path, monkeypatch):
    """A worker knows a model it holds by its path: with a relative `--assets` (the default, `assets`), the
    run's models and its scenes' objects must name each file alike, or every scene loads its models again."""
    monkeypatch.chdir(tmp_path)
    config = load_config()
    entries = {name: _entry(name) for name in ("mug", "bowl", "lamp")}
    scene = next(iter(select_scenes(load_catalog(), Selection(3, only=tuple(entries)))))
    for assets in (Path("assets"), Path("./assets/../assets"), tmp_path / "assets"):
        spec = scene_spec(scene, config, entries, assets, (32, 24))
        assert {o.asset for o in spec.objects} == {path for _, path in run_models(entries, assets, 3)}
        assert {o.asset for o in spec.objects} == {str(tmp_path / "assets" / f"{name}.glb") for name in entries}


WORKER_LOADS_AFTER_THE_FIRST_SCENE = """
import json, sys
from pathlib import Path
from tabletest.config import load_catalog, load_config
from tabletest.layout.selection import Selection, select_scenes
from tabletest.layout.spec import scene_spec
from tabletest.assets.manifest import load_manifest
from tabletest.render.run_options import RenderOptions, run_models, worker_setup
from tabletest.render.worker import Worker

assets, out = Path(sys.argv[1]), Path(sys.argv[2])
config = load_config()
config = config.model_copy(update={"render": config.render.model_copy(update={"samples": 1, "resolution": [32, 24]})})
entries = {name: entry for name, entry in load_manifest(assets).objects.items() if name in ("mug", "apple", "banana")}
scenes = sorted(select_scenes(load_catalog(), Selection(1, only=tuple(entries))), key=lambda s: s.objects[0] != "mug")
options = RenderOptions(out=out, assets=assets, build_missing_assets=False, device="cpu")
held = {}
for batch in (True, False):  # the run's models in one batch after the first scene, or each as its scene needs it
    worker = Worker({**worker_setup(config, options, (32, 24), run_models(entries, assets, 3) if batch else []), "threads": 1})
    held[batch] = []
    for scene in scenes:
        worker.render(scene_spec(scene, config, entries, assets, (32, 24)).to_json(), str(out / f"{batch}-{scene.id}.png"))
        held[batch].append(sorted(key.split("|")[0] for key in worker.assets))
print(json.dumps({"scenes": [s.id for s in scenes], "names": [s.objects[0] for s in scenes], "batch": held[True], "each": held[False]}))
"""


def test_the_first_scene_waits_for_its_own_models_only_and_the_rest_come_in_one_batch(tmp_path, builtin_assets):
    """A run that places as many objects as it has models: the worker's first image waits for its own models
    only, the second scene brings all the others at once, and every image has the pixels of a worker that
    loads each model as its scene needs it."""
    done = subprocess.run([sys.executable, "-c", WORKER_LOADS_AFTER_THE_FIRST_SCENE, str(builtin_assets), str(tmp_path)],
                          capture_output=True, text=True, cwd=REPO)  # fmt: skip
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout.strip().splitlines()[-1])
    everything = ["apple", "banana", "mug"]
    assert made["batch"] == [["mug"], everything, everything]
    assert made["each"] == [sorted(made["names"][: i + 1]) for i in range(3)]
    for scene in made["scenes"]:
        batched, each = (np.asarray(Image.open(tmp_path / f"{batch}-{scene}.png.tif")) for batch in ("True", "False"))
        assert np.array_equal(batched, each), scene


def square(left: int, top: int, side: int, height: int | None = None) -> np.ndarray:
    """Two triangles filling exactly the pixels [left, left + side) x [top, top + height or side), in
    silhouette sub-pixels (PIL fills a polygon's integer corners and edges)."""
    x0, y0 = left * SUPERSAMPLE, top * SUPERSAMPLE
    x1, y1 = (left + side) * SUPERSAMPLE - 1, (top + (height or side)) * SUPERSAMPLE - 1
    return np.array([[x0, y0, x1, y0, x1, y1], [x0, y0, x1, y1, x0, y1]], dtype=float)


def test_visibility_counts_the_silhouette_where_the_pass_shows_the_object_or_another():
    index = np.zeros((8, 8))
    index[2:6, 2:6] = 1  # the object, seen on a 4x4 square ...
    index[2:6, 4:6] = 2  # ... whose right half another object covers
    index[2:4, 2:3] = 0  # and a column of pixels the pass gives to nothing, counted neither way
    fraction, covering = visibility(square(2, 2, 4), index, 1)
    assert (fraction, covering) == (round(6 / 14, 3), [2])
    assert visibility(square(2, 2, 4), index, 3) == (0.0, [1, 2])  # wholly hidden behind both
    assert visibility(np.empty((0, 6)), index, 1) == (0.0, [])  # nothing of it in the picture


@pytest.mark.parametrize(("left", "side", "fraction"), [(-2, 4, 0.5), (-12, 16, 0.25), (-396, 400, 0.01)])
def test_the_part_of_an_object_outside_the_frame_counts_as_unseen(left, side, fraction):
    """The visible fraction is the seen share of the whole silhouette: an object nothing covers, carried
    partly out of the picture, reads the share still in it (a silhouette many frames wide included)."""
    index = np.zeros((8, 8))
    index[2:6, : left + side] = 1  # what of it the frame holds, all seen
    assert visibility(square(left, 2, side, 4), index, 1) == (fraction, [])
    assert visibility(square(9, 2, side, 4), index, 1) == (0.0, [])  # wholly outside, on the right


def test_the_finisher_writes_the_png_elsewhere_and_reports_a_hand_over_it_cannot_read(tmp_path):
    rgb = np.random.default_rng(0).integers(0, 256, (6, 8, 3), dtype=np.uint8)
    raw = tmp_path / ".a.png.tmp.tif"
    Image.fromarray(rgb).save(raw, format="TIFF")
    done = Outcome(SimpleNamespace(id="a"), True, {"objects": [], "finish": {"image": str(tmp_path / ".a.png.tmp"), "raw": str(raw)}})
    lost = Outcome(SimpleNamespace(id="b"), True, {"objects": [], "finish": {"image": str(tmp_path / ".b.png.tmp"), "raw": str(tmp_path / "gone.tif")}})
    finisher, delivered = Finisher(1), []
    try:
        for outcome in (done, lost):
            assert finisher.submit(outcome, delivered.append).wait(60)
    finally:
        finisher.close(wait=True)
    written, failed = delivered
    assert written.ok and written.facts == {"objects": []} and not raw.exists()
    with Image.open(tmp_path / ".a.png.tmp") as png:
        assert png.format == "PNG" and np.array_equal(np.asarray(png), rgb)
    assert not failed.ok and failed.error.startswith("writing its files failed: FileNotFoundError")


def forked_by_a_fork_server(pids: set[int]) -> set[int]:
    """Those of `pids` a `multiprocessing` fork server forked (a fork keeps its parent's command line)."""
    def forkserver(pid: int) -> bool:
        try:
            return b"multiprocessing.forkserver" in (Path("/proc") / str(pid) / "cmdline").read_bytes()
        except OSError:
            return False

    def parent(pid: int) -> int:
        try:
            return int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            return 0

    return {pid for pid in pids if alive(pid) and forkserver(pid) and forkserver(parent(pid))}


def test_the_finisher_starts_its_processes_before_anything_is_handed_over():
    """Started with the workers (while Blender loads), a writing process is up before the first image."""
    finisher = Finisher(2)
    try:
        finisher.start()
        deadline = time.time() + 60
        while time.time() < deadline and not forked_by_a_fork_server(descendants(os.getpid())):
            time.sleep(0.05)
        assert forked_by_a_fork_server(descendants(os.getpid()))
    finally:
        finisher.close(wait=True)
    deadline = time.time() + 30
    while time.time() < deadline and forked_by_a_fork_server(descendants(os.getpid())):
        time.sleep(0.05)
    assert not forked_by_a_fork_server(descendants(os.getpid()))  # closed, it leaves none behind


def test_no_process_of_a_run_outlives_it_when_it_is_killed_with_minus_9(tmp_path, builtin_assets):
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabletest.cli", "render", "--scenes", "random", "--count", "200", "--seed", "1", "--masks",
         "--resolution", "48x48", "--samples", "1", "--assets", str(builtin_assets), "--out", str(out), "--quiet"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    metadata, deadline = out / "metadata.jsonl", time.time() + 180
    while time.time() < deadline and not (metadata.exists() and metadata.read_text().count("\n") >= 3):
        time.sleep(0.05)
    helpers = descendants(proc.pid)  # Blender workers, the finishing processes and what starts them
    assert len(helpers) >= 2
    os.kill(proc.pid, signal.SIGKILL)  # the run alone, as the OOM killer would
    proc.wait()
    deadline = time.time() + 15
    while time.time() < deadline and any(alive(pid) for pid in helpers):
        time.sleep(0.1)
    assert not [pid for pid in helpers if alive(pid)]


def test_the_training_presets_prefilter_changes_the_pixels_and_is_pinned_only_when_chosen(tmp_path, builtin_assets):
    def render(out: Path, *flags: str):
        return run_cli(
            "render", "--scenes", "random", "--count", "1", "--seed", "3", "--resolution", "64x48", "--samples", "4",
            "--assets", str(builtin_assets), "--out", str(out), "--quiet", *flags,
        )  # fmt: skip

    fast, accurate = tmp_path / "fast", tmp_path / "accurate"
    assert render(fast).returncode == 0
    result = render(accurate, "--denoise-prefilter", "accurate")
    assert result.returncode == 0, result.stderr
    assert "denoise_prefilter" not in json.loads((fast / "settings.json").read_text())["config"]["render"]
    assert json.loads((accurate / "settings.json").read_text())["config"]["render"]["denoise_prefilter"] == "accurate"
    [image] = (fast / "images").glob("*.png")
    with Image.open(image) as a, Image.open(accurate / "images" / image.name) as b:
        assert not np.array_equal(np.asarray(a), np.asarray(b))
    refused = render(accurate)  # the folder holds the accurate prefilter's dataset
    assert refused.returncode == 2 and "config.render.denoise_prefilter: accurate →" in refused.stderr
    wrong = render(tmp_path / "x", "--denoise-prefilter", "sharp")
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr and "sharp" in wrong.stderr
