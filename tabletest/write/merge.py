"""One dataset from shard folders (`tabletest merge`), checked before anything is written.

Parts are refused, with the thing named, when they differ in settings or selection (for random
scenes: another set, i.e. another --count, --seed, --only or config content; or a benchmark part
among random ones), overlap or miss ids, are unfinished, or hold a missing or undecodable image. The
merged folder gets hard links to the parts' images, masks and depth maps (a copy where the file
systems differ), one metadata.jsonl sorted by index, and a run.json that keeps every part's run
history followed by the merge's own record.

Resumable and safe to kill: images land whole (a link is atomic; a copy is renamed into place),
metadata.jsonl and run.json are written atomically after all images, and `.merge.json` marks a
merge under way, so the same command finishes it and gives the same folder.
"""

from __future__ import annotations

import errno
import hashlib
import heapq
import json
import os
import shutil
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tabletest import __version__
from tabletest.config import Catalog
from tabletest.errors import UserError
from tabletest.files.family import Family, companion_of, family_named
from tabletest.layout.selection import Shard, chosen
from tabletest.write.families import family_class
from tabletest.files.jsonl import atomic_output, bounded_lines, write_lines
from tabletest.files.reading import parse_record
from tabletest.files.lock import LOCK, output_lock
from tabletest.write.orphans import end_with
from tabletest.files.paths import no_link_out, record_id, record_path
from tabletest.files.run_output import METADATA, RUN, WRITTEN, _decodes, read_runs
from tabletest.files.settings import (
    SETTINGS,
    read_settings,
    record_settings,
    settings_differences,
    shown_settings,
    widened,
    write_settings,
)

MARKER = ".merge.json"
SHOWN = 5  # ids named in a refusal before "and N more"
PASSES = ("file_name", "mask_file_name", "depth_file_name")  # a record's files (masks and depth with --masks)


@dataclass(frozen=True)
class Part:
    root: Path
    settings: dict
    runs: list[dict]
    selection: dict  # the last run's selection, shard included
    scenes: dict  # the last run's scene family: {"family": "benchmark"} or the random set, shard included
    content: str  # sha256 of its settings and metadata.jsonl: what identifies the part, whatever its folder

    @property
    def family(self) -> Family:
        return family_named(self.scenes.get("family"))

    @property
    def random(self) -> bool:
        """Whether its run drew a set of its own (a random set), which the run's `scenes` describes."""
        return self.family.placement == "free"

    @property
    def shard(self) -> Shard | None:
        text = self.selection.get("shard")
        return Shard.parse(text) if text else None


@dataclass(frozen=True)
class MergeSummary:
    parts: int
    images: int
    linked: int
    copied: int
    kept: int  # already in place from an earlier, interrupted merge


def merge_parts(catalog: Catalog, roots: list[Path], out: Path, jobs: int | None = None) -> MergeSummary:
    """Check the parts, then build `out` from them (see the module docstring)."""
    out = Path(out)
    parts = sorted((load_part(root) for root in _unique(roots)), key=_shard_order)
    fingerprint = _fingerprint(parts)
    _check_out(out, parts, fingerprint)
    _check_same_family(parts)
    if parts[0].random:
        _check_same_random_set(parts)  # before settings, whose difference would name fewer flags
    settings = _common_settings(parts)
    if not parts[0].random:
        _check_same_selection(parts)
    _check_shards(parts)
    entries = list(heapq.merge(*(_entries(part) for part in parts), key=lambda entry: entry[0]))
    _check_ids(catalog, parts, entries)
    files = [(part.root / name, out / name) for _, _, part, names in entries for name in names]
    _check_images([src for src, _ in files], jobs)
    out.mkdir(parents=True, exist_ok=True)
    with output_lock(out):
        _check_out(out, parts, fingerprint)  # again under the lock: another merge may have written it meanwhile
        return _write(parts, entries, files, settings, out, fingerprint)


def _write(
    parts: list[Part], entries: list, files: list[tuple[Path, Path]], settings: dict, out: Path, fingerprint: str
) -> MergeSummary:
    """Images first, then settings, metadata and run history; `.merge.json` marks the merge under way."""
    with atomic_output(out / MARKER) as fh:
        fh.write(json.dumps({"parts": [str(p.root.resolve()) for p in parts], "fingerprint": fingerprint}, indent=2) + "\n")
    linked = copied = kept = 0
    for src, dst in files:
        how = _place(src, dst)
        linked += how == "linked"
        copied += how == "copied"
        kept += how == "kept"
    _drop_strays(out, {dst for _, dst in files})
    write_settings(out, settings)
    write_lines(out / METADATA, (line.rstrip("\n") for _, line in heapq.merge(*(_lines(part) for part in parts))))
    runs = [{**run, "part": part.root.name} for part in parts for run in part.runs]
    runs.append(
        {
            "command": "merge",
            "tabletest": __version__,
            "status": "complete",
            "parts": [p.root.name for p in parts],
            "fingerprint": fingerprint,
            "images": len(entries),
            **({"scenes": {**parts[0].scenes, "shard": None}} if parts[0].random else {}),
            "files": "hard links to the parts' files" if _linked(files) else "copies (the parts are on another file system)",
        }
    )
    with atomic_output(out / RUN) as fh:
        fh.write(json.dumps({"runs": runs}, indent=2, allow_nan=False) + "\n")
    (out / MARKER).unlink()
    return MergeSummary(len(parts), len(entries), linked, copied, kept)


def load_part(root: Path) -> Part:
    root = Path(root)
    if not (root / METADATA).is_file() or not (root / RUN).is_file():
        raise UserError(f"{root} is not a render output (no {METADATA} or {RUN}); give shard folders, e.g. OUT/parts/*")
    runs = read_runs(root)
    last = runs[-1] if runs else {}
    if last.get("status") != "complete":
        raise UserError(
            f"part {root} is not finished (its last run is {last.get('status', 'unknown')}); rerun its render "
            "(on a cluster: tabletest slurm resubmit) and merge again"
        )
    command = last.get("command")
    if not isinstance(command, dict) or not isinstance(command.get("selection"), dict):
        raise UserError(f"part {root}: the last run in {RUN} does not say what it selected (no command.selection); rerun that part's render")
    settings = read_settings(root)
    if settings is None:
        raise UserError(f"part {root} has no settings.json (it was rendered before tabletest pinned settings); rerender it")
    scenes = last.get("scenes") or {"family": "benchmark"}
    if not isinstance(scenes, dict):
        raise UserError(f"part {root}: the last run in {RUN} has a damaged scenes entry; rerun that part's render")
    return Part(root, settings, runs, command["selection"], scenes, _content_digest(root, settings))


def _content_digest(root: Path, settings: dict) -> str:
    """sha256 of a part's settings and metadata.jsonl bytes (streamed): two renders of other scenes, or
    with other settings, never share it, whatever their folders are called."""
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    with open(root / METADATA, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _fingerprint(parts: list[Part]) -> str:
    """What a merge is made from: the parts' content in shard order, not their paths."""
    return hashlib.sha256("\n".join(part.content for part in parts).encode()).hexdigest()


def _unique(roots: list[Path]) -> list[Path]:
    seen: dict[Path, Path] = {}
    for root in roots:
        seen.setdefault(Path(root).resolve(), Path(root))
    return list(seen.values())


def _shard_order(part: Part) -> tuple[int, str]:
    return (part.shard.index if part.shard else -1, str(part.root))


def _check_out(out: Path, parts: list[Part], fingerprint: str) -> None:
    """`out` is new, empty, or provably this very merge (finished, or interrupted): the same fingerprint of
    the parts' content. Anything else is refused before anything in it is touched."""
    resolved = out.resolve()
    for part in parts:
        if resolved == part.root.resolve() or part.root.resolve() in resolved.parents:
            raise UserError(f"--out {out} is inside the part {part.root}; give a folder outside the parts")
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is not a folder; give a new folder for the merged dataset")
    for name in (*WRITTEN, MARKER):
        no_link_out(out, out / name, "a merge")
    if not out.exists() or not any(p.name != LOCK for p in out.iterdir()):
        return
    if _merged_from(out) != fingerprint:
        raise UserError(
            f"--out {out} already holds another dataset (not a merge of these parts' content); "
            "give a new or empty --out (merge never replaces a dataset)"
        )


def _merged_from(out: Path) -> str | None:
    """The fingerprint of the parts `out` is a merge of: an interrupted merge's `.merge.json`, else a
    finished merge's own record, last in its run.json; None for anything else."""
    try:
        if (out / MARKER).is_file():
            marker = json.loads((out / MARKER).read_text(encoding="utf-8"))
            return marker.get("fingerprint") if isinstance(marker, dict) else None
        runs = read_runs(out)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, UserError):
        return None
    last = runs[-1] if runs else {}
    return last.get("fingerprint") if last.get("command") == "merge" else None


def _common_settings(parts: list[Part]) -> dict:
    """The settings every part was rendered with (the models of all of them); a difference is refused."""
    settings = parts[0].settings
    for part in parts[1:]:
        if differences := settings_differences(parts[0].settings, part.settings):
            raise UserError(
                f"parts {parts[0].root} and {part.root} were rendered with different settings "
                f"({'; '.join(differences)}); merge only shards of one run, or rerender the odd part"
            )
        settings = widened(settings, part.settings)
    return settings


def _check_same_family(parts: list[Part]) -> None:
    """Scenes of two families do not mix: their ids, records and settings differ."""
    for part in parts[1:]:
        if part.family != parts[0].family:
            one, other = (parts[0], part) if parts[0].family.name != "benchmark" else (part, parts[0])
            raise UserError(
                f"part {one.root} holds {one.family.words} (--scenes {one.family.name}) and {other.root} "
                f"{'the benchmark' if other.family.name == 'benchmark' else other.family.name}'s; merge only shards of one render command"
            )


def _check_same_random_set(parts: list[Part]) -> None:
    """Shards of one random set: the same config content, --seed, --count, object pool and --limit."""
    flags = {"config_sha256": "--random-config content", "seed": "--seed", "count": "--count", "pool": "--only",
             "held_out": "objects.held_out", "limit": "--limit", "family": "--scenes"}
    for part in parts[1:]:
        if keys := _differing(parts[0].scenes, part.scenes):
            raise UserError(
                f"parts {parts[0].root} and {part.root} are shards of different random sets "
                f"({', '.join(flags.get(k, k) for k in keys)} differ); merge only shards of one set "
                "(the same --count, --seed, --only and --random-config, --shard i/n for each part)"
            )


def _check_same_selection(parts: list[Part]) -> None:
    """Shards of one selection: the same flags but --shard."""
    for part in parts[1:]:
        if keys := _differing(parts[0].selection, part.selection):
            raise UserError(
                f"parts {parts[0].root} and {part.root} select different scenes ({', '.join(f'--{k}' for k in keys)}); "
                "merge only shards of one selection"
            )


def _differing(a: dict, b: dict) -> list[str]:
    """The keys whose values differ, but `shard` (which tells shards apart)."""
    return sorted(k for k in a.keys() | b.keys() if k != "shard" and a.get(k) != b.get(k))


def _check_shards(parts: list[Part]) -> None:
    counts = {p.shard.count if p.shard else 1 for p in parts}
    if len(counts) > 1:
        raise UserError(f"the parts come from different shard counts ({', '.join(map(str, sorted(counts)))}); merge shards of one split")
    count = counts.pop()
    have = {p.shard.index if p.shard else 0 for p in parts}
    missing = [f"{i}/{count}" for i in range(count) if i not in have]
    if missing:
        raise UserError(f"shard(s) {_named(missing)} missing: no part holds them; render them and give their folders too")


def _records(part: Part) -> Iterator[tuple[int, dict, str]]:
    """(line number, record, line) of a part's metadata, streamed; a finished render keeps them in index
    order (a scene's views and partners share its index and follow it)."""
    last = (-1, "")
    path = part.root / METADATA
    with open(path, "rb") as fh:
        for number, raw in enumerate(bounded_lines(fh, path), 1):
            if not raw.strip():
                continue
            if not raw.endswith(b"\n"):
                raise UserError(f"{path} line {number} is cut short; rerun that part's render to repair it")
            record, line = parse_record(raw, path, number), raw.decode("utf-8")
            key = (record.get("index"), record.get("id"))
            if not (type(key[0]) is int and isinstance(key[1], str)):
                raise UserError(f"{path} line {number} has no index and id of a render's record; rerun that part's render")
            if key <= last:
                raise UserError(f"{part.root / METADATA} is not in index order at line {number}; rerun that part's render")
            last = key
            yield number, record, line


def _lines(part: Part) -> Iterator[tuple[tuple[int, str], str]]:
    """((index, id), line) of a part's metadata, streamed, for the merged file."""
    for _, record, line in _records(part):
        yield (record["index"], record["id"]), line


def _entries(part: Part) -> Iterator[tuple[int, str, Part, tuple[str, ...]]]:
    """(index, id, part, file names) of each record, streamed; only these small facts are kept."""
    shown = shown_settings(part.settings)
    for number, record, _ in _records(part):
        if differences := settings_differences(shown, record_settings(record)):
            raise UserError(
                f"part {part.root}: {METADATA} line {number} was made with other settings than its {SETTINGS} "
                f"({'; '.join(differences)}); rerender that part"
            )
        sid, names = record_id(record.get("id")), tuple(_file_names(record))
        if any(name not in (f"images/{sid}.png", f"masks/{sid}.png", f"depth/{sid}.png") for name in names):
            raise UserError(f"{sid} in {part.root} names its files {', '.join(names)}, not images/{sid}.png; rerender that part")
        for key, name in zip(PASSES, names):
            record_path(part.root, name, key)  # a link out of the part is never linked or copied into the merge
        yield record["index"], sid, part, names


def _check_ids(catalog: Catalog, parts: list[Part], entries: list[tuple[int, str, Part, tuple[str, ...]]]) -> None:
    owner: dict[str, Part] = {}
    for _, sid, part, _ in entries:
        if sid in owner:
            raise UserError(
                f"{sid} is in two parts, {owner[sid].root} and {part.root}; give each shard once (shards do not overlap)"
            )
        owner[sid] = part
    for part in parts:
        expected = _expected_ids(catalog, part)
        held = {sid for sid, p in owner.items() if p is part}
        if missing := sorted(expected - held):
            raise UserError(f"part {part.root} lacks {_named(missing)} of its shard; rerun its render to finish it")
        if extra := sorted(held - expected - _companions(expected, held)):
            raise UserError(f"part {part.root} holds {_named(extra)}, which are not of its selection; rerender that part")


def _companions(expected: set[str], held: set[str]) -> set[str]:
    """The other views and counterfactual partners among `held` of the scenes `expected` (a scene may allow
    no such view or partner, so they are welcome, never required)."""
    return {sid for sid in held - expected if companion_of(sid) in expected}


def _expected_ids(catalog: Catalog, part: Part) -> set[str]:
    """The ids a part's command selects: its family's whole set (`SceneFamily.recorded_set`), with its `--shard` and
    `--limit` taken as every render takes them (`chosen`)."""
    indices, scene_id = family_class(part.family).recorded_set(part.scenes, part.selection, catalog)
    return {scene_id(index) for index in chosen(indices, part.shard, part.selection.get("limit"))}


def _file_names(record: dict) -> list[str]:
    return [record[key] for key in PASSES if key in record]


def _check_images(paths: list[Path], jobs: int | None) -> None:
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise UserError(f"image(s) missing: {_named(missing)}; rerun those parts' renders to redo them")
    # each checker exits by itself once the merge is gone: killed with -9, it could not stop them
    with ProcessPoolExecutor(jobs or os.cpu_count() or 1, initializer=end_with, initargs=(os.getpid(),)) as pool:
        whole = list(pool.map(_decodes, paths, chunksize=64))
    broken = [str(p) for p, ok in zip(paths, whole) if not ok]
    if broken:
        raise UserError(
            f"image(s) that do not decode: {_named(broken)}; delete them and rerun those parts' renders "
            "(a render redoes what it lacks)"
        )


def _place(src: Path, dst: Path) -> str:
    """Put `src` at `dst`, whole: a hard link, else (another file system) a copy renamed into place."""
    if dst.exists() and (os.path.samefile(src, dst) or _same_bytes(src, dst)):
        return "kept"
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.merge.tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(src, tmp)
        how = "linked"
    except OSError as err:
        if err.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
            raise
        shutil.copyfile(src, tmp)
        how = "copied"
    os.replace(tmp, dst)
    return how


def _linked(files: list[tuple[Path, Path]]) -> bool:
    return not files or os.path.samefile(*files[0])


def _same_bytes(a: Path, b: Path) -> bool:
    return a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()


def _drop_strays(out: Path, keep: set[Path]) -> None:
    """Remove what an interrupted merge left half-done (temporary names) and files no record names."""
    for folder in ("images", "masks", "depth"):
        for path in (out / folder).iterdir() if (out / folder).is_dir() else ():
            if path not in keep:
                path.unlink()


def _named(items: list[str]) -> str:
    shown = ", ".join(items[:SHOWN])
    return shown + (f" and {len(items) - SHOWN} more" if len(items) > SHOWN else "")
