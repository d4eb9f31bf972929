"""The render record with one schema for every scene, as columnar formats (Arrow, Parquet) need.

A render record keeps each object's table side as a mapping from object name to side; as an Arrow
struct that would become one column per object name, mostly empty. Exports write it as a list of
`[name, side]` pairs instead, like the other relations. A counterfactual partner's change lists its
changed `counts` as `[name, number]` items, and `gaps_m` and `slides_m` hold `[a, b, metres]` items,
which one Arrow list cannot hold: exports write the counts as the mapping `relations.counts` is and
each gap and slide as `{a, b, metres}`. Everything else is kept as rendered. Random scenes (`tabletest render
--scenes random`) have their own schema, with every field they add.
"""

from __future__ import annotations

import pyarrow as pa

from tabletest.errors import UserError
from tabletest.files.family import Family
from tabletest.files.records import RandomRelations, RenderRecord

STRINGS = pa.list_(pa.list_(pa.string()))
FLOATS = pa.list_(pa.float64())
F64 = pa.float64()
MATRIX = pa.list_(FLOATS)
BOX3D = pa.struct([("center_m", FLOATS), ("size_m", FLOATS), ("yaw_deg", F64), ("frame", pa.string())])
CAMERA = pa.struct(
    [
        ("K", MATRIX),
        ("world_to_camera", MATRIX),
        ("resolution", pa.list_(pa.int64())),
        *((key, F64) for key in ("azimuth_deg", "elevation_deg", "distance_m", "focal_mm")),
    ]
)

OBJECT = pa.struct(
    [
        ("name", pa.string()),
        ("slot", pa.string()),
        ("source", pa.string()),
        ("uid", pa.string()),
        ("position_m", FLOATS),
        ("yaw_deg", pa.float64()),
        ("size_m", FLOATS),
        ("center_px", FLOATS),
        ("bbox_px", FLOATS),
        ("box3d", BOX3D),
    ]
)
RECORD_FIELDS = [
    ("id", pa.string()),
    ("index", pa.int64()),
    ("n_objects", pa.int64()),
    ("objects", pa.list_(OBJECT)),
    (
        "relations",
        pa.struct([("left_of", STRINGS), ("right_of", STRINGS), ("between", STRINGS), ("table_side", STRINGS)]),
    ),
    ("vignettes", pa.struct([("left_first", pa.string()), ("right_first", pa.string())])),
    (
        "render",
        pa.struct(
            [
                ("engine", pa.string()),
                ("device", pa.string()),
                ("samples", pa.int64()),
                ("resolution", pa.list_(pa.int64())),
                ("seed", pa.int64()),
                ("mode", pa.string()),
            ]
        ),
    ),
    ("camera", CAMERA),
]


ARROW_NAMES = {"double": "float64", "float": "float32"}  # Arrow's names that `datasets` spells otherwise
# the render record's file columns, kept in the WebDataset json (ImageFolder reads them as its images)
FILE_FIELDS = [("file_name", pa.string()), ("mask_file_name", pa.string()), ("depth_file_name", pa.string())]


def hf_features(fields: list[tuple[str, pa.DataType]]) -> list[dict]:
    """Arrow fields in the YAML form of the `dataset_info.features` of a Hugging Face dataset card.

    Declared there, `datasets` takes the schema from the card instead of inferring it from the first
    rows: an object's `uid` is null for built-in models and text for Objaverse ones, which an inference
    from the rows of one file or split alone gets wrong.
    """
    return [{"name": name, **_hf_type(kind)} for name, kind in fields]


def _hf_type(kind: pa.DataType) -> dict:
    if pa.types.is_struct(kind):
        return {"struct": hf_features([(kind.field(i).name, kind.field(i).type) for i in range(kind.num_fields)])}
    if pa.types.is_list(kind):
        inner = _hf_type(kind.value_type)
        return {"list": inner.get("dtype", inner.get("struct", inner))}
    return {"dtype": ARROW_NAMES.get(str(kind), str(kind))}


def columnar(record: dict) -> dict:
    """The record with `relations.table_side` as `[name, side]` pairs, in the objects' order, a partner's
    changed `counts` as a mapping and each gap and slide as `{a, b, metres}`."""
    relations = dict(record["relations"])
    relations["table_side"] = [[name, side] for name, side in relations["table_side"].items()]
    columns = {**record, "relations": relations}
    if change := record.get("counterfactual"):
        columns["counterfactual"] = {**change, **{s: _counted(change[s]) for s in CHANGE_SIDES if s in change}}
    for key in ("gaps_m", "slides_m"):
        if key in record:
            columns[key] = [{"a": a, "b": b, "metres": metres} for a, b, metres in record[key]]
    return columns


def _counted(items: dict[str, list]) -> dict:
    return {**items, "counts": dict(items["counts"])} if "counts" in items else items


VARIANT = pa.struct(
    [
        ("look", pa.string()),
        ("model", pa.int64()),
        ("seed", pa.string()),
        ("shape", pa.struct([("height", F64), ("width", F64), ("size", F64)])),
        ("colour", pa.string()),
    ]
)
RANDOM_OBJECT = pa.struct(
    [
        *((OBJECT.field(i).name, OBJECT.field(i).type) for i in range(OBJECT.num_fields)),
        ("instance", pa.string()),  # where the scene holds several of its kind: apple#2
        ("center_camera_m", FLOATS),
        ("depth_m", F64),
        ("visible_fraction", F64),
        ("covered_by", pa.list_(pa.string())),
        ("variant", VARIANT),  # its look, with the random config's `looks` on; null: its catalog model in its own colours
    ]
)
# the relations listed as items, the record model's (those off the table plane null for a set without arrangements)
ITEM_KEYS = tuple(key for key in RandomRelations.model_fields if key not in ("counts", "hidden"))
COUNTS = pa.struct([("objects", pa.int64()), ("natural", pa.int64()), ("artifact", pa.int64())])
RANDOM_RELATIONS = pa.struct(
    [*((key, STRINGS) for key in ITEM_KEYS), ("counts", COUNTS), ("hidden", pa.list_(pa.string()))]
)
CHANGE_SIDES = ("became_true", "became_false", "unchanged")
DIFFERENCE = pa.struct([*((key, STRINGS) for key in ITEM_KEYS), ("counts", COUNTS)])  # the keys a side holds items of
COUNTERFACTUAL = pa.struct(
    [
        ("of", pa.string()),
        ("kind", pa.string()),
        ("objects", pa.list_(pa.string())),
        *((side, DIFFERENCE) for side in CHANGE_SIDES),
    ]
)
VIEW = pa.struct([("of", pa.string()), ("number", pa.int64())])
GAP = pa.struct([("a", pa.string()), ("b", pa.string()), ("metres", F64)])
SCENE = pa.struct(
    [
        ("config_sha256", pa.string()),
        ("seed", pa.int64()),
        ("table", pa.struct([("surface", pa.string()), ("kind", pa.string()), ("color", FLOATS), ("width_m", F64), ("depth_m", F64)])),
        (
            "key_light",
            pa.struct([("position", FLOATS), ("target", FLOATS), ("size_m", F64), ("power_w", F64), ("temperature_k", F64)]),
        ),
        ("world", pa.struct([("hdri", pa.string()), ("rotation_deg", F64), ("strength", F64)])),
        ("backdrop", pa.struct([("kind", pa.string()), ("color", FLOATS)])),
    ]
)
_BENCHMARK = dict(RECORD_FIELDS)
RANDOM_RECORD_FIELDS = [
    ("id", pa.string()),
    ("index", pa.int64()),
    ("n_objects", pa.int64()),
    ("objects", pa.list_(RANDOM_OBJECT)),
    ("camera", CAMERA),
    ("relations", RANDOM_RELATIONS),
    ("vignettes", _BENCHMARK["vignettes"]),
    ("gaps_m", pa.list_(GAP)),  # each pair's gap between meshes as {a, b, metres}; null without arrangements
    ("slides_m", pa.list_(GAP)),  # how far a slides towards b until they meet, as {a, b, metres}; null as gaps_m
    ("counterfactual", COUNTERFACTUAL),  # a counterfactual partner's change, null on other records
    ("view", VIEW),  # another view's scene and number, null on other records
    ("scene", SCENE),
    ("render", _BENCHMARK["render"]),
]


# the columns of a family's records, by its placement (`files.family.Family`): the benchmark's, or a random scene's
PLACEMENT_FIELDS = {"slots": RECORD_FIELDS, "free": RANDOM_RECORD_FIELDS}


def record_fields(family: Family) -> list[tuple[str, pa.DataType]]:
    """The columns of the records of a render of `family`."""
    return PLACEMENT_FIELDS[family.placement]


def columns_of(record: RenderRecord, columns: pa.Schema, family: Family, left: tuple[str, ...] = ()) -> dict:
    """The record as a row of `columns` (`columnar`), refused in one line where it holds a field (inside structs and
    lists of them too) that no column holds, which Arrow would leave out without a word; `left`: fields the format
    keeps otherwise (a Parquet shard embeds the images a record names)."""
    row = columnar(record.raw)
    lacking = _unheld({k: v for k, v in row.items() if k not in left}, pa.struct(list(columns)), "")
    if lacking is not None:
        raise UserError(
            f"{record.id} holds {lacking}, which the columns of {family.words} (export/records.py) lack: exported, it "
            "would be lost; export --format webdataset, whose samples keep each record whole"
        )
    return row


def _unheld(value: object, kind: pa.DataType, where: str) -> str | None:
    if isinstance(value, dict) and pa.types.is_struct(kind):
        for key, item in value.items():
            index = kind.get_field_index(key)
            if index < 0:
                return f"{where}{key}"
            if (found := _unheld(item, kind.field(index).type, f"{where}{key}.")) is not None:
                return found
    elif isinstance(value, list) and pa.types.is_list(kind) and pa.types.is_struct(kind.value_type):
        for item in value:
            if (found := _unheld(item, kind.value_type, where)) is not None:
                return found
    return None
