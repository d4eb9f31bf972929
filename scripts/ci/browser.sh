#!/usr/bin/env bash
# Debian's chromium and its chromedriver, for the gallery's browser tests (tests/test_gallery.py): installed
# once with apt-get, as root (quick when already there).
#
#   scripts/ci/browser.sh install
set -euo pipefail

if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "error: $0 installs chromium and chromium-driver with apt-get, which needs root; install them yourself" >&2
    exit 2
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
