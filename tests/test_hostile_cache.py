"""The user's cache (`$XDG_CACHE_HOME/tabletest`) when it is not what TableTest left there: a file where a
folder goes (XDG_CACHE_HOME itself, `tabletest/`, or one of its folders) or a folder where an entry goes is
one line naming it and the fix, before any work, with nothing running after; an entry of another shape
(a rest pose, a model's columns or its footprint: other JSON, other arrays, other types or sizes, bytes cut short) is
measured again and written anew, never trusted. Real commands on four built-in models."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import REPO, worker_pids

MODELS = "book,bowl,apple,mug"  # random scenes of these stand an apple on the book: two carriers' columns
TINY = ["--resolution", "64x48", "--samples", "1", "--quiet"]


def run(cache: Path, *args: str) -> subprocess.CompletedProcess:
    """The real command with `cache` as XDG_CACHE_HOME."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    return subprocess.run([sys.executable, "-m", "tabletest.cli", *args], capture_output=True, text=True, cwd=REPO, env=env, timeout=600)


def build(cache: Path, out: Path) -> subprocess.CompletedProcess:
    return run(cache, "assets", "build", "--only", MODELS, "--jobs", "1", "--out", str(out))


def vignettes(cache: Path, assets: Path, out: Path) -> subprocess.CompletedProcess:
    return run(cache, "vignettes", "--scenes", "random", "--count", "4", "--only", MODELS, "--assets", str(assets), "--out", str(out))


def render(cache: Path, assets: Path, out: Path, *args: str) -> subprocess.CompletedProcess:
    return run(cache, "render", "--scenes", "random", "--count", "1", "--only", MODELS, "--assets", str(assets), "--out", str(out), *TINY, *args)


def composite(cache: Path, assets: Path, out: Path) -> subprocess.CompletedProcess:
    return run(cache, "render", "--mode", "composite", "--objects", "1", "--only", "mug", "--limit", "1", "--assets", str(assets), "--out", str(out), *TINY)


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> SimpleNamespace:
    """The four models built and their random scenes' vignettes written with a cache of their own: what a
    spoiled cache must give again, and the entries it kept (the models and rest poses `assets build` makes,
    before the vignettes build the models of the scenes' other looks beside them)."""
    tmp = tmp_path_factory.mktemp("clean")
    cache, assets = tmp / "cache", tmp / "assets"
    assert (made := build(cache, assets)).returncode == 0, made.stderr
    kept = cache / "tabletest"
    models, poses = {p.name: p.read_bytes() for p in assets.glob("*.glb")}, sorted((kept / "rest-poses").iterdir())
    assert (made := vignettes(cache, assets, tmp / "vignettes.jsonl")).returncode == 0, made.stderr
    return SimpleNamespace(
        cache=cache, assets=assets, vignettes=(tmp / "vignettes.jsonl").read_bytes(), models=models, poses=poses,
        columns=sorted((kept / "columns").iterdir()), verdicts=sorted((kept / "verdicts").iterdir()),
        footprints=sorted((kept / "footprints").iterdir()),
    )  # fmt: skip


def spoiled_copy(clean: SimpleNamespace, tmp_path: Path) -> Path:
    """A copy of the clean cache to spoil (XDG_CACHE_HOME)."""
    return Path(shutil.copytree(clean.cache, tmp_path / "cache"))


def one_line_refusal(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stdout + result.stderr
    assert result.stderr.startswith("error: ")
    return result.stderr


def a_file_at(path: Path) -> Path:
    """Put a file of someone's where the cache keeps a folder (whatever that folder held is moved away)."""
    if path.is_dir():
        shutil.rmtree(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("not yours to replace\n")
    return path


def a_folder_at(path: Path) -> Path:
    """Put a folder, holding a file of someone's, where the cache keeps an entry (a file)."""
    path.unlink(missing_ok=True)
    (path / "keep.txt").parent.mkdir(parents=True)
    (path / "keep.txt").write_text("not yours to replace\n")
    return path


CACHE_MOVE = "move it aside, or set XDG_CACHE_HOME to another folder"
# case -> (what stands in the way, given the clean entries and the spoiled cache; the command that meets it first)
IN_THE_WAY = {
    "tabletest-is-a-file": (lambda c, cache: a_file_at(cache / "tabletest"), build),
    "rest-poses-is-a-file": (lambda c, cache: a_file_at(cache / "tabletest" / "rest-poses"), build),
    "columns-is-a-file": (lambda c, cache: a_file_at(cache / "tabletest" / "columns"), vignettes),
    "verdicts-is-a-file": (lambda c, cache: a_file_at(cache / "tabletest" / "verdicts"), vignettes),
    "a-rest-pose-is-a-folder": (lambda c, cache: a_folder_at(cache / "tabletest" / "rest-poses" / c.poses[0].name), build),
    "a-columns-entry-is-a-folder": (lambda c, cache: a_folder_at(cache / "tabletest" / "columns" / c.columns[0].name), vignettes),
    "a-verdict-is-a-folder": (lambda c, cache: a_folder_at(cache / "tabletest" / "verdicts" / c.verdicts[0].name), vignettes),
    "footprints-is-a-file": (lambda c, cache: a_file_at(cache / "tabletest" / "footprints"), vignettes),
    "a-footprint-is-a-folder": (lambda c, cache: a_folder_at(cache / "tabletest" / "footprints" / c.footprints[0].name), vignettes),
}


def output_of(command, clean: SimpleNamespace, cache: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    if command is build:
        return build(cache, tmp_path / "assets")
    return vignettes(cache, clean.assets, tmp_path / "vignettes.jsonl")


def still_there(path: Path) -> bool:
    kept = path / "keep.txt" if path.is_dir() else path
    return kept.read_text() == "not yours to replace\n"


@pytest.mark.parametrize("case", IN_THE_WAY)
def test_a_file_where_the_cache_keeps_a_folder_or_the_reverse_is_one_line(clean, tmp_path, case):
    spoil, command = IN_THE_WAY[case]
    cache = spoiled_copy(clean, tmp_path)
    blocker = spoil(clean, cache)
    refused = one_line_refusal(output_of(command, clean, cache, tmp_path))
    said = "is a folder where TableTest's cache keeps a file" if blocker.is_dir() else "is not a folder, so TableTest's cache"
    assert f"error: {blocker} {said}" in refused and refused.endswith(f"; {CACHE_MOVE}\n"), refused
    assert still_there(blocker) and not (tmp_path / "vignettes.jsonl").exists()
    assert not (tmp_path / "assets").exists()  # refused before any model is built: no model file, no manifest


def test_a_folder_at_any_models_rest_pose_is_refused_before_the_first_model_is_built(clean, tmp_path):
    """Which rest poses a build writes is known only once it has built each model (they are named by its
    triangles), whichever model comes first on this machine: every entry's name is checked before any."""
    cache = spoiled_copy(clean, tmp_path)
    for pose in clean.poses:
        blocker = a_folder_at(cache / "tabletest" / "rest-poses" / pose.name)
        refused = one_line_refusal(build(cache, tmp_path / "assets"))
        assert f"error: {blocker} is a folder where TableTest's cache keeps a file; {CACHE_MOVE}\n" == refused
        assert still_there(blocker) and not (tmp_path / "assets").exists()
        shutil.rmtree(blocker)


@pytest.mark.render
@pytest.mark.parametrize("where", ["cache-home", "models"])
def test_a_render_refuses_a_cache_it_could_not_keep_models_in_before_any_work(clean, tmp_path, where):
    """XDG_CACHE_HOME a file, or the folder of Blender's imported models one: once failed every image in
    the workers, which keep those models."""
    cache = spoiled_copy(clean, tmp_path)
    blocker = a_file_at(tmp_path / "home-file") if where == "cache-home" else a_file_at(cache / "tabletest" / "models")
    out = tmp_path / "out"
    refused = one_line_refusal(render(blocker if where == "cache-home" else cache, clean.assets, out))
    assert f"error: {blocker} is not a folder, so TableTest's cache " in refused and refused.endswith(f"; {CACHE_MOVE}\n"), refused
    assert still_there(blocker) and not worker_pids(out) and not out.exists()


@pytest.mark.render
def test_composite_mode_refuses_a_layer_cache_in_the_way_before_rendering_a_layer(clean, tmp_path):
    """The layer cache a file, then (once it holds a layer set) a layer's entry a folder: each once a
    traceback, or a failure of every image."""
    cache = spoiled_copy(clean, tmp_path)
    layers = a_file_at(cache / "tabletest" / "layers")
    refused = one_line_refusal(composite(cache, clean.assets, tmp_path / "first"))
    assert f"error: {layers} is not a folder, so the layer cache {layers}/" in refused, refused
    assert refused.endswith("; move it aside, or give --layer-cache another folder\n") and still_there(layers)

    layers.unlink()
    assert (made := composite(cache, clean.assets, tmp_path / "second")).returncode == 0, made.stderr
    (layer_set,) = (p for p in layers.iterdir() if p.is_dir())
    entry = layer_set / "background.json"
    a_folder_at(entry)
    refused = one_line_refusal(composite(cache, clean.assets, tmp_path / "third"))
    assert f"error: {entry} is a folder where TableTest's cache keeps a file; move it aside" in refused, refused
    assert still_there(entry) and not worker_pids(tmp_path / "third")
    assert len(list((tmp_path / "second" / "images").iterdir())) == 1  # what the run before made is kept


def npz(**arrays) -> bytes:
    data = io.BytesIO()
    np.savez(data, **arrays)
    return data.getvalue()


GRID = np.zeros((3, 3))
REST_POSES = {  # a rest pose kept as anything but null or [tilt, azimuth] in range
    "an object": '{"tilt": 10}\n', "one number": "[12.5]\n", "strings": '["12.5", "90"]\n', "NaN": "[NaN, 90.0]\n",
    "a boolean": "true\n", "cut short": "[12.5, 9", "past a float": "[1e400, 0]\n", "past a turn": "[500.0, 0.0]\n",
}  # fmt: skip
FOOTPRINTS = {  # a footprint kept as anything but null or [turn, x, y, along, across], finite, sized, turned at most 45°
    "an object": '{"turn": 10}\n', "four numbers": "[1, 0, 0, 0.1]\n", "strings": '["1", "0", "0", "0.1", "0.1"]\n',
    "NaN": "[NaN, 0, 0, 0.1, 0.1]\n", "no size": "[10, 0, 0, 0, 0.1]\n", "past a turn": "[90, 0, 0, 0.1, 0.1]\n",
    "cut short": "[10, 0, ", "a boolean": "true\n",
}  # fmt: skip
COLUMNS = {  # a model's columns kept as anything but two float grids of one shape and three finite numbers
    "x0 an array": npz(x0=np.array([1.0, 2.0]), y0=0.0, cell=0.002, bottom=GRID, top=GRID),
    "strings": npz(x0=0.0, y0=0.0, cell=0.002, bottom=GRID.astype(str), top=GRID.astype(str)),
    "grids of two shapes": npz(x0=0.0, y0=0.0, cell=0.002, bottom=np.zeros((3, 3)), top=np.zeros((3, 4))),
    "cut short": None,  # the entry's own first 100 bytes
}


def test_rest_poses_of_another_shape_are_found_again_never_trusted(clean, tmp_path):
    assert len(clean.poses) >= 4, clean.poses
    cache = spoiled_copy(clean, tmp_path)
    spoils = list(REST_POSES.values())
    for round_ in range(0, len(spoils), len(clean.poses)):
        for kept, spoil in zip(clean.poses, spoils[round_:]):
            (cache / "tabletest" / "rest-poses" / kept.name).write_text(spoil)
        out = tmp_path / f"assets-{round_}"
        made = build(cache, out)
        assert made.returncode == 0 and "Traceback" not in made.stderr, made.stderr
        assert {p.name: p.read_bytes() for p in out.glob("*.glb")} == clean.models  # posed as if never kept
        for kept in clean.poses:  # and kept whole again
            assert (cache / "tabletest" / "rest-poses" / kept.name).read_bytes() == kept.read_bytes()


def same_columns(a: Path, b: Path) -> bool:
    with np.load(a) as x, np.load(b) as y:
        return x.files == y.files and all(np.array_equal(x[k], y[k], equal_nan=True) for k in x.files)


def same_bytes(a: Path, b: Path) -> bool:
    return a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize(("folder", "spoils", "same"), [("columns", COLUMNS, same_columns), ("footprints", FOOTPRINTS, same_bytes)])
def test_measures_of_another_shape_are_measured_again_never_trusted(clean, tmp_path, folder, spoils, same):
    """A model's columns or footprint kept spoiled: the vignettes are placed and measured as if never kept, and
    each entry is written whole again."""
    entries = getattr(clean, folder)
    assert len(entries) >= 4, entries
    cache = spoiled_copy(clean, tmp_path)
    spoiled = list(spoils.values())
    for round_ in range(0, len(spoiled), len(entries)):
        for kept, spoil in zip(entries, spoiled[round_:]):
            spoil = kept.read_bytes()[:100] if spoil is None else spoil
            (cache / "tabletest" / folder / kept.name).write_bytes(spoil if isinstance(spoil, bytes) else spoil.encode())
        out = tmp_path / f"vignettes-{round_}.jsonl"
        made = vignettes(cache, clean.assets, out)
        assert made.returncode == 0 and "Traceback" not in made.stderr, made.stderr
        assert out.read_bytes() == clean.vignettes
        assert all(same(cache / "tabletest" / folder / kept.name, kept) for kept in entries)
