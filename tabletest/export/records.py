"""The render record with one schema for every scene, as columnar formats (Arrow, Parquet) need.

A render record keeps each object's table side as a mapping from object name to side; as an Arrow
struct that would become one column per object name, mostly empty. Exports write it as a list of
`[name, side]` pairs instead, like the other relations. Everything else is kept as rendered.
"""

from __future__ import annotations

import pyarrow as pa

STRINGS = pa.list_(pa.list_(pa.string()))
FLOATS = pa.list_(pa.float64())

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
]


def columnar(record: dict) -> dict:
    """The record with `relations.table_side` as `[name, side]` pairs, in the objects' order."""
    relations = dict(record["relations"])
    relations["table_side"] = [[name, side] for name, side in relations["table_side"].items()]
    return {**record, "relations": relations}
