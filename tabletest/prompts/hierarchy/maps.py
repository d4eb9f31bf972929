"""Top-down map questions ("which cell of a 3x3 grid over the objects, seen from above with you at the bottom,
holds the lamp?") and the map a map-then-answer target puts before its answer (`truth.top_down`): each
object's cell and where its front faces, as JSON."""

from __future__ import annotations

import json

from collections.abc import Iterable, Iterator

from tabletest.config import Catalog
from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker
from tabletest.prompts.hierarchy.naming import named
from tabletest.truth.scene_facts import SceneGeometry
from tabletest.truth.top_down import GRID, cell, scene_map

MAP_INSTRUCTION = (
    "Before answering, map the objects as seen from above, you at the bottom, inside <map> </map>: JSON whose "
    '"objects" list gives each object\'s "cell" on a square 3x3 grid just spanning their centres (null near a '
    'line between cells) and, for an object with a front, its "facing" (away, towards, left or right; null near '
    "a diagonal)."
)


def cells(ask: Asker, g: SceneGeometry) -> None:
    """Which cell holds each object a question may name, where the grid decides it."""
    for x in named(g):
        found = cell(g, x)
        if found is None:
            continue
        ask.ask(
            f"map-{x.name}", Wording("map-cell", {"x": x.name}), skill="map", level="multi", frame="viewer",
            relation="cell", answer_type="cell", answer=found, objects=[x.name],
            facts=[[x.name, "in_cell", found]], located={"grid": GRID},
        )  # fmt: skip


def map_text(record: dict, catalog: Catalog) -> str | None:
    """The scene's map as a map-then-answer target writes it, `<map>{...}</map>`; None for a scene without one
    (a text record, one object, objects bunched closer than the grid's least span)."""
    g = SceneGeometry.from_record(record, catalog)
    made = scene_map(g) if g.has_geometry else None
    return None if made is None else f"<map>{json.dumps(made, separators=(', ', ': '))}</map>"


def mapped_first(queries: Iterable[dict], made: str | None) -> Iterator[dict]:
    """Each question about the one image `made` maps asked to map it first, its gold answer after the map (`map`
    holds it); the others (about a description, or two images) as they are."""
    for q in queries:
        if made is None or q["modality"] != "image" or q.get("images"):
            yield q
        else:
            yield {**q, "text": f"{q['text']} {MAP_INSTRUCTION}", "gold": f"{made}\n{q['gold']}", "map": made}
