"""The render folder an export reads: checked up front, then streamed one record at a time."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tabletest.files.digest import sha256_of
from tabletest.errors import UserError
from tabletest.files.family import family_problem
from tabletest.files.reading import read_records, require
from tabletest.prompts.sources import METADATA_FIELDS
from tabletest.files.paths import record_id, record_path
from tabletest.files.run_output import METADATA, read_runs
from tabletest.files.settings import read_settings, record_settings, settings_differences, shown_settings

NOT_A_RENDER = "give the output folder of `tabletest render` (it holds metadata.jsonl and images/)"
FIELDS = (*METADATA_FIELDS, "render")
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

    def records(self) -> Iterator[dict]:
        """Each render record in file order; a record without a required field, or made with other settings
        than the first (a folder mixed before the settings guard), stops with its line number."""
        pinned = read_settings(self.root)
        first: dict | None = None if pinned is None else shown_settings(pinned)
        for line, record in read_records(self.metadata, "metadata file"):
            require(record, FIELDS, self.metadata, line, NOT_A_RENDER)
            record_id(record["id"])  # it names exported files
            if problem := family_problem(record):  # splits keep a family together, by what both say
                raise UserError(f"--dataset {self.root}: {self.metadata.name} line {line}: {problem}; restore it from the render")
            shown = record_settings(record)
            first = first or shown
            if shown != first and (differences := settings_differences(first, shown)):
                raise UserError(
                    f"--dataset {self.root} mixes renders ({self.metadata.name} line {line}: {'; '.join(differences)}); "
                    "export a folder made with one set of settings"
                )
            yield record

    def image(self, record: dict) -> Path:
        return self.file(record["file_name"])

    def has_masks(self) -> bool:
        """Whether the render was made with `--masks` (judged by its first record)."""
        return MASK in next(self.records())

    def has_random_scenes(self) -> bool:
        """Whether the render is of random scenes (`--scenes random`, judged by its first record)."""
        return "scene" in next(self.records())

    def mask(self, record: dict) -> Path | None:
        """The object mask (`tabletest render --masks`: pixel value = 1 + position from the left), if rendered."""
        return self.file(record[MASK], MASK) if MASK in record else None

    def depth(self, record: dict) -> Path | None:
        """The depth pass (16-bit millimetres), written with the mask since the depth pass came in."""
        return self.file(record[DEPTH], DEPTH) if DEPTH in record else None

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


def names(record: dict) -> tuple[str, ...]:
    """The scene's object names, left to right."""
    return tuple(o["name"] for o in record["objects"])
