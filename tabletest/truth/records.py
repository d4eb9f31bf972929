"""The text record of a scene: the fields a render record shares, so text and images join on `id`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from tabletest.layout.arrangements import Contact, Shape
from tabletest.layout.instances import kind_of, repeated
from tabletest.layout.random_config import RelationMargins
from tabletest.layout.random_scene import RandomScene
from tabletest.layout.random_set import RandomSet
from tabletest.layout.selection import Scene
from tabletest.truth.contact import gaps, slides
from tabletest.truth.geometry import scene_relations
from tabletest.truth.nouns import Nouns
from tabletest.truth.pairs import change_record, set_scenes
from tabletest.truth.relations import relations
from tabletest.truth.vignettes import relation_vignettes, vignettes


def vignette_record(scene: Scene) -> dict:
    return {
        "id": scene.id,
        "index": scene.index,
        "n_objects": scene.n_objects,
        "objects": list(scene.objects),
        "relations": relations(scene.objects),
        "vignettes": vignettes(scene.objects),
    }


def random_truth(
    scene: RandomScene, resolution: tuple[int, int], margins: RelationMargins, kinds: Mapping[str, str],
    hidden: frozenset[str] = frozenset(), nouns: Nouns = Nouns(), contact: Contact | None = None,
) -> dict:
    """A random scene's relations and vignettes, from its geometry alone (no render needed), and with the models
    (`contact`) the gap between each pair's surfaces and how far each would slide to touch another; a render
    passes the objects it measured as `hidden`, which all of them then leave out (but as what a slide may meet)."""
    rels = scene_relations(scene.objects, scene.camera.pinhole(resolution), margins, kinds, hidden, contact)
    seen = tuple(o.name for o in scene.objects if o.name not in hidden)
    measured = {}
    if contact is not None:
        table_top = min(o.position_m[2] for o in scene.objects)
        measured = {
            "gaps_m": gaps([o for o in scene.objects if o.name not in hidden], contact.shapes),
            "slides_m": slides(scene.objects, seen, contact.shapes, contact.arrangements.contact_m, table_top),
        }
    return {"relations": rels, "vignettes": relation_vignettes(seen, rels, nouns), **measured}


def placed_relations(
    resolution: tuple[int, int], margins: RelationMargins, kinds: Mapping[str, str], contact: Contact | None
) -> Callable[[RandomScene], dict]:
    """A scene's relations from its geometry, every object included: what counterfactual partners compare."""
    return lambda scene: scene_relations(scene.objects, scene.camera.pinhole(resolution), margins, kinds, frozenset(), contact)


def companion_fields(scene: RandomScene) -> dict:
    """A view's `view` field (the scene it shows, its number), a partner's `counterfactual`, a frame's `sequence` (the
    scene it starts from, the kind and its parameters, its number: frame 0 is the scene's own record); nothing for a
    scene of the set without a sequence."""
    if scene.view is not None:
        return {"view": {"of": scene.view.of, "number": scene.view.number}}
    if scene.frame is not None:
        motion = dict(scene.frame.motion)
        return {"sequence": {"of": scene.frame.of, "kind": motion.pop("kind"), "frame": scene.frame.number, **motion}}
    return {"counterfactual": change_record(scene.change)} if scene.change is not None else {}


def random_vignette_records(
    scenes: RandomSet, sizes: Mapping, table_height_m: float, sensor_width_mm: float, resolution: tuple[int, int], kinds: Mapping[str, str],
    contact: Contact | None = None, meshes: Mapping[str, Shape] | None = None,
) -> Iterator[dict]:
    """The text records of a set of random scenes, each followed by the frames of its sequence, its other views and
    its counterfactual partners (`meshes`: the models a slide needs): the fields their render records share."""
    shapes = None if contact is None else contact.shapes
    relations_of = placed_relations(resolution, scenes.config.relations, kinds, contact)
    for scene in set_scenes(scenes, sizes, table_height_m, sensor_width_mm, resolution, shapes, relations_of, meshes=meshes):
        yield {
            "id": scene.id,
            "index": scene.index,
            "n_objects": len(scene.objects),
            "objects": [kind_of(o.name) for o in scene.objects],
            **({"instances": [o.name for o in scene.objects]} if repeated(o.name for o in scene.objects) else {}),
            **random_truth(scene, resolution, scenes.config.relations, kinds, nouns=Nouns(frozenset(scenes.pair_nouns)), contact=contact),
            **companion_fields(scene),
        }
