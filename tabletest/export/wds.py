"""WebDataset tar shards: `<id>.png`, `<id>.json` (the render record, its `table_side` as `[name, side]`
pairs as in the Parquet and ImageFolder exports: `datasets` would make a mapping from object names into
one column per name of the first rows, and drop the rest; a partner's changed `counts` as a mapping, as
`records.columnar` writes them) and, for renders made with `--masks`, `<id>.mask.png` and `<id>.depth.png`
per sample; a few hundred MB each. The record's file names are those of the sample's members, so every
file it names is in its tar.

Members carry fixed owners and times, so the same render and options give the same bytes.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from tabletest.export.huggingface import PASSES, declared, loadable
from tabletest.export.records import FILE_FIELDS, columnar, hf_features, record_fields
from tabletest.export.run import Job
from tabletest.export.shards import close_all, pending, split_shards
from tabletest.files.jsonl import dumps

EXTRA_PASSES = PASSES[1:]  # the mask and the depth: a render made with `--masks` has both, beside its image


class _TarShard:
    def __init__(self, path: Path) -> None:
        self.tar = tarfile.open(path, "w", format=tarfile.USTAR_FORMAT)

    def write(self, sample: list[tuple[str, bytes]]) -> None:
        for name, data in sample:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            self.tar.addfile(info, io.BytesIO(data))

    def close(self) -> None:
        self.tar.close()


def export_webdataset(job: Job) -> dict:
    shards = split_shards(job, lambda split, i: job.in_split(split, f"shard-{i:06d}.tar"), _TarShard)
    for split, record in pending(job.scenes(), shards):
        key = record.id
        pictures = {"file_name": ("png", job.dataset.image(record))}
        pictures |= {f"{name}_file_name": (f"{name}.png", getattr(job.dataset, name)(record)) for name in EXTRA_PASSES}
        named = {field: f"{key}.{suffix}" if path is not None else None for field, (suffix, path) in pictures.items()}
        members = [(f"{key}.json", dumps(columnar({**record.raw, **named})).encode())]
        members += [(named[field], job.picture(record, path)) for field, (_, path) in pictures.items() if path is not None]
        shards[split].add(members, sum(len(data) for _, data in members) + 1024 * len(members))
    files = close_all(shards)
    train = files[job.split.names[0]]
    pattern = job.in_split(job.split.names[0], f"shard-{{000000..{max(len(train) - 1, 0):06d}}}.tar")
    first = next(job.dataset.records())
    passes = [name for name in EXTRA_PASSES if getattr(first, f"{name}_file_name") is not None]
    columns = [
        {"name": "__key__", "dtype": "string"},
        {"name": "__url__", "dtype": "string"},
        {"name": "json", "struct": hf_features(FILE_FIELDS + record_fields(job.dataset.family()))},
        {"name": "png", "dtype": "image"},
        *({"name": f"{name}.png", "dtype": "image"} for name in passes),
    ]
    job.write_card(
        "TableTest (WebDataset)",
        f"""Images of everyday objects side by side on a table, with exact spatial ground truth, as WebDataset
tar shards: per sample `<id>.png` (the image), `<id>.json` (the render's metadata record, with
`relations.table_side` as `[name, side]` pairs, and `file_name`, `mask_file_name` and `depth_file_name` naming
the sample's own members) and, for renders made with `--masks`, `<id>.mask.png` (pixel value = 1 + the object's
position from the left) and `<id>.depth.png` (16-bit millimetres along the camera's axis; `decode("pil")`
makes it 8-bit RGB: read it with `PIL.Image.open` from the raw bytes, or with `datasets`).

```python
import webdataset as wds
ds = wds.WebDataset("{loadable(job.out)}/{pattern}", shardshuffle=False).decode("pil").to_tuple("png", "json")

import datasets  # or with Hugging Face datasets, which reads the columns this card declares
ds = datasets.load_dataset("{loadable(job.out)}")
```""",
        {
            "task_categories": ["visual-question-answering"],
            **declared(
                [{"split": s, "path": job.in_split(s, "shard-*.tar")} for s in job.split.names], columns, job.staging.path, False
            ),
        },
    )
    return {"shards": files}
