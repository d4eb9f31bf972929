"""Shared test helpers: run the real `tabletest` command in a subprocess."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO / "scripts"))  # the physics check (scripts/physics.py) the benchmark scripts and these tests share
RENDER_EXTRA = all(importlib.util.find_spec(module) for module in ("bpy", "OpenEXR"))


# scripts/test.sh runs one lane per Python, side by side, and the lanes share the suite: each test file runs
# in one lane, chosen to even out the lanes' time, but for `EVERY_LANE` (what differs between Pythons without
# Blender, and every render path once, tiny, on each Blender), which each runs, and `FIRST_LANES`: the SLURM tests,
# which run where the first lane starts its one-node cluster, and the GRPO run, which needs the CPU torch that
# Python 3.11's lane installs.
EVERY_LANE = ("test_without_bpy.py", "test_floors.py", "test_every_blender.py")
FIRST_LANES = ("test_slurm.py", "test_grpo.py")  # the first lane's Python (3.11) has SLURM and TRL's CPU torch
FIRST_LANE_SETUP_S = 60  # what the first lane does before its tests that the others do not: install SLURM, and TRL's torch
# a file's expected seconds, measured (`scripts/test.sh --durations=0`, one quiet 2-core run, both lanes side by side,
# the second lane's figures divided by its pace), or TEST_S per test function for a file not listed (a new one);
# read from the files themselves, so every lane shares them out alike whatever it collects
TEST_S = 0.7
MEASURED_S = {
    "test_arrangements.py": 133, "test_composite.py": 93, "test_record_trust.py": 88, "test_pairs_and_views.py": 85,
    "test_looks.py": 84, "test_balance.py": 79, "test_render.py": 76, "test_slurm.py": 74, "test_rewards.py": 71,
    "test_random_render.py": 70, "test_export.py": 63, "test_hostile_show.py": 56, "test_dataset_guard.py": 52,
    "test_verify_tampering.py": 45, "test_hostile_writes.py": 44, "test_merge.py": 43,
    "test_counting_and_wording.py": 40, "test_grounding.py": 39, "test_verify.py": 37, "test_hostile_cache.py": 35,
    "test_multi_image_exports.py": 34, "test_random_layout.py": 33, "test_schema.py": 33, "test_sequences.py": 33,
    "test_gallery.py": 32, "test_camera_motion.py": 29, "test_nouns.py": 28, "test_questions_score.py": 28,
    "test_questions_export.py": 27, "test_show.py": 27, "test_new_family.py": 24, "test_hostile_readers.py": 23,
    "test_render_startup.py": 23, "test_without_bpy.py": 23, "test_every_blender.py": 22, "test_render_pace.py": 21,
    "test_questions.py": 20, "test_cli_foundation.py": 19, "test_footprint.py": 19, "test_hostile_values.py": 19,
    "test_assets_builtin.py": 18, "test_gpu_box.py": 18, "test_grpo.py": 17, "test_hostile_budget.py": 17,
    "test_layer_cache_disk.py": 15, "test_farm.py": 14, "test_validation.py": 14, "test_model_limits.py": 13,
    "test_objaverse_cli.py": 13, "test_one_judge.py": 13, "test_prompts.py": 12, "test_score_report.py": 11,
    "test_views.py": 11, "test_import.py": 9, "test_docs.py": 8, "test_change_costs.py": 7,
    "test_objaverse_fetch.py": 7, "test_rest_poses.py": 6, "test_exposure.py": 5, "test_facing.py": 5,
    "test_questions_observers.py": 4, "test_floors.py": 3, "test_layout.py": 3,
    "test_recipes_kitchen_tool_misc_toy.py": 3, "test_shared_cause.py": 3, "test_config.py": 2,
    "test_score_quantities.py": 2, "test_shard_auto.py": 2, "test_truth.py": 2, "test_typed_records.py": 2,
    "test_question_wording.py": 1, "test_recipes_electronics_home.py": 1, "test_view_correspondence.py": 1,
    "test_composite_parts.py": 0, "test_families.py": 0, "test_lmms_oracle.py": 0, "test_model_columns.py": 0,
    "test_placement.py": 0, "test_score_parse.py": 0,
}  # fmt: skip


@functools.cache
def lane_files(lane: str, pace: str = "") -> set[str]:
    """The test files lane "I/N" (scripts/test.sh's TABLETEST_LANE) runs: each file goes, slowest first, to the
    lane expected to end first (`MEASURED_S`, `TEST_S`, each lane's time by its `pace`, TABLETEST_LANE_PACE: "1,1.11"
    where the second lane's Python runs the same tests about 11 % slower; the first lane's own set-up counted), so
    the lanes end about together and each file runs once."""
    index, count = (int(part) for part in lane.split("/"))
    paces = [float(p) for p in pace.split(",")] if pace else [1.0] * count
    expected = {
        path.name: MEASURED_S.get(path.name, TEST_S * path.read_text(encoding="utf-8").count("\ndef test_"))
        for path in Path(__file__).parent.glob("test_*.py")
    }
    lanes: list[set[str]] = [set(EVERY_LANE) for _ in range(count)]
    load = [FIRST_LANE_SETUP_S if i == 0 and count > 1 else 0.0 for i in range(count)]
    for name in FIRST_LANES:
        lanes[0].add(name)
        load[0] += paces[0] * expected.get(name, 0)
    for name in sorted(set(expected) - {*EVERY_LANE, *FIRST_LANES}, key=lambda n: (-expected[n], n)):
        first = min(range(count), key=lambda i: load[i] + paces[i] * expected[name])
        lanes[first].add(name)
        load[first] += paces[first] * expected[name]
    return lanes[index - 1]


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """In a lane of scripts/test.sh, the other lanes' test files are not even imported."""
    lane = os.environ.get("TABLETEST_LANE")
    if lane and collection_path.name.startswith("test_") and collection_path.suffix == ".py":
        return collection_path.name not in lane_files(lane, os.environ.get("TABLETEST_LANE_PACE", "")) or None
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Without the render extra, the tests that render are skipped, saying so (the rest still run)."""
    if RENDER_EXTRA:
        return
    skip = pytest.mark.skip(reason="needs the render extra (bpy, OpenEXR): pip install -e '.[render,dev]'")
    for item in items:
        if item.get_closest_marker("render"):
            item.add_marker(skip)


def one_look_random_data(**objects) -> dict:
    """configs/random.yaml's content with `looks` off (every object in its catalog model and its own colours),
    with `objects` keys set (a `None` leaves one out): the random config as the tests that pin exact scenes drew
    them. `looks` off is left out of a config's digest, so these are the scenes the shipped config drew before
    it drew looks."""
    import yaml

    config = yaml.safe_load((REPO / "configs" / "random.yaml").read_text())
    config["looks"] = {"models": 1, "colours": False}
    for key, value in objects.items():
        if value is None:
            config["objects"].pop(key, None)
        else:
            config["objects"][key] = value
    return config


def one_look_random_config(folder: Path, **objects) -> Path:
    """`one_look_random_data` written into `folder`, for `--random-config`."""
    import yaml

    path = folder / "random-one-look.yaml"
    path.write_text(yaml.safe_dump(one_look_random_data(**objects)))
    return path


@pytest.fixture(scope="session")
def one_look(tmp_path_factory) -> Path:
    """The random config with `looks` off, for `--random-config` (see `one_look_random_data`)."""
    return one_look_random_config(tmp_path_factory.mktemp("one-look"))


def looks_config(tmp_path: Path, **looks) -> Path:
    """The shipped random config with `looks` set (`models`, `colours`...), written into `tmp_path`."""
    text = (REPO / "configs" / "random.yaml").read_text()
    head, _, tail = text.partition("looks:")
    rest = tail.split("placement:", 1)[1]
    body = "".join(f"  {key}: {json.dumps(value)}\n" for key, value in looks.items())
    path = tmp_path / "random.yaml"
    path.write_text(f"{head}looks:\n{body}placement:{rest}")
    return path


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tabletest.cli", *args], capture_output=True, text=True, cwd=cwd or REPO, timeout=timeout
    )


@pytest.fixture(scope="session", autouse=True)
def private_user_cache(tmp_path_factory) -> Path:
    """The tests' own user cache (model verdicts, default layer cache), inherited by every subprocess:
    never the machine user's ~/.cache."""
    folder = tmp_path_factory.mktemp("user-cache")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    return folder


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(scope="session")
def builtin_assets(tmp_path_factory) -> Path:
    """All 64 built-in models, built once per test session."""
    from tabletest.assets.builtin.build import build_assets
    from tabletest.config import load_catalog

    folder = tmp_path_factory.mktemp("builtin-assets")
    build_assets(load_catalog(), folder)
    return folder


def copy_with_unloadable_model(assets: Path, folder: Path, name: str) -> Path:
    """A copy of an assets folder in which `name`'s GLB is garbage that its manifest pins and that the
    checks' verdicts accept (as they would a model only Blender chokes on), so only Blender refuses it."""
    import hashlib

    from tabletest.assets import verdicts
    from tabletest.assets.manifest import load_manifest, save_manifest
    from tabletest.config import load_catalog

    garbage = b"glTF but not really"
    folder.mkdir()
    manifest = load_manifest(assets)
    for entry in manifest.objects.values():
        (folder / entry.file).write_bytes((assets / entry.file).read_bytes())
    entry = manifest.objects[name]
    (folder / entry.file).write_bytes(garbage)
    manifest.objects[name] = entry.model_copy(update={"sha256": hashlib.sha256(garbage).hexdigest()})
    save_manifest(folder, manifest)
    verdicts.record(load_catalog().by_name(name), manifest.objects[name].sha256, 0)
    return folder


def worker_pids(out: Path) -> list[int]:
    """Pids of the Blender worker processes rendering into `out`."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if "tabletest.render.worker" in cmd and str(out) in cmd:
                pids.append(int(proc.name))
    return pids
