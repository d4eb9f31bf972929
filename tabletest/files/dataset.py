"""A render folder as every stage reads it (export, show, gallery, verify): checked up front, then streamed one
typed record at a time, each line checked against the closed model of its kind where it is read."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tabletest.errors import UserError
from tabletest.files.digest import sha256_of
from tabletest.files.family import BENCHMARK, Family, family_of, family_problem, index_problem
from tabletest.files.paths import record_path
from tabletest.files.reading import read_records
from tabletest.files.records import RenderRecord, render_record
from tabletest.files.run_output import METADATA, read_runs
from tabletest.files.settings import read_settings, record_settings, settings_differences, shown_settings

NOT_A_RENDER = "give the output folder of `tabletest render` (it holds metadata.jsonl and images/)"
WRONG_SHAPE = "restore metadata.jsonl from the render, or render the folder again"
MASK = "mask_file_name"
DEPTH = "depth_file_name"


@dataclass(frozen=True)
class RenderDataset:
    root: Path

    @classmethod
    def open(cls, root: Path) -> RenderDataset:
        """The folder, once it is known to be a render: a metadata file whose first record has every field."""
        if not root.is_dir():
            raise UserError(f"--dataset {root} is not a folder; {NOT_A_RENDER}")
        if not (root / METADATA).is_file():
            raise UserError(f"--dataset {root} has no {METADATA}; {NOT_A_RENDER}")
        dataset = cls(root)
        if next(dataset.records(), None) is None:
            raise UserError(f"--dataset {root}: {METADATA} holds no images yet; render some first")
        return dataset

    @property
    def metadata(self) -> Path:
        return self.root / METADATA

    def records(self) -> Iterator[RenderRecord]:
        """Each render record in file order, as the model of its kind (its line's dict kept as `raw`); a record
        of another shape (its id, which names exported files, included), or made with other settings than the
        first (a folder mixed before the settings guard), or of an id an earlier line has (a line appended twice:
        its image would be exported, shown and checked twice), stops with its line number."""
        pinned = read_settings(self.root)
        first: dict | None = None if pinned is None else shown_settings(pinned)
        lines: dict[str, int] = {}  # id -> its line
        for line, raw in read_records(self.metadata, "metadata file"):
            record = render_record(raw, self.metadata, line, WRONG_SHAPE)
            if (earlier := lines.setdefault(record.id, line)) != line:
                raise UserError(
                    f"--dataset {self.root}: {self.metadata.name} lines {earlier} and {line} both hold the record of "
                    f"{record.id}; delete line {line} if it repeats line {earlier}, else delete both lines and "
                    f"{record.file_name}, then rerun the same `tabletest render` command"
                )
            if problem := family_problem(raw) or index_problem(raw):  # splits keep a family together, by what all say
                raise UserError(f"--dataset {self.root}: {self.metadata.name} line {line}: {problem}; restore it from the render")
            shown = record_settings(raw)
            first = first or shown
            if shown != first and (differences := settings_differences(first, shown)):
                raise UserError(
                    f"--dataset {self.root} mixes renders ({self.metadata.name} line {line}: {'; '.join(differences)}); "
                    "export a folder made with one set of settings"
                )
            yield record

    def image(self, record: RenderRecord) -> Path:
        return self.file(record.file_name)

    def has_masks(self) -> bool:
        """Whether the render was made with `--masks` (judged by its first record)."""
        return next(self.records()).mask_file_name is not None

    def family(self) -> Family:
        """The scene family the render is of (`tabletest render --scenes`), as its first record says."""
        return family_of(next(self.records())) or BENCHMARK

    def mask(self, record: RenderRecord) -> Path | None:
        """The object mask (`tabletest render --masks`: pixel value = 1 + position from the left), if rendered."""
        return None if record.mask_file_name is None else self.file(record.mask_file_name, MASK)

    def depth(self, record: RenderRecord) -> Path | None:
        """The depth pass (16-bit millimetres), written with the mask since the depth pass came in."""
        return None if record.depth_file_name is None else self.file(record.depth_file_name, DEPTH)

    def file(self, relative: str, field: str = "file_name") -> Path:
        """A file the render lists, by its path in the folder (a missing one is a UserError that says how to
        complete it; one leading outside the folder is refused)."""
        path = record_path(self.root, relative, field)
        if not path.is_file():
            raise UserError(
                f"--dataset {self.root}: {relative} is listed in {METADATA} but missing; "
                "rerun the same `tabletest render` command to complete the folder"
            )
        return path

    def digest(self) -> str:
        """sha256 of the metadata: an interrupted export resumes only on the same render."""
        return sha256_of(self.metadata)

    def run_info(self) -> dict:
        """The record of the latest `tabletest render` into the folder ({} if it has none)."""
        runs = read_runs(self.root)
        return runs[-1] if runs else {}
