"""The assets a render needs, checked before any work starts (no bpy).

Each needed object must be in the manifest, its file present with the pinned sha256, (with
`--source`) made by that source, and accepted by `tabletest assets check` on this machine: a model
whose bytes the checks never accepted here (a new one, or an entry edited to match other bytes) is
checked in full now, and refused if it fails (`verdicts.py` says why a manifest entry cannot vouch for
itself). With the default assets folder and no models there yet, the built-in library is built first,
so a fresh machine renders without any download.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from tabletest.assets import verdicts
from tabletest.assets.manifest import REST_POSE, UNRESTED, AssetEntry, load_manifest
from tabletest.files.digest import sha256_of
from tabletest.assets.limits import DEFAULT_MAX_TRIANGLES
from tabletest.cache import check_run_folders
from tabletest.assets.variants import ModelLook
from tabletest.config import Catalog, CatalogObject
from tabletest.errors import UserError

REMAKE = {"builtin": "tabletest assets build", "objaverse": "tabletest assets fetch", "dir": "tabletest assets import DIR"}


def needed_assets(
    catalog: Catalog, assets_dir: Path, names: Iterable[str], build_missing: bool, source: str | None = None
) -> dict[str, AssetEntry]:
    check_run_folders()  # the models' verdicts, columns and Blender imports are kept there, some by the workers
    names = sorted(set(names), key=catalog.index_of)
    manifest = load_manifest(assets_dir)
    missing = [n for n in names if n not in manifest.objects]
    if missing and build_missing and source in (None, "builtin"):
        from tabletest.assets.builtin.build import build_assets

        # on stderr: `tabletest vignettes` writes its records to stdout
        print(f"building {len(missing)} built-in object model(s) into {assets_dir}/ (once)", file=sys.stderr, flush=True)
        manifest = build_assets(catalog, assets_dir, missing)
        missing = []
    if missing:
        raise UserError(
            f"no model for {', '.join(repr(n) for n in missing[:5])}{' …' if len(missing) > 5 else ''} in {assets_dir}/manifest.json; "
            f"run `tabletest assets build --out {assets_dir}` (or fetch/import them)"
        )
    if source and (other := [n for n in names if manifest.objects[n].source != source]):
        shown = ", ".join(f"{n!r} ({manifest.objects[n].source})" for n in other[:5])
        raise UserError(
            f"--source {source}: {shown}{' …' if len(other) > 5 else ''} in {assets_dir}/ come(s) from another source; "
            f"make them with `{REMAKE[source]} --only ... --out {assets_dir}` or drop --source"
        )
    for name in names:
        refuse_unusable(catalog, assets_dir, manifest.objects[name])
    return {name: manifest.objects[name] for name in names}


def needed_looks(catalog: Catalog, assets_dir: Path, looks: Sequence[ModelLook]) -> dict[str, AssetEntry]:
    """The models of these looks (`mug/3`), by key: each built from its kind's recipe the first time (or when
    its parameters changed), then checked like any model at the look's own size; another model file of a kind
    (`assets fetch --per-object`) is taken as it is."""
    manifest = load_manifest(assets_dir)
    stale = [look for look in looks if not look.file and f"{look.slug}.glb" != getattr(manifest.model(look.key), "file", None)]
    if stale:
        from tabletest.assets.builtin.build import build_looks

        print(f"building {len(stale)} model(s) of other looks into {assets_dir}/ (once)", file=sys.stderr, flush=True)
        manifest = build_looks(catalog, assets_dir, stale)
    entries = {}
    for look in looks:
        obj = catalog.by_name(look.kind)
        entry = entries[look.key] = manifest.looks.get(look.key)
        if entry is None:
            raise UserError(f"no model {look.key!r} in {assets_dir}/manifest.json; fetch it again with `tabletest assets fetch --per-object N`")
        refuse_unusable(catalog, assets_dir, entry, obj.model_copy(update={"size_m": obj.size_m * look.size}))
    return entries


def refuse_unusable(catalog: Catalog, assets_dir: Path, entry: AssetEntry, obj: CatalogObject | None = None) -> None:
    """A UserError, before any Blender work, for a model whose file is missing, differs from its pin, or
    fails the checks (checked now unless this machine's checks accepted these bytes before). `obj`: what
    it is checked as (a look's model: its kind at the look's size), else its catalog entry."""
    name, path = entry.name, Path(assets_dir) / entry.file
    fix = f"{REMAKE[entry.source]} --only '{name}' --out {assets_dir}"
    if not path.is_file():
        raise UserError(f"model file for {name!r} is missing: {path}; make it again with `{fix}`")
    if sha256_of(path) != entry.sha256:
        raise UserError(f"model file for {name!r} does not match its manifest sha256: {path}; make it again with `{fix}`")
    if entry.rest_pose != REST_POSE:
        raise UserError(f"model file for {name!r} {UNRESTED}: {path}; make it again with `{fix}`")
    obj = obj or catalog.by_name(name)
    if not verdicts.accepted(obj, entry.sha256):
        from tabletest.assets.check import check_entry  # trimesh: only for bytes not yet accepted here

        if problems := check_entry(obj, entry, Path(assets_dir), DEFAULT_MAX_TRIANGLES):
            raise UserError(f"model for {name!r} fails `tabletest assets check`, so nothing is rendered: {problems[0]}")
