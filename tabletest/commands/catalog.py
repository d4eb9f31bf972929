"""`tabletest catalog`: the object catalog, in the order that defines every scene index."""

from __future__ import annotations

from tabletest.commands.options import CatalogOpt, JsonOpt, print_json


def catalog(catalog: CatalogOpt = None, as_json: JsonOpt = False) -> None:
    """List the object catalog (the order that defines every scene index)."""
    from rich.console import Console
    from rich.table import Table

    from tabletest.config import load_catalog

    cat = load_catalog(catalog)
    if as_json:
        print_json({"objects": [{"index": i, "name": o.name, "kind": o.kind, "group": o.group, "size_m": o.size_m} for i, o in enumerate(cat.objects)]})
        return
    table = Table(title=f"{len(cat)} objects")
    for column in ("#", "name", "kind", "group", "size (m)"):
        table.add_column(column, justify="right" if column in {"#", "size (m)"} else "left")
    for i, obj in enumerate(cat.objects):
        table.add_row(str(i), obj.name, obj.kind, obj.group, f"{obj.size_m:.3f}")
    Console().print(table)
