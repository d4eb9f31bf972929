"""The scene records as closed pydantic models (an unknown field is an error): a render's benchmark and random
records and the vignettes. Every stage reads its records through them, so a record's shape is checked where
it is read; `write/schema.py` turns the same models into the JSON Schemas a consumer checks a file with."""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, RootModel

from tabletest.files.family import KINDS as COMPANIONS


class Closed(BaseModel):
    """A record format: an unknown field is an error."""

    model_config = ConfigDict(extra="forbid")


def _vector(n: int, kind: type = float):
    return Annotated[list[kind], Field(min_length=n, max_length=n)]


Vec2, Vec3, Box = _vector(2), _vector(3), _vector(4)
Pair, Triple = _vector(2, str), _vector(3, str)
Side = Literal["left", "middle", "right"]


class SceneObject(Closed):
    """One object, left to right as the camera sees them."""

    name: str = Field(description="catalog name, lower case")
    slot: Side | None = Field(description="the benchmark's slot; null in random scenes")
    source: Literal["builtin", "objaverse", "dir"] = Field(description="where the model came from")
    uid: str | None = Field(description="the Objaverse uid, or null")
    position_m: Vec3 = Field(description="where the object stands, world frame (x right, y away from the camera, z up), metres")
    yaw_deg: float = Field(description="turn about the vertical axis, degrees")
    size_m: Vec3 = Field(description="box size along x, y, z, metres")
    center_px: Vec2 = Field(description="projection of the 3D box centre, [u, v], pixels from the top-left")
    bbox_px: Box = Field(description="projected box of the mesh, [x0, y0, x1, y1], pixels")


class Box3D(Closed):
    center_m: Vec3
    size_m: Vec3
    yaw_deg: float
    frame: Literal["world"]


class RandomSceneObject(SceneObject):
    instance: str | None = Field(
        None,
        description="where the scene holds several of its kind: its label, the name and its number from the left as "
        "the scene shows them (apple#2); relations, hidden and covered_by name it by this",
    )
    box3d: Box3D
    center_camera_m: Vec3 = Field(description="the box centre in the camera frame (x right, y down, z forward)")
    depth_m: float = Field(description="the box centre's z in the camera frame")
    visible_fraction: float = Field(ge=0, le=1, description="share of the object's pixels the image shows")
    covered_by: list[str] = Field(description="the objects that hide part of it")


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
    """What a render record adds to its scene's text: its files."""

    file_name: str = Field(pattern=rf"^images/{_NAME}\.png$")
    mask_file_name: str = Field(None, pattern=rf"^masks/{_NAME}\.png$", description="with `render --masks`")
    depth_file_name: str = Field(None, pattern=rf"^depth/{_NAME}\.png$", description="with `render --masks`")


class BenchmarkVignette(Closed):
    """A benchmark scene's text: what its render record holds but the pixels' measures."""

    id: BenchmarkId
    index: int = Field(ge=0)
    n_objects: int = Field(ge=1, le=3)
    objects: list[str]
    relations: Relations
    vignettes: Vignettes


class Counterfactual(Closed):
    """A counterfactual partner's change: the scene it was made from, what it changed, and every relation
    item (as in `relations`; `ambiguous` pairs in name order) that became true, became false or held in
    both, computed from the two scenes' geometry with every object included."""

    of: SceneOfSetId
    kind: Literal[COMPANIONS]
    objects: list[str] = Field(description="swap: the two; move: the one moved, then the one crossed; remove: the one; "
                               "replace: the old, then the new; unstack: the one taken off, then its carrier")  # fmt: skip
    became_true: dict[str, list] = {}
    became_false: dict[str, list] = {}
    unchanged: dict[str, list] = {}


class View(Closed):
    """Another view of a scene: the same objects, table, lights and backdrop from another camera."""

    of: SceneOfSetId
    number: int = Field(ge=2, description="the scene itself is view 1")


class RandomVignette(BenchmarkVignette):
    """A random scene's text."""

    id: RandomId
    n_objects: int = Field(ge=1)
    relations: RandomRelations
    counterfactual: Counterfactual | None = Field(None, description="only on a counterfactual partner")
    view: View | None = Field(None, description="only on a scene's second (third, ...) view")
    instances: list[str] | None = Field(
        None, description="only where the scene holds several of a kind (text records): each object's label (apple#2), as relations name it"
    )


class BenchmarkRecord(_Rendered, BenchmarkVignette):
    """A line of a benchmark render's metadata.jsonl."""

    objects: list[SceneObject]
    render: Render


class RandomRecord(_Rendered, RandomVignette):
    """A line of a random (training) render's metadata.jsonl."""

    objects: list[RandomSceneObject]
    camera: Camera
    scene: Appearance
    render: Render


class Vignette(RootModel[Union[BenchmarkVignette, RandomVignette]]):
    """A line of `tabletest vignettes` (jsonl): a scene's text, joining its render record on `id`."""
