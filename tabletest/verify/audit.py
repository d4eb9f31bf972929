"""The pixel audit behind `tabletest verify`: every label of a render folder checked against its own
pixels (the object masks and the depth pass that `tabletest render --masks` writes), not against the
geometry that made it.

Fields are read generically: a relation or a per-object field is checked when a record has it, and
anything else is ignored, so the benchmark's records and the random scenes' richer ones go through
the same checks. Objects are named in relations by name (or by position, if a relation holds
integers); an object's mask label is 1 + its position in the record's `objects`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import combinations
from pathlib import Path

import numpy as np
from PIL import Image

from tabletest.assets.footprint import Footprints
from tabletest.config import Config, excerpt, load_catalog
from tabletest.errors import UserError
from tabletest.layout.camera import CameraView
from tabletest.files.family import family_of, family_problem, index_problem
from tabletest.verify.audit_looks import MIN_PIXELS as MIN_COLOUR_PX, colour_problem, look_problems
from tabletest.layout.instances import label_of
from tabletest.layout.random_config import RandomConfig
from tabletest.layout.random_scene import PlacedObject
from tabletest.layout.variants import Variant
from tabletest.files.family import made_from
from tabletest.files.reading import read_records
from tabletest.files.records import render_record
from tabletest.verify.audit_contact import check_off_plane, object_points, world_points
from tabletest.verify.audit_grounding import check_free_table, check_marks
from tabletest.verify.audit_pairs import PairFacts, check_pairs
from tabletest.verify.audit_sequences import check_sequences
from tabletest.verify.audit_visible import Models, check_fractions, model_files
from tabletest.truth.geometry import ground_depths
from tabletest.verify.image_match import MIN_WIDTH_PX, ImageMatcher
from tabletest.truth.described import described
from tabletest.truth.nouns import Nouns
from tabletest.truth.relation_table import STACKED, WITHHELD
from tabletest.verify.rederive import Derivation, boxes_unchecked, differences, recorded_contact
from tabletest.files.verdict import files_digest
from tabletest.files.lock import reading_lock
from tabletest.files.run_output import METADATA, RUN, last_render_run
from tabletest.files.settings import SETTINGS, read_settings, record_settings, settings_differences, shown_settings

NOT_A_RENDER = "give the output folder of `tabletest render --masks` (it holds metadata.jsonl, images/, masks/, depth/)"
# An object's mask pixels reach at most this many pixels outside its recorded 2D box: a mask pixel is
# the object hit by that pixel's first sample, which Cycles' 1.5 px pixel filter can place up to
# 0.75 px outside the pixel.
BOX_TOLERANCE_PX = 1.5
# An object that nothing hides or touches, at least this many pixels across, fills its recorded box:
# IoU of the mask's box and the recorded one at least this.
MIN_IOU_CHECKED_PX = 8.0
BOX_MIN_IOU = 0.6
# Depth back-projected through the pixel centre lands inside the object's 3D box, within this many
# pixels' footprint at that depth (the same first-sample spread) plus this many metres (mm rounding, mesh
# tessellation).
DEPTH_TOLERANCE_PX = 1.5
DEPTH_TOLERANCE_M = 0.005
# An object whose recorded box is narrower or shorter than this may fall between the samples of a tiny
# render: its pixels are not required (it is counted as too small to check).
MIN_CHECKED_PX = 2.0
FULLY_VISIBLE = 0.999  # a visible fraction at or above this: no part hidden, its mask box must be tight
HIDDEN = 0.001  # at or below this: no pixels
# Under this, another object must show inside its box (above it, a few edge pixels of a small object
# are within what a mask-based measurement of the fraction can miss). A small or thin object's bound is
# lower: its edge pixels (those with a neighbour outside it) are within the measurement's reach too.
PARTLY_HIDDEN = 0.9
# What no pixel shows and nothing checked derives: said in every summary.
NOT_CHECKED = (
    "which model file made an object (source, uid); the render settings (engine, samples, device, seed); "
    "a random scene's lights and backdrop"
)
SHAPE_FIX = "restore the line from the render"
FILE_FIELDS = {"file_name": "images", "mask_file_name": "masks", "depth_file_name": "depth"}


@dataclass
class Audit:
    """What was checked and what disagreed, per kind of check."""

    root: Path
    images: int = 0
    checked: Counter = field(default_factory=Counter)
    disagreements: list[tuple[str, str, str]] = field(default_factory=list)  # scene id, check, what
    too_small: int = 0
    fractions_unchecked: int = 0  # images whose visible fractions no model was at hand for
    unchecked: list[str] = field(default_factory=lambda: [NOT_CHECKED])
    partial: list[str] = field(default_factory=list)  # labels this folder's checks should cover but could not
    worst_box_px: float = 0.0  # the farthest a mask reaches outside its recorded box
    lowest_box_iou: float = 1.0
    worst_depth_m: float = 0.0
    pairs: PairFacts = field(default_factory=PairFacts)  # counterfactual partners: how far their changes reached
    files: dict[str, str] = field(default_factory=dict)  # each scene's files as judged (`files_digest`)

    def check(self, kind: str, scene_id: str, ok: bool, what: str) -> None:
        self.checked[kind] += 1
        if not ok:
            self.disagreements.append((scene_id, kind, what))

    @property
    def scenes_disagreeing(self) -> list[str]:
        return sorted({scene_id for scene_id, _, _ in self.disagreements})


def audit(root: Path, assets: Path | None = None) -> Audit:
    """Audit a render folder; a folder that is not a render, or was rendered without --masks, is a UserError,
    and so is one a render is writing. `assets`: the models the render used (default: the folder its run
    recorded), for relations off the table plane."""
    with reading_lock(root, "verify"):
        return _audit(root, assets)


def _audit(root: Path, assets: Path | None) -> Audit:
    records = _records(root)
    result = Audit(root)
    pinned = read_settings(root)
    folder = _assets_folder(root, assets)
    models = model_files(pinned or {}, folder)
    derivation = replace(_run_facts(root, pinned, folder), footprints=None if models is None else Footprints(models, kept=False))
    if derivation.unmeasured:
        result.partial.append(derivation.unmeasured)
    if derivation.contact is not None:
        result.unchecked.append("touching and next to against the pixels (where two surfaces meet rarely shows: derived from the geometry)")
    if derivation.config is None:
        result.partial.append(f"positions and relations from the run's config ({RUN} names no render config)")
    if not derivation.ground and any(getattr(family_of(r), "placement", None) == "free" for _, r in records):
        result.partial.append(
            f"random scenes' relations, hidden and counts (a set drawn before \"in front of\" meant where objects "
            f"stand on the table: {SETTINGS} pins no scenes.front)"
        )
    ids = Counter(r.get("id") for _, r in records)
    for scene_id, n in ids.items():
        result.check("metadata", str(scene_id), n == 1, f"{n} metadata lines for one id")
    matcher = ImageMatcher()
    boxes = 0  # 3D boxes along a footprint no model was at hand to confirm
    reference = shown_settings(pinned) if pinned is not None else record_settings(records[0][1])
    where = SETTINGS if pinned is not None else "the first record"
    for line, record in records:
        scene_id = str(record.get("id", f"line {line}"))
        mixed = settings_differences(reference, record_settings(record))
        result.check("metadata", scene_id, not mixed, f"made with other settings than {where}: {'; '.join(mixed)}")
        problem = family_problem(record)
        result.check("metadata", scene_id, problem is None, problem or "")
        shape = _shape_problem(record, line)
        result.check("schema", scene_id, shape is None, shape or "")
        index = index_problem(record)
        result.check("metadata", scene_id, index is None, index or "")
        try:
            _audit_record(result, root, record, scene_id, matcher, derivation.ground, models)
            for what in differences(record, derivation):
                result.check("derived", scene_id, False, what)
            for obj in record["objects"]:
                if obj.get("variant") is not None:
                    problems = list(look_problems(obj, derivation.looks))
                    result.check("look", scene_id, not problems, f"{label_of(obj)}: {'; '.join(problems)}")
            result.check("derived", scene_id, True, "")
            boxes += boxes_unchecked(record) if models is None else 0
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:  # a record that does not say what it must
            result.check("metadata", scene_id, False, f"line {line} is malformed: {type(err).__name__}: {excerpt(str(err))}")
    for scene_id, what in matcher.mismatches(lambda: _masks_again(root, records)):
        result.check("image", scene_id, False, what)
    result.checked["image"] += matcher.compared
    _partial_checks(result, folder, matcher.too_small, boxes)
    by_id = {str(r.get("id")): r for _, r in records}
    quiet = Audit(root)  # a file the pair checks cannot read is already a disagreement of its own record

    def load(record: dict, key: str) -> np.ndarray | None:
        return _decoded(quiet, root, record, key, str(record.get("id")))

    check_pairs(_pair_check(result), load, by_id, derivation, result.pairs, ring_views(pinned))
    frame_check = _pair_check(result)
    check_sequences(lambda frame_id, ok, what: frame_check("sequence", frame_id, "", ok, what), by_id, models)
    _check_unlisted(result, root, records)
    return result


def _partial_checks(result: Audit, folder: Path, too_small: int, boxes: int) -> None:
    """The checks that could not run on every image make the verdict partial: each named, with how many images
    (`too_small`: those too small to compare with their masks) or objects (`boxes`: 3D boxes along a footprint,
    without the models that confirm them)."""
    if too_small:
        result.partial.append(
            f"images match their masks: {too_small} of {result.images} image(s) under {MIN_WIDTH_PX} px "
            "wide, too small to compare with their masks"
        )
    if result.fractions_unchecked:
        result.partial.append(
            f"visible fractions and covered_by against the models' silhouettes: {result.fractions_unchecked} image(s) "
            f"({folder} does not hold the models {SETTINGS} pins; pass --assets)"
        )
    if boxes:
        result.partial.append(
            f"3D boxes along a model's footprint: {boxes} object(s) lying diagonally in their model's own box "
            f"({folder} does not hold the models {SETTINGS} pins; pass --assets)"
        )


def _pair_check(result: Audit) -> Callable[[str, str, str, bool, str], None]:
    """The pair checks' verdicts, each laid on the record whose own files or labels disagree: a pair that fails
    because one member is wrong names that member, not the other (where neither or both are, the partner or
    view it was checked as)."""
    own = set(result.scenes_disagreeing)  # before any pair check: each record judged on its own

    def check(kind: str, record_id: str, other: str, ok: bool, what: str) -> None:
        if not ok and other in own and record_id not in own:
            blame = f"found checking {record_id} against it: {other}'s own checks disagree, {record_id}'s do not"
            result.check(kind, other, False, f"{what} ({blame})")
        else:
            result.check(kind, record_id, ok, what)

    return check


def _shape_problem(record: dict, line: int) -> str | None:
    """What makes a line another shape than the render record model of its kind says (a field of another type,
    one missing or unknown), as every other command refuses it; None for a line of the right shape."""
    try:
        render_record(record, Path(METADATA), line, SHAPE_FIX)
    except UserError as err:
        return str(err)
    return None


def ring_views(pinned: dict | None) -> int | None:
    """How many views share each scene's ring, where the settings say the views stand on one (`--view-layout ring`)."""
    scenes = (pinned or {}).get("scenes")
    if not isinstance(scenes, dict) or scenes.get("view_layout") != "ring" or not isinstance(scenes.get("views"), int):
        return None
    return scenes["views"]


def _records(root: Path) -> list[tuple[int, dict]]:
    if not root.is_dir():
        raise UserError(f"{root} is not a folder; {NOT_A_RENDER}")
    if not (root / METADATA).is_file() or not (root / "images").is_dir():
        raise UserError(f"{root} is not a render folder (no {METADATA} or images/); {NOT_A_RENDER}")
    records = list(read_records(root / METADATA, "metadata file"))
    if not records:
        raise UserError(f"{root}/{METADATA} holds no images yet; render some first")
    if not any("mask_file_name" in r for _, r in records):
        raise UserError(
            f"{root} was rendered without --masks, so there are no pixels to check its labels against; "
            "render it again into a new folder, with the same command plus --masks and another --out (one folder holds one dataset)"
        )
    needs_depth = any((r.get("relations") or {}).get(k) for _, r in records for k in ("in_front_of", "behind"))
    if needs_depth and not all("depth_file_name" in r for _, r in records):
        raise UserError(
            f"{root} has in front/behind labels but no depth pass (rendered before TableTest wrote one); "
            "render it again with --masks into a new --out"
        )
    return records


def _assets_folder(root: Path, assets: Path | None) -> Path:
    """The models the render used: `assets` if given, else the folder its last run names."""
    if assets is not None:
        return assets
    try:
        info = last_render_run(root) or {}
    except UserError:
        info = {}
    return Path((info.get("assets") or {}).get("folder") or "assets")


def _run_facts(root: Path, pinned: dict | None, folder: Path) -> Derivation:
    """The benchmark's fixed camera and what labels are derived with, from the config (and random config)
    the last run recorded, the pair nouns the settings pin and, for arrangements, the models; records of
    random scenes carry their own camera."""
    kinds = {o.name: o.kind for o in load_catalog().objects}
    scenes = (pinned or {}).get("scenes")
    scenes = scenes if isinstance(scenes, dict) else {}
    nouns, ground = Nouns(frozenset(scenes.get("pair_nouns") or ())), scenes.get("front") == "ground"
    try:
        info = last_render_run(root)
        config = Config.model_validate(info["config"]) if info else None
    except (UserError, ValueError):
        config = None
    if config is None:
        return Derivation(None, None, kinds, nouns, ground)
    try:
        random_config = RandomConfig.model_validate(info["random_config"]) if info.get("random_config") else None
    except ValueError:
        random_config = None
    margins = random_config.relations if random_config is not None else None
    contact, unmeasured = None, ""
    if random_config is not None and random_config.arrangements.enabled:
        contact, unmeasured = recorded_contact(pinned or {}, random_config.arrangements, folder)
    looks = random_config.looks if random_config is not None and random_config.looks.enabled else None
    fronts = scenes.get("fronts") if isinstance(scenes.get("fronts"), dict) else None
    return Derivation(config, margins, kinds, nouns, ground, contact, unmeasured, looks, random_config=random_config, fronts=fronts)


def _audit_record(
    result: Audit, root: Path, record: dict, scene_id: str, matcher: ImageMatcher,
    ground_rule: bool, models: Models | None,
) -> None:
    result.images += 1
    result.files[scene_id] = files_digest(root, record)
    for key, folder in FILE_FIELDS.items():
        if key in record:
            result.check("files", scene_id, record.get(key) == f"{folder}/{scene_id}.png", f"{key} {excerpt(record.get(key))}")
    if "mask_file_name" not in record:
        result.check("files", scene_id, False, "no mask_file_name: rendered without --masks, so no pixels to check its labels against")
        return
    image = _decoded(result, root, record, "file_name", scene_id)
    mask = _decoded(result, root, record, "mask_file_name", scene_id)
    depth = _decoded(result, root, record, "depth_file_name", scene_id) if "depth_file_name" in record else None
    if image is None or mask is None:
        return
    size = (image.shape[1], image.shape[0])
    shapes = [a.shape[:2] for a in (image, mask, depth) if a is not None]
    result.check("files", scene_id, len(set(shapes)) == 1, f"image, mask and depth sizes differ: {shapes}")
    if "render" in record and "resolution" in record["render"]:
        wanted = tuple(record["render"]["resolution"])
        result.check("files", scene_id, size == wanted, f"image is {size[0]}x{size[1]}, record says {wanted}")
    if len(set(shapes)) != 1:
        return
    objects = record["objects"]
    pixels = [mask == position + 1 for position in range(len(objects))]
    result.check(
        "files", scene_id, int(mask.max()) <= len(objects), f"mask label {int(mask.max())} for {len(objects)} objects"
    )
    camera = _record_camera(record, root)
    small = [not p.any() and _projects_small(obj, camera) for obj, p in zip(objects, pixels)]
    result.too_small += sum(small)
    change = record.get("counterfactual") or {}
    replaced = tuple(change["objects"]) if change.get("kind") == "replace" else None
    labels = {label_of(o): position + 1 for position, o in enumerate(objects)}
    matcher.add(scene_id, made_from(record) or scene_id, image, mask, depth, labels, replaced)
    _check_visibility(result, scene_id, objects, pixels, small)
    _check_covered(result, scene_id, objects, pixels)
    for obj, shown in zip(objects, pixels):
        if (obj.get("variant") or {}).get("colour") and int(shown.sum()) >= MIN_COLOUR_PX:
            problem = colour_problem(obj, image[..., :3][shown])
            result.check("look_colour", scene_id, problem is None, f"{label_of(obj)}: {problem}")
    if camera is not None and any("visible_fraction" in o for o in objects):
        if models is None:
            result.fractions_unchecked += 1
        else:
            check_fractions(partial(result.check, "visible", scene_id), objects, mask, camera, models, _box_corners)
    _check_boxes(result, scene_id, objects, pixels, small)
    check_marks(partial(_checked, result, "marks", scene_id), record, mask)
    seen = [p.any() for p in pixels]
    columns = _Columns.of(objects, pixels)
    terms = _resolver(objects)
    relations = record.get("relations") or {}
    _check_named(result, scene_id, relations, objects)
    _check_order(result, scene_id, relations, terms, columns)
    _check_between(result, scene_id, relations, terms, columns)
    _check_table_side(result, scene_id, relations, terms, columns)
    if depth is not None:
        spans = [np.percentile(depth[p], (0, 50, 100)) / 1000 if s else None for p, s in zip(pixels, seen)]
        stands = None  # where each stands on the table along the view: what "in front of" compares
        if ground_rule and isinstance(record.get("camera"), dict):
            stands = ground_depths(CameraView.from_record(record["camera"]).pinhole(), [_standing(o) for o in objects]).tolist()
        _check_front_behind(result, scene_id, relations, terms, objects, spans, stands)
        for obj, p, s in zip(objects, pixels, small):
            if p.any() and not s:
                _check_depth(result, scene_id, obj, p, depth, camera)
        check_free_table(partial(_checked, result, "free table", scene_id), record, mask, depth)
        if camera is not None and any(relations.get(key) for key in STACKED):
            points = object_points(pixels, depth, camera.K, camera.world_to_camera)
            table_top = min(_placed(o).position_m[2] for o in objects)  # the lowest object stands on the table
            check_off_plane(lambda ok, what: result.check("off_plane", scene_id, ok, what), relations, terms, points, table_top)


def _checked(result: Audit, kind: str, scene_id: str, ok: bool, what: str) -> None:
    result.check(kind, scene_id, ok, what)


def _masks_again(root: Path, records: list[tuple[int, dict]]) -> Iterator[tuple[str, str, np.ndarray, np.ndarray | None]]:
    """Every scene's (id, family, mask, depth), read again: what an image that fits its own masks badly is
    compared with (the files that do not read are disagreements of their own records already)."""
    quiet = Audit(root)
    for _, record in records:
        scene_id = str(record.get("id"))
        if "mask_file_name" not in record or (mask := _decoded(quiet, root, record, "mask_file_name", scene_id)) is None:
            continue
        depth = _decoded(quiet, root, record, "depth_file_name", scene_id) if "depth_file_name" in record else None
        yield scene_id, made_from(record) or scene_id, mask, depth


def _decoded(result: Audit, root: Path, record: dict, key: str, scene_id: str) -> np.ndarray | None:
    """The pixels of a file the record names; only a regular file inside the folder is opened (a name
    leading outside, or a link to a pipe or device, is a disagreement, not a read that may never end)."""
    name = record[key]
    path = root / name
    inside = root.resolve() in path.resolve().parents
    if not inside or not path.is_file():
        if inside and not path.exists():
            result.check("files", scene_id, False, f"{name} is missing")
        else:
            why = "leads outside the folder" if not inside else "is not a regular file"
            result.check("files", scene_id, False, f"{key} {name if len(name) <= 200 else excerpt(name)} {why}")
        return None
    try:
        with Image.open(path) as img:
            img.load()
            pixels = np.asarray(img)
    except (OSError, SyntaxError, ValueError) as err:
        result.check("files", scene_id, False, f"{record[key]} does not decode ({err})")
        return None
    result.check("files", scene_id, True, "")
    return pixels


def _projects_small(obj: dict, camera: CameraView | None) -> bool:
    """Whether an object without mask pixels may have fallen between the samples: its 3D box (checked
    against the depth pass) projects under `MIN_CHECKED_PX` across. Judged from the geometry, not from
    the record's `bbox_px` under audit; without a camera, no object is excused."""
    if camera is None:
        return False
    world = _placed(obj).box_corners()
    if (camera.to_camera(world)[:, 2] <= 0).any():
        return False
    pixels = camera.project(world)
    extent = pixels.max(axis=0) - pixels.min(axis=0)
    return bool(extent.min() < MIN_CHECKED_PX)


def _check_named(result: Audit, scene_id: str, relations: dict, objects: list[dict]) -> None:
    """Every object a relation names is in the scene and not hidden (a hidden one is in no relation)."""
    names = {label_of(o) for o in objects}
    hidden = set(relations.get("hidden") or ())
    result.check("named", scene_id, hidden <= names, f"hidden names {sorted(hidden - names)}, not in the scene")
    for key, items in relations.items():
        if key == "table_side" and isinstance(items, dict):
            items = list(items)
        elif key in ("hidden", "counts") or not isinstance(items, list):
            continue
        for item in items:
            terms = item if isinstance(item, list) else [item]
            named = [t for t in terms if isinstance(t, str) and t not in WITHHELD]
            wrong = [t for t in named if t not in names or t in hidden]
            result.check("named", scene_id, not wrong, f"{key} {excerpt(item)} names {wrong}: not a visible object of this scene")


def _check_visibility(result: Audit, scene_id: str, objects: list[dict], pixels: list[np.ndarray], small: list[bool]) -> None:
    """An object has mask pixels exactly when it is recorded visible; one recorded partly hidden has another
    object's pixels inside its box."""
    for position, (obj, p, s) in enumerate(zip(objects, pixels, small)):
        fraction = obj.get("visible_fraction")
        count = int(p.sum())
        if fraction is None:
            if not s:
                result.check("visible", scene_id, count > 0, f"{obj['name']} has no pixels in the mask")
            continue
        if fraction <= HIDDEN:
            result.check("visible", scene_id, count == 0, f"{obj['name']}: visible_fraction {fraction} but {count} mask pixels")
        elif not s:
            result.check("visible", scene_id, count > 0, f"{obj['name']}: visible_fraction {fraction} but no mask pixels")
        if fraction < _partly_hidden_below(p) and not s and count:
            x0, y0, x1, y1 = _pixel_box(obj["bbox_px"])
            others = [q for i, q in enumerate(pixels) if i != position]
            covered = any(q[y0:y1, x0:x1].any() for q in others)
            result.check(
                "visible", scene_id, covered, f"{obj['name']}: visible_fraction {fraction} but nothing covers its box"
            )


def _check_covered(result: Audit, scene_id: str, objects: list[dict], pixels: list[np.ndarray]) -> None:
    """`covered_by`: each object it names is in the scene and shows inside the covered object's box (it is
    seen where the covered one would be)."""
    positions = {label_of(o): i for i, o in enumerate(objects)}
    for obj in objects:
        covering = obj.get("covered_by")
        if not isinstance(covering, list) or not covering:
            continue
        x0, y0, x1, y1 = _pixel_box(obj["bbox_px"])
        for name in covering:
            shows = name in positions and bool(pixels[positions[name]][y0:y1, x0:x1].any())
            result.check("visible", scene_id, shows, f"{obj['name']}: covered_by {name!r}, which shows nowhere in its box")


def _partly_hidden_below(p: np.ndarray) -> float:
    inner = np.pad(p, 1)
    inner = inner[1:-1, 1:-1] & inner[:-2, 1:-1] & inner[2:, 1:-1] & inner[1:-1, :-2] & inner[1:-1, 2:]
    edge = int(p.sum()) - int(inner.sum())
    return min(PARTLY_HIDDEN, 1 - edge / max(int(p.sum()), 1))


def _pixel_box(bbox: list[float]) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = bbox
    return max(0, math.floor(x0)), max(0, math.floor(y0)), math.ceil(x1), math.ceil(y1)


def _check_boxes(result: Audit, scene_id: str, objects: list[dict], pixels: list[np.ndarray], small: list[bool]) -> None:
    """Each object's mask lies inside its recorded box (the box of its whole projected mesh); an object nothing
    hides or touches also fills it (IoU). A thin part (a shackle, a leaf) under a pixel wide may be missed by
    every sample, so a mask box may fall short of the recorded one: hence IoU, not edge by edge, that way."""
    for obj, p, s in zip(objects, pixels, small):
        if s or not p.any():
            continue
        rows, cols = np.nonzero(p)
        found = (int(cols.min()), int(rows.min()), int(cols.max()) + 1, int(rows.max()) + 1)
        recorded = obj["bbox_px"]
        outside = max(recorded[0] - found[0], recorded[1] - found[1], found[2] - recorded[2], found[3] - recorded[3], 0)
        result.worst_box_px = max(result.worst_box_px, float(outside))
        result.check(
            "box",
            scene_id,
            outside <= BOX_TOLERANCE_PX,
            f"{obj['name']}: mask box {list(found)} reaches {outside:.1f} px outside bbox_px {recorded}",
        )
        tight = obj.get("visible_fraction", 1.0) >= FULLY_VISIBLE and not _touches_other(p, pixels)
        if tight and min(recorded[2] - recorded[0], recorded[3] - recorded[1]) >= MIN_IOU_CHECKED_PX:
            iou = _iou(found, recorded)
            result.lowest_box_iou = min(result.lowest_box_iou, iou)
            result.check("box", scene_id, iou >= BOX_MIN_IOU, f"{obj['name']}: mask box {list(found)} vs bbox_px {recorded}: IoU {iou:.2f}")


def _iou(a: tuple, b: list[float]) -> float:
    width = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    height = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = width * height
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _touches_other(p: np.ndarray, pixels: list[np.ndarray]) -> bool:
    """Whether another object's pixels touch this one's (8-connected): then either may have taken an edge pixel."""
    grown = p.copy()
    grown[1:] |= p[:-1]
    grown[:-1] |= p[1:]
    grown[:, 1:] |= grown[:, :-1].copy()
    grown[:, :-1] |= grown[:, 1:].copy()
    return any((grown & q).any() for q in pixels if q is not p)


def _resolver(objects: list[dict]) -> dict:
    """Relation term (name, or position) -> object position; a name two objects share resolves to neither."""
    names = Counter(label_of(o) for o in objects)
    terms: dict = {label_of(o): i for i, o in enumerate(objects) if names[label_of(o)] == 1}
    terms.update({i: i for i in range(len(objects))})
    return terms


@dataclass(frozen=True)
class _Columns:
    """Where each object's mask pixels lie across the image: their centroid and their leftmost and
    rightmost columns (NaN for an unseen object, left to `visible`), and which objects are partly hidden.

    A label says where whole objects stand; the mask shows only what is seen. For an object nothing
    hides, the centroid of its pixels, or the middle of their extent, must agree. For a partly hidden one (visible fraction under
    PARTLY_HIDDEN) what is seen can be any part of it, so its centroid is no test (in a 1,000-scene
    random render at 48x36, 8 scenes had a partly hidden object's visible centroid on the other side,
    e.g. headphones 81 % behind a laptop); then a's pixels may only not lie wholly right of b's."""

    centroid: list[float]
    lo: list[float]
    hi: list[float]
    partly: list[bool]
    box_middle: list[float]  # of the recorded 2D box, which the box check holds to the mask

    @classmethod
    def of(cls, objects: list[dict], pixels: list[np.ndarray]) -> _Columns:
        xs = [np.nonzero(p)[1] + 0.5 for p in pixels]
        boxes = [o.get("bbox_px") for o in objects]
        return cls(
            [float(x.mean()) if x.size else math.nan for x in xs],
            [float(x.min()) if x.size else math.nan for x in xs],
            [float(x.max()) if x.size else math.nan for x in xs],
            [_partly_hidden(o) for o in objects],
            [(float(b[0]) + float(b[2])) / 2 if isinstance(b, list) and len(b) == 4 else math.nan for b in boxes],
        )

    def seen(self, *positions: int) -> bool:
        return not any(math.isnan(self.centroid[i]) for i in positions)

    def left(self, a: int, b: int) -> bool:
        """Whether the pixels allow a to stand left of b: by centroid, by the middle of the pixels' extent
        (a watering can's centroid lies 2.5 px left of its box centre, towards its body, away from its spout),
        or by the middle of the 2D boxes, themselves checked against the mask (at 96 px wide a screwdriver's
        shaft is under a pixel, so its mask shows the handle only)."""
        if self.partly[a] or self.partly[b]:
            return self.lo[a] <= self.hi[b]
        return (
            self.centroid[a] < self.centroid[b]
            or self.lo[a] + self.hi[a] < self.lo[b] + self.hi[b]
            or self.box_middle[a] < self.box_middle[b]
        )

    def describe(self, *positions: int) -> str:
        return ", ".join(
            f"{self.lo[i]:.1f}-{self.hi[i]:.1f} (partly hidden)" if self.partly[i] else f"{self.centroid[i]:.3f}" for i in positions
        )


def _partly_hidden(obj: dict) -> bool:
    fraction = obj.get("visible_fraction")
    return fraction is not None and fraction < PARTLY_HIDDEN


def _check_order(result: Audit, scene_id: str, relations: dict, terms: dict, columns: _Columns) -> None:
    """`left_of` [a, b]: the pixels allow a left of b; `right_of` [a, b]: b left of a."""
    for relation, flip in (("left_of", False), ("right_of", True)):
        for pair in relations.get(relation) or ():
            a, b = (terms.get(t) for t in pair)
            if a is None or b is None or not columns.seen(a, b):
                continue
            ok = columns.left(b, a) if flip else columns.left(a, b)
            result.check("left_right", scene_id, ok, f"{relation} {pair}: pixels give {columns.describe(a, b)}")


def _check_front_behind(
    result: Audit, scene_id: str, relations: dict, terms: dict, objects: list[dict], spans: list[np.ndarray | None],
    stands: list[float] | None,
) -> None:
    """`in_front_of` [a, b]: a stands nearer the camera. Where the set says so (`stands`: each object's
    footprint along the camera's view on the table, from `box3d` and the camera, both tied to the
    pixels by `_check_depth`) the pair must follow where the objects stand; in a set drawn before, it
    follows the recorded box centres (`depth_m`). The median of what is seen is no test there, since a
    big ball's front surface is nearer than a small cup's centre; without either, the medians of the
    depth pass decide. Either way no object in front may lie wholly behind the other
    (its nearest pixel beyond their farthest), unless one of them is partly hidden: then what is seen
    of it is not its extent (a screwdriver 66 % hidden, lying along the line of sight, showed only its
    near tip, nearer than the banana in front of its centre). `spans`: each object's nearest, median,
    farthest depth."""
    # what a label compares: where the objects stand along the view, else their recorded centres' depths
    label, keys = ("stand", stands) if stands else ("centres", [o.get("depth_m") for o in objects])
    for relation, front_first in (("in_front_of", True), ("behind", False)):
        for pair in relations.get(relation) or ():
            a, b = (terms.get(t) for t in pair)
            if a is None or b is None or spans[a] is None or spans[b] is None:
                continue
            front, back = (a, b) if front_first else (b, a)
            compared = [keys[i] for i in (front, back)]
            (near, median, _), (_, median_back, far_back) = spans[front], spans[back]
            ordered = compared[0] < compared[1] if None not in compared else median < median_back
            extents = _partly_hidden(objects[front]) or _partly_hidden(objects[back]) or near <= far_back
            result.check(
                "front_behind", scene_id, bool(extents and ordered),
                f"{relation} {pair}: depth pass {spans[front].round(3).tolist()} m vs {spans[back].round(3).tolist()} m,"
                f" {label} {compared}",
            )


def _check_between(result: Audit, scene_id: str, relations: dict, terms: dict, columns: _Columns) -> None:
    for triple in relations.get("between") or ():
        m, a, b = (terms.get(t) for t in triple)
        if None in (m, a, b) or not columns.seen(m, a, b):
            continue
        ok = (columns.left(a, m) and columns.left(m, b)) or (columns.left(b, m) and columns.left(m, a))
        result.check("left_right", scene_id, ok, f"between {triple}: pixels give {columns.describe(m, a, b)}")


def _check_table_side(result: Audit, scene_id: str, relations: dict, terms: dict, columns: _Columns) -> None:
    """`table_side` left/middle/right must be the objects' order in the pixels, for the pairs the record
    also orders left to right: a side is where an object stands on the table, and of two objects at
    different depths the one on the left side may stand behind the other in the same image column (an
    apple on the left side 10 cm behind a doughnut in the middle, both at column 42 of 96)."""
    rank = {"left": 0, "middle": 1, "right": 2}
    sides = relations.get("table_side")
    if not isinstance(sides, dict):
        return
    ordered = {frozenset(terms.get(t) for t in pair) for pair in relations.get("left_of") or ()}
    placed = [(rank[side], terms[name]) for name, side in sides.items() if side in rank and name in terms]
    for (ra, a), (rb, b) in combinations(placed, 2):
        if ra == rb or frozenset((a, b)) not in ordered or not columns.seen(a, b):
            continue
        ok = columns.left(a, b) if ra < rb else columns.left(b, a)
        result.check("left_right", scene_id, ok, f"table_side of {a} and {b}: pixels give {columns.describe(a, b)}")


def _record_camera(record: dict, root: Path) -> CameraView | None:
    """The camera the record names (one from before records named it: `truth.described`); None where it names
    none that can be read, and no run config gives one."""
    try:
        camera = described(record, root).get("camera")
    except UserError:
        return None
    return CameraView.from_record(camera) if isinstance(camera, dict) and "K" in camera else None


def _check_depth(result: Audit, scene_id: str, obj: dict, p: np.ndarray, depth: np.ndarray, camera: CameraView | None) -> None:
    """Every object pixel has a depth, and (with a camera) its depth puts the surface inside the object's 3D box."""
    z = depth[p].astype(float) / 1000
    result.check("depth", scene_id, bool((z > 0).all()), f"{obj['name']}: {int((z == 0).sum())} mask pixels without depth")
    if camera is None or not (z > 0).all():
        return
    world = world_points(p, depth, camera.K, camera.world_to_camera)
    center, size, yaw = _box3d(obj)
    c, s = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
    offset = world - center[:, None]
    local = np.stack([c * offset[0] + s * offset[1], -s * offset[0] + c * offset[1], offset[2]])
    outside = np.maximum(np.abs(local) - size[:, None] / 2, 0).max(axis=0)
    tolerance = DEPTH_TOLERANCE_PX * z / camera.K[0, 0] + DEPTH_TOLERANCE_M
    worst = float((outside - tolerance).max())
    result.worst_depth_m = max(result.worst_depth_m, float(outside.max()))
    result.check("depth", scene_id, worst <= 0, f"{obj['name']}: depth puts a pixel {outside.max():.3f} m outside its 3D box")


def _box_corners(obj: dict) -> np.ndarray:
    return _placed(obj).box_corners()


def _standing(obj: dict) -> PlacedObject:
    """The object where it stands: its origin (`position_m`, what the record's relations compare), its turn and its
    model's own box, which the derived checks tie to its 3D box."""
    return PlacedObject(label_of(obj), tuple(obj["position_m"]), obj["yaw_deg"], tuple(obj["size_m"]), Variant.of_record(obj))


def _placed(obj: dict) -> PlacedObject:
    """Its 3D box as an object placed: the box's bottom face centred on the origin it would stand at."""
    center, size, yaw = _box3d(obj)
    return PlacedObject(label_of(obj), tuple(center - [0, 0, size[2] / 2]), yaw, tuple(size), Variant.of_record(obj))


def _box3d(obj: dict) -> tuple[np.ndarray, np.ndarray, float]:
    """(centre, size, yaw in degrees) of the object's 3D box in the world: `box3d` if recorded, else from the
    origin on the table top (`position_m`), `size_m` and `yaw_deg`."""
    box = obj.get("box3d")
    if isinstance(box, dict):
        return np.asarray(box["center_m"], dtype=float), np.asarray(box["size_m"], dtype=float), float(box["yaw_deg"])
    size = np.asarray(obj["size_m"], dtype=float)
    return np.asarray(obj["position_m"], dtype=float) + [0, 0, size[2] / 2], size, float(obj.get("yaw_deg", 0.0))


def _check_unlisted(result: Audit, root: Path, records: list[tuple[int, dict]]) -> None:
    """Every PNG in the folder's image, mask and depth folders is listed by a metadata line."""
    listed = {r[key] for _, r in records for key in ("file_name", "mask_file_name", "depth_file_name") if key in r}
    for folder in ("images", "masks", "depth"):
        for path in sorted((root / folder).glob("*.png")) if (root / folder).is_dir() else ():
            name = f"{folder}/{path.name}"
            result.check("metadata", path.stem, name in listed, f"{name} is in the folder but in no metadata line")


def summary(result: Audit, shown: int = 20) -> Iterator[str]:
    """The lines `tabletest verify` prints."""
    labels = {
        "files": "files (present, decodable, sizes)",
        "metadata": "metadata lines and files",
        "schema": "records of the render record's shape",
        "left_right": "left/right labels (mask pixels)",
        "front_behind": "in front/behind labels (depth pass)",
        "box": f"2D boxes (mask inside ±{BOX_TOLERANCE_PX} px; IoU ≥ {BOX_MIN_IOU})",
        "visible": "visibility (mask pixels, silhouettes)",
        "depth": "depth inside 3D boxes",
        "off_plane": "on, inside, above (depth pass)",
        "named": "relations name visible objects",
        "derived": "labels derived from the checked geometry",
        "image": f"images match their masks (≥ {MIN_WIDTH_PX} px wide)",
        "free table": "free table: no object, the table's depth",
        "marks": "set-of-marks marks (placed from the masks)",
        "pair": "counterfactual partners (records)",
        "pair_pixels": "counterfactual partners (masks)",
        "view": "other views of a scene (records)",
        "sequence": "frames of a sequence (records)",
        "look": "looks (seed, shape, palette, the run's looks)",
        "look_colour": f"looks' colours in their pixels (≥ {MIN_COLOUR_PX} px)",
    }
    wrong = Counter(kind for _, kind, _ in result.disagreements)
    yield f"verified {result.root}: {result.images} images"
    for kind, label in labels.items():
        if result.checked[kind]:
            yield f"  {label:<44} {result.checked[kind]:>8} checked, {wrong[kind]} disagree"
    yield (
        f"  worst: mask {result.worst_box_px:.2f} px outside its 2D box, box IoU {result.lowest_box_iou:.2f}, "
        f"depth {result.worst_depth_m * 1000:.1f} mm outside its 3D box"
    )
    if result.pairs.reach_px:
        reach, share = result.pairs.reach_px, result.pairs.share_outside
        yield (
            f"  counterfactual pairs: the image changed outside the changed objects (shadows, reflections, the denoiser) "
            f"up to {np.median(reach):.0f} px from them (median of {len(reach)} pairs; farthest {max(reach):.0f} px), "
            f"{100 * np.mean(share):.1f} % of an image on average"
        )
    if result.too_small:
        yield f"  {result.too_small} object(s) under {MIN_CHECKED_PX:g} px across: too small to check at this resolution"
    yield f"  not checked: {'; '.join([*result.unchecked, *result.partial])}"
    for scene_id, kind, what in result.disagreements[:shown]:
        yield f"  DISAGREES {scene_id} [{kind}] {what}"
    if len(result.disagreements) > shown:
        yield f"  ... and {len(result.disagreements) - shown} more"
    scenes = result.scenes_disagreeing
    yield f"{len(result.disagreements)} disagreement(s) in {len(scenes)} scene(s)" + (
        f": {', '.join(scenes[:10])}" + (" ..." if len(scenes) > 10 else "") if scenes else ""
    )
