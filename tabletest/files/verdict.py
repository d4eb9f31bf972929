"""`tabletest verify`'s verdict kept beside the render (`verify.json`), for the gallery's verify filter.

It names what it judged by digest: the metadata, and each scene's files (image, mask, depth: one sha256 over
their names, sizes and sha256s). Once the metadata changes (more scenes, a merge), the verdict no longer
applies and every scene reads as not verified; once a scene's files change (an image replaced after
verify), its verdict is outdated; until `tabletest verify` runs again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tabletest.files.digest import sha256_of
from tabletest.files.jsonl import atomic_bytes
from tabletest.files.run_output import METADATA

VERIFY_FILE = "verify.json"
FILE_FIELDS = ("file_name", "mask_file_name", "depth_file_name")


@dataclass(frozen=True)
class KeptVerdict:
    """The last verify of this very metadata: the scenes it disputed, what it could not check, and the scenes
    whose files changed since."""

    disputed: dict[str, list[str]]
    partial: list[str]
    outdated: frozenset[str]
    unreadable: tuple[str, ...] = ()  # scenes whose disagreements verify.json holds as anything but lines of text

    def notes(self, scene_id: str) -> list[str]:
        """What the gallery's details say of a scene's verdict: what verify disputed, and whether it is outdated."""
        if scene_id in self.unreadable:
            return [f"not verified: what {VERIFY_FILE} holds of it is not lines of text; run tabletest verify again"]
        outdated = ["outdated: its image, mask or depth changed since verify judged it"] if scene_id in self.outdated else []
        return outdated + self.disputed.get(scene_id, [])

    def state(self, scene_id: str) -> str:
        """What the gallery shows of a scene: not verified (its verdict unreadable), outdated, disagrees, partly
        checked or agrees."""
        if scene_id in self.unreadable:
            return "not verified"
        if scene_id in self.outdated:
            return "outdated"
        return "disagrees" if scene_id in self.disputed else "partly checked" if self.partial else "agrees"


def disputed_by_scene(disagreements: list[tuple[str, str, str]]) -> dict[str, list[str]]:
    """(scene id, check, what) as each scene's list of "check: what"."""
    disputed: dict[str, list[str]] = {}
    for scene_id, kind, what in disagreements:
        disputed.setdefault(scene_id, []).append(f"{kind}: {what}")
    return disputed


def write_verdicts(
    root: Path, images: int, disagreements: list[tuple[str, str, str]], partial: list[str], files: Mapping[str, str]
) -> None:
    """The scenes that disagree, each with what; every other scene of the folder agrees, as far as the checks
    went: `partial` names the labels they could not cover (the verdict is then partial, not an agreement).
    `files`: each scene's files as judged (`files_digest`)."""
    report = {
        "metadata_sha256": sha256_of(root / METADATA), "images": images, "disagreements": disputed_by_scene(disagreements),
        "partial": list(partial), "files_sha256": dict(files),
    }
    atomic_bytes(root / VERIFY_FILE, (json.dumps(report, indent=1) + "\n").encode())


def files_digest(root: Path, record: Mapping) -> str:
    """One sha256 over the name, size and sha256 of each file the record names (a name that is no regular file
    inside the folder counts as absent, and is never opened)."""
    lines = []
    for key in FILE_FIELDS:
        name = record.get(key)
        if isinstance(name, str):
            path = root / name
            regular = root.resolve() in path.resolve().parents and path.is_file()
            lines.append(f"{name}\0{path.stat().st_size}\0{sha256_of(path)}" if regular else f"{name}\0absent")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def kept_verdict(root: Path, records: Iterable[Mapping]) -> KeptVerdict | None:
    """The last verify of this very metadata, with the scenes among `records` whose files changed since
    (hashed in threads: a folder of many images is read once, at the disk's pace); None where there is none."""
    report = _report(root)
    disputed = _disputed(report)
    if report is None or disputed is None:
        return None
    judged = report.get("files_sha256")
    judged = judged if isinstance(judged, dict) else {}
    records = [r for r in records if isinstance(r.get("id"), str)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        now = list(pool.map(lambda record: files_digest(root, record), records))
    outdated = frozenset(r["id"] for r, digest in zip(records, now) if judged.get(r["id"]) != digest)
    lines = {scene: what for scene, what in disputed.items() if isinstance(what, list) and all(isinstance(x, str) for x in what)}
    return KeptVerdict(lines, _partial(report), outdated, tuple(scene for scene in disputed if scene not in lines))


def _report(root: Path) -> dict | None:
    try:
        report = json.loads((root / VERIFY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # none, not JSON, or nested too deep for any verdict
        return None
    if not isinstance(report, dict) or report.get("metadata_sha256") != sha256_of(root / METADATA):
        return None
    return report


def _disputed(report: dict | None) -> dict[str, list[str]] | None:
    disputed = report.get("disagreements") if report else None
    return disputed if isinstance(disputed, dict) else None


def _partial(report: dict | None) -> list[str]:
    partial = report.get("partial") if report else None
    return [str(what) for what in partial] if isinstance(partial, list) else []
