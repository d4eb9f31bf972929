"""The real `tabletest` command: vignettes, catalog, and one-line errors for bad flags."""

import json

import pytest


def test_help_lists_working_commands(cli):
    result = cli("--help")
    assert result.returncode == 0
    for command in ("catalog", "vignettes", "render"):
        assert command in result.stdout


def test_catalog_table(cli):
    result = cli("catalog")
    assert result.returncode == 0 and "wine bottle" in result.stdout and "64 objects" in result.stdout


def test_vignettes_jsonl_to_file(cli, tmp_path):
    out = tmp_path / "v.jsonl"
    result = cli("vignettes", "--objects", "3", "--only", "mug,banana,lamp", "--out", str(out))
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 6
    assert {"id", "index", "n_objects", "objects", "relations", "vignettes"} <= set(records[0])
    assert all(r["relations"]["between"][0][0] == r["objects"][1] for r in records)


def test_vignettes_txt_both_orders(cli):
    result = cli("vignettes", "--objects", "2", "--only", "mug,lamp", "--format", "txt", "--order", "both")
    ids = [json.loads(line)["id"] for line in cli("vignettes", "--objects", "2", "--only", "mug,lamp").stdout.splitlines()]
    assert result.stdout.splitlines() == [
        f"{ids[0]}\tThe mug is on the left side of the table. The lamp is on the right side of the same table.",
        f"{ids[0]}\tThe lamp is on the right side of the table. The mug is on the left side of the same table.",
        f"{ids[1]}\tThe lamp is on the left side of the table. The mug is on the right side of the same table.",
        f"{ids[1]}\tThe mug is on the right side of the table. The lamp is on the left side of the same table.",
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--objects", "4"], "error: --objects 4 is not supported; use 1, 2 or 3"),
        (["--objects", "0"], "error: --objects 0 is not supported; use 1, 2 or 3"),
        (["--shard", "3/2"], "error: --shard '3/2' is out of range"),
        (["--only", "mug,unicorn"], "error: unknown object name 'unicorn'"),
        (["--catalog", "/nonexistent.yaml"], "error: catalog file /nonexistent.yaml not found"),
    ],
)
def test_bad_flags_give_one_clear_line(cli, args, message):
    result = cli("vignettes", *args)
    assert result.returncode == 2
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_failed_run_leaves_existing_output_alone(cli, tmp_path):
    out = tmp_path / "v.jsonl"
    out.write_text("precious\n")
    result = cli("vignettes", "--only", "mug,unicorn", "--out", str(out))
    assert result.returncode == 2 and out.read_text() == "precious\n"


def test_a_full_disk_is_one_clear_line(tmp_path):
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "tabletest.cli", "vignettes", "--objects", "3", "--limit", "20000"],
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
        )
    assert result.returncode == 2
    assert result.stderr.startswith("error: the disk is full") and "Traceback" not in result.stderr


def test_out_naming_a_device_or_fifo_writes_into_it_and_never_replaces_it(cli, tmp_path):
    """`--out /dev/null` as root once renamed a file over the null device; a FIFO stands in for it here."""
    import os
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    result = cli("vignettes", "--objects", "1", "--limit", "3", "--out", str(fifo))
    reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert received and received[0].count('"id": "1obj-') == 3


@pytest.mark.render
def test_render_with_no_scenes_chosen_says_what_it_would_do_and_does_not_start(cli, tmp_path):
    """`tabletest render` alone is every two-object scene at 1024x768: days on a laptop, refused in one line."""
    out = tmp_path / "out"
    result = cli("render", "--out", str(out))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "all 4,032 scenes at 1024x768 with cycles (64 samples): about" in result.stderr
    assert "--objects 3 --limit 4" in result.stderr and not out.exists()


def test_a_long_chosen_run_is_announced_with_its_estimate(capsys):
    from tabletest.config import RenderSettings
    from tabletest.render.cli import announce_long_run

    settings = RenderSettings(resolution=(1024, 768), engine="cycles", samples=64)
    announce_long_run(4032, settings, explicit=True)
    assert "rendering 4,032 scenes at 1024x768 with cycles (64 samples): about" in capsys.readouterr().err
    announce_long_run(4, settings, explicit=False)
    announce_long_run(4032, settings.model_copy(update={"engine": "workbench"}), explicit=False)
    assert capsys.readouterr().err == ""


def test_every_command_help_ends_with_a_real_example(cli):
    """Each command and sub-command shows one example of itself, and every example names a real command."""
    from typer.main import get_command

    from tabletest.cli import app
    from tabletest.cli_examples import EXAMPLES

    root = get_command(app)
    paths = []
    for name in root.list_commands(None):
        command = root.commands[name]
        subs = getattr(command, "commands", None)
        paths += [f"{name} {sub}" for sub in subs] if subs else [name]
    assert sorted(paths) == sorted(EXAMPLES)
    for path in ("render", "assets fetch", "slurm status"):
        result = cli(*path.split(), "--help")
        assert result.returncode == 0 and f"Example: {EXAMPLES[path]}" in " ".join(result.stdout.split())


@pytest.mark.parametrize("command", [["render", "--help"], ["schema", "prompt"], ["--help"]])
def test_the_command_runs_where_click_is_not_installed(command):
    """typer carries its own click: a render or evaluation environment may have no `click` package at all."""
    import subprocess
    import sys

    code = f"import sys; sys.modules['click'] = None; sys.argv = ['tabletest', *{command!r}]; from tabletest.cli import main; main()"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_no_help_text_is_cut_short_at_80_columns():
    """Rich cuts a word too long for its column with an ellipsis: every help text reads whole in an 80-column
    terminal (a `--flag/--no-flag` pair's second name, in the names column, excepted)."""
    from typer.main import get_command
    from typer.testing import CliRunner

    from tabletest.cli import app

    root = get_command(app)
    cut = []
    for name in root.list_commands(None):
        subs = getattr(root.commands[name], "commands", None)
        for path in ([name, sub] for sub in subs) if subs else [[name]]:
            shown = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80"}, terminal_width=80).output
            cut += [f"{' '.join(path)}: {line.strip()}" for line in shown.splitlines() if "…" in line and "--no-" not in line]
    assert not cut, "\n".join(cut)


def test_every_command_is_listed_by_a_whole_sentence_on_one_line():
    """The command lists of `tabletest --help`, `tabletest assets --help` and `tabletest slurm --help`: each row
    is the command's help up to the end of its first sentence, on one line, never cut inside a sentence."""
    import re

    from typer.main import get_command
    from typer.testing import CliRunner

    from tabletest.cli import app

    root = get_command(app)
    groups = [[], *([name] for name in root.list_commands(None) if getattr(root.commands[name], "commands", None))]
    for path in groups:
        group = root
        for name in path:
            group = group.commands[name]
        shown = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "300"}, terminal_width=300).output
        panel = shown.split("Commands")[1]
        rows = [line.strip("│ ").rstrip() for line in panel.splitlines() if line.startswith("│")]
        assert len(rows) == len(group.commands), (path, rows)  # one row each: no description runs onto a second
        for row in rows:
            name, listed = row.split(None, 1)
            whole = " ".join(group.commands[name].help.split())
            assert whole.startswith(listed) and re.search(r"[.!?]$", listed), (path, name, listed)
            assert whole == listed or re.match(r"\s+[A-Z(`]", whole[len(listed):]), (path, name, listed)


def test_the_progress_bar_shows_a_speed_only_once_it_has_one():
    import time

    from rich.progress import Progress

    from tabletest.render.progress import _SpeedColumn

    progress = Progress()
    task_id = progress.add_task("render", total=3, unit="img")
    task = progress.tasks[0]
    assert _SpeedColumn().render(task) == ""  # nothing measured yet: no placeholder either
    time.sleep(0.05)
    progress.advance(task_id)  # one item: too few for rich's own speed, the mean since the start instead
    shown = _SpeedColumn().render(task)
    assert shown.endswith(" img/s") and 0 < float(shown.split()[0]) <= 1 / 0.05


def _options() -> dict[str, dict[str, object]]:
    """Each command's options by every name they answer to ("assets build" -> {"--assets": param, ...})."""
    from typer.main import get_command

    from tabletest.cli import app

    root, found = get_command(app), {}
    for name in root.list_commands(None):
        subs = getattr(root.commands[name], "commands", None)
        for path, command in ([(f"{name} {s}", c) for s, c in subs.items()] if subs else [(name, root.commands[name])]):
            found[path] = {flag: p for p in command.params for flag in getattr(p, "opts", [])}
    return found


READS_A_RENDER = ("prompts", "questions", "export", "verify", "show", "gallery", "merge")
READS_ASSETS = ("render", "vignettes", "verify", "export") + tuple(
    f"assets {s}" for s in ("build", "list", "check", "sheet", "fetch", "import", "credits")
)
REPORTS = ("catalog", "assets list", "assets check", "kernels", "slurm status", "verify")


def test_one_spelling_per_flag():
    """A render folder is --dataset, an assets folder --assets, wherever a command reads one; every reporting
    command prints JSON with --json; and each --seed says what it seeds."""
    options = _options()
    assert [c for c in READS_A_RENDER if "--dataset" not in options[c]] == []
    assert [c for c in READS_ASSETS if "--assets" not in options[c]] == []
    assert [c for c in REPORTS if "--json" not in options[c]] == []
    seeds = {c: o["--seed"].help for c, o in options.items() if "--seed" in o}
    assert set(seeds) >= {"render", "vignettes", "prompts", "questions", "export"}
    assert [c for c, said in seeds.items() if not said.startswith("Seeds ")] == []
