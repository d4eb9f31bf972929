"""Hugging Face datasets: an ImageFolder (the render layout, one schema for every row), Parquet shards of
images and records, and Parquet shards of questions in the chat layout (`hf-chat`).

Both cards declare the columns (`dataset_info` and `configs`), so `load_dataset("<folder>")` does not infer
them from the first rows.

Parquet shards embed the PNG bytes and carry the `datasets` feature of the image column in their
schema metadata, so `load_dataset` gives an `image` column of pictures, not a struct of bytes.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tabletest.export.instruct import question_tally, write_balance
from tabletest.export.records import FILE_FIELDS, columns_of, hf_features, record_fields
from tabletest.files.family import BENCHMARK, Family
from tabletest.export.run import Job
from tabletest.export.shards import close_all, pending, split_shards
from tabletest.prompts.hierarchy.balance_report import AnswerTally
from tabletest.files.reading import images_asked
from tabletest.prompts.hierarchy.marks import MARKED
from tabletest.files.records import RenderRecord

ROW_GROUP = 100  # rows per Parquet row group: small groups keep random access to images cheap
METADATA_ROW_GROUP = 10_000  # ImageFolder's metadata has no images: large groups write 9x faster than 100
IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
PASSES = ("image", "mask", "depth")  # the picture columns: a render made with `--masks` has all three
FIELDS_NOTE = (
    "Each row is one image (and, for renders made with `--masks`, its object `mask`: pixel value = 1 + the "
    "object's position from the left, 0 for the background; and its `depth`: 16-bit millimetres along the camera "
    "axis) with its scene: `id`, `index`, `n_objects`, `objects` (left to right: `name`, `slot`, "
    "`source`, `uid`, `position_m`, `yaw_deg`, `size_m`, `center_px`, `bbox_px`), `relations` (`left_of`, "
    "`right_of`, `between`, and `table_side` as `[name, side]` pairs), `vignettes` and `render`; a random scene's "
    "row has every field of its record too (`camera`, `scene`, each object's `instance` and 3D box, and a "
    "partner's `counterfactual` or a view's `view`)."
)


def declared(data_files: list[dict], features: list[dict], root: Path, in_config: bool = True) -> dict:
    """The card's header for `datasets`: where each split's files are, and its columns, declared rather than
    inferred: in `dataset_info`, which the Hub and the WebDataset builder read, and (`in_config`) in
    `configs` too, where the folder and Parquet builders take them from. `dataset_info` also gives the size of
    the files under `root` (the export's staging folder) and each Parquet split's rows and bytes: `datasets`
    keys its cache of a local folder by its card alone, so a card that did not change with its files would
    load an earlier export's rows from the cache."""
    config = {"config_name": "default", "data_files": data_files}
    if in_config:
        config["features"] = copy.deepcopy(features)  # a copy: YAML would write a shared list as an alias
    info: dict = {"features": features}
    sizes = {entry["split"]: _files(root, entry["path"]) for entry in data_files}
    info["download_size"] = sum(p.stat().st_size for files in sizes.values() for p in files)
    if all(p.suffix == ".parquet" for files in sizes.values() for p in files):
        info["splits"] = [
            {"name": split, "num_bytes": sum(p.stat().st_size for p in files),
             "num_examples": sum(pq.ParquetFile(p).metadata.num_rows for p in files)}
            for split, files in sizes.items()
        ]  # fmt: skip
    return {"configs": [config], "dataset_info": info}


def _files(root: Path, pattern: str) -> list[Path]:
    """The files a card's data-files pattern names, as `datasets` matches it (`**` is every file below)."""
    pattern = f"{pattern}/*" if pattern.endswith("**") else pattern
    return sorted(p for p in root.glob(pattern) if p.is_file() and not p.name.startswith("."))


def pictures(with_mask: bool) -> list[dict]:
    return [{"name": name, "dtype": "image"} for name in (PASSES if with_mask else PASSES[:1])]


def loadable(out: Path) -> str:
    """The export folder as `load_dataset` must be given it: absolute, so that a folder named like a
    packaged builder (`parquet`, `imagefolder`) is not loaded as that builder."""
    return out.resolve().as_posix()


def export_imagefolder(job: Job) -> dict:
    """The render layout with one `metadata.parquet` per split: a Parquet file carries its schema, so every
    split reads with the same columns (ImageFolder infers a JSON Lines file's from its first rows, and a
    split whose objects are all built in would get a `uid` column of nulls that clashes with another's)."""
    file_fields = FILE_FIELDS if job.dataset.has_masks() else FILE_FIELDS[:1]
    family = job.dataset.family()
    fields = record_fields(family)
    columns = pa.schema([*file_fields, *fields])
    metadata = {
        s: _ParquetShard(job.staging.file(job.in_split(s, "metadata.parquet")), columns, METADATA_ROW_GROUP)
        for s in job.split.names
    }
    try:
        for split, record in job.scenes():
            job.place_image(record, job.in_split(split), with_mask=True)
            metadata[split].write(columns_of(record, columns, family))
    finally:
        for shard in metadata.values():
            shard.close()
    job.write_card(
        "TableTest (ImageFolder)",
        f"""Images of everyday objects side by side on a table, with exact spatial ground truth.

```python
import datasets
ds = datasets.load_dataset("{loadable(job.out)}")
```

{FIELDS_NOTE} The card declares these columns, so load the folder by its path as above:
`load_dataset("imagefolder", data_dir=...)` ignores the card and infers the columns from each split's rows.""",
        {
            "task_categories": ["visual-question-answering"],
            **declared(
                [{"split": s, "path": job.in_split(s, "**")} for s in job.split.names],
                [*pictures(job.dataset.has_masks()), *hf_features(fields)],
                job.staging.path,
            ),
        },
    )
    return {}


def schema(with_mask: bool, family: Family = BENCHMARK) -> pa.Schema:
    """The columns of a shard; the image columns (and `mask` and `depth`, for renders with masks) load as pictures."""
    pictures = PASSES if with_mask else PASSES[:1]
    features = {name: {"_type": "Image"} for name in pictures}
    return pa.schema(
        [*((name, IMAGE) for name in pictures), *record_fields(family)],
        metadata={"huggingface": json.dumps({"info": {"features": features}})},
    )


class _ParquetShard:
    def __init__(self, path: Path, schema: pa.Schema, rows_per_group: int = ROW_GROUP, **options) -> None:
        """`options` go to pyarrow's ParquetWriter."""
        self.schema = schema
        self.rows_per_group = rows_per_group
        self.writer = pq.ParquetWriter(path, schema, compression="zstd", **options)
        self.rows: list[dict] = []

    def write(self, row: dict) -> None:
        self.rows.append(row)
        if len(self.rows) >= self.rows_per_group:
            self._flush()

    def _flush(self) -> None:
        if self.rows:
            self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
            self.rows = []

    def close(self) -> None:
        self._flush()
        self.writer.close()


def export_parquet(job: Job) -> dict:
    family = job.dataset.family()
    columns = schema(job.dataset.has_masks(), family)
    fields = record_fields(family)
    shards = split_shards(job, lambda split, i: f"data/{split}-{i:05d}.parquet", lambda p: _ParquetShard(p, columns))
    for split, record in pending(job.scenes(), shards):
        row = {**columns_of(record, columns, family, tuple(name for name, _ in FILE_FIELDS)), "image": _embedded(job.picture(record, job.dataset.image(record)), record.id)}
        for name, path in (("mask", job.dataset.mask(record)), ("depth", job.dataset.depth(record))):
            row[name] = _embedded(job.picture(record, path), f"{record.id}.{name}") if path else None
        shards[split].add(row, sum(len(row[name]["bytes"]) for name in PASSES if row[name]) + 2048)
    files = {split: _final_names(job, names) for split, names in close_all(shards).items()}
    data_files = [{"split": s, "path": f"data/{s}-*"} for s in job.split.names if files[s]]
    job.write_card(
        "TableTest (Parquet)",
        f"""Images of everyday objects side by side on a table, with exact spatial ground truth, as Parquet
shards with the PNG images embedded.

```python
import datasets
ds = datasets.load_dataset("{loadable(job.out)}")
```

{FIELDS_NOTE}""",
        {
            "task_categories": ["visual-question-answering"],
            **declared(data_files, [*pictures(job.dataset.has_masks()), *hf_features(fields)], job.staging.path),
        },
    )
    return {"shards": files}


# the chat layout of TRL's vision datasets and of processors' chat templates: `images` in order, an image part each
PART = pa.struct([("type", pa.string()), ("text", pa.string())])
MESSAGE = pa.struct([("role", pa.string()), ("content", pa.list_(PART))])
CHAT_FIELDS = [
    ("id", pa.string()),
    ("scene_id", pa.string()),
    ("messages", pa.list_(MESSAGE)),
    ("question_ids", pa.list_(pa.string())),
    ("categories", pa.list_(pa.string())),
    ("templates", pa.list_(pa.string())),  # each question's template and phrasing (the hierarchy's; null for the study's)
    ("phrasings", pa.list_(pa.int64())),
]
TURNS = 16  # questions per conversation at most: a trainer cuts longer ones at its length limit, losing the rest
CHAT = pa.schema(
    [("images", pa.list_(IMAGE)), *CHAT_FIELDS],
    metadata={"huggingface": json.dumps({"info": {"features": {"images": [{"_type": "Image"}]}}})},
)


class _ChatShard(_ParquetShard):
    """A shard written one image's conversations at a time (so that a resumed export skips whole images). An
    image's rows repeat its bytes: Parquet's dictionary encoding stores them once per row group, when the
    dictionary may hold a row group's pictures (pyarrow's 1 MiB default falls back to a copy per row)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, CHAT, dictionary_pagesize_limit=64 * 2**20)

    def write(self, rows: list[dict]) -> None:
        for row in rows:
            super().write(row)


def chat_rows(job: Job, record: RenderRecord, queries: list[dict]) -> list[dict]:
    """The questions of one image as conversations of at most TURNS questions each (ids `<image>-q0`, `-q1`, ...).
    Questions about the image and its scene together (a partner's or view's) are rows of their own, of the
    two pictures (`<image>-with-<scene>-q0`, ...), and so are those of all a scene's photos, after its last view
    (`<image>-with-<scene>-views-q0`, ...)."""
    by_images: dict[tuple[str, ...], list[dict]] = {}
    for query in queries:
        by_images.setdefault(tuple(images_asked(query)), []).append(query)
    rows = []
    for files, questions in by_images.items():
        name = record.id if len(files) == 1 else f"{record.id}-with-{record.made_from}"
        name += "-views" * (len(files) > 2 and record.raw.get("view") is not None)
        name += "-marked" * (files[0].startswith(f"{MARKED}/"))
        pictures = [_embedded(job.shown(record, f), picture_name(f)) for f in files]
        for start in range(0, len(questions), TURNS):
            asked = questions[start : start + TURNS]
            rows.append({
                "id": f"{name}-q{start // TURNS}",
                "scene_id": record.id,
                "images": pictures,
                "messages": conversation(asked, len(files)),
                "question_ids": [q["qid"] for q in asked],
                "categories": [q.get("skill") or f"p{q['prompt_type']}" for q in asked],
                "templates": [q.get("template") for q in asked],
                "phrasings": [q.get("phrasing") for q in asked],
            })  # fmt: skip
    return rows


def conversation(asked: list[dict], pictures: int) -> list[dict]:
    """The first user turn shows the pictures, then asks; each question and its gold answer follow as turns."""
    messages = []
    for k, query in enumerate(asked):
        shown = [{"type": "image", "text": None}] * (pictures if k == 0 else 0)
        messages.append({"role": "user", "content": [*shown, {"type": "text", "text": query["text"]}]})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": query["gold"]}]})
    return messages


def _asked(job: Job, tally: AnswerTally | None) -> Iterator[tuple[str, tuple[RenderRecord, list[dict]]]]:
    """Every scene with its questions, added to `tally`: a resumed export's skipped scenes too, whose questions
    are in the shards it keeps, so that the balance report covers every shard."""
    for split, record in job.scenes():
        queries = list(job.queries(record))
        if tally is not None:
            for query in queries:
                tally.add(query)
        yield split, (record, queries)


def export_hf_chat(job: Job) -> dict:
    shards = split_shards(job, lambda split, i: f"data/{split}-{i:05d}.parquet", _ChatShard)
    tally = question_tally(job)
    for split, (record, queries) in pending(_asked(job, tally), shards):
        rows = chat_rows(job, record, queries)
        pictures = {image["path"]: len(image["bytes"]) for row in rows for image in row["images"]}
        shards[split].add(rows, sum(pictures.values()) + 2048 * len(rows))  # a row group stores a picture once
    files = {split: _final_names(job, names) for split, names in close_all(shards).items()}
    rows = {s: sum(pq.ParquetFile(job.staging.path / f).metadata.num_rows for f in files[s]) for s in files}
    data_files = [{"split": s, "path": f"data/{s}-*"} for s in job.split.names if files[s]]
    balance = write_balance(job, tally)
    job.write_card(
        "TableTest (chat)",
        f"""Questions about where everyday objects stand on a table, with their true answers, as conversations
in the chat layout of Hugging Face processors and TRL: `images` (the picture; or, for questions about a
scene and its counterfactual partner or other view, both, in order) and `messages` (the first user turn
has an `{{"type": "image"}}` part per picture; each question and its gold answer follow as turns, at most
{TURNS} to a row). `question_ids` and `categories` (skill, or prompt type) name the questions in order.

```python
import datasets
ds = datasets.load_dataset("{loadable(job.out)}", split="{job.split.names[0]}")
text = processor.apply_chat_template(ds[0]["messages"])  # e.g. Qwen2-VL's or LLaVA-OneVision's processor
inputs = processor(text=text, images=ds[0]["images"])
```{balance}""",
        {
            "task_categories": ["visual-question-answering"],
            **declared(data_files, [{"name": "images", "list": "image"}, *hf_features(CHAT_FIELDS)], job.staging.path),
        },
        sum(rows.values()),
    )
    return {"shards": files, "rows": rows}


def _embedded(data: bytes, stem: str) -> dict:
    return {"bytes": data, "path": f"{stem}.png"}


def picture_name(relative: str) -> str:
    """What an embedded picture is called: its id, `<id>-marked` for its marked copy."""
    return Path(relative).stem + "-marked" * relative.startswith(f"{MARKED}/")


def _final_names(job: Job, names: list[str]) -> list[str]:
    """`data/train-00000.parquet` -> `data/train-00000-of-00003.parquet`, once the count is known."""
    final = [name.replace(".parquet", f"-of-{len(names):05d}.parquet") for name in names]
    for name, new in zip(names, final):
        (job.staging.path / name).replace(job.staging.path / new)
    return final
