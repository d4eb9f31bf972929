"""Validated configuration: the object catalog and the render defaults.

Both files are checked in full before any work starts; every problem becomes one line that names
the file, the entry and the fix (see `load_catalog`, `load_config`).
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from tabletest.errors import UserError

PACKAGE_ROOT = Path(__file__).resolve().parent
CONFIG_DIR = PACKAGE_ROOT / "configs"
DEFAULT_CATALOG = CONFIG_DIR / "objects.yaml"
DEFAULT_CONFIG = CONFIG_DIR / "default.yaml"

UID_PATTERN = re.compile(r"^[0-9a-f]{32}$")


class Strict(BaseModel):
    """Immutable and closed: an unknown key is an error, not a silently ignored typo."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_a_number(cls, value: object, info: ValidationInfo) -> object:
        """YAML reads `true` as a bool, which pydantic would quietly take for 1."""
        if isinstance(value, bool) and cls.model_fields[info.field_name].annotation is not bool:
            raise ValueError(f"{str(value).lower()} is a yes/no value, not a {info.field_name}; write the {info.field_name} itself")
        return value


def _region(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = box
    if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
        raise ValueError(
            f"region {list(box)} is not [x0, y0, x1, y1] with 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1 "
            "(fractions of the footprint: x from left to right, y from front to back)"
        )
    return box


Region = Annotated[tuple[float, float, float, float], AfterValidator(_region)]
# The least side of a support or container region, in metres: placement measures a model in 2 mm columns
# (assets/columns.py CELL_M) and needs some of them inside a region, and nothing smaller stands in one.
MIN_REGION_M = 0.005


class CatalogObject(Strict):
    """One catalog entry: how prompts name the object and how big it really is."""

    name: str
    kind: Literal["natural", "artifact"]
    group: str
    size_m: float = Field(gt=0, description="real-world largest extent in metres")
    lvis: str | None = None
    candidates: tuple[str, ...] = ()
    uid: str | None = Field(None, description="a pinned Objaverse uid, tried before the candidates")
    up_axis: Literal["y", "z"] | None = Field(None, description="override of a model's up axis")
    yaw_deg: float = Field(0.0, description="extra turn about +Z so the model's front faces the camera")
    has_front: bool = Field(
        False, strict=True, description="an obvious front (a face, a screen, a lens, a spout): intrinsic-frame questions ask of it"
    )
    front_deg: float = Field(
        0.0, gt=-180, le=180, description="where its front points in its model's frame: degrees from -Y, anticlockwise seen from above (a spout on -X: -90)"
    )
    pair: bool = Field(False, strict=True, description="a pair noun (scissors): plural in form, counted in pairs")
    plural: str | None = Field(None, description="the plural where adding -s or -es is wrong (avocados)")
    support: Region | None = Field(None, description="a flat top other objects can stand on: [x0, y0, x1, y1] of its footprint")
    container: Region | None = Field(None, description="the opening of a cavity objects can go in: [x0, y0, x1, y1] of its footprint")

    @field_validator("support", "container")
    @classmethod
    def _region_holds_something(cls, region: Region | None, info: ValidationInfo) -> Region | None:
        """A region's sides at their largest (the footprint as wide as `size_m`): smaller than MIN_REGION_M,
        it holds nothing, and placement would find none of the model's columns in it."""
        size = info.data.get("size_m")
        if region is None or size is None:
            return region
        width, depth = (region[2] - region[0]) * size, (region[3] - region[1]) * size
        if min(width, depth) < MIN_REGION_M:
            raise ValueError(
                f"{info.field_name} {list(region)} is at most {width * 1000:.2g} x {depth * 1000:.2g} mm of this "
                f"{size:g} m object, too small to hold anything; give a region of at least {MIN_REGION_M * 1000:g} mm "
                f"on each side, or drop {info.field_name}"
            )
        return region

    @model_validator(mode="after")
    def _front_turn_needs_a_front(self) -> CatalogObject:
        if self.front_deg and not self.has_front:
            raise ValueError(f"front_deg {self.front_deg:g} turns a front it does not have; add `has_front: true`, or drop front_deg")
        return self

    @field_validator("name")
    @classmethod
    def _name_is_plain(cls, name: str) -> str:
        if not name.strip():
            raise ValueError("name is empty: give the object a name")
        if name != name.strip().lower():
            raise ValueError(f"name {name!r} must be lower case without outer spaces")
        if "#" in name:
            raise ValueError(f"name {name!r} has a '#', which numbers several objects of one kind (apple#2); drop it")
        if "/" in name:
            raise ValueError(f"name {name!r} has a '/', which names a model of a kind (mug/3); drop it")
        return name

    @field_validator("candidates")
    @classmethod
    def _uids_are_hex(cls, uids: tuple[str, ...]) -> tuple[str, ...]:
        for uid in uids:
            _check_uid(uid)
        return uids

    @field_validator("uid")
    @classmethod
    def _uid_is_hex(cls, uid: str | None) -> str | None:
        return None if uid is None else _check_uid(uid)

    @property
    def slug(self) -> str:
        """File-system name: `wine bottle` -> `wine_bottle`."""
        return slugify(self.name)


def _check_uid(uid: str) -> str:
    if not UID_PATTERN.match(uid):
        raise ValueError(f"uid {uid!r} is not 32 lower-case hex characters (an Objaverse uid)")
    return uid


def slugify(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


class Catalog(Strict):
    """The ordered object list; its order defines every scene index."""

    objects: tuple[CatalogObject, ...]

    @model_validator(mode="after")
    def _names_unique(self) -> Catalog:
        if not self.objects:
            raise ValueError("objects: the catalog is empty; list at least one object")
        seen: set[str] = set()
        for obj in self.objects:
            if obj.name in seen or obj.slug in {slugify(s) for s in seen}:
                raise ValueError(f"objects: duplicate name {obj.name!r}; every name must be unique")
            seen.add(obj.name)
        return self

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.objects)

    @cached_property
    def _position(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.names)}

    def __len__(self) -> int:
        return len(self.objects)

    def index_of(self, name: str) -> int:
        """Catalog position of `name`; an unknown name is a user error listing near matches."""
        try:
            return self._position[name.strip().lower()]
        except KeyError:
            raise UserError(unknown_name_message(name, self.names)) from None

    def by_name(self, name: str) -> CatalogObject:
        return self.objects[self.index_of(name)]

    def select(self, only: Sequence[str] | None) -> tuple[CatalogObject, ...]:
        """The objects named in `only` (every object when None), each once, in catalog order; an unknown
        name is refused with `index_of`'s message."""
        if only is None:
            return self.objects
        return tuple(self.objects[i] for i in sorted({self.index_of(name) for name in only}))


def unknown_name_message(name: str, names: tuple[str, ...]) -> str:
    import difflib

    near = difflib.get_close_matches(name.strip().lower(), names, n=3)
    hint = f"did you mean {', '.join(repr(n) for n in near)}?" if near else "run `tabletest catalog` for the names"
    return f"unknown object name {name!r}: {hint}"


class Camera(Strict):
    """A pinhole camera in front of the table (−Y side), looking at the table-top centre."""

    distance_m: float = Field(gt=0, description="horizontal distance from the table centre")
    height_m: float = Field(gt=0, description="height of the lens above the table top")
    target_height_m: float = Field(ge=0, description="height above the table top the camera looks at")
    focal_mm: float = Field(gt=0)
    sensor_width_mm: float = Field(gt=0)


class Table(Strict):
    width_m: float = Field(gt=0)
    depth_m: float = Field(gt=0)
    height_m: float = Field(gt=0)
    top_thickness_m: float = Field(gt=0)
    wood_color: tuple[float, float, float]


class Lighting(Strict):
    key_power_w: float = Field(ge=0)
    fill_power_w: float = Field(ge=0)
    ambient_strength: float = Field(ge=0)


MAX_SIDE_PX = 16384  # Cycles' own limit for one side of an image is far beyond; memory is not
MAX_PIXELS = 8192 * 8192  # 67 megapixels: a float framebuffer of this size already takes about 1 GB
MAX_SEED = 2**31 - 1  # Cycles takes a signed 32-bit seed and would wrap a larger one


class RenderSettings(Strict):
    resolution: tuple[int, int] = (1024, 768)
    slot_offset_px: float = Field(200.0, gt=0, description="slot spacing at 1024 px width; scales with width")
    engine: Literal["cycles", "eevee", "workbench"] = "cycles"
    samples: int = Field(64, ge=1)
    seed: int = Field(0, ge=0, le=MAX_SEED)
    view_transform: Literal["Standard", "AgX", "Filmic"] = "Standard"
    denoise_prefilter: Literal["fast", "accurate"] = Field(
        "fast",
        description="how OpenImageDenoise cleans the albedo and normal passes it is guided by: accurate costs a few "
        "seconds an image on a CPU and, at 16 samples, denoises as well as fast does at 32 (the OptiX denoiser "
        "has no prefilter)",
    )
    denoiser: Literal["openimagedenoise", "optix"] = Field(
        "openimagedenoise",
        description="OpenImageDenoise on every device (on the GPU where the device is one), so a dataset's pixels "
        "do not depend on the machine; optix only on NVIDIA GPUs whose driver has the OptiX denoiser's weights",
    )

    def pinned_denoising(self) -> dict:
        """`denoise_prefilter` and `denoiser` where they are not the defaults, for what pins a render's settings
        (a folder's settings, a layer cache's key): those pinned before these settings existed keep matching."""
        defaults = {"denoise_prefilter": "fast", "denoiser": "openimagedenoise"}
        return {key: getattr(self, key) for key, default in defaults.items() if getattr(self, key) != default}

    @field_validator("resolution")
    @classmethod
    def _positive(cls, res: tuple[int, int]) -> tuple[int, int]:
        if res[0] < 8 or res[1] < 8:
            raise ValueError(f"resolution {res[0]}x{res[1]} is too small; use at least 8x8")
        if max(res) > MAX_SIDE_PX or res[0] * res[1] > MAX_PIXELS:
            raise ValueError(
                f"resolution {res[0]}x{res[1]} is too large; use at most {MAX_SIDE_PX} per side "
                f"and {MAX_PIXELS:,} pixels in all (e.g. 8192x8192)"
            )
        return res


class Config(Strict):
    render: RenderSettings
    camera: Camera
    table: Table
    lighting: Lighting


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """Safe YAML in which a key given twice in one mapping is an error, not a silent override (parsed
    by libyaml where PyYAML has it: the catalog reads in 30 ms instead of 280)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} is given twice; keep one", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


MAX_YAML_ITEMS = 1_000_000  # values once aliases are expanded: the largest catalog has ~20,000
_EXCERPT = reprlib.Repr()  # its limits are attributes (keyword arguments only from Python 3.12)
_EXCERPT.maxlevel, _EXCERPT.maxlist, _EXCERPT.maxdict, _EXCERPT.maxstring, _EXCERPT.maxother = 2, 4, 4, 60, 60


def excerpt(value: object) -> str:
    """A short `repr` for an error message, whatever the value's size (at most ~200 characters)."""
    return _EXCERPT.repr(value)[:200]


def _expanded_size_within(data: object, limit: int) -> bool:
    """Whether `data`, walked as the tree that validation sees (an alias counted at each use), has at
    most `limit` values: a few KB of nested aliases ("billion laughs") expand to billions."""
    stack, seen = [data], 0
    while stack:
        value = stack.pop()
        seen += 1
        if seen > limit:
            return False
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return True


def _load_yaml(path: Path, what: str) -> object:
    if not path.is_file():
        raise UserError(f"{what} file {path} not found: check the path given to --{what}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise UserError(f"{path}: not UTF-8 text (byte {err.start} is {err.object[err.start]:#04x}); save it as UTF-8") from None
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise UserError(f"{path}{where}: not valid YAML ({getattr(err, 'problem', err)}); fix the syntax") from None
    if not _expanded_size_within(data, MAX_YAML_ITEMS):
        raise UserError(
            f"{path}: its aliases (*name) expand to more than {MAX_YAML_ITEMS:,} values; write the entries out, "
            "or use fewer nested aliases"
        )
    return data


def _first_error(path: Path, err: ValidationError, data: object) -> UserError:
    """Turn pydantic's report into one line: file, entry (with the object's name when known), fix."""
    e = err.errors()[0]
    loc = list(e["loc"])
    where = ".".join(str(p) for p in loc) or "top level"
    if len(loc) >= 2 and loc[0] == "objects" and isinstance(loc[1], int) and isinstance(data, dict):
        try:
            name = data["objects"][loc[1]].get("name")
            where = f"objects[{loc[1]}] ({excerpt(name)})" + "".join(f".{p}" for p in loc[2:])
        except (KeyError, IndexError, AttributeError, TypeError):
            pass
    kind = e["type"]
    if kind == "extra_forbidden":
        fix = f"unknown key {loc[-1]!r}; remove it or fix its spelling"
    elif kind == "missing":
        fix = f"required key {loc[-1]!r} is missing; add it"
    else:
        fix = e["msg"].removeprefix("Value error, ")
        if "input" in e and kind not in {"value_error"}:
            fix += f" (got {excerpt(e['input'])})"
    return UserError(f"{path}: {where}: {fix}")


# The kinds of YAML file TableTest reads, each told by its top-level keys, with the shipped file of its kind: a
# file of one kind given where another is read is named as what it is, not refused for a key it lacks.
FILE_KINDS = {
    "catalog": ("an object catalog", "configs/objects.yaml", lambda data: isinstance(data.get("objects"), list)),
    "config": ("a render config", "configs/default.yaml", lambda data: "render" in data),
    "random-config": (
        "a random-scene config", "configs/random.yaml (or configs/random-looks.yaml, with many looks of a kind)",
        lambda data: "placement" in data or isinstance(data.get("objects"), dict),
    ),
    "looks": ("the looks palette (what each kind may look like)", "configs/looks.yaml", lambda data: "kinds" in data),
}


def load_validated(model: type[BaseModel], path: Path, what: str) -> BaseModel:
    """Read a YAML file and validate it in full; any problem is one line naming the file, entry and fix."""
    data = _load_yaml(path, what)
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise _another_kind(path, data, what) or _first_error(path, err, data) from None


def _another_kind(path: Path, data: object, what: str) -> UserError | None:
    """A file of another kind than `what` (the looks palette given as a random config): named as what it is, with
    the file of the kind wanted."""
    if not isinstance(data, dict) or what not in FILE_KINDS or FILE_KINDS[what][2](data):
        return None
    kind = next((k for k, (_, _, looks_like) in FILE_KINDS.items() if k != what and looks_like(data)), None)
    if kind is None:
        return None
    wanted, example, _ = FILE_KINDS[what]
    return UserError(f"{path} is {FILE_KINDS[kind][0]}, not {wanted}; give --{what} {wanted}, such as the shipped {example}")


def load_catalog(path: Path | str | None = None) -> Catalog:
    return load_validated(Catalog, Path(path) if path else DEFAULT_CATALOG, "catalog")


def load_config(path: Path | str | None = None) -> Config:
    return load_validated(Config, Path(path) if path else DEFAULT_CONFIG, "config")
