"""The user's cache folder, where TableTest keeps what any run may reuse (layers, model verdicts)."""

from __future__ import annotations

import os
from pathlib import Path


def user_cache() -> Path:
    """`$XDG_CACHE_HOME/tabletest`, else `~/.cache/tabletest`."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tabletest"


def default_layer_cache() -> Path:
    """Where composite mode keeps its layer renders unless `--layer-cache` says otherwise."""
    return user_cache() / "layers"
