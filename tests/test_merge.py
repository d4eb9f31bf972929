"""`tabletest merge`: shard folders of real renders in, one dataset out; refusals name the problem."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog

from conftest import REPO, run_cli

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

NAMES = ("mug", "wine bottle", "lamp")
TINY = ["--resolution", "32x24", "--samples", "1", "--device", "cpu", "--quiet"]


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    build_assets(load_catalog(), folder, list(NAMES), jobs=1)
    return folder


@pytest.fixture(scope="module")
def parts(tmp_path_factory, assets) -> list[Path]:
    """The 6 two-object scenes of three models, rendered as shards 0/2 and 1/2 (3 images each)."""
    root = tmp_path_factory.mktemp("merge")
    folders = []
    for i in range(2):
        out = root / "parts" / f"shard-{i:04d}-of-0002"
        result = run_cli("render", "--out", str(out), "--assets", str(assets), "--only", ",".join(NAMES),
                         "--objects", "2", "--shard", f"{i}/2", *TINY)
        assert result.returncode == 0, result.stderr
        folders.append(out)
    return folders


def lines(folder: Path) -> list[str]:
    return (folder / "metadata.jsonl").read_text().splitlines()


def merge(*args) -> subprocess.CompletedProcess:
    return run_cli("merge", *map(str, args))


def test_merge_sorts_the_records_links_the_images_and_keeps_every_history(tmp_path, parts):
    full = tmp_path / "full"
    result = merge(parts[1], parts[0], "--out", full)  # argument order does not matter
    assert result.returncode == 0, result.stderr
    assert "6 images (6 hard-linked)" in result.stderr
    merged = lines(full)
    assert sorted(merged) == sorted(lines(parts[0]) + lines(parts[1]))
    assert [json.loads(line)["index"] for line in merged] == sorted(json.loads(line)["index"] for line in merged)
    for line in merged:
        name = json.loads(line)["file_name"]
        owner = next(p for p in parts if (p / name).exists())
        assert os.path.samefile(full / name, owner / name)
    runs = json.loads((full / "run.json").read_text())["runs"]
    assert [run.get("part") for run in runs[:-1]] == [p.name for p in parts]
    assert [run["command"]["selection"]["shard"] for run in runs[:-1]] == ["0/2", "1/2"]
    assert runs[-1]["command"] == "merge" and runs[-1]["images"] == 6 and runs[-1]["parts"] == [p.name for p in parts]
    assert json.loads((full / "settings.json").read_text()) == json.loads((parts[0] / "settings.json").read_text())
    before = dataset_files(full)
    again = merge(*parts, "--out", full)
    assert again.returncode == 0 and "6 already in place" in again.stderr
    assert dataset_files(full) == before


def dataset_files(folder: Path) -> dict[str, bytes]:
    """Every file of a dataset folder but its lock (which names the last holder)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file() and p.name != ".tabletest.lock"}


def broken_copy(tmp_path: Path, part: Path, change) -> Path:
    copy = tmp_path / part.name
    shutil.copytree(part, copy)
    change(copy)
    return copy


def edit_run(folder: Path, edit) -> None:
    data = json.loads((folder / "run.json").read_text())
    edit(data["runs"][-1])
    (folder / "run.json").write_text(json.dumps(data))


def edit_settings(folder: Path, edit) -> None:
    settings = json.loads((folder / "settings.json").read_text())
    edit(settings)
    (folder / "settings.json").write_text(json.dumps(settings))


def edit_record(folder: Path, line: int, edit) -> None:
    """Line `line` (from 1) of a part's metadata.jsonl changed by `edit`, the other lines as they were."""
    records = [json.loads(text) for text in lines(folder)]
    edit(records[line - 1])
    (folder / "metadata.jsonl").write_text("".join(json.dumps(record) + "\n" for record in records))


def first_image(folder: Path) -> Path:
    return folder / json.loads(lines(folder)[0])["file_name"]


# A part's run.json damaged in each way a merge must name in one line.
DAMAGED_HISTORIES = {
    "list": ("[]", "run.json is not a run history"),
    "empty-object": ("{}", "is not finished (its last run is unknown)"),
    "no-runs": ('{"runs": []}', "is not finished (its last run is unknown)"),
    "run-not-object": ('{"runs": [1]}', "run.json is not a run history"),
    "runs-not-list": ('{"runs": {"status": "complete"}}', "run.json is not a run history"),
    "no-command": ('{"runs": [{"status": "complete"}]}', "does not say what it selected (no command.selection)"),
    "command-string": ('{"runs": [{"status": "complete", "command": "render"}]}', "does not say what it selected"),
    "selection-list": ('{"runs": [{"status": "complete", "command": {"selection": []}}]}', "does not say what it selected"),
    "truncated": ('{"runs": [{"status"', "run.json is damaged"),
    "not-utf8": (b"\xff\xfe{}", "run.json is damaged"),
}


def write_history(folder: Path, history: str | bytes) -> None:
    path = folder / "run.json"
    if isinstance(history, bytes):
        path.write_bytes(history)
    else:
        path.write_text(history)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda f: edit_settings(f, lambda s: s["config"]["render"].update(samples=64)), "different settings (config.render.samples: 1 → 64)"),
        (lambda f: edit_run(f, lambda r: r["command"]["selection"].update(limit=2)), "select different scenes (--limit)"),
        (lambda f: edit_run(f, lambda r: r.update(status="interrupted")), "is not finished (its last run is interrupted)"),
        (lambda f: first_image(f).unlink(), "image(s) missing: "),
        (lambda f: first_image(f).write_bytes(first_image(f).read_bytes()[:300]), "image(s) that do not decode: "),
        (lambda f: (f / "metadata.jsonl").write_text("\n".join(lines(f)[1:]) + "\n"), "lacks 2obj-"),
        (lambda f: (f / "metadata.jsonl").write_text(lines(f)[0].replace('"images/', '"../../') + "\n" + "\n".join(lines(f)[1:]) + "\n"),
         "names its files ../../"),
        *((lambda f, h=history: write_history(f, h), message) for history, message in DAMAGED_HISTORIES.values()),
        (lambda f: edit_record(f, 2, lambda r: r["render"].update(resolution=[64, 48])),
         "metadata.jsonl line 2 was made with other settings than its settings.json (config.render.resolution: [32, 24] → [64, 48])"),
        (lambda f: edit_record(f, 1, lambda r: r.update(mask_file_name=f"masks/{r['id']}.png")),
         "metadata.jsonl line 1 was made with other settings than its settings.json (masks: false → true)"),
        (lambda f: (f / "metadata.jsonl").write_text(lines(f)[0].replace('"index": ', '"index": 1' + "0" * 5000 + ", \"was\": ", 1) + "\n" + "\n".join(lines(f)[1:]) + "\n"),
         "metadata.jsonl: line 1: index is an integer of 5001 digits"),
        (lambda f: (f / "metadata.jsonl").write_text("[1, 2]\n" + "\n".join(lines(f)) + "\n"), "metadata.jsonl: line 1 is not a JSON object"),
        (lambda f: (f / "metadata.jsonl").write_text(lines(f)[0].replace('"index": ', '"index": NaN, "was": ', 1) + "\n" + "\n".join(lines(f)[1:]) + "\n"),
         "metadata.jsonl: line 1: index is NaN"),
    ],
    ids=["settings", "selection", "unfinished", "missing-image", "undecodable", "missing-id", "file-outside", *DAMAGED_HISTORIES,
         "record-resolution", "record-masks", "huge-integer", "not-an-object", "nan"],
)
def test_bad_parts_are_refused_by_name_and_nothing_is_written(tmp_path, parts, change, message):
    bad = broken_copy(tmp_path, parts[1], change)
    result = merge(parts[0], bad, "--out", tmp_path / "full")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert not (tmp_path / "full").exists()


@pytest.fixture(scope="module")
def random_part(tmp_path_factory, assets) -> Path:
    """A random set of two scenes, rendered whole: a part of one."""
    out = tmp_path_factory.mktemp("random") / "part"
    result = run_cli("render", "--scenes", "random", "--count", "2", "--seed", "3", "--only", ",".join(NAMES),
                     "--assets", str(assets), "--out", str(out), *TINY)
    assert result.returncode == 0, result.stderr
    return out


def test_a_part_whose_records_are_of_another_random_set_than_its_settings_is_refused(tmp_path, random_part):
    """settings.json pins the set (the random config's digest and the seed); a record of another set among
    the part's own is named by its line, whatever run.json says. The part as rendered merges."""
    whole = merge(random_part, "--out", tmp_path / "whole")
    assert whole.returncode == 0, whole.stderr
    for key, value, shown in (("seed", 4, "scenes.seed: 3 → 4"), ("config_sha256", "0" * 64, "scenes.config_sha256: ")):
        bad = broken_copy(tmp_path / key, random_part, lambda f: edit_record(f, 2, lambda r: r["scene"].update({key: value})))
        result = merge(bad, "--out", tmp_path / "full")
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith(f"error: part {bad}: metadata.jsonl line 2 was made with other settings than its settings.json (")
        assert shown in result.stderr and "rerender that part" in result.stderr
        assert not (tmp_path / "full").exists()


def test_overlapping_and_missing_shards_are_named(tmp_path, parts):
    twin = tmp_path / "twin"
    shutil.copytree(parts[0], twin)
    overlap = merge(parts[0], twin, parts[1], "--out", tmp_path / "a")
    first = json.loads(lines(parts[0])[0])["id"]
    assert overlap.returncode == 2 and f"error: {first} is in two parts" in overlap.stderr
    missing = merge(parts[0], "--out", tmp_path / "b")
    assert missing.returncode == 2 and "shard(s) 1/2 missing" in missing.stderr


def test_a_folder_with_another_dataset_is_refused(tmp_path, parts):
    other = tmp_path / "other"
    (other / "images").mkdir(parents=True)
    (other / "images" / "x.png").write_bytes(b"x")
    result = merge(*parts, "--out", other)
    assert result.returncode == 2 and f"error: --out {other} already holds another dataset" in result.stderr
    assert (other / "images" / "x.png").read_bytes() == b"x"


def test_a_merge_under_way_of_other_parts_is_not_finished_with_these(tmp_path, parts):
    """`.merge.json` of an interrupted merge of other content (or a damaged one) does not make `--out` ours."""
    full = tmp_path / "full"
    assert merge(*parts, "--out", full).returncode == 0
    before = dataset_files(full)
    for marker in ('{"parts": [], "fingerprint": "0000"}', "{not json", "[]", '{"parts": %s}' % json.dumps([str(p.resolve()) for p in parts])):
        (full / ".merge.json").write_text(marker)
        result = merge(*parts, "--out", full)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, (marker, result.stderr)
        assert "already holds another dataset" in result.stderr
        assert dataset_files(full) == {**before, ".merge.json": marker.encode()}


def test_an_out_that_is_not_a_folder_is_refused_and_left_alone(tmp_path, parts):
    regular = tmp_path / "dataset.tar"
    regular.write_bytes(b"keep me")
    for out in (regular, Path("/dev/null")):
        result = merge(*parts, "--out", out)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert f"error: --out {out} is not a folder" in result.stderr
    assert regular.read_bytes() == b"keep me"


@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 KiB file system of its own (tmpfs), for a disk that fills up or is read-only."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True).returncode:
        pytest.fail("these tests mount a tmpfs: run them as root (the CI container is)")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=True)


def test_a_merge_onto_a_full_disk_names_the_destination(tiny_disk, parts):
    big = tiny_disk.parent / "big"
    shutil.copytree(parts[0], big / "p0")
    shutil.copytree(parts[1], big / "p1")
    padding = b"\0" * 60_000  # the 3-image parts fit in 64 KiB; fatter images do not
    for part in big.iterdir():
        for png in (part / "images").iterdir():
            png.write_bytes(png.read_bytes() + padding)  # a PNG decodes with bytes after its end
    result = merge(big / "p0", big / "p1", "--out", tiny_disk / "full")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: the disk is full at {tiny_disk / 'full'}"), result.stderr


def test_a_read_only_file_system_is_one_line(tiny_disk, parts):
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_disk)], check=True)
    for command in (("merge", *parts, "--out", tiny_disk / "full"), ("export", "--dataset", parts[0], "--format", "llava", "--out", tiny_disk / "x")):
        result = run_cli(*map(str, command))
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith("error: the file system is read-only at ") and str(tiny_disk) in result.stderr


def big_parts(root: Path, template: Path) -> list[Path]:
    """Shards 0/2 and 1/2 of the two-object scenes, 1,000 each, made from one real part's files (a merge's input)."""
    record = json.loads(lines(template)[0])
    png = first_image(template).read_bytes()
    folders = []
    for i in range(2):
        folder = root / f"big-{i}"
        (folder / "images").mkdir(parents=True)
        for name in ("run.json", "settings.json"):
            if (template / name).exists():
                shutil.copy(template / name, folder / name)
        edit_run(folder, lambda r: r["command"]["selection"].update(only=None, shard=f"{i}/2", limit=1000))
        with open(folder / "metadata.jsonl", "w") as fh:
            for index in range(i, 2000, 2):
                sid = f"2obj-{index:06d}"
                (folder / "images" / f"{sid}.png").write_bytes(png)
                fh.write(json.dumps({**record, "id": sid, "index": index, "file_name": f"images/{sid}.png"}) + "\n")
        folders.append(folder)
    return folders


def test_kill_9_mid_merge_then_rerun_gives_the_same_folder(tmp_path, parts):
    big = big_parts(tmp_path, parts[0])
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    assert merge(*big, "--out", clean).returncode == 0
    command = [sys.executable, "-m", "tabletest.cli", "merge", *map(str, big), "--out", str(killed)]
    proc = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        images = killed / "images"
        if images.is_dir() and sum(1 for _ in images.iterdir()) > 200:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the merge finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (killed / ".merge.json").exists() and not (killed / "metadata.jsonl").exists()
    result = merge(*big, "--out", killed)
    assert result.returncode == 0, result.stderr
    assert "already in place" in result.stderr
    for name in ("metadata.jsonl", "run.json"):
        assert (killed / name).read_bytes() == (clean / name).read_bytes()
    assert sorted(p.name for p in (killed / "images").iterdir()) == sorted(p.name for p in (clean / "images").iterdir())
    assert not (killed / ".merge.json").exists()


def test_across_file_systems_the_images_are_copied_and_run_json_says_so(parts):
    """/dev/shm is another file system than the parts' (a hard link cannot cross it)."""
    import tempfile

    with tempfile.TemporaryDirectory(dir="/dev/shm") as shm:
        full = Path(shm) / "full"
        result = merge(*parts, "--out", full)
        assert result.returncode == 0, result.stderr
        assert "6 copied (another file system)" in result.stderr
        assert json.loads((full / "run.json").read_text())["runs"][-1]["files"].startswith("copies")
        for line in lines(full):
            name = json.loads(line)["file_name"]
            owner = next(p for p in parts if (p / name).exists())
            assert (full / name).read_bytes() == (owner / name).read_bytes() and not os.path.samefile(full / name, owner / name)
