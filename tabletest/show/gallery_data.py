"""What the gallery shows of each scene: the facets its filters read (kept small, one index for the whole
folder) and the details a click opens (the labels to draw, the record, the questions with their gold).

The index is columnar: a scene is a position, each facet a list of small numbers into a vocabulary, so a
folder of 100,000 scenes loads as one file of a few megabytes and filters in the browser without a server.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from tabletest.config import Catalog
from tabletest.layout.instances import label_of
from tabletest.prompts.hierarchy.generate import scene_questions
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.files.family import BENCHMARK, family_of, made_from
from tabletest.files.records import RandomRelations, RenderRecord
from tabletest.show.overlay import camera_of, changes, hidden_names, legend, projected_box

# the relations a scene can be filtered by: it holds at least one pair of the kind
RELATION_FILTERS = ("on", "inside", "touching", "next_to", "above", "between", "left_of", "in_front_of", "nearer", "bigger", "taller")
# partly: nothing disagrees where verify could check; outdated: the scene's image, mask or depth changed since verify judged it
VERIFY = ("agrees", "disagrees", "not verified", "partly checked", "outdated")
IMAGE = ("ok", "missing", "unreadable")
QUESTIONS_SHOWN = 60  # per scene in its details, a question of each skill in turn: enough to see, small to load


def family(record: RenderRecord) -> str:
    """What made the scene: its family (the benchmark, with its count of objects; a random scene), another
    view of one, or a counterfactual partner (`Family.facet`)."""
    return (family_of(record) or BENCHMARK).facet(record.raw)


class Index:
    """The facets of every scene, in the folder's order, as lists of indices into vocabularies."""

    def __init__(self) -> None:
        self.objects: dict[str, int] = {}
        self.families: dict[str, int] = {}
        self.scenes: dict[str, int] = {}  # a scene of its own's id -> its position, which its views name
        keys = ("id", "n", "objects", "relations", "family", "hidden", "verify", "image", "view_of")
        self.columns: dict[str, list] = {key: [] for key in keys}

    def add(self, record: RenderRecord, verify: str, image: str) -> None:
        held = record.relations
        c = self.columns
        if record.made_from is None:
            self.scenes[record.id] = len(c["id"])
        # another view: its scene's position (a scene comes before its views), so a click shows them side by side
        c["view_of"].append(self.scenes.get(record.made_from, -1) if isinstance(record.raw.get("view"), dict) else -1)
        c["id"].append(record.id)
        c["n"].append(len(record.objects))
        c["objects"].append(sorted({self.objects.setdefault(name, len(self.objects)) for name in record.names}))
        c["relations"].append(sum(1 << k for k, key in enumerate(RELATION_FILTERS) if getattr(held, key, None)))
        c["family"].append(self.families.setdefault(family(record), len(self.families)))
        c["hidden"].append(int(isinstance(held, RandomRelations) and bool(held.hidden)))
        c["verify"].append(VERIFY.index(verify))
        c["image"].append(IMAGE.index(image))

    def document(self, per_page: int, chunk: int) -> dict:
        return {
            "per_page": per_page,
            "chunk": chunk,
            "vocab": {
                "objects": list(self.objects),
                "families": list(self.families),
                "relations": [key.replace("_", " ") for key in RELATION_FILTERS],
                "verify": list(VERIFY),
                "image": list(IMAGE),
            },
            "scenes": self.columns,
        }


def details(record: dict, seen: dict, notes: Iterable[str], catalog: Catalog) -> dict:
    """A click's worth of one scene: its labels in pixels (2D box, the 3D box projected with the recorded
    camera), its relations in words, what `tabletest verify` disputed, its questions, and the record as the
    folder holds it (`seen`: as it describes itself, `truth.described`)."""
    camera = camera_of(seen)
    hidden = hidden_names(record)
    labels = []
    for obj in record["objects"]:
        corners = projected_box(obj, camera) if camera is not None else None
        labels.append({
            "name": label_of(obj),
            "bbox": obj["bbox_px"],
            "box3d": None if corners is None else [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
            "hidden": label_of(obj) in hidden,
        })  # fmt: skip
    by_skill: dict[str, list[dict]] = {}
    for question in scene_questions(seen, catalog, forms=("questions",)):
        if question["image"]:
            by_skill.setdefault(question["skill"], []).append(question)
    turns = itertools.chain.from_iterable(itertools.zip_longest(*by_skill.values()))  # a question of each skill in turn
    asked = [[q["skill"], q["text"], gold_text(q)] for q in itertools.islice(filter(None, turns), QUESTIONS_SHOWN)]
    return {
        "id": record["id"],
        "resolution": record["render"]["resolution"],
        "labels": labels,
        "changes": changes(record, lines=40),
        "legend": legend(record),
        "notes": list(notes),
        "questions": asked,
        "of": made_from(record),
        "record": record,
    }
