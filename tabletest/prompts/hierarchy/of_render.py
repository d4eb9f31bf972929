"""The questions of a render (or a vignettes file): the one pipeline `tabletest questions` writes and
`tabletest export --questions hierarchy` ships, so both hold the same questions for the same settings.

Each record gets its own questions, a counterfactual partner or another view also those asked of it and its
scene together (the scene comes right before it; with marks, also those of both marked copies), the last frame of
a sequence those asked of all its frames, and a scene's last view those asked of all its photos. With `balance`, a first pass over the same
deterministic stream plans which questions stay (`balance.BalancePlan`), the second keeps them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from tabletest.config import Catalog
from tabletest.files.family import made_from
from tabletest.files.images import open_image
from tabletest.files.paths import record_path
from tabletest.prompts.hierarchy.balance import BalancePlan
from tabletest.prompts.hierarchy.correspondence import taken_from_which
from tabletest.prompts.hierarchy.generate import FORMS, Located, scene_questions, views_made
from tabletest.prompts.hierarchy.marks import mark_match_questions
from tabletest.prompts.hierarchy.pairs import Companions, two_image_questions
from tabletest.prompts.hierarchy.record import Coordinates, Phrasings
from tabletest.prompts.hierarchy.sequences import sequence_questions
from tabletest.truth.nouns import Nouns


@dataclass(frozen=True)
class Asking:
    """What decides a render's questions besides its records: the forms, the seed (phrasings, trick names,
    stories, what balance keeps), text only or images only (what an export ships), every phrasing or one,
    balanced or not, the coordinates points and boxes are asked in, and the style of marks on a marked copy of
    each image (None: no marks, and no questions about them)."""

    forms: tuple[str, ...] = FORMS
    seed: int = 0
    text_only: bool = False
    phrasings: Phrasings = "one"
    balance: bool = False
    image_only: bool = False
    coordinates: Coordinates = "pixels"
    marks: str | None = None


class RenderQuestions:
    """The questions of the records `records()` streams (called once more for `balance`'s first pass), trick
    counts drawn from `pool` (the names the render's scenes were drawn from)."""

    def __init__(
        self, records: Callable[[], Iterable[dict]], catalog: Catalog, asking: Asking, pool: tuple[str, ...] | None,
        first_pass: Callable[[Iterator[dict]], Iterator[dict]] | None = None, root: Path | None = None,
    ) -> None:
        self.records, self.catalog, self.asking, self.pool = records, catalog, asking, pool
        self.first_pass = first_pass  # what sees every question before balance drops any (the balance report's tally)
        self.nouns = Nouns.of(catalog)
        self.root = root  # the render's folder, whose masks points and boxes are read from
        self.views = views_made(root)  # how many photos of each scene it made
        self._scene: tuple[str, Located] = ("", Located())  # the last scene whose marks another view's questions read

    def of(self, record: dict, scene: dict | None, frames: list[dict] | None = None, photos: list[dict] | None = None) -> list[dict]:
        """`record`'s questions, with those asked of it and `scene` together where it is a partner or view of
        that scene, those of all `frames` where it is the last frame of a sequence, and those of all `photos` where
        it is the scene's last view; with balance, those the plan keeps."""
        made = self._asked(record, scene, frames, photos)
        return list(self.plan.kept(made)) if self.asking.balance else made

    def all(self) -> Iterator[dict]:
        """Every record's questions, in the records' order."""
        companions = Companions(self.views)
        for record in self.records():
            scene = companions.scene_of(record)
            yield from self.of(record, scene, companions.sequence_ending(record), companions.views_ending(record))

    @cached_property
    def plan(self) -> BalancePlan:
        """What balance keeps, from a first pass over every question."""
        companions = Companions(self.views)

        def asked() -> Iterator[dict]:
            for record in self.records():
                scene = companions.scene_of(record)
                yield from self._asked(record, scene, companions.sequence_ending(record), companions.views_ending(record))

        return BalancePlan.of(self.first_pass(asked()) if self.first_pass else asked(), self.asking.seed)

    def _asked(self, record: dict, scene: dict | None, frames: list[dict] | None = None, photos: list[dict] | None = None) -> list[dict]:
        a = self.asking
        located = self._located(record)
        made = list(scene_questions(record, self.catalog, a.seed, a.forms, a.text_only, a.phrasings, self.pool, located))
        if "questions" in a.forms and not a.text_only:
            if scene is not None:
                made += two_image_questions(scene, record, self.nouns, a.seed, a.phrasings)
                made += self._mark_match(scene, record, located)
            if frames:
                made += sequence_questions(frames, self.nouns, a.seed, a.phrasings)
            if photos:
                made += taken_from_which(photos, self.nouns, a.seed, a.phrasings)
        return [q for q in made if q["modality"] != "text"] if a.image_only else made

    def _located(self, record: dict) -> Located:
        """What place and mark questions read of the record (a scene's kept: its views' mark questions read it too)."""
        if record.get("id") == self._scene[0]:
            return self._scene[1]
        located = Located(self.asking.coordinates, self._mask(record), self.asking.marks)
        if made_from(record) is None:
            self._scene = (record["id"], located)
        return located

    def _mark_match(self, scene: dict, view: dict, located: Located) -> list[dict]:
        """Which mark of a view's marked copy is on the object a mark of its scene's is on (with marks and masks)."""
        a, first = self.asking, self._located(scene)
        if not a.marks or "view" not in view or first.mask is None or located.mask is None:
            return []
        return mark_match_questions(scene, view, (first.placed(scene), located.placed(view)), a.marks, self.nouns, a.seed, a.phrasings)

    def _mask(self, record: dict) -> np.ndarray | None:
        """The record's object mask, where the render has one and image questions are asked."""
        name = record.get("mask_file_name")
        if self.root is None or not isinstance(name, str) or self.asking.text_only or "questions" not in self.asking.forms:
            return None
        return np.asarray(open_image(record_path(self.root, name, "mask_file_name")))
