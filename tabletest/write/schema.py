"""The record formats as JSON Schema, so a consumer can check a file without reading Python.

Each format is a closed pydantic model here (an unknown field is an error); `schema(kind)` turns it into a
JSON Schema (draft 2020-12). The same schemas ship as files in `tabletest/schemas/`, written by
`python -m tabletest.write.schema`; the tests check that the files match this module and that real
outputs validate against them, so neither can drift from what the tools write.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

from tabletest.errors import UserError, not_one_of
from tabletest.files.family import KINDS

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _vector(n: int, kind: type = float):
    return Annotated[list[kind], Field(min_length=n, max_length=n)]


Vec2, Vec3, Box = _vector(2), _vector(3), _vector(4)
Pair, Triple = _vector(2, str), _vector(3, str)
Side = Literal["left", "middle", "right"]


class SceneObject(_Closed):
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


class Box3D(_Closed):
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


class Relations(_Closed):
    """Every true relation, as the camera sees it; pairs are [subject, object]."""

    left_of: list[Pair]
    right_of: list[Pair]
    between: list[Triple] = Field(description="[subject, one, other]")
    table_side: dict[str, Side]


class Counts(_Closed):
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


class Vignettes(_Closed):
    left_first: str
    right_first: str


class Render(_Closed):
    engine: Literal["cycles", "eevee", "workbench"]
    device: str | None
    samples: int = Field(ge=1)
    resolution: _vector(2, int)
    mode: Literal["direct", "composite"]
    seed: int


class Camera(_Closed):
    K: Annotated[list[Vec3], Field(min_length=3, max_length=3)] = Field(description="3x3 intrinsics, pixels")
    world_to_camera: Annotated[list[_vector(4)], Field(min_length=4, max_length=4)]
    resolution: _vector(2, int)
    azimuth_deg: float
    elevation_deg: float
    distance_m: float
    focal_mm: float


class Table(_Closed):
    surface: str
    kind: str
    color: Vec3
    width_m: float
    depth_m: float


class KeyLight(_Closed):
    position: Vec3
    target: Vec3
    size_m: float
    power_w: float
    temperature_k: float


class World(_Closed):
    hdri: str
    rotation_deg: float
    strength: float


class Backdrop(_Closed):
    kind: str
    color: Vec3


class Appearance(_Closed):
    config_sha256: str
    seed: int
    table: Table
    key_light: KeyLight
    world: World
    backdrop: Backdrop


BenchmarkId = Annotated[str, Field(pattern=r"^[123]obj-\d{6}$")]
SceneOfSetId = Annotated[str, Field(pattern=r"^rnd\d+-\d{7}$")]
RandomId = Annotated[str, Field(pattern=rf"^rnd\d+-\d{{7}}(-({'|'.join(KINDS)}|view\d+))?$")]  # a partner or view: <scene>-<kind>


_NAME = r"[A-Za-z0-9_.#-]+"  # a file name in its folder: no '/', so never a way out of the dataset


class _Files(_Closed):
    file_name: str = Field(pattern=rf"^images/{_NAME}\.png$")
    mask_file_name: str = Field(None, pattern=rf"^masks/{_NAME}\.png$", description="with `render --masks`")
    depth_file_name: str = Field(None, pattern=rf"^depth/{_NAME}\.png$", description="with `render --masks`")


class BenchmarkVignette(_Closed):
    """A benchmark scene's text: what its render record holds but the pixels' measures."""

    id: BenchmarkId
    index: int = Field(ge=0)
    n_objects: int = Field(ge=1, le=3)
    objects: list[str]
    relations: Relations
    vignettes: Vignettes


class Counterfactual(_Closed):
    """A counterfactual partner's change: the scene it was made from, what it changed, and every relation
    item (as in `relations`; `ambiguous` pairs in name order) that became true, became false or held in
    both, computed from the two scenes' geometry with every object included."""

    of: SceneOfSetId
    kind: Literal[KINDS]
    objects: list[str] = Field(description="swap: the two; move: the one moved, then the one crossed; remove: the one; "
                               "replace: the old, then the new; unstack: the one taken off, then its carrier")  # fmt: skip
    became_true: dict[str, list] = {}
    became_false: dict[str, list] = {}
    unchanged: dict[str, list] = {}


class View(_Closed):
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


class BenchmarkRecord(_Files, BenchmarkVignette):
    """A line of a benchmark render's metadata.jsonl."""

    objects: list[SceneObject]
    render: Render


class RandomRecord(_Files, RandomVignette):
    """A line of a random (training) render's metadata.jsonl."""

    objects: list[RandomSceneObject]
    camera: Camera
    scene: Appearance
    render: Render


class Vignette(RootModel[Union[BenchmarkVignette, RandomVignette]]):
    """A line of `tabletest vignettes` (jsonl): a scene's text, joining its render record on `id`."""


class PromptAnswer(_Closed):
    truth: bool | None = Field(description="prompt 1: whether the statement is true")
    options: list[str] | None = Field(description="prompts 2 and 3: the options that answer it")
    names: list[str] | None = Field(description="prompts 6 and 8: the names in the blanks")
    relation: str | None = Field(description="the relation word that answers it")


class Distractor(_Closed):
    """In a three-object scene, the object a prompt about the other two does not name."""

    name: str
    slot: Side


class Prompt(_Closed):
    """A line of `tabletest prompts`: one of the study's eight prompt types about one scene."""

    qid: str
    scene_id: str
    prompt_type: int = Field(ge=1, le=8)
    variation: dict[str, str | bool | int]
    modality: Literal["image", "text"]
    image: str = Field(None, description="image queries: the image, relative to the render folder")
    context: str = Field(None, description="text queries: the vignette")
    text: str
    options: list[str] | None
    answer: PromptAnswer
    objects: dict[Literal["A", "B"], str]
    distractor: Distractor | None


class Derivation(_Closed):
    facts: list[list[str]]
    rules: list[str]
    hops: int | None
    stated: list[list[str]] = Field(None, description="stories: the facts the story states")


class Question(_Closed):
    """A line of `tabletest questions`: a question of the hierarchy, a caption or a story."""

    qid: str
    scene_id: str
    family: Literal["hierarchy"]
    form: Literal["question", "caption", "story"]
    modality: Literal["image", "text", "images"]
    image: str | None
    context: str | None
    text: str
    template: str = Field(description="the question's family: the questions worded from one pattern, whatever they name")
    phrasing: int = Field(ge=0, description="which of its template's phrasings words it (0: the plainest)")
    skill: str
    level: Literal["single", "multi", "reasoning"]
    frame: Literal["viewer", "intrinsic"] | None
    relation: str
    answer_type: Literal["yes/no", "choice", "number", "names"]
    options: list[str] | None
    answer: bool | int | str | list[str]
    objects: list[str]
    scene_objects: list[str]
    derivation: Derivation
    pair: str | None = Field(description="the qid shared by a question and its inverse, whose answers must agree")
    images: list[str] | None = Field(None, description="modality images: the scene's image, then its counterfactual partner's")
    scene_of: str | None = Field(None, description="a counterfactual partner's or another view's scene, whose same question it is compared with")


class Response(BaseModel):
    """A line of a responses file for `tabletest score`; other fields are kept, not read."""

    model_config = ConfigDict(extra="allow")
    qid: str
    response: str | None
    model: str | None = Field(None, description="the model that answered; default (or null): the file's name")


KINDS: dict[str, type[BaseModel]] = {
    "benchmark-record": BenchmarkRecord,
    "random-record": RandomRecord,
    "vignette": Vignette,
    "prompt": Prompt,
    "question": Question,
    "response": Response,
}


CORE_FIELDS = ("id", "objects", "relations")  # what a scene record must hold, however little else it says


def check_scene_record(record: dict, path: Path, line: int, fix: str) -> None:
    """A scene record as its schema says (a render's benchmark or random record, or a vignette), before any
    tool reads meaning into its fields: every field it holds of the schema's type and shape (a relation of
    two names, a list of objects), and its id, objects and relations there. Other fields may be left out
    (scenes written by hand, or by another tool, from geometry alone); what is wrong is refused in one line
    naming the field."""
    random = str(record.get("id", "")).startswith("rnd")
    if "file_name" in record:
        model = RandomRecord if random else BenchmarkRecord
    else:
        model = RandomVignette if random else BenchmarkVignette
    try:
        model.model_validate(record)
    except ValidationError as err:
        wrong = [e for e in err.errors() if e["type"] != "missing" or (len(e["loc"]) == 1 and e["loc"][0] in CORE_FIELDS)]
        if not wrong:
            return
        problem = wrong[0]
        where = ".".join(map(str, problem["loc"])) or "the record"
        what = f"a {'random' if random else 'benchmark'} {'render record' if 'file_name' in record else 'vignette'}"
        raise UserError(f"{path}: line {line} is not {what}: {where}: {problem['msg']}; {fix}") from None


def schema(kind: str) -> dict:
    """The JSON Schema of one record format."""
    if kind not in KINDS:
        raise not_one_of("tabletest schema", kind, list(KINDS), "random-record")
    body = KINDS[kind].model_json_schema()
    return {"$schema": DIALECT, "$id": f"{kind}.schema.json", **body}


def schema_text(kind: str) -> str:
    return json.dumps(schema(kind), indent=2) + "\n"


def write_schemas(folder: Path = SCHEMA_DIR) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for kind in KINDS:
        path = folder / f"{kind}.schema.json"
        path.write_text(schema_text(kind), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_schemas(Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA_DIR):
        print(path)
