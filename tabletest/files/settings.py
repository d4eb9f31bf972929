"""One output folder is one dataset: the settings that decide its pixels and records, pinned in
`OUT/settings.json` by the first run.

A later run into the same folder must bring the same settings, or it is refused before any work
with one line per difference. Selecting more scenes only widens the dataset, so the selection is not
a setting; the models are pinned per name (`models`): a wider selection may add a model, never
change one the folder already used. The dict is open: a scene family adds its own keys (a key that
one side lacks is a difference, so give new keys only to folders that need them).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from tabletest.errors import UserError
from tabletest.files.family import RANDOM, family_named, family_of
from tabletest.files.jsonl import UnfitNumber, atomic_output, bounded_lines, loads

SETTINGS = "settings.json"
OUTPUT_VERSION = 3  # bump when a change of tabletest alters the pixels or records made from the same settings
# What each version changed, named by the refusal of a folder an older one made.
OUTPUT_CHANGES = {
    2: "objects rest in stable poses, and random scenes' lights never wash their table out",
    3: "an object lying diagonally in its model's box has the box of its footprint",
}
GROWING = frozenset({"models"})  # name -> sha256 maps that a wider selection may extend


def read_settings(root: Path) -> dict | None:
    """The settings pinned in `root`, or None for a folder that has none yet (new, or from before the guard)."""
    path = Path(root) / SETTINGS
    if not path.is_file():
        return None
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UserError(f"{path} is damaged ({err}); restore it, or render into a new --out") from None
    if not isinstance(settings, dict):
        raise UserError(f"{path} is not a JSON object; restore it, or render into a new --out")
    return settings


def settings_differences(old: dict, new: dict) -> list[str]:
    """Each setting that differs, as `"key: old → new"` (nested keys dotted); models only where both name them."""
    differences = []
    flat_old, flat_new = _flatten(old), _flatten(new)
    for key in sorted(flat_old.keys() | flat_new.keys()):
        if key.split(".", 1)[0] in GROWING and (key not in flat_old or key not in flat_new):
            continue
        before, after = flat_old.get(key, _ABSENT), flat_new.get(key, _ABSENT)
        if before != after:
            differences.append(f"{key}: {_show(before)} → {_show(after)}")
    return differences


def widened(old: dict, new: dict) -> dict:
    """The settings of a folder after a run with `new` (no differences): the growing maps hold both sides."""
    return {**old, **{key: {**old.get(key, {}), **new[key]} for key in GROWING if key in new}}


def check_settings(root: Path, new: dict) -> dict | None:
    """Refuse a run whose settings differ from those pinned in `root`; return the settings to pin
    after this run, or None when they are pinned already."""
    old = read_settings(root)
    if old is None:
        return new
    if (version := old.get("output_version", _ABSENT)) != new.get("output_version", _ABSENT):
        raise UserError(_other_version(root, version, new.get("output_version", _ABSENT)))
    if (was := _family(old)) != (wanted := _family(new)):
        raise UserError(
            f"--out {root} holds {was}, and this run renders {wanted}: one folder is one dataset; give a new --out"
        )
    differences = settings_differences(old, new)
    if differences:
        raise UserError(
            f"--out {root} holds another dataset ({_brief(differences)}); give a new --out, "
            f"or rerun with the flags and config that made it (see {Path(root) / SETTINGS})"
        )
    merged = widened(old, new)
    return None if merged == old else merged


def _family(settings: dict) -> str:
    """Which scenes a folder's settings render, in words: the study's benchmark, a random set, or another family's."""
    scenes = settings.get("scenes")
    return family_named(scenes.get("family") if isinstance(scenes, dict) else None).words


def _brief(differences: list[str], at_most: int = 4) -> str:
    """The first differences, and how many more: a refusal stays a line a person reads."""
    more = len(differences) - at_most
    return "; ".join(differences[:at_most]) + (f"; and {more} more" if more > 0 else "")


def _other_version(root: Path, old: object, new: object) -> str:
    """The refusal of a folder that another version of tabletest wrote: new images would not match it."""
    older = isinstance(old, int) and isinstance(new, int) and old < new
    changed = [OUTPUT_CHANGES[v] for v in range(old + 1, new + 1) if v in OUTPUT_CHANGES] if older else []
    return (
        f"--out {root} was rendered by {'an older' if older else 'another'} tabletest (output version {_show(old)}, "
        f"this one writes {_show(new)}{': ' + '; '.join(changed) if changed else ''}), so new images would not match "
        "it; give a new --out, or finish it with the tabletest that made it"
    )


def record_settings(record: dict) -> dict:
    """The settings a metadata record shows by itself, in the shape of `settings.json`: what a folder from
    before settings.json, and an export, can be checked by."""
    render = record.get("render", {})
    shown = {
        "config": {"render": {key: render.get(key) for key in ("engine", "samples", "resolution")}},
        "masks": "mask_file_name" in record,
    }
    scene = record.get("scene")
    if isinstance(scene, dict):  # a scene placed freely names its family and set: the random config's digest and the seed
        family = (family_of(record) or RANDOM).name
        shown["scenes"] = {"family": family, "config_sha256": scene.get("config_sha256"), "seed": scene.get("seed")}
    return shown


def shown_settings(settings: dict) -> dict:
    """The part of pinned settings that each record shows (`record_settings`'s shape)."""
    render = settings.get("config", {}).get("render", {})
    shown = {
        "config": {"render": {key: render.get(key) for key in ("engine", "samples", "resolution")}},
        "masks": bool(settings.get("masks")),
    }
    scenes = settings.get("scenes")
    if isinstance(scenes, dict) and family_named(scenes.get("family")).placement == "free":
        shown["scenes"] = {key: scenes.get(key) for key in ("family", "config_sha256", "seed")}
    return shown


def check_records_agree(metadata: Path, settings: dict, lines: int | None = None) -> None:
    """A folder is continued only if its records show these settings: render settings, masks, and a freely placed
    set's family, config digest and seed. Every record of a folder without settings.json (from before it, or with
    it removed); the first `lines` where settings.json is there (an edited one then disagrees with them)."""
    if not metadata.is_file():
        return
    shown = shown_settings(settings)
    with open(metadata, "rb") as fh:
        for line, text in enumerate(itertools.islice(bounded_lines(fh, metadata), lines), start=1):
            try:
                record = loads(text.decode("utf-8", errors="replace"))
            except json.JSONDecodeError:
                continue  # a torn line: recovery drops it
            except UnfitNumber as err:
                raise UserError(f"{metadata}: line {line}: {err}; remove that line, then rerun") from None
            if not isinstance(record, dict):
                continue  # not a record: recovery refuses it, naming the line
            if differences := settings_differences(record_settings(record), shown):
                root = metadata.parent
                raise UserError(
                    f"--out {root} holds another dataset ({metadata.name} line {line}: {_brief(differences)}); "
                    "give a new --out, or rerun with the flags and config that made it"
                )


def write_settings(root: Path, settings: dict) -> None:
    with atomic_output(Path(root) / SETTINGS) as fh:
        fh.write(json.dumps(settings, indent=1, sort_keys=True, allow_nan=False) + "\n")


_ABSENT = object()


def _flatten(settings: dict, prefix: str = "") -> dict[str, object]:
    flat: dict[str, object] = {}
    for key, value in settings.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _show(value: object) -> str:
    """A value as the user would type it; a sha256 shortened to its first 12 characters."""
    if value is _ABSENT:
        return "(none)"
    if isinstance(value, str):
        return value[:12] + "…" if len(value) == 64 and all(c in "0123456789abcdef" for c in value) else value
    return json.dumps(value)
