"""Hostile loads that must end on their own: a random config no scene fits, refused after a bounded work
however its objects are arranged; and a merge killed with -9, whose image checks must not outlive it."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tabletest.assets.builtin.build import build_assets
from tabletest.assets.manifest import load_manifest
from tabletest.config import load_catalog, load_config
from tabletest.errors import UserError
from tabletest.layout.arrangements import COLUMN_TEST, SLIDE_STEPS, Pose, Shape, column_cost, slide_to
from tabletest.layout.random_config import load_random_config
from tabletest.layout.random_scene import WORK_BUDGET, Work, sample_scene
from tabletest.layout.random_set import make_random_set

from conftest import REPO, one_look_random_data, run_cli
from test_merge import NAMES, big_parts
from processes import alive, descendants

TOP = load_config().table.height_m
RES = (512, 384)
REFUSED = "did not fit after 1,000,000 placement tests"


@pytest.fixture(scope="module")
def touching_everywhere(tmp_path_factory) -> Path:
    """Six objects on a 0.3 x 0.2 m area, each after the first slid to touch a neighbour: no scene fits.
    With a slide charged as one test, it ran ~16,000 slides (~250,000 column tests, a minute or more) before refusing."""
    data = one_look_random_data(count=[6, 6])  # each object in its catalog model: the models the test gives
    data["placement"].update(area_m=[0.3, 0.2], attempts=500, redraws=1000)
    data["arrangements"].update(stack=0, contain=0, touch=1)
    path = tmp_path_factory.mktemp("hostile") / "touching.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_its_slides_are_charged_what_they_cost_so_their_number_is_bounded(touching_everywhere, builtin_assets):
    """The work meter counts the column tests made: each costs at least `COLUMN_TEST` flat tests, so a refused
    scene made at most WORK_BUDGET / COLUMN_TEST of them, however many draws the config allows."""
    config = load_random_config(touching_everywhere)
    entries = load_manifest(builtin_assets).objects
    random_set = make_random_set(load_catalog(), config, 0, 1, None, None, None, None)
    shapes = random_set.contact(entries, builtin_assets).shapes
    sizes = {name: entry.size_m for name, entry in entries.items()}
    work = Work(0)
    with pytest.raises(UserError, match=REFUSED) as refused:
        sample_scene(config, random_set.pool, sizes, 0, 0, TOP, 36.0, RES, shapes, work)
    assert str(refused.value).startswith(f"random scene 0 {REFUSED}: ") and "\n" not in str(refused.value)  # `error: ` + this line
    assert work.column_tests > 1000  # the slides were tried, and charged
    assert work.spent >= work.column_tests * COLUMN_TEST
    assert work.column_tests <= WORK_BUDGET // COLUMN_TEST


def test_a_slide_charges_each_column_test_before_it_runs(builtin_assets):
    entries = load_manifest(builtin_assets).objects
    apple, mug = (Shape(entries[n].size_m, str(builtin_assets / entries[n].file), entries[n].sha256) for n in ("apple", "mug"))
    work = Work(0)
    pose = slide_to(apple, 0.0, TOP, mug, Pose(0.0, 0.0, TOP, 0.0), random.Random(0).uniform(0, 360), work.column_test)
    assert pose is not None
    assert work.column_tests == 1 + SLIDE_STEPS and work.spent == work.column_tests * column_cost(apple)
    assert column_cost(apple) >= COLUMN_TEST


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """One real render at 320 x 240 (a PNG that takes milliseconds to decode), to make big parts of."""
    root = tmp_path_factory.mktemp("template")
    assets = root / "assets"
    build_assets(load_catalog(), assets, list(NAMES), jobs=1)
    out = root / "part"
    result = run_cli("render", "--out", str(out), "--assets", str(assets), "--only", ",".join(NAMES), "--objects", "2", "--limit", "1",
                     "--resolution", "320x240", "--samples", "1", "--device", "cpu", "--quiet")  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out


@pytest.mark.render
def test_a_merge_killed_with_minus_9_leaves_no_image_checker_behind(tmp_path, template):
    """2,000 images to decode-check take the merge's pool seconds; killed meanwhile, the merge cannot stop
    it, so each checking process must see its owner gone and exit by itself."""
    big = big_parts(tmp_path, template)
    command = [sys.executable, "-m", "tabletest.cli", "merge", *map(str, big), "--out", str(tmp_path / "merged"), "--jobs", "2"]
    proc = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pool: set[int] = set()
    try:
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None and len(pool) < 2:
            pool = descendants(proc.pid)  # the checking processes, once the pool has started them
            time.sleep(0.01)
        time.sleep(0.2)  # every checker started, the check well under way
        pool = descendants(proc.pid)
        assert proc.poll() is None and len(pool) >= 2, "the merge ended before its image checks could be caught"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert not (tmp_path / "merged" / ".merge.json").exists()  # killed during the check, before any writing
        deadline = time.time() + 10
        while time.time() < deadline and any(alive(pid) for pid in pool):
            time.sleep(0.1)
        assert not [pid for pid in pool if alive(pid)]
    finally:  # on failure, leave nothing running on the machine
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in pool:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
