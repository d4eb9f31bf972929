"""`tabletest verify`'s verdict kept beside the render (`verify.json`), for the gallery's verify filter.

It names the metadata it judged by digest: once the folder changes (more scenes, a merge), the verdict no
longer applies and its scenes read as not verified, until `tabletest verify` runs again.
"""

from __future__ import annotations

import json
from pathlib import Path

from tabletest.files.digest import sha256_of
from tabletest.files.jsonl import atomic_bytes
from tabletest.files.run_output import METADATA

VERIFY_FILE = "verify.json"


def disputed_by_scene(disagreements: list[tuple[str, str, str]]) -> dict[str, list[str]]:
    """(scene id, check, what) as each scene's list of "check: what"."""
    disputed: dict[str, list[str]] = {}
    for scene_id, kind, what in disagreements:
        disputed.setdefault(scene_id, []).append(f"{kind}: {what}")
    return disputed


def write_verdicts(root: Path, images: int, disagreements: list[tuple[str, str, str]], partial: list[str] = ()) -> None:
    """The scenes that disagree, each with what; every other scene of the folder agrees, as far as the checks
    went: `partial` names the labels they could not cover (the verdict is then partial, not an agreement)."""
    report = {
        "metadata_sha256": sha256_of(root / METADATA), "images": images, "disagreements": disputed_by_scene(disagreements),
        "partial": list(partial),
    }
    atomic_bytes(root / VERIFY_FILE, (json.dumps(report, indent=1) + "\n").encode())


def read_verdicts(root: Path) -> dict[str, list[str]] | None:
    """The disputed scenes of the last verify of this very metadata, or None: never verified, or since changed."""
    report = _report(root)
    disputed = report.get("disagreements") if report else None
    return disputed if isinstance(disputed, dict) else None


def unverified_labels(root: Path) -> list[str]:
    """What the last verify of this very metadata could not check (empty for a full verdict, or none at all)."""
    report = _report(root)
    partial = report.get("partial") if report else None
    return [str(what) for what in partial] if isinstance(partial, list) else []


def _report(root: Path) -> dict | None:
    try:
        report = json.loads((root / VERIFY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(report, dict) or report.get("metadata_sha256") != sha256_of(root / METADATA):
        return None
    return report
