"""Where the battery's scenes come from: the canonical enumeration (text only) or a render's metadata."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

from tabletest.config import Catalog
from tabletest.errors import UserError
from tabletest.layout.instances import SEPARATOR
from tabletest.layout.selection import Selection, select_scenes
from tabletest.prompts.battery import SceneInput
from tabletest.files.reading import read_records, require
from tabletest.files.records import check_scene_record
from tabletest.truth.records import vignette_record

METADATA_FIELDS = ("file_name", "id", "index", "n_objects", "objects", "vignettes")


def enumerated_scenes(catalog: Catalog, selection: Selection) -> Iterator[SceneInput]:
    for scene in select_scenes(catalog, selection):
        record = vignette_record(scene)
        yield SceneInput(record["id"], record["index"], scene.objects, record["vignettes"])


def dataset_scenes(
    directory: Path,
    catalog: Catalog,
    selection_for: Callable[[int], Selection],
    limit: int | None,
    n_objects: int | None,
) -> Iterator[SceneInput]:
    """The scenes of DIR/metadata.jsonl, in file order, that the selection flags keep.

    `--only`, `--sample` and `--shard` pick scenes of the canonical enumeration (so a sample names
    the same ids as every other command); `--limit` keeps the first N of the dataset's matches.
    `selection_for(n)` gives the selection (without limit) for n-object scenes.
    """
    if not directory.is_dir():
        raise UserError(f"--dataset {directory} is not a folder: give the output folder of a render")
    path = directory / "metadata.jsonl"
    if not path.is_file():
        raise UserError(f"--dataset {directory} has no metadata.jsonl: give the output folder of a render")
    keep: dict[int, Callable[[int], bool]] = {}

    def kept(scene: SceneInput) -> bool:
        if scene.left_of is not None:
            return True  # a random scene: the selection flags pick from the benchmark's enumeration
        n = len(scene.objects)
        if n not in keep:
            keep[n] = _membership(catalog, selection_for(n))
        return keep[n](scene.index)

    yield from itertools.islice((s for s in _read_dataset(path, n_objects) if kept(s)), limit)


def _membership(catalog: Catalog, selection: Selection) -> Callable[[int], bool]:
    if selection.only is None and selection.sample is None:
        shard = selection.shard
        return (lambda index: True) if shard is None else (lambda index: index % shard.count == shard.index)
    wanted = {scene.index for scene in select_scenes(catalog, selection)}
    return wanted.__contains__


def _read_dataset(path: Path, n_objects: int | None) -> Iterator[SceneInput]:
    fix = "is --dataset the output folder of a tabletest render?"
    for line, record in read_records(path, "metadata file"):
        require(record, METADATA_FIELDS, path, line, fix)
        check_scene_record(record, path, line, fix)  # each field it holds of its schema's shape, before it is read
        names = tuple(o if isinstance(o, str) else o["name"] for o in record["objects"])
        if n_objects is not None and len(names) != n_objects:
            raise UserError(
                f"{path}: line {line} is a {len(names)}-object scene but --objects {n_objects} was given; "
                f"drop --objects or pass a {n_objects}-object render"
            )
        yield scene_input(record)


def scene_input(record: dict) -> SceneInput:
    """What the prompt battery needs of a render record; of a random scene also its unambiguous
    left/right pairs, its objects' table sides and what is inside what. The study's prompts name objects, so
    one of several of a kind (apple#2) is left out of them."""
    names = tuple(o if isinstance(o, str) else o["name"] for o in record["objects"])
    relations = record.get("relations", {})
    extra = {}
    if "ambiguous" in relations:
        extra = {
            "left_of": _named(relations["left_of"]),
            "sides": _named(dict(relations["table_side"]).items()),
            "inside": _named(relations.get("inside", ())),
        }
    return SceneInput(record["id"], record["index"], names, record["vignettes"], record.get("file_name"), **extra)


def _named(pairs) -> tuple[tuple[str, str], ...]:
    """The pairs that name no object of a kind the scene holds several of."""
    return tuple(tuple(pair) for pair in pairs if not any(SEPARATOR in part for part in pair))
