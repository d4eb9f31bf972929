"""The output folder of a render run, kept consistent through kills and reruns.

Commit protocol for one image: the worker writes `images/.<id>.png.tmp` (and, with masks,
`masks/.<id>.png.tmp` and `depth/.<id>.png.tmp`); the writer appends the metadata line (flushed to disk), then renames the
PNGs into place. The metadata line is the commit point, so on restart `recover` can finish or undo
any image caught half-way: no half-written image is ever kept, nothing complete is rendered again,
and metadata has exactly one line per image.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from PIL import Image

from tabletest.errors import UserError
from tabletest.files.jsonl import atomic_output, bounded_lines, dumps

METADATA = "metadata.jsonl"
FAILURES = "failures.jsonl"
RUN = "run.json"


class RunOutput:
    def __init__(self, root: Path, masks: bool = False) -> None:
        self.root = Path(root)
        self.images = self.root / "images"
        self.masks = self.root / "masks"
        self.depth = self.root / "depth"
        self.with_masks = masks
        self.metadata_path = self.root / METADATA
        self.failures_path = self.root / FAILURES
        self._metadata = None
        self._failures = None
        self._runs: list[dict] = []

    def tmp_image(self, scene_id: str) -> Path:
        return self.images / f".{scene_id}.png.tmp"

    def final_image(self, scene_id: str) -> Path:
        return self.images / f"{scene_id}.png"

    def tmp_mask(self, scene_id: str) -> Path:
        return self.masks / f".{scene_id}.png.tmp"

    def final_mask(self, scene_id: str) -> Path:
        return self.masks / f"{scene_id}.png"

    def tmp_depth(self, scene_id: str) -> Path:
        return self.depth / f".{scene_id}.png.tmp"

    def final_depth(self, scene_id: str) -> Path:
        return self.depth / f"{scene_id}.png"

    def _files(self, record: dict) -> list[tuple[Path, Path]]:
        """(final, temporary) paths of a record's image and, if it has them, its mask and depth."""
        sid = record["id"]
        files = [(self.final_image(sid), self.tmp_image(sid))]
        if "mask_file_name" in record:
            files.append((self.final_mask(sid), self.tmp_mask(sid)))
        if "depth_file_name" in record:
            files.append((self.final_depth(sid), self.tmp_depth(sid)))
        return files

    def recover(self) -> set[str]:
        """Bring the folder to a consistent state after any interruption; return the ids that are complete."""
        self.images.mkdir(parents=True, exist_ok=True)
        if self.with_masks:
            self.masks.mkdir(exist_ok=True)
            self.depth.mkdir(exist_ok=True)
        kept: list[str] = []
        done: set[str] = set()
        changed = False
        if self.metadata_path.exists():
            with open(self.metadata_path, "rb") as fh:
                for raw in bounded_lines(fh, self.metadata_path):
                    line = raw.decode("utf-8", errors="replace")
                    record = _parse(line)
                    if record is None or record["id"] in done:
                        changed = True
                        continue
                    files = self._files(record)
                    for final, tmp in files:
                        if not final.exists() and _decodes(tmp):
                            os.replace(tmp, final)
                    if all(final.exists() for final, _ in files):
                        kept.append(line if line.endswith("\n") else line + "\n")
                        done.add(record["id"])
                    else:
                        changed = True
        if changed:
            with atomic_output(self.metadata_path) as fh:
                fh.writelines(kept)
        for folder in (self.images, self.masks, self.depth):
            for path in folder.iterdir() if folder.is_dir() else ():
                is_tmp = path.name.startswith(".")
                if is_tmp or (path.suffix == ".png" and path.stem not in done):
                    path.unlink()
        return done

    def open(self) -> None:
        self._metadata = open(self.metadata_path, "a", encoding="utf-8")
        self._failures = open(self.failures_path, "w", encoding="utf-8")

    def commit(self, record: dict) -> None:
        """Append the record (the commit point), then move the finished PNGs into place."""
        self._metadata.write(dumps(record) + "\n")
        self._metadata.flush()
        os.fsync(self._metadata.fileno())
        for final, tmp in self._files(record):
            os.replace(tmp, final)

    def committed(self) -> int:
        """How many images the folder keeps: records wholly on disk (a rerun finishes any caught mid-rename)."""
        if not self.metadata_path.exists():
            return 0
        with open(self.metadata_path, "rb") as fh:
            return sum(1 for line in fh if line.endswith(b"\n"))

    def fail(self, failure: dict) -> None:
        self._failures.write(dumps(failure) + "\n")
        self._failures.flush()

    def close(self, sort: bool) -> None:
        """Close the files; with `sort`, rewrite metadata in index order (a scene's views and partners, which share
        its index, after it by id) so reruns give the same bytes."""
        for fh in (self._metadata, self._failures):
            if fh:
                fh.close()
        if sort and self.metadata_path.exists():
            with open(self.metadata_path, encoding="utf-8") as fh:
                lines = fh.readlines()
            lines.sort(key=_order)
            with atomic_output(self.metadata_path) as out:
                out.writelines(lines)

    def start_run(self, info: dict) -> None:
        """Append this invocation's record to the folder's run history."""
        self._runs = read_runs(self.root) + [info]
        self._write_runs()

    def update_run(self, info: dict) -> None:
        """Replace this invocation's record (the last one) with `info`."""
        self._runs[-1] = info
        self._write_runs()

    def _write_runs(self) -> None:
        with atomic_output(self.root / RUN) as fh:
            fh.write(json.dumps({"runs": self._runs}, indent=2, allow_nan=False) + "\n")


def last_render_run(root: Path) -> dict | None:
    """The latest run that rendered into `root` (with the config it rendered with): a merge's own run,
    recorded after its parts', has none."""
    return next((run for run in reversed(read_runs(root)) if "config" in run), None)


def read_runs(root: Path) -> list[dict]:
    """Every invocation's record in `root/run.json`, oldest first (a run.json from before the history
    was kept, a single record, counts as one)."""
    path = Path(root) / RUN
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UserError(f"{path} is damaged ({err}); move it aside and rerun (the images are kept)") from None
    runs = data["runs"] if isinstance(data, dict) and "runs" in data else [data]
    if not isinstance(runs, list) or not all(isinstance(run, dict) for run in runs):
        raise UserError(f'{path} is not a run history ({{"runs": [{{...}}, ...]}}); move it aside and rerun (the images are kept)')
    return runs


def _parse(line: str) -> dict | None:
    if not line.endswith("\n"):
        return None  # torn by a kill mid-write
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None


def _decodes(path: Path) -> bool:
    """A PNG that is whole: decodes to the end."""
    if not path.exists():
        return False
    try:
        with Image.open(path) as img:
            img.load()
        return True
    except (OSError, SyntaxError, ValueError):
        return False


def _order(line: str) -> tuple[int, str]:
    record = json.loads(line)
    return record["index"], record["id"]
