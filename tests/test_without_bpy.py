"""The light install: the base install declares no Blender (nor OpenEXR, OpenColorIO, objaverse, nor
anything that holds NumPy below 2), and everything but rendering and downloads imports and runs where
those modules cannot be imported. A command that needs them says, in one line, which extra to install."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest
from conftest import REPO, run_cli
from packaging.markers import Marker
from packaging.requirements import Requirement

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog
from tabletest.extras import BPY_FOR_PYTHON

RENDER_EXTRA_PACKAGES = {"bpy", "openexr", "opencolorio", "objaverse"}
# Their import names: blocked in the light process, so importing them raises ImportError.
RENDER_EXTRA_MODULES = ("bpy", "bpy_extras", "mathutils", "OpenEXR", "Imath", "PyOpenColorIO", "objaverse")
# The modules that import them at the top: Blender's worker processes and the Objaverse client.
NEEDS_RENDER_EXTRA = {
    "tabletest.render.worker",
    "tabletest.render.base_scene",
    "tabletest.render.engine",
    "tabletest.render.sheet_worker",
    "tabletest.render.random_stage",
    "tabletest.render.rays",
    "tabletest.render.tint",
    "tabletest.render.model_cache",
    "tabletest.assets.objaverse.hub",
    "tabletest.assets.objaverse.fetch",
}


def run_light(code: str, blocked: tuple[str, ...] = RENDER_EXTRA_MODULES) -> subprocess.CompletedProcess:
    """Run `code` in a Python where none of the `blocked` modules can be imported."""
    block = f"import sys\nfor name in {blocked!r}:\n    sys.modules[name] = None\n"
    return subprocess.run([sys.executable, "-c", block + code], capture_output=True, text=True, cwd=REPO, timeout=300)


def light_cli(*args: str) -> subprocess.CompletedProcess:
    return run_light(f"sys.argv = ['tabletest', *{list(args)!r}]\nfrom tabletest.commands.main import main\nmain()")


def requirements() -> tuple[list[Requirement], dict[str, list[Requirement]]]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = {name: [Requirement(r) for r in reqs] for name, reqs in project["optional-dependencies"].items()}
    return [Requirement(r) for r in project["dependencies"]], extras


def test_base_install_declares_no_render_package_and_no_upper_bound():
    base, extras = requirements()
    assert not {r.name.lower() for r in base} & RENDER_EXTRA_PACKAGES
    assert RENDER_EXTRA_PACKAGES <= {r.name.lower() for r in extras["render"]}
    # An upper bound in the base install (numpy<2, pyarrow<26, ==) would move an evaluation environment's packages.
    capped = [str(r) for r in base if any(s.operator in {"<", "<=", "==", "===", "~="} for s in r.specifier)]
    assert capped == []


def test_render_extra_installs_the_bpy_the_refusal_names():
    _, extras = requirements()
    for (major, minor), version in BPY_FOR_PYTHON.items():
        env = {"python_version": f"{major}.{minor}", "platform_machine": "x86_64"}
        (bpy,) = [r for r in extras["render"] if r.name == "bpy" and Marker(str(r.marker)).evaluate(env)]
        assert bpy.specifier.contains(version)
    env = {"python_version": "3.12", "platform_machine": "x86_64"}
    assert not [r for r in extras["render"] if r.name == "bpy" and Marker(str(r.marker)).evaluate(env)]


def test_render_extra_on_python_311_rules_out_numpy_2_and_what_needs_it():
    """bpy 5.0.1 allows only NumPy 1.x; without these bounds pip backtracks through the NumPy 2 releases
    of numpy, pyarrow (26) and pandas (3.1) before it settles."""
    _, extras = requirements()
    env = {"python_version": "3.11", "platform_machine": "x86_64", "extra": "render"}
    bounds = {r.name: r.specifier for r in extras["render"] if r.marker is None or r.marker.evaluate(env)}
    for name, first_numpy_2_release in (("numpy", "2.0.0"), ("pyarrow", "26.0.0"), ("pandas", "3.1.0")):
        assert not bounds[name].contains(first_numpy_2_release), name
    env["python_version"] = "3.13"  # bpy 5.2 wants NumPy 2: no such bounds there
    on_313 = {r.name for r in extras["render"] if r.marker is None or r.marker.evaluate(env)}
    assert not on_313 & {"numpy", "pyarrow", "pandas"}


def test_every_module_but_the_render_extras_imports_without_it():
    result = run_light(
        "import importlib, pkgutil, tabletest\n"
        "names = {m.name for m in pkgutil.walk_packages(tabletest.__path__, 'tabletest.')}\n"
        f"assert {NEEDS_RENDER_EXTRA!r} <= names\n"
        f"for name in sorted(names - {NEEDS_RENDER_EXTRA!r}):\n"
        "    importlib.import_module(name)\n"
        "print(len(names), 'modules')\n"
    )
    assert result.returncode == 0, result.stderr
    assert "modules" in result.stdout


def test_vignettes_prompts_and_score_run_without_the_render_extra(tmp_path):
    vignettes = light_cli("vignettes", "--objects", "3", "--limit", "2")
    assert vignettes.returncode == 0, vignettes.stderr
    assert vignettes.stdout.count('"id": "3obj-00000') == 2
    prompts = tmp_path / "prompts.jsonl"
    made = light_cli("prompts", "--text-only", "--objects", "2", "--limit", "2", "--types", "1", "--out", str(prompts))
    assert made.returncode == 0, made.stderr
    queries = [json.loads(line) for line in prompts.read_text().splitlines()]
    responses = tmp_path / "responses.jsonl"
    answers = ({"qid": q["qid"], "response": str(q["answer"]["truth"]).lower()} for q in queries)
    responses.write_text("".join(json.dumps(answer) + "\n" for answer in answers))
    report = tmp_path / "report"
    scored = light_cli("score", "--prompts", str(prompts), "--responses", str(responses), "--out", str(report))
    assert scored.returncode == 0, scored.stderr
    assert f"scored {len(queries)} answers" in scored.stderr
    assert (report / "report.md").is_file()


@pytest.mark.render
def test_export_runs_without_the_render_extra(tmp_path, builtin_assets):
    render = tmp_path / "render"
    tiny = ("--engine", "workbench", "--resolution", "32x24", "--samples", "1", "--quiet")
    made = run_cli("render", "--objects", "2", "--only", "mug,banana", "--out", str(render), "--assets", str(builtin_assets), *tiny)
    assert made.returncode == 0, made.stderr
    for fmt in ("parquet", "vlmevalkit"):
        exported = light_cli("export", "--dataset", str(render), "--format", fmt, "--out", str(tmp_path / fmt))
        assert exported.returncode == 0, exported.stderr
        assert json.loads((tmp_path / fmt / ".tabletest-export.json").read_text())


def test_commands_that_need_the_render_extra_name_it_in_one_line(tmp_path):
    for args, command, missing in (
        (["render", "--objects", "1", "--limit", "1", "--out", str(tmp_path / "out")], "render", "bpy"),
        (["render", "--mode", "composite", "--out", str(tmp_path / "out")], "render", "OpenEXR, PyOpenColorIO"),
        (["assets", "sheet", str(tmp_path / "sheet.png")], "assets sheet", "bpy"),
        (["assets", "fetch", "--only", "mug", "--out", str(tmp_path / "assets")], "assets fetch", "objaverse"),
    ):
        result = light_cli(*args)
        assert result.returncode == 2, result.stderr
        assert result.stderr == (
            f"error: `tabletest {command}` needs the render extra ({missing} not installed): "
            "run pip install -e '.[render]'\n"
        )
    assert not [p.name for p in tmp_path.iterdir()]  # nothing started, nothing written


@pytest.mark.render
def test_composite_with_layers_to_render_and_no_bpy_names_the_extra(tmp_path):
    """Composite mode composes a warm cache without Blender (tests/test_composite.py); a cold one needs it."""
    tiny = ["--resolution", "32x24", "--samples", "1", "--quiet", "--layer-cache", str(tmp_path / "cache")]
    build_assets(load_catalog(), tmp_path / "assets", ["mug"], jobs=1)
    result = run_light(
        f"sys.argv = ['tabletest', 'render', '--mode', 'composite', '--objects', '1', '--only', 'mug', "
        f"'--assets', {str(tmp_path / 'assets')!r}, '--out', {str(tmp_path / 'out')!r}, *{tiny!r}]\n"
        "from tabletest.commands.main import main\nmain()\n",
        blocked=("bpy",),
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        "error: `tabletest render` needs the render extra (bpy not installed): run pip install -e '.[render]'"
    )
    assert not list((tmp_path / "out").glob("images/*.png"))


def test_a_python_without_bpy_wheels_is_told_which_python_and_bpy_to_use():
    result = run_light(
        "from tabletest.extras import require_render_extra\n"
        "require_render_extra('render', 'bpy', python=(3, 12))\n"
    )
    last = result.stderr.strip().splitlines()[-1]
    assert last == (
        "tabletest.errors.UserError: `tabletest render` needs Blender's bpy, which PyPI has for Python 3.11 "
        "(bpy 5.0.1) or Python 3.13 (bpy 5.2.3) but not for this Python 3.12: make a venv with one of those "
        "and run pip install -e '.[render]' in it"
    )
