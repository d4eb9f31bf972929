"""All the questions of one scene record: image questions from its geometry, text questions from its vignette,
SpartQA-style stories and VSR-style captions.

Text questions ask only what a vignette says: a benchmark vignette names each object's side of the
table (hence left and right, between and counts); a random scene's text record states some pairs'
relations, and gets counts and the questions its sentences entail (a story told by the vignette
itself). Random renders get image questions, captions and stories.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tabletest.config import Catalog
from tabletest.prompts.hierarchy import locate, maps, observers, skills
from tabletest.prompts.hierarchy.orientation import orientation
from tabletest.prompts.hierarchy.captions import captions, table_captions
from tabletest.prompts.hierarchy.marks import mark_questions, marked_file
from tabletest.prompts.hierarchy.metric import metric
from tabletest.prompts.hierarchy.template_asker import ask_kind
from tabletest.truth.marks import Mark, place_marks
from tabletest.truth.scene_facts import SceneGeometry
from tabletest.truth.seen import seen_objects
from tabletest.prompts.hierarchy.record import Asker, Coordinates, Phrasings
from tabletest.prompts.hierarchy.stories import story, vignette_story
from tabletest.files.family import family_of, made_from
from tabletest.truth.nouns import Nouns
from tabletest.files.run_output import read_runs

FORMS = ("questions", "captions", "stories")


@dataclass
class Located:
    """What questions answered with a place in the image need of one record: the coordinates they ask in, the
    record's object mask (its points and boxes; None: only free space and room, from the geometry) and the style
    of marks drawn on its marked copy (None: no marks)."""

    coordinates: Coordinates = "pixels"
    mask: np.ndarray | None = None
    marks: str | None = None
    _seen: dict | None = field(default=None, init=False, repr=False)
    _marks: list[Mark] | None = field(default=None, init=False, repr=False)

    def seen(self, record: dict) -> dict:
        """What the record's mask shows of each object (read once: the points, boxes and marks all need it)."""
        if self._seen is None:
            self._seen = {} if self.mask is None else seen_objects(record, self.mask)
        return self._seen

    def placed(self, record: dict) -> list[Mark]:
        """The numbered marks of the record's marked copy (placed once: its own questions and another view's need them)."""
        if self._marks is None:
            self._marks = [] if self.mask is None else place_marks(record["id"], self.mask, self.seen(record))
        return self._marks

    def ask(self, ask: Asker, g: SceneGeometry, record: dict) -> None:
        if self.mask is not None:
            locate.objects(ask, g, record, self.seen(record))
        locate.free_spots(ask, g, record)
        locate.room(ask, g, record)


def drawn_from(render: Path | None) -> tuple[str, ...] | None:
    """The names a render's random scenes were drawn from (every run's `pool` in its run.json); None for a
    benchmark render or records outside a render folder."""
    pools = [run.get("scenes", {}).get("pool") for run in (read_runs(render) if render else [])]
    if not pools or not all(isinstance(pool, list) for pool in pools):
        return None
    return tuple(dict.fromkeys(name for pool in pools for name in pool))


def views_made(render: Path | None) -> int | None:
    """How many photos of each scene a render made (every run's `views` in its run.json, where all agree); None for
    one photo, runs that differ, or records outside a render folder."""
    made = {run.get("scenes", {}).get("views") for run in (read_runs(render) if render else [])}
    views = made.pop() if len(made) == 1 else None
    return views if isinstance(views, int) and not isinstance(views, bool) and views > 1 else None


def scene_questions(
    record: dict,
    catalog: Catalog,
    seed: int = 0,
    forms: tuple[str, ...] = FORMS,
    text_only: bool = False,
    phrasings: Phrasings = "one",
    pool: tuple[str, ...] | None = None,
    located: Located | None = None,
) -> Iterator[dict]:
    """Every question of the scene, each in one of its phrasings (`phrasings="all"`: in every one); a count's
    trick kind comes from `pool` (`drawn_from`), else from the catalog. A counterfactual partner's or another
    view's name the scene it was made from (`scene_of`), whose same questions they are compared with. With
    `located`: questions answered with a point or a box in its coordinates, and with its mask, those about the
    objects' own pixels (and with its marks, those about a marked copy)."""
    made = _scene_questions(record, catalog, seed, forms, text_only, phrasings, pool or catalog.names, located)
    of = made_from(record)
    return made if of is None else ({**question, "scene_of": of} for question in made)


def _scene_questions(
    record: dict,
    catalog: Catalog,
    seed: int = 0,
    forms: tuple[str, ...] = FORMS,
    text_only: bool = False,
    phrasings: Phrasings = "one",
    pool: tuple[str, ...] = (),
    located: Located | None = None,
) -> Iterator[dict]:
    g = SceneGeometry.from_record(record, catalog)
    nouns = Nouns.of(catalog)
    scene_id = record["id"]
    scene_objects = list(dict.fromkeys(t.name for t in g.things))
    if g.has_geometry and not text_only:
        coordinates = located.coordinates if located else "pixels"
        ask = Asker(scene_id, "image", scene_objects, image=record.get("file_name"), nouns=nouns, seed=seed, phrasings=phrasings, coordinates=coordinates)
        if "questions" in forms:
            ask_kind(ask, g, "position-lr")
            ask_kind(ask, g, "position-fb")
            ask_kind(ask, g, "own-position")
            orientation(ask, g)
            observers.people(ask, g)
            observers.objects(ask, g)
            ask_kind(ask, g, "between")
            ask_kind(ask, g, "distance")
            ask_kind(ask, g, "size")
            skills.counting(ask, g, pool, seed)
            skills.position_counting(ask, g)
            skills.distance_counting(ask, g)
            skills.occlusion(ask, g)
            skills.support(ask, g)
            metric(ask, g)
            maps.cells(ask, g)
            if located is not None:
                located.ask(ask, g, record)
        if "captions" in forms:
            captions(ask, g)
            table_captions(ask, g)
        yield from ask.made
        if "questions" in forms and located is not None and located.marks and located.mask is not None:
            marked = Asker(scene_id, "image", scene_objects, image=marked_file(record), nouns=nouns, seed=seed, phrasings=phrasings)
            mark_questions(marked, g, located.placed(record))
            yield from ({**q, "marks": located.marks} for q in marked.made)
    # a text record (the vignette is all there is), or a scene in the benchmark's slots, whose vignette is the study's text condition
    family = family_of(record)
    told = "vignettes" in record and not (family is not None and family.placement == "free" and "camera" in record)
    random_text = told and "in_front_of" in record.get("relations", {})  # a random scene's: sentences, not an order
    if "questions" in forms and told:
        order = "left_first" if record.get("index", 0) % 2 == 0 else "right_first"
        text = SceneGeometry(g.things, None, [t.label for t in g.things])
        context = nouns.agree(record["vignettes"][order])
        ask = Asker(scene_id, "text", scene_objects, context=context, nouns=nouns, seed=seed, phrasings=phrasings)
        if not random_text:  # a benchmark vignette names each object's side: the order follows from it
            ask_kind(ask, text, "position-lr")
            ask_kind(ask, text, "between")
            skills.position_counting(ask, text)
        skills.counting(ask, text, pool, seed)
        yield from ask.made
    if "stories" in forms:
        yield from vignette_story(record, nouns, seed, phrasings) if random_text else story(scene_id, g, scene_objects, seed, nouns, phrasings)
