#!/usr/bin/env bash
# The test suite on every Blender TableTest supports, one venv per Python:
#   Python 3.11 + bpy 5.0.1 (Blender 5.0) and Python 3.13 + bpy 5.2.x (Blender 5.2).
# Each venv gets `pip install -e '.[render,dev]'`, then the test prerequisites, then pytest.
# The Pythons run side by side, each into its own log, printed when all have ended. They share the
# suite: each test file runs on one of them, chosen to even out their time (tests/conftest.py's
# `lane_files`; the SLURM tests in the first), but for the few every Python runs (EVERY_LANE: among them
# every render path once, tiny, on each Blender), so every test runs and each lane takes about half;
# TABLETEST_SPLIT=0 runs every test on every Python.
# Exits non-zero if any suite (or any setup) fails, and ends with pytest's closing line per Python and
# the names of the tests that failed.
#
#   scripts/test.sh                 # both suites (the README's test command, and .ci/run's)
#   scripts/test.sh -x -k render    # arguments go to pytest
#   TABLETEST_PYTHONS=3.13 scripts/test.sh   # one Python: the whole suite on it
#   TABLETEST_SPLIT=0 scripts/test.sh         # the whole suite on each Python
#
# The venvs live in $TABLETEST_VENVS (default: .venvs/ in the clone, ignored by git). A venv is
# (re)installed only when pyproject.toml has changed since, so a rerun goes straight to the tests.
set -uo pipefail
cd "$(dirname "$0")/.."
VENVS=${TABLETEST_VENVS:-.venvs}
PYTHONS=${TABLETEST_PYTHONS:-3.11 3.13}
read -ra PYTHON_LIST <<<"$PYTHONS"
LANES=${#PYTHON_LIST[@]}
[[ ${TABLETEST_SPLIT:-1} != 0 ]] || LANES=1  # every lane the whole suite
# Each lane's pace, for sharing the suite out: Python 3.13 with bpy 5.2 runs the same tests about 11 % slower
# than Python 3.11 with bpy 5.0.1; shared out so, on a quiet 2-core machine the lanes took 868 s and 857 s.
PACE=""
for version in "${PYTHON_LIST[@]}"; do
    PACE+="${PACE:+,}$([[ $version == 3.13 ]] && echo 1.11 || echo 1)"
done

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

# The SLURM tests start a one-node cluster: installing it (apt-get) and running its daemons (munged,
# slurmd) needs root. Without root they are left out, and the run ends saying so.
NO_SLURM=""
if ((EUID != 0)); then
    NO_SLURM="tests/test_slurm.py was not run: installing and starting SLURM's daemons (apt-get, munged, slurmd) needs root; run scripts/test.sh as root, as CI does, to test the farm on a real scheduler"
fi

# Test prerequisites beyond the Python packages (tools a test runs for real). Called once per
# lane before its pytest, with the venv's folder as $1 and the lane's index as $2; return non-zero
# to fail that lane.
test_prerequisites() {
    local venv=$1 index=$2
    : "$venv"
    # SLURM + munge for tests/test_slurm.py, which runs in the first lane (installed once; the tests
    # start and stop the daemons). One apt-get at a time: the lanes run side by side.
    if ((index == 0)) && [[ -z $NO_SLURM ]]; then
        scripts/ci/slurm-single-node.sh install
    fi
}

# One lane: install, prerequisites, pytest for Python $1 (index $2), output to its log $3, the
# closing line to $3.summary. The SLURM tests run in the first lane only: both lanes share one
# single-node cluster (its ports and state folder), and the scheduler does not depend on Blender.
lane() {
    local version=$1 index=$2 log=$3 venv="$VENVS/py$1" bpy code
    local extra=()
    shift 3  # the rest go to pytest
    ((index == 0)) && [[ -z $NO_SLURM ]] || extra=(--deselect tests/test_slurm.py)
    {
        if ! install_venv "$version" "$venv" || ! test_prerequisites "$venv" "$index"; then
            echo "Python $version: setup failed (see above)" >"$log.summary"
            return 1
        fi
        bpy="$("$venv/bin/python" -c "from importlib.metadata import version; print(version('bpy'))" 2>/dev/null || echo none)"
        echo "== Python $version, bpy $bpy: lane $((index % LANES + 1)) of $LANES, pytest ${extra[*]}"
        TABLETEST_LANE="$((index % LANES + 1))/$LANES" TABLETEST_LANE_PACE="$PACE" "$venv/bin/python" -m pytest -q "${extra[@]}" "$@"
        code=$?
        echo "Python $version, bpy $bpy: $(grep -E '^=*.* in [0-9.]+s' "$log" | tail -n 1 | tr -d '=' | xargs) (exit $code), lane $((index % LANES + 1)) of $LANES" >"$log.summary"
        grep -E '^(FAILED|ERROR) ' "$log" | sed "s/^/  Python $version: /" >>"$log.summary"  # the failures' names where the last lines show
        return "$code"
    } >"$log" 2>&1
}

# A real browser for the gallery's tests (Debian's chromium), installed before the lanes start, as root;
# without root it must be there already (tests/test_gallery.py says so when it is not).
if ((EUID == 0)); then
    scripts/ci/browser.sh install || echo "note: chromium could not be installed; tests/test_gallery.py will say what is missing" >&2
fi

# Where a lane stands, read off its live log: the tests run so far (pytest's progress characters, a
# line at a time with its percentage), those that failed (F or E), or the step before the tests.
lane_progress() {
    local log=$1 marks percent
    if ! grep -q '^== Python' "$log" 2>/dev/null; then
        echo "installing"
        return
    fi
    marks="$(grep -E '^[.sFExX]+( +\[ *[0-9]+%\])?$' "$log" | sed -E 's/ +\[ *[0-9]+%\]$//' | tr -d '\n')"
    percent="$(grep -oE '\[ *[0-9]+%\]$' "$log" | tail -n 1 | tr -d '[] ')"
    echo "${#marks} tests run${percent:+ (${percent} at the last full line)}, $(tr -cd 'FE' <<<"$marks" | wc -c) failed"
}

# The lanes run side by side (most of a lane is one process waiting on a small render), each into
# its own log, printed whole when all have ended; meanwhile each lane's progress every PROGRESS_S seconds.
PROGRESS_S=${TABLETEST_PROGRESS_S:-60}
mkdir -p "$VENVS"
pids=()
logs=()
versions=()
index=0
started=$SECONDS
for version in $PYTHONS; do
    log="$(mktemp "${TMPDIR:-/tmp}/tabletest-py$version.pytest.XXXXXX")"  # one per run: two runs at once keep their own
    logs+=("$log")
    versions+=("$version")
    echo "== Python $version: live log in $log (tail -f it to follow)"
    lane "$version" "$index" "$log" "$@" &
    pids+=($!)
    index=$((index + 1))
done
running() {
    local pid
    for pid in "${pids[@]}"; do
        kill -0 "$pid" 2>/dev/null && return 0
    done
    return 1
}
while running; do
    for ((waited = 0; waited < PROGRESS_S; waited++)); do
        running || break 2
        sleep 1
    done
    elapsed=$((SECONDS - started))
    for i in "${!logs[@]}"; do
        [[ -f ${logs[$i]}.summary ]] && continue
        printf -- '-- %d:%02d Python %s: %s\n' $((elapsed / 60)) $((elapsed % 60)) "${versions[$i]}" "$(lane_progress "${logs[$i]}")"
    done
done
status=0
for pid in "${pids[@]}"; do
    wait "$pid" || status=1
done
for log in "${logs[@]}"; do
    cat "$log"
done
echo "== summary"
for log in "${logs[@]}"; do
    cat "$log.summary" 2>/dev/null || echo "$(basename "$log"): no result"
    rm -f "$log" "$log.summary"
done
[[ -z $NO_SLURM ]] || echo "note: $NO_SLURM"
exit "$status"
