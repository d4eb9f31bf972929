"""The record formats as JSON Schema, so a consumer can check a file without reading Python.

Each format is a closed pydantic model (an unknown field is an error): the scene records in
`files/records.py`, the prompts, questions and responses here; `schema(kind)` turns one into a JSON Schema
(draft 2020-12). The same schemas ship as files in `tabletest/schemas/`, written by
`python -m tabletest.write.schema`; the tests check that the files match the models and that real
outputs validate against them, so neither can drift from what the tools write.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tabletest.errors import not_one_of
from tabletest.files.family import FAMILIES
from tabletest.files.records import Closed, Side, Vignette, models_of

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


class PromptAnswer(Closed):
    truth: bool | None = Field(description="prompt 1: whether the statement is true")
    options: list[str] | None = Field(description="prompts 2 and 3: the options that answer it")
    names: list[str] | None = Field(description="prompts 6 and 8: the names in the blanks")
    relation: str | None = Field(description="the relation word that answers it")


class Distractor(Closed):
    """In a three-object scene, the object a prompt about the other two does not name."""

    name: str
    slot: Side


class Prompt(Closed):
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


class Derivation(Closed):
    facts: list[list[str]]
    rules: list[str]
    hops: int | None
    stated: list[list[str]] = Field(None, description="stories: the facts the story states")


class Exact(Closed):
    value: float
    unit: Literal["m", "deg"]


class Rle(Closed):
    """COCO's compressed run-length encoding of a binary mask (`pycocotools.mask.decode` reads it)."""

    size: list[int] = Field(min_length=2, max_length=2, description="[height, width]")
    counts: str


class Region(Closed):
    """Free table in the image: inside `table`, on the kept side of every one of `sides`, outside every one of
    `objects` (pixels, x right and y down from the top-left)."""

    table: list[list[float]] = Field(description="the table top's outline, a convex polygon [[x, y], ...]")
    sides: list[list[float]] = Field(description="half-planes [a, b, c]: a point is in where a*x + b*y + c >= 0")
    objects: list[list[list[float]]] = Field(description="each object's projected 3D box, a convex polygon to stay out of")


class Question(Closed):
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
    frame: Literal["viewer", "intrinsic", "person", "object"] | None = Field(
        description="viewer: the camera's; intrinsic: an object's own front; person: a person at a side of the table "
        "(`observer`); object: standing where `objects[0]` is, facing `objects[1]`; null: none"
    )
    relation: str
    answer_type: Literal["yes/no", "choice", "number", "names", "quantity", "point", "box", "cell"]
    options: list[str] | None
    answer: bool | int | float | str | list[str] | list[float] = Field(
        description="a quantity's: its value as stated, in `unit`; a point's [x, y] and a box's [x0, y0, x1, y1]: pixels "
        "from the image's top-left corner; a cell's: its row and column (`bottom left`, `centre`)"
    )
    objects: list[str]
    scene_objects: list[str]
    derivation: Derivation
    pair: str | None = Field(description="the qid shared by a question and its inverse, whose answers must agree")
    unit: Literal["cm", "m", "deg"] = Field(None, description="a quantity's: the unit the question asks for")
    exact: Exact = Field(None, description="a quantity's: its exact value, in metres (lengths) or degrees (angles)")
    images: list[str] | None = Field(None, description="modality images: the scene's image, then its counterfactual partner's")
    scene_of: str | None = Field(None, description="a counterfactual partner's or another view's scene, whose same question it is compared with")
    observer: Literal["near", "far", "left", "right"] = Field(
        None, description="frame person: the side of the table the person stands at, as the viewer sees it (near: the viewer's own place)"
    )
    coordinates: Literal["pixels", "0-1000", "0-1", "percent"] = Field(
        None, description="a point's or a box's: how its text asks for the numbers (x right, y down from the top-left)"
    )
    image_size: list[int] = Field(None, min_length=2, max_length=2, description="a point's or a box's: the image's [width, height]")
    mask: Rle = Field(None, description="a point on an object: the object's visible pixels, which the point must hit")
    region: Region = Field(None, description="a point on free table: where the point must land")
    grid: int = Field(None, description="a map's cell: the grid's cells across (and down)")
    marks: Literal["numbers", "boxes"] = Field(None, description="a question about the marked copy of the image (`image`): how it is marked")


class Response(BaseModel):
    """A line of a responses file for `tabletest score`; other fields are kept, not read."""

    model_config = ConfigDict(extra="allow")
    qid: str
    response: str | None
    model: str | None = Field(None, description="the model that answered; default (or null): the file's name")

KINDS: dict[str, type[BaseModel]] = {
    **{f"{family.name}-record": models_of(family)[0] for family in FAMILIES},  # each scene family's render records
    "vignette": Vignette,
    "prompt": Prompt,
    "question": Question,
    "response": Response,
}




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
