"""The sha256 of a file, read in chunks: what pins a model's bytes and a render's records, so that a
resume, an export or a verify report is matched to exactly the files it was made from."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
