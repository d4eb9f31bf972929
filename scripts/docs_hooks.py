"""MkDocs hook: the reference pages, generated from the code when the site is built, so they cannot drift.

A page holds a marker line and gets the generated Markdown in its place:
`<!-- tabletest:commands -->` every command's options (from the CLI itself), `<!-- tabletest:config -->`
every config key with its type, shipped value, default and bounds (from the pydantic models and the
shipped YAML), `<!-- tabletest:records -->` every record format's fields (from the JSON Schemas).
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Iterator

import yaml
from pydantic import BaseModel
from pydantic_core import PydanticUndefined
from typer.main import get_command

from tabletest.commands.main import app
from tabletest.commands.examples import EXAMPLES
from tabletest.config import CONFIG_DIR, CatalogObject, Config
from tabletest.layout.random_config import RandomConfig
from tabletest.write.schema import KINDS, schema

MARKERS = {
    "<!-- tabletest:relations -->": lambda: relations_markdown(),
    "<!-- tabletest:commands -->": lambda: commands_markdown(),
    "<!-- tabletest:config -->": lambda: config_markdown(),
    "<!-- tabletest:records -->": lambda: records_markdown(),
}


def on_page_markdown(markdown: str, **_) -> str:
    for marker, make in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


# --- relations --------------------------------------------------------------------------------------


def relations_markdown() -> str:
    """The relation table as the questions ask it: each relation's words, VSR's category, frame, definition and
    withheld band; then which of VSR's relations are asked in their own words."""
    from tabletest.truth.relation_table import RELATIONS, VSR_NAMES, vsr_asked

    rows = ["| relation | words | VSR category | frame | true when | withheld |", "| --- | --- | --- | --- | --- | --- |"]
    for r in RELATIONS:
        words = ", ".join(f"*{w}*" for w in r.words)
        rows.append(f"| `{r.key}` | {words} | {r.vsr} | {r.frame or 'any'} | {_cell(r.definition)} | {_cell(r.withheld)} |")
    asked = vsr_asked()
    left = [name for name in VSR_NAMES if name not in asked]
    said = (
        f"VSR's relations the table words in their own words: {len(asked)} of the {len(VSR_NAMES)} it lists ("
        + ", ".join(asked) + "). Not asked: " + ", ".join(left) + " (motion along a path, parts of one object, or no "
        "fixed meaning between two objects standing on a table)."
    )
    return "\n".join([*rows, "", said, ""])


# --- commands ---------------------------------------------------------------------------------------


def _commands(group, path: str = "") -> Iterator[tuple[str, object]]:
    """(path, command) of every command, sub-commands of a group (`assets build`) by their full path."""
    for name in group.list_commands(None):
        command, full = group.commands[name], f"{path} {name}".strip()
        if hasattr(command, "commands"):
            yield from _commands(command, full)
        else:
            yield full, command


def commands_markdown() -> str:
    """Each command's help as its `--help` words it (names, value, help, default and bounds), as a table."""
    root = get_command(app)
    out = []
    for path, command in _commands(root):
        context = command.context_class(command, info_name=path)
        rows = ["| option | what it does |", "| --- | --- |"]
        for param in command.params:
            record = param.get_help_record(context)
            if record is not None and param.name != "help":
                names, about = record
                rows.append(f"| `{_cell(names)}` | {_cell(about)} |")
        out += [f"## tabletest {path}", "", _cell(command.help or ""), "", *rows, "", f"Example: `{EXAMPLES[path]}`", ""]
    return "\n".join(out)


# --- config -----------------------------------------------------------------------------------------


def _type_name(annotation: object) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _type_name(typing.get_args(annotation)[0])
    if origin is typing.Literal:
        return " | ".join(str(a) for a in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(annotation) if a is not type(None))
    if origin in (tuple, list):
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        names = {_type_name(a) for a in args}
        many = Ellipsis in typing.get_args(annotation) or origin is list
        return f"list of {names.pop()}" if many and len(names) == 1 else f"[{', '.join(_type_name(a) for a in args)}]"
    if origin is dict:
        key, value = typing.get_args(annotation)
        return f"map of {_type_name(key)} to {_type_name(value)}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "section"
    return getattr(annotation, "__name__", str(annotation))


BOUNDS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<", "min_length": "at least", "max_length": "at most"}


def _bounds(metadata: list) -> str:
    """`>= 0, <= 1` from a field's constraints (annotated-types' Ge, Le, MinLen, ...)."""
    parts = []
    for item in metadata:
        for attribute, word in BOUNDS.items():
            value = getattr(item, attribute, None)
            if value is not None:
                parts.append(f"{word} {value}" + (" items" if attribute.endswith("length") else ""))
    return ", ".join(parts)


def _model(annotation: object) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _config_rows(model: type[BaseModel], shipped: dict | None, prefix: str = "") -> Iterator[str]:
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        value = (shipped or {}).get(name, "")
        nested = _model(field.annotation)
        if nested is not None:
            yield from _config_rows(nested, value if isinstance(value, dict) else None, f"{key}.")
            continue
        if field.default is not PydanticUndefined:
            default = f"`{json.dumps(field.default)}`" if not isinstance(field.default, BaseModel) else ""
        elif field.default_factory is not None:
            default = "(empty)"
        else:
            default = "required"
        if isinstance(value, list) and value and isinstance(value[0], dict):
            shown = f"{len(value)} entries (see the file)"
        else:
            shown = f"`{json.dumps(value)}`" if value != "" else ""
        yield (
            f"| `{key}` | {_cell(_type_name(field.annotation))} | {_cell(shown)} | {default} | "
            f"{_cell(_bounds(field.metadata))} | {_cell(field.description or '')} |"
        )


def _config_table(model: type[BaseModel], shipped: dict | None) -> str:
    head = "| key | type | shipped | if left out | bounds | about |\n| --- | --- | --- | --- | --- | --- |"
    return "\n".join([head, *_config_rows(model, shipped)])


def config_markdown() -> str:
    default = yaml.safe_load((CONFIG_DIR / "default.yaml").read_text())
    random = yaml.safe_load((CONFIG_DIR / "random.yaml").read_text())
    objects = yaml.safe_load((CONFIG_DIR / "objects.yaml").read_text())["objects"][0]
    return "\n\n".join([
        "## Render config (`--config`, shipped as `tabletest/configs/default.yaml`)",
        _config_table(Config, default),
        "## Random-scene config (`--random-config`, shipped as `tabletest/configs/random.yaml`)",
        _config_table(RandomConfig, random),
        f"## Catalog entry (`--catalog`, shipped as `tabletest/configs/objects.yaml`; the shipped column shows its first entry, {objects['name']})",
        _config_table(CatalogObject, objects),
    ])


# --- records ----------------------------------------------------------------------------------------


def _schema_type(node: dict, defs: dict) -> tuple[str, dict | None]:
    """(a short type name, the object schema to descend into, if any)."""
    if "$ref" in node:
        target = defs[node["$ref"].split("/")[-1]]
        return ("object", target) if target.get("type") == "object" else _schema_type(target, defs)
    for key in ("anyOf", "oneOf"):
        if key in node:
            kinds = [_schema_type(n, defs) for n in node[key]]
            inner = next((d for _, d in kinds if d), None)
            return " or ".join(k for k, _ in kinds), inner
    kind = node.get("type", "any")
    if "enum" in node:
        return " | ".join(json.dumps(v) for v in node["enum"]), None
    if "const" in node:
        return json.dumps(node["const"]), None
    if kind == "array":
        if "prefixItems" in node:
            return "[" + ", ".join(_schema_type(n, defs)[0] for n in node["prefixItems"]) + "]", None
        item, inner = _schema_type(node.get("items", {}), defs)
        size = f"{node['minItems']} " if node.get("minItems") == node.get("maxItems") and "minItems" in node else ""
        return f"list of {size}{item}", inner
    if kind == "object" and "additionalProperties" in node and isinstance(node["additionalProperties"], dict):
        value, _ = _schema_type(node["additionalProperties"], defs)
        return f"map of string to {value}", None
    return kind, node if kind == "object" and "properties" in node else None


def _field_rows(node: dict, defs: dict, prefix: str = "") -> Iterator[str]:
    required = set(node.get("required", ()))
    for name, field in node.get("properties", {}).items():
        kind, inner = _schema_type(field, defs)
        about = field.get("description") or (inner or {}).get("description", "")
        if "pattern" in field:
            about = f"{about} (matches `{field['pattern']}`)".strip()
        yield f"| `{prefix}{name}` | {_cell(kind)} | {'yes' if name in required else ''} | {_cell(about or '')} |"
        if inner is not None:
            yield from _field_rows(inner, defs, f"{prefix}{name}{'[]' if kind.startswith('list') else ''}.")


def records_markdown() -> str:
    out = []
    for kind in KINDS:
        body = schema(kind)
        defs = body.get("$defs", {})
        out += [f"## {kind}", "", _cell(body.get("description", "")), "", f"`tabletest schema {kind}` prints it.", ""]
        variants = [defs[v["$ref"].split("/")[-1]] for v in body.get("anyOf", [])] or [body]
        for variant in variants:
            if len(variants) > 1:
                out += [f"### {variant['title']}", "", _cell(variant.get("description", "")), ""]
            out += ["| field | type | required | about |", "| --- | --- | --- | --- |", *_field_rows(variant, defs), ""]
    return "\n".join(out)
