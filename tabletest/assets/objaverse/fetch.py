"""`tabletest assets fetch`: choose, download, verify and normalise one Objaverse model per catalog object.

Resolution order for an object: the uid pinned in the catalog (`uid:`), else the one in the lock file,
each tried alone; else the catalog's `candidates`, then the uids of its LVIS category, the first that
passes every check. A candidate that fails a check is skipped with its reason; a pinned uid that
fails is refused, never replaced behind the user's back. Accepted models go through the one
normalisation path (`normalize.py`) and the one exit (`store.py`), so they land like built-in ones.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import trimesh

from tabletest.assets.check import check_assets
from tabletest.assets.manifest import AssetEntry, load_manifest, save_manifest
from tabletest.assets.normalize import ModelError, normalise, read_glb
from tabletest.assets.objaverse.hub import Hub, HubFileError
from tabletest.assets.objaverse.lock import Locked, load_lock, lock_path, save_lock
from tabletest.assets.objaverse.policy import Policy, describe, license_slug
from tabletest.assets.store import store_asset
from tabletest.assets.variants import SEPARATOR, model_slug
from tabletest.config import Catalog, CatalogObject

MAX_CANDIDATES = 24  # per object; LVIS categories list hundreds of uids, and each costs a download
LVIS_BATCH = 8  # metadata is looked up this many LVIS uids at a time


class Refused(Exception):
    """A model that failed a check; the message is the reason."""


class Resolver:
    """Finds, downloads and verifies the model of each object; safe to use from several threads."""

    def __init__(self, hub: Hub, policy: Policy, lock_file: Path, log: Callable[[str], None]) -> None:
        self.hub, self.policy, self.lock_file, self.log = hub, policy, lock_file, log
        self.known = hub.known_uids()
        self._annotations: dict[str, dict] = {}
        self._lvis: dict[str, list[str]] | None = None
        self._lock = threading.Lock()

    def annotate(self, uids: Sequence[str]) -> None:
        """Load the metadata of `uids` (those Objaverse has) in one call, unless already loaded."""
        missing = [u for u in dict.fromkeys(uids) if u in self.known and u not in self._annotations]
        if missing:
            found = self.hub.annotations(missing)
            with self._lock:
                self._annotations.update(found)

    def resolve(self, obj: CatalogObject, locked: Locked | None) -> tuple[Locked, trimesh.Scene]:
        """The accepted model of `obj` (its lock entry and canonical scene), or Refused with the reason."""
        pinned_by = "the catalog" if obj.uid else "the lock file" if locked else None
        if pinned_by:
            uid = obj.uid or locked.uid  # type: ignore[union-attr]
            expected = locked if locked and locked.uid == uid else None
            try:
                return self.accept(obj, uid, expected)
            except Refused as refused:
                fix = (
                    f"pin another uid for {obj.name!r} in the catalog"
                    if pinned_by == "the catalog"
                    else f"delete the {obj.name!r} entry from {self.lock_file} to choose again"
                )
                raise Refused(f"uid {uid}, pinned by {pinned_by}, {refused}; {fix}") from None
        found, tried = self.first_passing(obj, self.candidates(obj))
        if found is not None:
            return found
        where = (
            f"its candidates and LVIS category {obj.lvis!r}" if obj.lvis else "its candidates (it has no LVIS category)"
        )
        raise Refused(
            f"none of {tried} uids from {where} passed the checks; pin a uid in the catalog, "
            "allow more licences (--licenses), or import your own file with `tabletest assets import DIR`"
        )

    def another(self, obj: CatalogObject, locked: Locked | None, taken: set[str]) -> tuple[Locked, trimesh.Scene] | None:
        """One more model of `obj` (`--per-object`): the one its lock names, else the first candidate not `taken`
        that passes every check; None when none is left."""
        if locked is not None and locked.uid not in taken:
            try:
                return self.accept(obj, locked.uid, locked)
            except Refused as refused:
                self.log(f"{obj.name}: locked {locked.uid} refused: {refused}; choosing another")
        return self.first_passing(obj, (u for u in self.candidates(obj) if u not in taken))[0]

    def first_passing(self, obj: CatalogObject, uids: Iterator[str]) -> tuple[tuple[Locked, trimesh.Scene] | None, int]:
        """The first of up to `MAX_CANDIDATES` uids whose model passes every check (each refusal logged), and how
        many were tried."""
        tried = 0
        for uid in uids:
            if tried == MAX_CANDIDATES:
                break
            tried += 1
            try:
                return self.accept(obj, uid, None), tried
            except Refused as refused:
                self.log(f"{obj.name}: skipped {uid}: {refused}")
        return None, tried

    def candidates(self, obj: CatalogObject) -> Iterator[str]:
        """The catalog's candidates, then the object's LVIS category, each uid once."""
        seen = set(obj.candidates)
        yield from obj.candidates
        if not obj.lvis:
            return
        with self._lock:
            if self._lvis is None:
                self._lvis = self.hub.lvis()
        category = self._lvis.get(obj.lvis)
        if category is None:
            self.log(f"{obj.name}: LVIS has no category {obj.lvis!r}; fix `lvis:` in the catalog")
            return
        fresh = [u for u in category if u not in seen][:MAX_CANDIDATES]
        for start in range(0, len(fresh), LVIS_BATCH):
            batch = fresh[start : start + LVIS_BATCH]
            self.annotate(batch)
            yield from batch

    def accept(self, obj: CatalogObject, uid: str, expected: Locked | None) -> tuple[Locked, trimesh.Scene]:
        """Check the metadata, then the downloaded file, then that it normalises; Refused says which failed."""
        if uid not in self.known:
            raise Refused("is not in Objaverse's object list")
        self.annotate([uid])
        meta = self._annotations.get(uid)
        if meta is None:
            raise Refused("has no metadata in Objaverse")
        license = license_slug(str(meta.get("license") or "unknown"))
        if license not in self.policy.licenses:
            allowed = ", ".join(sorted(self.policy.licenses))
            raise Refused(f"has licence {describe(license).title!r}, not allowed by --licenses {allowed}")
        announced = meta.get("archives", {}).get("glb", {}).get("size")
        if isinstance(announced, int) and announced > self.policy.max_bytes:
            raise Refused(
                f"is {_mb(announced)} by its metadata, over the {_mb(self.policy.max_bytes)} limit (--max-mb)"
            )
        data = self.download(uid, expected)
        try:
            scene = normalise(data, obj, self.policy.max_triangles)  # the verified bytes: the cached file may be replaced meanwhile
        except ModelError as err:
            raise Refused(err.problem) from None
        user = meta.get("user") or {}
        return (
            Locked(
                uid=uid,
                sha256=hashlib.sha256(data).hexdigest(),
                bytes=len(data),
                license=license,
                title=str(meta.get("name") or uid),
                author=str(user.get("displayName") or user.get("username") or "unknown"),
                url=str(meta.get("viewerUrl") or f"https://sketchfab.com/3d-models/{uid}"),
            ),
            scene,
        )

    def download(self, uid: str, expected: Locked | None) -> bytes:
        """The bytes of the cached GLB of `uid`, complete and (with a lock) the pinned bytes.

        A file that is cut short, not a GLB, or not the locked bytes is deleted from the cache and
        downloaded once more; if it is still wrong it is refused, never used.
        """
        problem = ""
        for attempt in range(2):
            try:
                path = self.hub.glb(uid)
            except HubFileError as err:
                raise Refused(f"could not be downloaded ({err})") from None
            data = path.read_bytes()
            if len(data) > self.policy.max_bytes:
                raise Refused(f"is {_mb(len(data))}, over the {_mb(self.policy.max_bytes)} limit (--max-mb)")
            problem = _transfer_problem(data, expected)
            if not problem:
                return data
            path.unlink(missing_ok=True)
            if attempt == 0:
                self.log(f"{uid}: {problem}; downloading it again")
        raise Refused(problem)


def _transfer_problem(data: bytes, expected: Locked | None) -> str:
    """Why these bytes are not the file we asked for ('' when they are)."""
    if expected is not None:
        digest = hashlib.sha256(data).hexdigest()
        if digest != expected.sha256:
            return f"has sha256 {digest[:16]}…, not the locked {expected.sha256[:16]}…"
    try:
        read_glb(data)
    except ModelError as err:
        return err.problem
    return ""


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} kB"


@dataclass
class FetchReport:
    fetched: list[AssetEntry]
    failed: dict[str, str]
    more: list[AssetEntry] = field(default_factory=list)  # the other models of each (`--per-object`)


def fetch_assets(
    catalog: Catalog,
    assets_dir: Path,
    hub: Hub,
    policy: Policy,
    only: Sequence[str] | None = None,
    jobs: int = 4,
    *,
    log: Callable[[str], None],
    per_object: int = 1,
) -> FetchReport:
    """Fetch the selected objects (all by default) into `assets_dir`; manifest and lock are saved after
    each object, so a kill loses at most the objects in flight and a rerun completes the rest. With
    `per_object` N, up to N models of each (the first as before, the others `name/1` ... in the manifest's
    looks and the lock), each passing every check: what random scenes with `looks.models` draw among."""
    objects = catalog.select(only)
    assets_dir = Path(assets_dir)
    lock, manifest = load_lock(assets_dir), load_manifest(assets_dir)
    resolver = Resolver(hub, policy, lock_path(assets_dir), log)
    locked_uids = {name: entry.uid for name, entry in lock.objects.items()}
    resolver.annotate([u for o in objects for u in (o.uid, locked_uids.get(o.name), *o.candidates) if u])

    def one(obj: CatalogObject) -> list[tuple[str, Locked, AssetEntry]]:
        locked, scene = resolver.resolve(obj, lock.objects.get(obj.name))
        got = [(obj.name, locked, store_asset(assets_dir, obj.name, obj.slug, scene, "objaverse", locked.uid, locked.license))]
        for number in range(1, per_object):
            key = f"{obj.name}{SEPARATOR}{number}"
            more = resolver.another(obj, lock.objects.get(key), {taken.uid for _, taken, _ in got})
            if more is None:
                log(f"{obj.name}: {number} of the {per_object} models asked for passed the checks")
                break
            locked, scene = more
            slug = model_slug(obj.name, number, locked.uid[:8])
            got.append((key, locked, store_asset(assets_dir, obj.name, slug, scene, "objaverse", locked.uid, locked.license)))
        return got

    report = FetchReport([], {})
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(one, obj): obj for obj in objects}
        try:
            for future in as_completed(futures):
                obj = futures[future]
                try:
                    got = future.result()
                except Refused as refused:
                    report.failed[obj.name] = str(refused)
                    log(f"{obj.name}: not fetched: {refused}")
                    continue
                for key, locked, entry in got:
                    (manifest.looks if SEPARATOR in key else manifest.objects)[key] = entry
                    lock.objects[key] = locked
                    log(f"{key}: {locked.uid} ({describe(locked.license).title}, {_mb(locked.bytes)}) -> {assets_dir / entry.file}")
                save_manifest(assets_dir, manifest)
                save_lock(assets_dir, lock)
                report.fetched.append(got[0][2])
                report.more += [entry for _, _, entry in got[1:]]
        finally:
            pool.shutdown(cancel_futures=True)
    stored = [e.name for e in report.fetched]
    for problem in check_assets(catalog, assets_dir, stored, policy.max_triangles) if stored else []:
        report.failed[problem.name] = problem.message
        log(f"{problem.name}: failed verification: {problem.message}")
    return report
