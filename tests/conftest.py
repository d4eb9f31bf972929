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
# a file's expected seconds, measured (`scripts/test.sh --durations=0`, one quiet 2-core run, both lanes side by side,
# the second lane's figures divided by its pace), or TEST_S per test function for a file not listed (a new one);
# read from the files themselves, so every lane shares them out alike whatever it collects
TEST_S = 0.7
MEASURED_S = {
    "test_arrangements.py": 108, "test_record_trust.py": 95, "test_footprint.py": 90, "test_grounding.py": 135, "test_balance.py": 74, "test_composite.py": 80,
    "test_random_render.py": 76, "test_render.py": 75, "test_slurm.py": 70, "test_merge.py": 61, "test_export.py": 60,
    "test_pairs_and_views.py": 52, "test_new_family.py": 75, "test_change_costs.py": 48, "test_dataset_guard.py": 48, "test_verify_tampering.py": 47,
    "test_hostile_show.py": 46, "test_hostile_writes.py": 59, "test_multi_image_exports.py": 42, "test_counting_and_wording.py": 42,
    "test_show.py": 31, "test_random_layout.py": 30, "test_questions_score.py": 30, "test_hostile_cache.py": 30,
    "test_verify.py": 29, "test_gallery.py": 29, "test_hostile_values.py": 24, "test_nouns.py": 23,
    "test_render_startup.py": 23, "test_schema.py": 23, "test_cli_foundation.py": 22, "test_assets_builtin.py": 22,
    "test_gpu_box.py": 21, "test_hostile_readers.py": 21, "test_looks.py": 150, "test_render_pace.py": 21, "test_farm.py": 20,
    "test_hostile_budget.py": 14, "test_questions.py": 14, "test_layer_cache_disk.py": 13, "test_validation.py": 13,
    "test_questions_export.py": 12, "test_objaverse_cli.py": 12, "test_score_report.py": 11, "test_prompts.py": 11,
    "test_model_limits.py": 11, "test_camera_motion.py": 10, "test_docs.py": 7, "test_objaverse_fetch.py": 7,
    "test_import.py": 6, "test_recipes_kitchen_tool_misc_toy.py": 5,
    "test_rest_poses.py": 3, "test_exposure.py": 3, "test_questions_observers.py": 3, "test_shared_cause.py": 2,
    "test_shard_auto.py": 2, "test_families.py": 6, "test_truth.py": 2, "test_typed_records.py": 2, "test_layout.py": 2,
    "test_recipes_electronics_home.py": 2, "test_config.py": 1, "test_score_quantities.py": 1,
    "test_question_wording.py": 1, "test_score_parse.py": 0, "test_placement.py": 0, "test_composite_parts.py": 0,
    "test_model_columns.py": 0, "test_lmms_oracle.py": 0,
}  # fmt: skip


@functools.cache
def lane_files(lane: str, pace: str = "") -> set[str]:
    """The test files lane "I/N" (scripts/test.sh's TABLETEST_LANE) runs: each file goes, slowest first, to the
    lane expected to end first (`MEASURED_S`, `TEST_S`, each lane's time by its `pace`, TABLETEST_LANE_PACE: "1,1.11"
    where the second lane's Python runs the same tests about 11 % slower), so the lanes take about as long and each
    file runs once."""
    index, count = (int(part) for part in lane.split("/"))
    paces = [float(p) for p in pace.split(",")] if pace else [1.0] * count
    expected = {
        path.name: MEASURED_S.get(path.name, TEST_S * path.read_text(encoding="utf-8").count("\ndef test_"))
        for path in Path(__file__).parent.glob("test_*.py")
    }
    lanes: list[set[str]] = [set(EVERY_LANE) for _ in range(count)]
    load = [0.0] * count
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
