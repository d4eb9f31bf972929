"""The text record of a scene: the fields a render record shares, so text and images join on `id`."""

from __future__ import annotations

from tabletest.layout.selection import Scene
from tabletest.truth.relations import relations
from tabletest.truth.vignettes import vignettes


def vignette_record(scene: Scene) -> dict:
    return {
        "id": scene.id,
        "index": scene.index,
        "n_objects": scene.n_objects,
        "objects": list(scene.objects),
        "relations": relations(scene.objects),
        "vignettes": vignettes(scene.objects),
    }
