"""Every reader of a render folder on records that lie and folders not done: a number no record holds (NaN,
an infinity, an integer of 5000 digits) or a 2D box inside out is refused in one line naming the file,
the line and the field; a folder a render still writes is not read; and the gallery's worker processes end
with it when it is killed. No Blender: the render test's golden folder is the render."""

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

from conftest import REPO, run_cli
from processes import alive

GOLDEN = REPO / "tests" / "fixtures" / "random-golden"
MARK = "__hostile__"


def one_line_refusal(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("error: ")
    return result.stderr


def golden_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(GOLDEN, tmp_path / "render"))


def with_second_line(tmp_path: Path, place, value: str) -> Path:
    """A copy of the golden render whose second record holds `value` (JSON text, written as it stands) where
    `place` puts it."""
    folder = golden_copy(tmp_path)
    lines = (folder / "metadata.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    place(record)
    lines[1] = json.dumps(record).replace(json.dumps(MARK), value)
    (folder / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def show(folder: Path, out: Path) -> list[str]:
    return ["show", "--dataset", str(folder), "--out", str(out / "show.png")]


def gallery(folder: Path, out: Path) -> list[str]:
    return ["gallery", str(folder), "--out", str(out / "site"), "--workers", "1"]


def export(folder: Path, out: Path) -> list[str]:
    return ["export", "--dataset", str(folder), "--format", "imagefolder", "--out", str(out / "export")]


def prompts(folder: Path, out: Path) -> list[str]:
    return ["prompts", "--dataset", str(folder), "--out", str(out / "prompts.jsonl")]


def questions(folder: Path, out: Path) -> list[str]:
    return ["questions", "--from", str(folder), "--out", str(out / "questions.jsonl")]


def verify(folder: Path, out: Path) -> list[str]:
    return ["verify", str(folder)]


HUGE = "9" * 5000
UNFIT = [  # (reader, where the value goes, the value as JSON text, its field, what the refusal calls it)
    (show, lambda r: r["objects"][0]["bbox_px"].__setitem__(0, MARK), "NaN", "objects.0.bbox_px.0", "NaN, which JSON does not allow"),
    (gallery, lambda r: r["camera"]["K"][0].__setitem__(0, MARK), "Infinity", "camera.K.0.0", "Infinity, which JSON does not allow"),
    (export, lambda r: r["objects"][0].__setitem__("depth_m", MARK), "-Infinity", "objects.0.depth_m", "-Infinity, which JSON does not allow"),
    (prompts, lambda r: r.__setitem__("index", MARK), HUGE, "index", "an integer of 5000 digits, longer than any a record holds (20 at most)"),
    (questions, lambda r: r["render"].__setitem__("seed", MARK), HUGE, "render.seed", "an integer of 5000 digits"),
    (verify, lambda r: r["objects"][0].__setitem__("visible_fraction", MARK), "NaN", "objects.0.visible_fraction", "NaN"),
]  # fmt: skip


@pytest.mark.parametrize(
    "reader, place, value, field, said", UNFIT, ids=["show-nan", "gallery-inf", "export-minus-inf", "prompts-huge", "questions-huge", "verify-nan"]
)
def test_a_number_no_record_holds_is_refused_naming_file_line_and_field(tmp_path, reader, place, value, field, said):
    folder = with_second_line(tmp_path, place, value)
    refused = one_line_refusal(run_cli(*reader(folder, tmp_path)))
    assert f"{folder / 'metadata.jsonl'}: line 2: {field} is {said}" in refused and "fix or remove that line" in refused, refused
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == ["render"]  # nothing written


def test_a_number_past_the_largest_float_is_refused_by_the_record_model(tmp_path):
    """`1e400`, which JSON reads as an infinity: refused where the line is checked against its model."""
    folder = with_second_line(tmp_path, lambda r: r["objects"][0].__setitem__("yaw_deg", MARK), "1e400")
    refused = one_line_refusal(run_cli(*questions(folder, tmp_path)))
    said = "line 2 is not a random render record: objects.0.yaw_deg inf: Input should be a finite number"
    assert f"{folder / 'metadata.jsonl'}: {said}" in refused, refused


def test_score_refuses_a_response_holding_nan(tmp_path):
    asked = tmp_path / "prompts.jsonl"
    assert run_cli("prompts", "--text-only", "--limit", "1", "--types", "1", "--out", str(asked)).returncode == 0
    qid = json.loads(asked.read_text().splitlines()[0])["qid"]
    responses = tmp_path / "responses.jsonl"
    responses.write_text(f'{{"qid": "{qid}", "model": "m", "response": "Yes.", "confidence": NaN}}\n')
    result = run_cli("score", "--prompts", str(asked), "--responses", str(responses), "--out", str(tmp_path / "report"))
    assert f"{responses}: line 1: confidence is NaN, which JSON does not allow" in one_line_refusal(result)
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize(
    "reader, box", [(show, [30.0, 5.0, 20.0, 9.0]), (export, [10.0, 25.0, 20.0, 9.0])], ids=["show-x0-past-x1", "export-y0-past-y1"]
)
def test_an_inverted_box_is_refused_where_the_record_is_read(tmp_path, reader, box):
    folder = with_second_line(tmp_path, lambda r: r["objects"][0].__setitem__("bbox_px", MARK), json.dumps(box))
    refused = one_line_refusal(run_cli(*reader(folder, tmp_path)))
    assert f"{folder / 'metadata.jsonl'}: line 2 is not a random render record: objects.0.bbox_px {box}: " in refused, refused
    assert "the box is inverted (x0 > x1 or y0 > y1); restore metadata.jsonl from the render" in refused, refused


HOLD = "import sys; from pathlib import Path; from tabletest.files.lock import output_lock\n" \
       "with output_lock(Path(sys.argv[1])):\n    print('held', flush=True); sys.stdin.read()"  # fmt: skip


def test_a_folder_a_render_is_writing_is_not_shown_nor_asked_of(tmp_path):
    folder = golden_copy(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        for command, verb in ((show, "show"), (gallery, "make a gallery of"), (questions, "ask questions of")):
            refused = one_line_refusal(run_cli(*command(folder, tmp_path)))
            assert f"{folder} is being written by a tabletest run (pid {holder.pid} on " in refused, refused
            assert f"{verb} it once that run has finished" in refused, refused
        assert sorted(p.name for p in tmp_path.iterdir()) == ["render"]
    finally:
        holder.communicate("", timeout=30)
    assert run_cli(*questions(folder, tmp_path)).returncode == 0  # read once the render is done


def grown(tmp_path: Path, count: int) -> Path:
    """A copy of the golden render with `count` scenes (its six, again under new ids): enough for a pool."""
    folder = golden_copy(tmp_path)
    lines = (folder / "metadata.jsonl").read_text().splitlines()
    for k in range(len(lines), count):
        record = json.loads(lines[k % 6])
        scene = f"rnd6-{k:07d}"
        for field in ("file_name", "mask_file_name", "depth_file_name"):
            named = record[field]
            record[field] = named.replace(record["id"], scene)
            os.link(folder / named, folder / record[field])
        record.update(id=scene, index=k)
        lines.append(json.dumps(record))
    (folder / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def children(pid: int) -> set[int]:
    """The processes whose parent is `pid`."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def test_the_gallerys_workers_end_when_the_gallery_is_killed(tmp_path):
    folder = grown(tmp_path, 240)
    gallery_run = subprocess.Popen(
        [sys.executable, "-m", "tabletest.cli", "gallery", str(folder), "--out", str(tmp_path / "site"), "--workers", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO,
    )  # fmt: skip
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and gallery_run.poll() is None and time.monotonic() < deadline:
            workers |= children(gallery_run.pid)
            time.sleep(0.02)
        assert workers and gallery_run.poll() is None, "the gallery ended before its workers could be seen"
        os.kill(gallery_run.pid, signal.SIGKILL)
        gallery_run.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(map(alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(map(alive, workers)), f"workers {sorted(filter(alive, workers))} outlived the killed gallery"
    finally:
        for pid in filter(alive, workers):
            os.kill(pid, signal.SIGKILL)
        if gallery_run.poll() is None:
            gallery_run.kill()
        gallery_run.communicate(timeout=30)
