"""Everything that does not render imports and runs on a Python where bpy cannot be imported."""

import subprocess
import sys

from conftest import REPO

BPY_MODULES = {
    "tabletest.render.worker",
    "tabletest.render.base_scene",
    "tabletest.render.engine",
    "tabletest.render.random_stage",
    "tabletest.render.sheet_worker",
}

PROBE = f"""
import sys, pkgutil, importlib, runpy
sys.modules["bpy"] = None            # `import bpy` now raises ImportError
sys.modules["bpy_extras"] = None
sys.modules["mathutils"] = None
import tabletest
names = [m.name for m in pkgutil.walk_packages(tabletest.__path__, "tabletest.")]
skipped = {sorted(BPY_MODULES)!r}
for name in names:
    if name not in skipped:
        importlib.import_module(name)
print(len(names) - len(skipped), "modules imported")
sys.argv = ["tabletest", "vignettes", "--objects", "3", "--limit", "2"]
from tabletest.cli import main
main()
"""


def test_pure_python_part_needs_no_bpy():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "modules imported" in result.stdout
    assert result.stdout.count('"id": "3obj-00000') == 2
