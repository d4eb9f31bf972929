"""Values that used to get past validation: each is now one `error:` line, exit code 2, nothing started
and no folder made; plus the help and `--version` a new user reads first."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
import typer

from typer.testing import CliRunner

from tabletest.commands.main import app
from tabletest.config import DEFAULT_CONFIG, load_config
from tabletest.errors import UserError
from tabletest.files.jsonl import dumps

from conftest import run_cli
from golden import assert_same_records


def config_with(tmp_path: Path, old: str, new: str) -> Path:
    text = DEFAULT_CONFIG.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "config.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("resolution: [1024, 768]", "resolution: [100000, 100000]", "at most 16384 per side and 67,108,864 pixels"),
        ("resolution: [1024, 768]", "resolution: [16000, 16000]", "at most 16384 per side and 67,108,864 pixels"),
        ("distance_m: 2.2", "distance_m: .inf", "camera.distance_m: Input should be a finite number"),
        ("key_power_w: 250", "key_power_w: .nan", "lighting.key_power_w: Input should be a finite number"),
        ("seed: 0", "seed: 2147483648", "render.seed: Input should be less than or equal to 2147483647"),
        ("seed: 0", "seed: true", "render.seed: true is a yes/no value, not a seed"),
        ("samples: 64", "samples: 64\n  seed: 3", "line 9: not valid YAML (key 'seed' is given twice; keep one)"),
    ],
)
def test_bad_config_values_are_refused(tmp_path, old, new, message):
    with pytest.raises(UserError, match=re.escape(message)):
        load_config(config_with(tmp_path, old, new))


def test_a_config_that_is_not_utf8_is_one_line(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(DEFAULT_CONFIG.read_text(encoding="utf-8").replace("−Y", "Y").encode("utf-8") + "# caf\xe9\n".encode("latin-1"))
    with pytest.raises(UserError, match=r"latin1.yaml: not UTF-8 text \(byte \d+ is 0xe9\); save it as UTF-8"):
        load_config(path)


def one_line_error(result: subprocess.CompletedProcess, *parts: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    for part in parts:
        assert part in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("flags", "parts"),
    [
        (["--resolution", "0x0"], ["--resolution 0x0: resolution 0x0 is too small; use at least 8x8"]),
        (["--resolution", "7x5"], ["--resolution 7x5: resolution 7x5 is too small"]),
        (["--resolution", "20000x100"], ["--resolution 20000x100: resolution 20000x100 is too large"]),
        (["--seed", "-5"], ["--seed -5: Input should be greater than or equal to 0"]),
        (["--seed", "2147483648"], ["--seed 2147483648: Input should be less than or equal to 2147483647"]),
        (["--device", "gpu"], ["--device 'gpu' is not one of auto, optix, cuda"]),
        (["--device", "cudaa"], ["did you mean --device cuda?"]),
        (["--limit", "0"], ["--limit", "greater than or equal to 1"]),
        (["--sample", "0"], ["--sample", "greater than or equal to 1"]),
        (["--engine", "blender"], ["'blender' is not one of 'cycles', 'eevee', 'workbench'"]),
    ],
)
@pytest.mark.render
def test_bad_render_flags_are_one_line_and_make_nothing(tmp_path, flags, parts):
    out = tmp_path / "out"
    result = run_cli("render", "--out", str(out), "--limit", "1", *flags, cwd=tmp_path)
    one_line_error(result, *parts)
    assert "Value error" not in result.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.render
def test_out_naming_a_file_is_refused(tmp_path):
    out = tmp_path / "taken"
    out.write_text("mine")
    one_line_error(run_cli("render", "--out", str(out), "--limit", "1"), f"--out {out} is a file; give a folder")
    assert out.read_text() == "mine"


@pytest.mark.render
@pytest.mark.parametrize(
    "files",
    [
        {"images/holiday.png": b"photo", "notes.txt": b"mine"},  # a folder of someone's photos
        {"metadata.jsonl": b'{"file_name": "images/a.png"}\n', "images/a.png": b"png", ".tabletest-export.json": b"{}"},
        {"annotations.json": b"{}", "images/000001.png": b"png"},  # a COCO export
        {"logs/worker-0.log": b"not a render's"},  # a render's folder name, holding another's file
    ],
)
def test_out_holding_other_files_is_refused_and_kept(tmp_path, files):
    out = tmp_path / "photos"
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    result = run_cli("render", "--out", str(out), "--objects", "1", "--limit", "1")
    one_line_error(result, f"--out {out} holds files no tabletest render wrote (", "give another --out")
    assert all(name in result.stderr for name in list(files)[:3]), result.stderr
    assert {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()} == set(files)
    assert all((out / name).read_bytes() == data for name, data in files.items())


@pytest.mark.render
def test_a_file_where_a_render_keeps_a_folder_is_one_line(tmp_path, cli):
    out = tmp_path / "out"
    out.mkdir()
    (out / "settings.json").write_text("{}")
    (out / "masks").write_text("mine")
    result = cli("render", "--out", str(out), "--objects", "1", "--limit", "1", "--masks")
    one_line_error(result, f"{out / 'masks'} is a file where a render keeps its masks; move it aside")
    assert (out / "masks").read_text() == "mine"


@pytest.mark.render
def test_base_scene_into_a_missing_folder_is_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "tabletest.render.base_scene", "blend/table.blend"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )
    one_line_error(result, "folder blend/ does not exist; create it (mkdir blend)")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def prompts(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("prompts") / "prompts.jsonl"
    assert run_cli("prompts", "--text-only", "--limit", "1", "--out", str(path)).returncode == 0
    return path


@pytest.mark.parametrize(
    ("content", "parts"),
    [
        ('{"qid": "q", "response": "ok"}\n{"qid": "r", "response": "caf\xe9"}\n'.encode("latin-1"),
         ["line 2 is not UTF-8 text (byte 30 of the line); save the file as UTF-8"]),
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", ["line 1 is nested too deeply to be a record"]),
    ],
    ids=["latin-1", "nested"],
)
def test_score_reads_hostile_response_files_as_one_line(tmp_path, prompts, content, parts):
    responses = tmp_path / "model.jsonl"
    responses.write_bytes(content)
    result = run_cli("score", "--prompts", str(prompts), "--responses", str(responses), "--out", str(tmp_path / "report"))
    one_line_error(result, f"{responses}: ", *parts)
    assert not (tmp_path / "report").exists()


def test_a_non_finite_number_never_becomes_a_record():
    assert dumps({"bbox_px": [1.5, 2.0]}) == '{"bbox_px": [1.5, 2.0]}'
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError):
            dumps({"center_px": [bad, 1.0]})


def test_a_zero_is_written_without_its_sign_wherever_it_is_in_the_record():
    """The sign of a value rounded to zero is the machine's floating-point path's, never part of a record."""
    record = {"center_camera_m": [-0.0, -0.0, 0.9228], "camera": {"world_to_camera": [[1.0, -0.0, 0.0, -0.05]]}, "note": "-0.0"}
    assert dumps(record) == (
        '{"center_camera_m": [0.0, 0.0, 0.9228], "camera": {"world_to_camera": [[1.0, 0.0, 0.0, -0.05]]}, "note": "-0.0"}'
    )
    assert dumps({"depth_m": round(-1e-9, 6)}) == '{"depth_m": 0.0}'


def test_golden_records_match_across_floating_point_paths_and_nothing_else():
    """What the golden render tests accept: another CPU's last rounded decimal and a zero's sign in the golden
    file; not a string, a key, a count or a float two units off, nor a signed zero written."""
    golden = b'{"id": "rnd6-0000000", "center_camera_m": [-0.0, 9.3e-05, 1.67865], "bbox_px": [17.31, 22.0], "n": 3}\n'
    assert_same_records(b'{"id": "rnd6-0000000", "center_camera_m": [0.0, 9.4e-05, 1.67864], "bbox_px": [17.32, 21.99], "n": 3}\n', golden)
    for other in (
        b'{"id": "rnd6-0000001", "center_camera_m": [0.0, 9.3e-05, 1.67865], "bbox_px": [17.31, 22.0], "n": 3}\n',
        b'{"id": "rnd6-0000000", "center_camera_m": [0.0, 9.5e-05, 1.67865], "bbox_px": [17.31, 22.0], "n": 3}\n',
        b'{"id": "rnd6-0000000", "center_camera_m": [0.0, 9.3e-05, 1.67865], "bbox_px": [17.31, 22.02], "n": 3}\n',
        b'{"id": "rnd6-0000000", "center_camera_m": [0.0, 9.3e-05, 1.67865], "bbox_px": [17.31, 22.0], "n": 3.0}\n',
        b'{"center_camera_m": [0.0, 9.3e-05, 1.67865], "id": "rnd6-0000000", "bbox_px": [17.31, 22.0], "n": 3}\n',
        b'{"id": "rnd6-0000000", "center_camera_m": [-0.0, 9.3e-05, 1.67865], "bbox_px": [17.31, 22.0], "n": 3}\n',
        golden * 2,
    ):
        with pytest.raises(AssertionError):
            assert_same_records(other, golden)


def test_version_prints_and_exits_zero():
    result = run_cli("--version")
    assert result.returncode == 0 and re.fullmatch(r"\d+\.\d+\.\d+\S*\n", result.stdout), result


def command_paths(command: click.Command, path: tuple[str, ...] = ()) -> list[list[str]]:
    """Every command and subcommand of the CLI, so a new one cannot slip past the help checks."""
    subcommands = getattr(command, "commands", {})
    return [list(path)] + [p for name, sub in sorted(subcommands.items()) for p in command_paths(sub, (*path, name))]


COMMANDS = command_paths(typer.main.get_command(app))


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "tabletest")
def test_help_shows_no_type_after_a_switch_and_no_template_braces(command):
    text = CliRunner().invoke(app, [*command, "--help"]).output
    assert "Usage:" in text
    assert "<bool>" not in text and "<list[" not in text and "{out}" not in text.lower()
    if command in (["vignettes"], ["prompts"]):
        seed_help = text[text.index("--seed"):].split("--only")[0]
        assert "noise" not in seed_help


def test_usage_errors_are_one_line():
    one_line_error(run_cli("render", "--masks", "true"), "unexpected extra argument", "--help")
    one_line_error(run_cli("no-such-command"), "No such command 'no-such-command'")
