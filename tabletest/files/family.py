"""The scene families as every reader knows them, and a scene's own family of images, by their ids (no NumPy,
no pydantic: every command that reads records imports it).

A scene family is the kind of scenes a render makes: `benchmark`, the study's fixed scenes, and `random`, random
training scenes with their other views and counterfactual partners. `FAMILIES` registers each with the facts a
reader needs of it (its ids, what its records hold, where its write side lives), so that every reader asks the
record's family (`family_of`), found from the record's own id, and none tests ids or record types itself. A new
family is its module (the write side, named by `maker`) and its entry here.

A random scene's own family is the scene with its counterfactual partners `<scene>-<kind>` and its other views
`<scene>-view<n>`; `family_problem` checks that a record's id and its `counterfactual` or `view` field say the
same thing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

# swap: two objects trade places; move: one goes to the other side of another (mirrored along the camera's
# left-right axis); remove: one is taken away; replace: one becomes another object of similar size; unstack:
# one is taken off what it rests on, or out of what holds it, and put on the table; rotate: one with a front is turned
# where it stands about its vertical axis
KINDS = ("swap", "move", "remove", "replace", "unstack", "rotate")
_COMPANION = rf"-(?:(?P<kind>{'|'.join(KINDS)})|view(?P<number>\d+))"


@dataclass(frozen=True)
class Family:
    """What every reader needs of a scene family: its name, its ids, and what its records hold."""

    name: str  # as `tabletest render --scenes` and the settings and run.json (`scenes.family`) name it
    words: str  # its scenes in a sentence: "the study's benchmark scenes"
    scene_id: str  # a scene's id as a regular expression: its index in group `index`, and where the id names how
    # many objects the scene holds, that count in group `objects`
    placement: Literal["slots", "free"]  # slots: the benchmark's slots under the config's camera, relations from the
    # objects' order (render records as `BenchmarkRecord` holds them); free: anywhere, each record with its own camera,
    # appearance and relations with margins from its geometry (as `RandomRecord` holds them)
    maker: str  # its write side, `module:Class` (a `write.families.SceneFamily`), made by `tabletest render --scenes`
    help: str  # what `tabletest render --scenes` says of it
    companions: bool = False  # its scenes have other views and counterfactual partners

    @cached_property
    def _scene(self) -> re.Pattern:
        return re.compile(rf"^(?P<scene>{self.scene_id})(?:{_COMPANION})?$" if self.companions else rf"^(?P<scene>{self.scene_id})$")

    @property
    def image_id(self) -> str:
        """Every id its images take, as a regular expression without groups (to join with others)."""
        plain = re.sub(r"\(\?P<\w+>", "(?:", self.scene_id)
        return rf"{plain}(?:-(?:{'|'.join(KINDS)}|view\d+))?" if self.companions else plain

    def match(self, sid: str) -> re.Match | None:
        """The id parsed (groups `scene`, `index`, and for a partner `kind`, for a view `number`), if it is one of its images'."""
        return self._scene.match(sid)

    def facet(self, record: Mapping) -> str:
        """What the gallery files the scene under: the family (with the count of objects where their slots are
        the family's), another view, or a counterfactual partner."""
        if self.placement == "slots":
            return f"{self.name}: {record.get('n_objects')} objects"
        partner, view = record.get("counterfactual"), record.get("view")
        if partner is not None:
            return f"partner: {partner.get('kind')}"
        return self.name if view is None else "other view"


BENCHMARK = Family(
    "benchmark", "the study's benchmark scenes", r"(?P<objects>[123])obj-(?P<index>\d{6})", "slots",
    "tabletest.write.families:Benchmark", "the study's scenes (--objects)",
)  # fmt: skip
RANDOM = Family(
    "random", "random scenes", r"rnd\d+-(?P<index>\d{7})", "free",
    "tabletest.write.families:RandomScenes", "--count randomised training scenes from --random-config", companions=True,
)  # fmt: skip
FAMILIES: tuple[Family, ...] = (BENCHMARK, RANDOM)  # a new family: its entry here and its module (`maker`)
# Every id a render gives an image: a scene's of any family, its partners' and views'.
IMAGE_ID = f"(?:{'|'.join(family.image_id for family in FAMILIES)})"


def family_of(record: Mapping | str | object) -> Family | None:
    """The family of a record (a line's dict, a typed record, or its id), found from its id; None for an id of no family's."""
    sid = record if isinstance(record, str) else record.get("id") if isinstance(record, Mapping) else getattr(record, "id", None)
    if not isinstance(sid, str):
        return None
    return next((family for family in FAMILIES if family.match(sid)), None)


def family_named(name: object) -> Family:
    """The family a folder's settings or run.json name (`scenes.family`); the benchmark where they name none."""
    return next((family for family in FAMILIES if family.name == name), BENCHMARK)


def partner_id(scene_id: str, kind: str) -> str:
    return f"{scene_id}-{kind}"


def view_id(scene_id: str, number: int) -> str:
    return f"{scene_id}-view{number}"


def companion_ids(scene_id: str, kinds: Sequence[str], views: int) -> list[str]:
    """The ids of a scene's other views and partners (some of which a scene may not allow)."""
    return [*(view_id(scene_id, number) for number in range(2, views + 1)), *(partner_id(scene_id, kind) for kind in kinds)]


def companion_of(sid: str) -> str | None:
    """The scene whose view or partner `sid` is (by its id alone); None for a scene's own id, or an id of no family's."""
    family = family_of(sid)
    named = family.match(sid) if family is not None else None
    return named["scene"] if named is not None and named["scene"] != sid else None


def made_from(record: Mapping) -> str | None:
    """The scene a counterfactual partner or another view was made from (its `counterfactual` or `view` field
    names it); None for a scene of its own."""
    made = record.get("counterfactual") or record.get("view")
    return made.get("of") if isinstance(made, Mapping) else None


def family_problem(record: Mapping) -> str | None:
    """What makes a record's family ambiguous, else None. A partner's and a view's id name their scene, and
    so does their `counterfactual` or `view` field: the two must agree, so that no tool splits a pair, or
    pairs strangers, by trusting one of them."""
    sid, partner, view = record.get("id"), record.get("counterfactual"), record.get("view")
    family = family_of(sid)
    named = family.match(sid) if family is not None else None
    if named is None or named["scene"] == sid:
        field = "counterfactual" if partner is not None else "view" if view is not None else None
        return f"id {sid!r} is a scene's own, but the record has a {field} field" if field else None
    scene, kind, number = named["scene"], named["kind"], named["number"]
    if kind is not None:
        said = partner if isinstance(partner, Mapping) else {}
        if said.get("of") != scene or said.get("kind") != kind:
            return f"id {sid} is the {kind} partner of {scene}, but its counterfactual field says {_brief(partner)}"
    else:
        said = view if isinstance(view, Mapping) else {}
        if said.get("of") != scene or said.get("number") != int(number):
            return f"id {sid} is view {number} of {scene}, but its view field says {_brief(view)}"
    return None


def index_problem(record: Mapping) -> str | None:
    """Whether `index` is the one the record's id names, else what differs: a record renamed (a partner given an id of
    a scene's own) would land in another split than its family's."""
    sid, index = record.get("id"), record.get("index")
    family = family_of(sid)
    if family is None:
        return None  # an id of another shape is the schema's to refuse
    named = family.match(sid)
    expected = int(named["index"])
    if index != expected or isinstance(index, bool):
        return f"index {repr(index)[:40]} is not the {expected} its id {sid} names"
    counted = named.groupdict().get("objects")
    if counted is not None and int(counted) != len(record.get("objects") or ()):
        return f"id {sid} names a {counted}-object scene, but the record holds {len(record.get('objects') or ())} objects"
    return None


def _brief(value: object) -> str:
    if not isinstance(value, Mapping):
        return "nothing" if value is None else repr(value)[:80]
    return repr({key: value.get(key) for key in ("of", "kind", "number") if key in value})
