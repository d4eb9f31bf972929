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

from types import UnionType
from typing import Annotated, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from tabletest.errors import UserError
from tabletest.files.family import Family
from tabletest.files.records import Columns, ItemsOf, RenderRecord, models_of

FILE_NAMES = ("file_name", "mask_file_name", "depth_file_name")  # a record's files: a format ships them its own way


def record_fields(family: Family) -> list[tuple[str, pa.DataType]]:
    """The columns of the records of a render of `family`, read off its record model: a field the model gains
    reaches every export without a column list of its own."""
    return [(name, kind) for name, kind in model_fields(models_of(family)[0]) if name not in FILE_NAMES]


def model_fields(model: type[BaseModel]) -> list[tuple[str, pa.DataType]]:
    """The Arrow columns of a record model's fields, in its order, as `columnar` writes a record."""
    return [(name, arrow_type(field.annotation, field.metadata)) for name, field in model.model_fields.items()]


def arrow_type(annotation: object, metadata: list | tuple = ()) -> pa.DataType:
    """The Arrow type a field of this annotation takes in an export (`columnar`'s form of it): a model a struct,
    a list (or a tuple of one type) a list, a mapping of names to words a list of `[name, word]` pairs, a tuple
    marked `Columns` a struct of those names, a mapping marked `ItemsOf` the columns of that model's fields."""
    for mark in metadata:
        if isinstance(mark, Columns):
            return pa.struct([(name, arrow_type(kind)) for name, kind in zip(mark.names, get_args(annotation))])
        if isinstance(mark, ItemsOf):
            return pa.struct([(n, kind) for n, kind in model_fields(mark.model) if n not in mark.without])
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return arrow_type(args[0], args[1:])
    if origin in (Union, UnionType):
        (kind,) = [a for a in args if a is not type(None)]
        return arrow_type(kind)
    if origin is Literal:
        return arrow_type(type(args[0]))
    if origin in (list, tuple):
        kinds = {arrow_type(a) for a in args if a is not Ellipsis}
        if len(kinds) != 1:
            raise TypeError(f"{annotation} mixes types: mark it Columns(...) in files/records.py")
        return pa.list_(kinds.pop())
    if origin is dict:
        return pa.list_(pa.list_(pa.string()))  # [name, word] pairs, as `columnar` writes them
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return pa.struct(model_fields(annotation))
    return SCALARS[annotation]


SCALARS = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_()}


ARROW_NAMES = {"double": "float64", "float": "float32"}  # Arrow's names that `datasets` spells otherwise
# the render record's file columns, kept in the WebDataset json (ImageFolder reads them as its images)
FILE_FIELDS = [(name, pa.string()) for name in FILE_NAMES]


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


CHANGE_SIDES = ("became_true", "became_false", "unchanged")


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
