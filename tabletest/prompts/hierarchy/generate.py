"""All the questions of one scene record: image questions from its geometry, text questions from its vignette,
SpartQA-style stories and VSR-style captions.

Text questions ask only what a vignette says: a benchmark vignette names each object's side of the
table (hence left and right, between and counts); a random scene's text record states some pairs'
relations, and gets counts and the questions its sentences entail (a story told by the vignette
itself). Random renders get image questions, captions and stories.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tabletest.config import Catalog
from tabletest.prompts.hierarchy import observers, skills
from tabletest.prompts.hierarchy.orientation import orientation
from tabletest.prompts.hierarchy.captions import captions, table_captions
from tabletest.prompts.hierarchy.metric import metric
from tabletest.truth.scene_facts import SceneGeometry
from tabletest.prompts.hierarchy.record import Asker, Phrasings
from tabletest.prompts.hierarchy.stories import story, vignette_story
from tabletest.files.family import made_from
from tabletest.truth.nouns import Nouns
from tabletest.files.run_output import read_runs

FORMS = ("questions", "captions", "stories")


def drawn_from(render: Path | None) -> tuple[str, ...] | None:
    """The names a render's random scenes were drawn from (every run's `pool` in its run.json); None for a
    benchmark render or records outside a render folder."""
    pools = [run.get("scenes", {}).get("pool") for run in (read_runs(render) if render else [])]
    if not pools or not all(isinstance(pool, list) for pool in pools):
        return None
    return tuple(dict.fromkeys(name for pool in pools for name in pool))


def scene_questions(
    record: dict,
    catalog: Catalog,
    seed: int = 0,
    forms: tuple[str, ...] = FORMS,
    text_only: bool = False,
    phrasings: Phrasings = "one",
    pool: tuple[str, ...] | None = None,
) -> Iterator[dict]:
    """Every question of the scene, each in one of its phrasings (`phrasings="all"`: in every one); a count's
    trick kind comes from `pool` (`drawn_from`), else from the catalog. A counterfactual partner's or another
    view's name the scene it was made from (`scene_of`), whose same questions they are compared with."""
    made = _scene_questions(record, catalog, seed, forms, text_only, phrasings, pool or catalog.names)
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
) -> Iterator[dict]:
    g = SceneGeometry.from_record(record, catalog)
    nouns = Nouns.of(catalog)
    scene_id = record["id"]
    scene_objects = list(dict.fromkeys(t.name for t in g.things))
    if g.has_geometry and not text_only:
        ask = Asker(scene_id, "image", scene_objects, image=record.get("file_name"), nouns=nouns, seed=seed, phrasings=phrasings)
        if "questions" in forms:
            skills.position_pairs(ask, g, g.viewer_lateral, "lr")
            skills.position_pairs(ask, g, g.viewer_depth, "fb")
            skills.intrinsic(ask, g)
            orientation(ask, g)
            observers.people(ask, g)
            observers.objects(ask, g)
            skills.between(ask, g)
            skills.distance(ask, g)
            skills.size(ask, g)
            skills.counting(ask, g, pool, seed)
            skills.position_counting(ask, g)
            skills.distance_counting(ask, g)
            skills.occlusion(ask, g)
            skills.support(ask, g)
            metric(ask, g)
        if "captions" in forms:
            captions(ask, g)
            table_captions(ask, g)
        yield from ask.made
    # a text record (the vignette is all there is), or a benchmark scene, whose vignette is the study's text condition
    told = "vignettes" in record and not (str(scene_id).startswith("rnd") and "camera" in record)
    random_text = told and "in_front_of" in record.get("relations", {})  # a random scene's: sentences, not an order
    if "questions" in forms and told:
        order = "left_first" if record.get("index", 0) % 2 == 0 else "right_first"
        text = SceneGeometry(g.things, None, [t.label for t in g.things])
        context = nouns.agree(record["vignettes"][order])
        ask = Asker(scene_id, "text", scene_objects, context=context, nouns=nouns, seed=seed, phrasings=phrasings)
        if not random_text:  # a benchmark vignette names each object's side: the order follows from it
            skills.position_pairs(ask, text, text.viewer_lateral, "lr")
            skills.between(ask, text)
            skills.position_counting(ask, text)
        skills.counting(ask, text, pool, seed)
        yield from ask.made
    if "stories" in forms:
        yield from vignette_story(record, nouns, seed, phrasings) if random_text else story(scene_id, g, scene_objects, seed, nouns, phrasings)
