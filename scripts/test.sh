#!/usr/bin/env bash
# The test suite on every Blender TableTest supports, one venv per Python:
#   Python 3.11 + bpy 5.0.1 (Blender 5.0) and Python 3.13 + bpy 5.2.x (Blender 5.2).
# Each venv gets `pip install -e '.[render,dev]'`, then the test prerequisites, then pytest.
# Exits non-zero if any suite (or any setup) fails, and ends with pytest's closing line per Python.
#
#   scripts/test.sh                 # both suites (the README's test command, and .ci/run's)
#   scripts/test.sh -x -k render    # arguments go to pytest
#   TABLETEST_PYTHONS=3.13 scripts/test.sh
#
# The venvs live in $TABLETEST_VENVS (default: .venvs/ in the clone, ignored by git). A venv is
# (re)installed only when pyproject.toml has changed since, so a rerun goes straight to the tests.
set -uo pipefail
cd "$(dirname "$0")/.."
VENVS=${TABLETEST_VENVS:-.venvs}
PYTHONS=${TABLETEST_PYTHONS:-3.11 3.13}

# The interpreter for Python $1: python3.X on PATH, else pyenv's.
find_python() {
    local candidate
    for candidate in "python$1" "${PYENV_ROOT:-$HOME/.pyenv}/versions/$1".*/bin/python; do
        if "$candidate" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$1'.split('.'))))" 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    echo "error: no Python $1 found (looked for python$1 on PATH and under pyenv); install it, or set TABLETEST_PYTHONS" >&2
    return 1
}

# Create or update the venv for Python $1 at $2 with the render and dev extras.
install_venv() {
    local version=$1 venv=$2 stamp="$2/.tabletest-installed" wanted python
    wanted="$(sha256sum pyproject.toml | cut -d' ' -f1)"
    if [[ -f $stamp && $(cat "$stamp") == "$wanted" ]]; then
        return 0
    fi
    python="$(find_python "$version")" || return 1
    echo "== Python $version: installing .[render,dev] into $venv" >&2
    [[ -x $venv/bin/python ]] || "$python" -m venv "$venv" || return 1
    "$venv/bin/python" -m pip install --quiet -e '.[render,dev]' || return 1
    echo "$wanted" >"$stamp"
}

# Test prerequisites beyond the Python packages (tools a test runs for real). Called once per
# venv before its pytest, with the venv's folder as $1; return non-zero to fail that suite.
test_prerequisites() {
    local venv=$1
    : "$venv"
    # SLURM + munge for tests/test_slurm.py (installed once; the tests start and stop the daemons).
    scripts/ci/slurm-single-node.sh install
}

status=0
summary=()
for version in $PYTHONS; do
    venv="$VENVS/py$version"
    mkdir -p "$VENVS"
    log="$(mktemp "$VENVS/py$version.pytest.XXXXXX")"  # one per run: two runs at once keep their own
    if ! install_venv "$version" "$venv" || ! test_prerequisites "$venv"; then
        status=1
        summary+=("Python $version: setup failed (see above)")
        continue
    fi
    bpy="$("$venv/bin/python" -c "from importlib.metadata import version; print(version('bpy'))" 2>/dev/null || echo none)"
    echo "== Python $version, bpy $bpy: pytest" >&2
    "$venv/bin/python" -m pytest -q "$@" 2>&1 | tee "$log"
    code=${PIPESTATUS[0]}
    ((code == 0)) || status=1
    summary+=("Python $version, bpy $bpy: $(grep -E '^=*.* in [0-9.]+s' "$log" | tail -n 1 | tr -d '=' | xargs) (exit $code)")
    rm -f "$log"
done
echo "== summary"
printf '%s\n' "${summary[@]}"
exit "$status"
