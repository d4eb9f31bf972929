"""Numbered shards with a count and a size limit, each written whole: the resumable part of an export.

A shard is written under a temporary name, renamed when it is closed, then recorded in the staging
journal. A rerun of the same export keeps the recorded shards and skips the samples they hold;
samples stream in a fixed order, so the shards it writes next are the ones the first run would have.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

from tabletest.export.run import Job
from tabletest.export.staging import Staging

T = TypeVar("T")  # what a split's items are: a record, or a record with its questions


class ShardFile(Protocol):
    def write(self, sample: Any) -> None: ...

    def close(self) -> None: ...


class Shards:
    def __init__(
        self,
        staging: Staging,
        key: str,
        name_of: Callable[[int], str],
        open_file: Callable[[Path], ShardFile],
        max_count: int,
        max_bytes: int,
    ) -> None:
        """`key` tells this sequence's journal entries apart (the split); `name_of(i)` is shard i's path in OUT."""
        self.staging, self.key, self.name_of, self.open_file = staging, key, name_of, open_file
        self.max_count, self.max_bytes = max_count, max_bytes
        self.closed: list[dict] = []
        for entry in (e for e in staging.closed_shards() if e["key"] == key):
            if not (staging.path / entry["name"]).is_file():
                break  # only an unbroken run of shards from the first one can be kept
            self.closed.append(entry)
        self.skip = sum(e["count"] for e in self.closed)
        self._file: ShardFile | None = None
        self._tmp: Path | None = None
        self._count = self._bytes = 0

    @property
    def names(self) -> list[str]:
        return [e["name"] for e in self.closed]

    def add(self, sample: Any, size: int) -> None:
        """Add a sample of about `size` bytes; a full shard is closed first."""
        if self._file is not None and (self._count >= self.max_count or self._bytes + size > self.max_bytes):
            self.close()
        if self._file is None:
            target = self.staging.file(self.name_of(len(self.closed)))
            self._tmp = target.with_name(f".{target.name}.tmp")
            self._file = self.open_file(self._tmp)
        self._file.write(sample)
        self._count += 1
        self._bytes += size

    def close(self) -> None:
        if self._file is None:
            return
        self._file.close()
        name = self.name_of(len(self.closed))
        self._tmp.replace(self.staging.path / name)
        entry = {"key": self.key, "name": name, "count": self._count}
        self.staging.record_shard(entry)
        self.closed.append(entry)
        self._file, self._tmp, self._count, self._bytes = None, None, 0, 0


def split_shards(
    job: Job, name_of: Callable[[str, int], str], open_file: Callable[[Path], ShardFile]
) -> dict[str, Shards]:
    """One shard sequence per split, limited by --shard-size and --shard-mb; `name_of(split, i)` names shard i."""
    limit = int(job.options.shard_mb * 2**20)
    return {
        split: Shards(job.staging, split, lambda i, s=split: name_of(s, i), open_file, job.options.shard_size, limit)
        for split in job.split.names
    }


def pending(scenes: Iterable[tuple[str, T]], shards: dict[str, Shards]) -> Iterator[tuple[str, T]]:
    """The scenes that no closed shard of their split holds yet (every scene, unless resuming)."""
    seen: Counter[str] = Counter()
    for split, record in scenes:
        seen[split] += 1
        if seen[split] > shards[split].skip:
            yield split, record


def close_all(shards: dict[str, Shards]) -> dict[str, list[str]]:
    """Close the last shard of each split; return every split's shard paths."""
    for sequence in shards.values():
        sequence.close()
    return {split: sequence.names for split, sequence in shards.items()}
