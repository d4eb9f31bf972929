"""`tabletest assets import DIR`: your own model files, one per catalog object, for machines without internet.

Each GLB / glTF / OBJ / PLY file in the folder is named after a catalog object (`wine_bottle.glb`,
`Wine Bottle.obj`); companion files (`.bin`, `.mtl`, textures) sit beside it. A subfolder named after an
object holds more models of it (`mug/blue.glb`, `mug/tall.glb`), in name order: its looks `mug/1`, `mug/2`
beside the model it has (the folder's file, else the one the assets folder holds, built-in or not; only an
object with neither takes the subfolder's first file as its model). Random scenes with `looks.models` draw
among them. Every file goes through the same normalisation as an Objaverse download and lands through the
same store, as source `dir`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from tabletest.assets.check import check_entry
from tabletest.assets.manifest import AssetEntry, load_manifest, save_manifest
from tabletest.assets.normalize import DEFAULT_MAX_TRIANGLES, MODEL_SUFFIXES, ModelError, normalise
from tabletest.assets.objrefs import dropped_references
from tabletest.assets.store import store_asset
from tabletest.assets.variants import SEPARATOR, model_slug
from tabletest.config import Catalog, CatalogObject, slugify, unknown_name_message
from tabletest.errors import UserError


@dataclass
class ImportReport:
    imported: list[AssetEntry]
    failed: dict[str, str]
    dropped: dict[str, list[str]]  # object -> what its file named that the import left out, and why


def more_files(catalog: Catalog, folder: Path, found: dict[str, Path], held: Collection[str]) -> dict[str, list[Path]]:
    """Each object's subfolder's model files in name order: its looks, less the first where `found` (the folder's
    files) has no model of the object and `held` (the names the assets folder has a model of) neither."""
    by_slug = {obj.slug: obj for obj in catalog.objects}
    more: dict[str, list[Path]] = {}
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and slugify(p.name) in by_slug):
        files = sorted(p for p in sub.iterdir() if p.is_file() and p.suffix.lower() in MODEL_SUFFIXES)
        slug = slugify(sub.name)
        if files and slug not in found and by_slug[slug].name not in held:
            found[slug] = files.pop(0)
        if files:
            more[slug] = files
    return more


def model_files(
    catalog: Catalog, folder: Path, only: Sequence[str] | None = None, held: Collection[str] = ()
) -> list[tuple[CatalogObject, Path, int]]:
    """The folder's model files matched to catalog objects, in catalog order (those in `only`, if given), each
    with its model's number: 0 its model, then its looks (`held`: the names the assets folder has a model of,
    which a subfolder only adds looks to).

    Every name is checked before any work: a file named after no object, two files for one object,
    or an object of `only` with no file is a UserError naming the file and the fix.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(f"import folder {folder} does not exist; give the folder that holds your model files")
    by_slug = {obj.slug: obj for obj in catalog.objects}
    found: dict[str, Path] = {}
    for path in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in MODEL_SUFFIXES):
        slug = slugify(path.stem)
        if slug not in by_slug:
            hint = unknown_name_message(path.stem.replace("_", " ").replace("-", " "), catalog.names)
            raise UserError(
                f"{path} is named after no catalog object ({hint}); rename it to the object's name "
                f"(e.g. {catalog.objects[0].slug}{path.suffix.lower()}) or move it out of {folder}"
            )
        if slug in found:
            raise UserError(
                f"{found[slug].name} and {path.name} are both models of {by_slug[slug].name!r}; keep one of them in {folder}"
            )
        found[slug] = path
    more = more_files(catalog, folder, found, held)
    if not found and not more:
        raise UserError(
            f"no model files ({', '.join(MODEL_SUFFIXES)}) in {folder}; name each after a catalog object, "
            f"e.g. {catalog.objects[0].slug}.glb"
        )
    wanted = catalog.objects if only is None else catalog.select(only)
    absent = [obj.name for obj in wanted if obj.slug not in found and obj.slug not in more]
    if absent and only is not None:
        raise UserError(
            f"no model file for {', '.join(repr(n) for n in absent)} in {folder}; add one named like {wanted[0].slug}.glb"
        )
    matched = []
    for obj in wanted:
        first = [found[obj.slug]] if obj.slug in found else []
        matched += [(obj, path, number) for number, path in enumerate([*first, *more.get(obj.slug, ())], start=0 if first else 1)]
    return matched


def import_folder(
    catalog: Catalog,
    folder: Path,
    assets_dir: Path,
    only: Sequence[str] | None = None,
    *,
    max_triangles: int = DEFAULT_MAX_TRIANGLES,
    log: Callable[[str], None],
) -> ImportReport:
    """Normalise and store the model files of `folder`; a file that cannot be used is reported, not stored.
    What is stored is checked as `assets check` would, so a render trusts it without checking it again."""
    manifest = load_manifest(assets_dir)
    matched = model_files(catalog, folder, only, held=set(manifest.objects))
    report = ImportReport([], {}, {})
    numbers: dict[str, int] = {}
    for obj, path, wanted in matched:
        number = numbers.get(obj.name, wanted)  # 0: its model; then its looks, `name/1`, ..., numbered as stored
        key = obj.name if number == 0 else f"{obj.name}{SEPARATOR}{number}"
        try:
            scene = normalise(path, obj, max_triangles)
        except ModelError as err:
            report.failed[key] = f"{path} {err}, or move {path.name} out of {folder}"  # err: problem; fix
            log(f"{key}: not imported: {report.failed[key]}")
            continue
        entry = store_asset(assets_dir, obj.name, obj.slug if number == 0 else model_slug(obj.name, number, path.stem), scene, "dir")
        if problems := check_entry(obj, entry, Path(assets_dir), max_triangles):  # normalised, so never expected
            report.failed[key] = f"{path} was stored, but {problems[0]}"
            log(f"{key}: not imported: {report.failed[key]}")
            continue
        if path.suffix.lower() == ".obj" and (dropped := dropped_references(path)):
            report.dropped[obj.name] = dropped
            for reason in dropped:
                log(f"{obj.name}: warning: {reason}")
        (manifest.looks if number else manifest.objects)[key] = entry
        numbers[obj.name] = number + 1
        save_manifest(assets_dir, manifest)
        report.imported.append(entry)
        log(f"{key}: {path} -> {Path(assets_dir) / entry.file}")
    return report
