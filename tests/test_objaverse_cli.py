"""The real `tabletest assets fetch` and `credits` commands against the fixture hub: a user's run, the
one-line errors for bad input, and a fetch killed mid-download that a rerun completes and verifies."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import glbmaker as gm
import pytest
from conftest import REPO
from hubserver import HubFixture, HubServer, uid_of, write_catalog
from typer.testing import CliRunner

from tabletest.assets.manifest import load_manifest
from tabletest.files.digest import sha256_of
from tabletest.assets.objaverse.credits import credit_rows, render_credits
from tabletest.assets.objaverse.lock import load_lock
from tabletest.commands.main import app
from tabletest.config import load_catalog
from tabletest.errors import UserError

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

NAMES = ("teapot", "toy car", "lamp")


@pytest.fixture
def hub(tmp_path):
    """A fixture hub with three good models (one CC0) and a catalog naming them."""
    fixture = HubFixture()
    for name in NAMES:
        fixture.add(
            uid_of(name),
            gm.plain_box(size_bytes=120_000),
            license="cc0" if name == "lamp" else "by",
            title=f"A {name} | v2",
        )
    catalog = write_catalog(
        tmp_path / "catalog.yaml", [{"name": n, "size_m": 0.2, "candidates": [uid_of(n)]} for n in NAMES]
    )
    with HubServer(fixture) as server:
        yield server, fixture, catalog


def fetch_args(server: HubServer, tmp_path: Path, *extra: str) -> list[str]:
    return ["assets", "fetch", "--mirror", server.url, "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "assets"),
            "--catalog", str(tmp_path / "catalog.yaml"), "--tries", "2", *extra]  # fmt: skip


def test_fetch_then_credits_as_a_user_runs_them(cli, hub, tmp_path):
    server, _, catalog = hub
    result = cli(*fetch_args(server, tmp_path, "--jobs", "2"))
    assert result.returncode == 0, result.stderr
    assert f"fetched 3 objects into {tmp_path / 'assets'}" in result.stderr
    assert f"teapot: {uid_of('teapot')} (CC BY 4.0, 122 kB) -> {tmp_path / 'assets' / 'teapot.glb'}" in result.stderr
    assert result.stdout == ""  # objaverse's own download counters are not printed

    markdown = cli("assets", "credits", "--assets", str(tmp_path / "assets"), "--catalog", str(catalog))
    assert markdown.returncode == 0, markdown.stderr
    lines = markdown.stdout.splitlines()
    assert lines[0] == "| object | title | author | license | source |" and len(lines) == 2 + len(NAMES)
    assert lines[2] == (
        f"| teapot | A teapot \\| v2 | Author {uid_of('teapot')[:4]} | [CC BY 4.0](https://creativecommons.org/licenses/by/4.0/) "
        f"| https://sketchfab.com/3d-models/{uid_of('teapot')} |"
    )
    rows = credit_rows(load_catalog(catalog), tmp_path / "assets")
    assert (
        list(csv.DictReader(io.StringIO(render_credits(rows, "csv"))))
        == json.loads(render_credits(rows, "json"))
        == rows
    )
    assert [r["object"] for r in rows] == list(NAMES) and rows[2]["license"] == "CC0 1.0"


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--only", "teapott"], "unknown object name 'teapott': did you mean 'teapot'?"),
        (
            ["--licenses", "by,cc-by-nc-x"],
            "--licenses: unknown licence 'by-nc-x'; write a comma-separated list of by, by-sa",
        ),
        (
            ["--mirror", "hf-mirror.com"],
            "--mirror 'hf-mirror.com' is not an http(s) base URL; write it like https://hf-mirror.com",
        ),
    ],
)
def test_bad_input_is_refused_before_any_work_naming_the_fix(hub, tmp_path, extra, message):
    server, *_ = hub
    args = fetch_args(server, tmp_path)
    args[args.index("--mirror") : args.index("--mirror") + 2] = []
    result = CliRunner().invoke(app, [*args, *extra])
    assert isinstance(result.exception, UserError) and str(result.exception).startswith(message), result.output
    assert not (tmp_path / "assets").exists() and not server.requests


def test_an_unreachable_mirror_is_one_line(cli, hub, tmp_path):
    server, *_ = hub
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    args = fetch_args(server, tmp_path)
    args[args.index(server.url)] = dead
    result = cli(*args, "--tries", "1")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: cannot reach the Objaverse hub at {dead} (")


def test_objects_that_fail_make_the_command_fail_naming_them(cli, hub, tmp_path):
    server, *_ = hub
    result = cli(*fetch_args(server, tmp_path, "--licenses", "cc0"))
    assert result.returncode == 2
    assert (
        result.stderr.splitlines()[-1].startswith("error: fetched 1 objects into")
        and "but 2 failed: teapot, toy car;" in result.stderr
    )
    assert (
        f"teapot: skipped {uid_of('teapot')}: has licence 'CC BY 4.0', not allowed by --licenses cc0" in result.stderr
    )


def test_a_fetch_killed_mid_download_completes_on_rerun(cli, hub, tmp_path):
    server, fixture, catalog = hub
    server.chunk_delay_s = 0.02  # about 0.6 s per model
    cache, out = tmp_path / "cache", tmp_path / "assets"
    process = subprocess.Popen([sys.executable, "-m", "tabletest.cli", *fetch_args(server, tmp_path, "--jobs", "1")], cwd=REPO,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        # wait until one model is stored and the next is half downloaded, then kill without warning
        while not (load_manifest(out).objects if (out / "manifest.json").exists() else {}) or not _partial(cache):
            assert process.poll() is None and time.monotonic() < deadline, "the fetch ended before it could be killed"
            time.sleep(0.01)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    partial = _partial(cache)
    stored = load_manifest(out).objects
    assert partial and 1 <= len(stored) < len(NAMES)
    assert all(sha256_of(out / e.file) == e.sha256 for e in stored.values())  # what was kept is whole
    assert not (out / f"{partial[0].name.split('.')[0]}.glb").exists()

    server.chunk_delay_s = 0.0
    result = cli(*fetch_args(server, tmp_path))
    assert result.returncode == 0, result.stderr
    manifest, lock = load_manifest(out), load_lock(out)
    assert sorted(manifest.objects) == sorted(lock.objects) == sorted(NAMES)
    for name in NAMES:
        served = fixture.models[uid_of(name)]
        assert lock.objects[name].sha256 == hashlib.sha256(served).hexdigest()
        assert next(cache.rglob(f"{uid_of(name)}.glb")).read_bytes() == served
        assert sha256_of(out / manifest.objects[name].file) == manifest.objects[name].sha256
    assert not list(cache.rglob("*.tmp"))  # the half download was replaced, not resumed into
    check = cli("assets", "check", "--assets", str(out), "--catalog", str(catalog))
    assert check.returncode == 0, check.stderr


def _partial(cache: Path) -> list[Path]:
    return [p for p in cache.rglob("*.glb.tmp") if p.stat().st_size > 0] if cache.exists() else []
