"""The scene records as closed pydantic models (an unknown field is an error): a render's benchmark and random
records and the vignettes, and the one-line refusal of a line that is not one. Every stage reads its records
through them, so a record's shape is checked where it is read; `write/schema.py` turns the same models into
the JSON Schemas a consumer checks a file with. Apart from `files/reading.py`, which every command imports:
building the models takes tens of milliseconds."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Annotated, ClassVar, Literal, Self, Union

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, RootModel, ValidationError, create_model, field_validator

from tabletest.errors import UserError
from tabletest.files.family import BENCHMARK, KINDS as COMPANIONS
from tabletest.files.family import Family, family_of, made_from


class Closed(BaseModel):
    """A record format: an unknown field is an error, and so is a number past the largest float (`1e400`,
    which JSON reads as an infinity; NaN and Infinity themselves are refused as the line is read)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Columns:
    """How a column holds a fixed-length item of mixed types (an exported record's `[a, b, metres]`): a struct
    of these names, one for each place. Read by the exports (`export/records.py`); no rule of the record's."""

    def __init__(self, *names: str) -> None:
        self.names = names


class ItemsOf:
    """How a column holds a mapping of relation keys to items (a partner's `became_true`): the columns of
    `model`'s fields, but `without`."""

    def __init__(self, model: type[BaseModel], without: tuple[str, ...] = ()) -> None:
        self.model, self.without = model, without


def _vector(n: int, kind: type = float):
    return Annotated[list[kind], Field(min_length=n, max_length=n)]


Vec2, Vec3, Box = _vector(2), _vector(3), _vector(4)
Pair, Triple = _vector(2, str), _vector(3, str)
Side = Literal["left", "middle", "right"]


class Box3D(Closed):
    center_m: Vec3
    size_m: Vec3
    yaw_deg: float
    frame: Literal["world"]


class SceneObject(Closed):
    """One object, left to right as the camera sees them."""

    name: str = Field(description="catalog name, lower case")
    slot: Side | None = Field(description="the benchmark's slot; null in random scenes")
    source: Literal["builtin", "objaverse", "dir"] = Field(description="where the model came from")
    uid: str | None = Field(description="the Objaverse uid, or null")
    position_m: Vec3 = Field(description="where the object stands, world frame (x right, y away from the camera, z up), metres: its model's origin")
    yaw_deg: float = Field(description="turn of its model about the vertical axis, degrees")
    size_m: Vec3 = Field(description="its model's own box along the model's x, y, z, metres: what places it")
    center_px: Vec2 = Field(description="projection of its model box's centre (half its height above position_m), [u, v], pixels from the top-left")
    bbox_px: Box = Field(description="projected box of the mesh, [x0, y0, x1, y1], pixels")
    box3d: Box3D | None = Field(
        None,
        description="its 3D box, world frame: its model's own box where it stands, or for a model lying diagonally in that box, "
        "the box of its least-area footprint, turned and centred off yaw_deg and position_m (a benchmark folder rendered before "
        "records held it: none)",
    )

    @field_validator("bbox_px")
    @classmethod
    def _not_inverted(cls, box: list[float]) -> list[float]:
        """A render's box runs from its least to its greatest corner; one inside out is no box (drawing or
        exporting it would stop, or give a negative width), so every reader refuses it here."""
        if box[0] > box[2] or box[1] > box[3]:
            raise ValueError("the box is inverted (x0 > x1 or y0 > y1)")
        return box


class LookShape(Closed):
    height: float = Field(description="its recipe's height stretched by this")
    width: float = Field(description="its recipe's footprint stretched by this")
    size: float = Field(description="its largest extent: the catalog's size_m times this")


class Look(Closed):
    """Which of its kind's looks an object takes: a model (0: the catalog's) and a colour."""

    look: str = Field(description="kind/model/colour, what to group or split by (mug/2/red)")
    model: int = Field(ge=0, description="the kind's model: 0 the catalog's, n the recipe drawn from the seed kind/n")
    seed: str | None = Field(description="the seed its model's parameters were drawn from (mug/2); null for model 0")
    shape: LookShape
    colour: str | None = Field(description="its colour's name (its kind's palette, configs/looks.yaml); null: a kind without one")


class RandomSceneObject(SceneObject):
    instance: str | None = Field(
        None,
        description="where the scene holds several of its kind: its label, the name and its number from the left as "
        "the scene shows them (apple#2); relations, hidden and covered_by name it by this",
    )
    box3d: Box3D
    center_camera_m: Vec3 = Field(description="its model box's centre (as center_px) in the camera frame (x right, y down, z forward)")
    depth_m: float = Field(description="that centre's z in the camera frame")
    visible_fraction: float = Field(ge=0, le=1, description="the seen share of the object's whole silhouette; the part outside the frame counts as unseen")
    covered_by: list[str] = Field(description="the objects that hide part of it")
    variant: Look | None = Field(None, description="its look, with the random config's `looks` on; none: its catalog model in its own colours")


class Relations(Closed):
    """Every true relation, as the camera sees it; pairs are [subject, object]."""

    left_of: list[Pair]
    right_of: list[Pair]
    between: list[Triple] = Field(description="[subject, one, other]")
    table_side: dict[str, Side]


class Counts(Closed):
    objects: int = Field(ge=0)
    natural: int = Field(ge=0)
    artifact: int = Field(ge=0)


class RandomRelations(Relations):
    """Relations beyond a margin; what falls inside it is withheld as `ambiguous`. The keys from `on` to
    `next_to` are there when the random config arranges objects on, in or beside others."""

    in_front_of: list[Pair]
    behind: list[Pair]
    ambiguous: list[tuple[str, str, Literal["left_right", "front_back", "touching", "next_to"]]]
    nearer: list[Triple] = Field(description="[a, b, c]: a is nearer to b than to c")
    farther: list[Triple] = Field(description="[a, c, b]: a is farther from c than from b")
    bigger: list[Pair]
    smaller: list[Pair]
    taller: list[Pair]
    shorter: list[Pair]
    on: list[Pair] = Field(default_factory=list, description="a rests on b")
    under: list[Pair] = Field(default_factory=list)
    inside: list[Pair] = Field(default_factory=list, description="a is in container b")
    contains: list[Pair] = Field(default_factory=list)
    touching: list[Pair] = Field(default_factory=list, description="both orders listed")
    above: list[Pair] = Field(default_factory=list)
    below: list[Pair] = Field(default_factory=list)
    next_to: list[Pair] = Field(default_factory=list, description="both orders listed")
    counts: Counts
    hidden: list[str] = Field(description="objects measured hidden: no relation names them")


class Vignettes(Closed):
    left_first: str
    right_first: str


class Render(Closed):
    engine: Literal["cycles", "eevee", "workbench"]
    device: str | None
    samples: int = Field(ge=1)
    resolution: _vector(2, int)
    mode: Literal["direct", "composite"]
    seed: int


class Camera(Closed):
    K: Annotated[list[Vec3], Field(min_length=3, max_length=3)] = Field(description="3x3 intrinsics, pixels")
    world_to_camera: Annotated[list[_vector(4)], Field(min_length=4, max_length=4)]
    resolution: _vector(2, int)
    azimuth_deg: float
    elevation_deg: float
    distance_m: float
    focal_mm: float


class Table(Closed):
    surface: str
    kind: str
    color: Vec3
    width_m: float
    depth_m: float


class KeyLight(Closed):
    position: Vec3
    target: Vec3
    size_m: float
    power_w: float
    temperature_k: float


class World(Closed):
    hdri: str
    rotation_deg: float
    strength: float


class Backdrop(Closed):
    kind: str
    color: Vec3


class Appearance(Closed):
    config_sha256: str
    seed: int
    table: Table
    key_light: KeyLight
    world: World
    backdrop: Backdrop


BenchmarkId = Annotated[str, Field(pattern=r"^[123]obj-\d{6}$")]
SceneOfSetId = Annotated[str, Field(pattern=r"^rnd\d+-\d{7}$")]
RandomId = Annotated[str, Field(pattern=rf"^rnd\d+-\d{{7}}(-({'|'.join(COMPANIONS)}|view\d+))?$")]  # a partner or view: <scene>-<kind>


_NAME = r"[A-Za-z0-9_.#-]+"  # a file name in its folder: no '/', so never a way out of the dataset


class _Rendered(Closed):
    """What a render record adds to its scene's text: its files. Read from a folder, it also keeps its line's
    own dict (`raw`), which is what passes on as JSON: the line's key order and numbers, byte for byte."""

    file_name: str = Field(pattern=rf"^images/{_NAME}\.png$")
    mask_file_name: str = Field(None, pattern=rf"^masks/{_NAME}\.png$", description="with `render --masks`")
    depth_file_name: str = Field(None, pattern=rf"^depth/{_NAME}\.png$", description="with `render --masks`")
    _raw: dict = PrivateAttr(default_factory=dict)

    @classmethod
    def from_line(cls, line: dict) -> Self:
        """The record a line holds, checked against the model (a ValidationError where it is not one)."""
        record = cls.model_validate(line)
        record._raw = line
        return record

    @property
    def raw(self) -> dict:
        return self._raw

    @property
    def names(self) -> tuple[str, ...]:
        """The scene's object names, left to right."""
        return tuple(o.name for o in self.objects)


class BenchmarkVignette(Closed):
    """A benchmark scene's text: what its render record holds but the pixels' measures."""

    family: ClassVar[str] = "benchmark"  # the family whose ids its `id` takes (`files.family`)
    id: BenchmarkId
    index: int = Field(ge=0)
    n_objects: int = Field(ge=1, le=3)
    objects: list[str]
    relations: Relations
    vignettes: Vignettes


class Counterfactual(Closed):
    """A counterfactual partner's change: the scene it was made from, what it changed, and every relation
    item (as in `relations`; `ambiguous` pairs in name order) that became true, became false or held in
    both, computed from the two scenes' geometry with every object included (a rotate's with the facing relations
    `facing`, `facing_away`, `same_way` and `opposite_way` too)."""

    of: SceneOfSetId
    kind: Literal[COMPANIONS]
    objects: list[str] = Field(description="swap: the two; move: the one moved, then the one crossed; remove: the one; "
                               "replace: the old, then the new; unstack: the one taken off, then its carrier; rotate: the one turned")  # fmt: skip
    turn_deg: float | None = Field(
        None, gt=-180, lt=180, description="only on a rotate: how far its object turned where it stands, degrees, anticlockwise seen from above"
    )
    became_true: Annotated[dict[str, list], ItemsOf(RandomRelations, without=("hidden",))] = {}
    became_false: Annotated[dict[str, list], ItemsOf(RandomRelations, without=("hidden",))] = {}
    unchanged: Annotated[dict[str, list], ItemsOf(RandomRelations, without=("hidden",))] = {}


class View(Closed):
    """Another view of a scene: the same objects, table, lights and backdrop from another camera."""

    of: SceneOfSetId
    number: int = Field(ge=2, description="the scene itself is view 1")


Gap = Annotated[tuple[str, str, Annotated[float, Field(ge=0)]], Columns("a", "b", "metres")]


class RandomVignette(BenchmarkVignette):
    """A random scene's text."""

    family: ClassVar[str] = "random"
    id: RandomId
    n_objects: int = Field(ge=1)
    relations: RandomRelations
    gaps_m: list[Gap] | None = Field(
        None,
        description="[a, b, metres] for each pair of objects not hidden: the least distance between their meshes "
        "(0 where they touch); there when the random config arranges objects on, in or beside others",
    )
    slides_m: list[Gap] | None = Field(
        None,
        description="[a, b, metres] for each ordered pair of objects not hidden where a, slid along the table straight "
        "towards b's middle, meets b: how far it moves until their meshes touch; none where a and b stand on different "
        "surfaces, a carries something, the line misses b or a would meet another object first; there with gaps_m",
    )
    counterfactual: Counterfactual | None = Field(None, description="only on a counterfactual partner")
    view: View | None = Field(None, description="only on a scene's second (third, ...) view")
    instances: list[str] | None = Field(
        None, description="only where the scene holds several of a kind (text records): each object's label (apple#2), as relations name it"
    )


class BenchmarkRecord(_Rendered, BenchmarkVignette):
    """A line of a benchmark render's metadata.jsonl."""

    objects: list[SceneObject]
    render: Render
    camera: Camera | None = Field(None, description="the camera it was shot with (a folder rendered before records held it: none)")

    @property
    def made_from(self) -> None:
        """A benchmark scene is never a partner or a view."""
        return None


class RandomRecord(_Rendered, RandomVignette):
    """A line of a random (training) render's metadata.jsonl."""

    objects: list[RandomSceneObject]
    camera: Camera
    scene: Appearance
    render: Render

    @property
    def made_from(self) -> str | None:
        """The scene a counterfactual partner or another view was made from; None for a scene of its own."""
        return made_from(self.model_dump(include={"counterfactual", "view"}))


class Vignette(RootModel[Union[BenchmarkVignette, RandomVignette]]):
    """A line of `tabletest vignettes` (jsonl): a scene's text, joining its render record on `id`."""


RenderRecord = Union[BenchmarkRecord, RandomRecord]


CORE_FIELDS = ("id", "objects", "relations")  # what a scene record must hold, however little else it says


# what a family's records hold, by its placement (`files.family.Family`): its render records' and its vignettes' models
PLACEMENTS: dict[str, tuple[type[_Rendered], type[Closed]]] = {
    "slots": (BenchmarkRecord, BenchmarkVignette),
    "free": (RandomRecord, RandomVignette),
}


@cache
def models_of(family: Family) -> tuple[type[_Rendered], type[Closed]]:
    """The models of a family's render records and vignettes: those of its placement, where ids are its own, or
    the same with `id` taking the family's ids."""
    record, vignette = PLACEMENTS[family.placement]
    if vignette.family == family.name:
        return record, vignette
    own = Annotated[str, Field(pattern=f"^{family.image_id}$")]
    title = family.name.title().replace("-", "").replace("_", "")
    return (
        create_model(f"{title}Record", __base__=record, __doc__=f"A line of the metadata.jsonl of a render of {family.words}.", id=(own, ...)),
        create_model(f"{title}Vignette", __base__=vignette, __doc__=f"The text of one of {family.words}.", id=(own, ...)),
    )


def render_record(record: dict, path: Path, line: int, fix: str) -> RenderRecord:
    """A render's record (a line of metadata.jsonl) as the model of its family, keeping the line's dict; a
    record of another shape (a field of another type, a relation of three names, a field missing or unknown)
    is refused in one line naming the field. A record of no family's id is read as the benchmark's, whose
    model refuses its id."""
    family = family_of(record) or BENCHMARK
    try:
        return models_of(family)[0].from_line(record)
    except ValidationError as err:
        raise _not_a(err.errors()[0], f"a {family.name} render record", path, line, fix) from None


def check_scene_record(record: dict, path: Path, line: int, fix: str) -> None:
    """A scene record as its schema says (a render's record of its family, or a vignette), before any
    tool reads meaning into its fields: every field it holds of the schema's type and shape (a relation of
    two names, a list of objects), and its id, objects and relations there. Other fields may be left out
    (scenes written by hand, or by another tool, from geometry alone); what is wrong is refused in one line
    naming the field."""
    family = family_of(record) or BENCHMARK
    rendered, text = models_of(family)
    model: type[BaseModel] = rendered if "file_name" in record else text
    try:
        model.model_validate(record)
    except ValidationError as err:
        wrong = [e for e in err.errors() if e["type"] != "missing" or (len(e["loc"]) == 1 and e["loc"][0] in CORE_FIELDS)]
        if wrong:
            what = f"a {family.name} {'render record' if 'file_name' in record else 'vignette'}"
            raise _not_a(wrong[0], what, path, line, fix) from None


def _not_a(problem: dict, what: str, path: Path, line: int, fix: str) -> UserError:
    """`path: line N is not a random render record: relations.left_of.0 ['a', 'b', 'c']: List should have ...; fix`:
    the field, the value it holds (not where it is missing), and why it is refused."""
    where = ".".join(map(str, problem["loc"])) or "the record"
    if problem["type"] != "missing":
        value = repr(problem["input"])
        where += f" {value if len(value) <= 80 else value[:79] + '…'}"
    why = problem["msg"].removeprefix("Value error, ")  # a rule of the model's own says why in its own words
    return UserError(f"{path}: line {line} is not {what}: {where}: {why}; {fix}")
