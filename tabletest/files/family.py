"""A random scene's family, by its ids (no NumPy: every command that reads records needs it): its
counterfactual partners `<scene>-<kind>` and its other views `<scene>-view<n>`, and whether a record's
id and its `counterfactual` or `view` field say the same thing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

# swap: two objects trade places; move: one goes to the other side of another (mirrored along the camera's
# left-right axis); remove: one is taken away; replace: one becomes another object of similar size; unstack:
# one is taken off what it rests on, or out of what holds it, and put on the table; rotate: one with a front is turned
# where it stands about its vertical axis
KINDS = ("swap", "move", "remove", "replace", "unstack", "rotate")
_COMPANION_ID = re.compile(rf"^(rnd\d+-\d{{7}})-(?:({'|'.join(KINDS)})|view(\d+))$")
# A record's id names its index: a benchmark scene's `{n}obj-{index:06d}`, a random scene's `rnd{seed}-{index:07d}`,
# which its partners and views share.
_BENCHMARK_ID = re.compile(r"^(\d+)obj-(\d{6})$")
_RANDOM_ID = re.compile(r"^rnd\d+-(\d{7})(?:-.+)?$")
# Every id a render gives an image: a benchmark scene's, a random scene's, its partners' and views'.
IMAGE_ID = rf"(?:\d+obj-\d{{6}}|rnd\d+-\d{{7}}(?:-(?:{'|'.join(KINDS)}|view\d+))?)"


def partner_id(scene_id: str, kind: str) -> str:
    return f"{scene_id}-{kind}"


def view_id(scene_id: str, number: int) -> str:
    return f"{scene_id}-view{number}"


def companion_ids(scene_id: str, kinds: Sequence[str], views: int) -> list[str]:
    """The ids of a scene's other views and partners (some of which a scene may not allow)."""
    return [*(view_id(scene_id, number) for number in range(2, views + 1)), *(partner_id(scene_id, kind) for kind in kinds)]


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
    named = _COMPANION_ID.match(sid) if isinstance(sid, str) else None
    if named is None:
        field = "counterfactual" if partner is not None else "view" if view is not None else None
        return f"id {sid!r} is a scene's own, but the record has a {field} field" if field else None
    scene, kind, number = named.groups()
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
    named = _BENCHMARK_ID.match(sid) or _RANDOM_ID.match(sid) if isinstance(sid, str) else None
    if named is None:
        return None  # an id of another shape is the schema's to refuse
    expected = int(named.groups()[-1])
    if index != expected or isinstance(index, bool):
        return f"index {repr(index)[:40]} is not the {expected} its id {sid} names"
    if named.re is _BENCHMARK_ID and int(named[1]) != len(record.get("objects") or ()):
        return f"id {sid} names a {named[1]}-object scene, but the record holds {len(record.get('objects') or ())} objects"
    return None


def _brief(value: object) -> str:
    if not isinstance(value, Mapping):
        return "nothing" if value is None else repr(value)[:80]
    return repr({key: value.get(key) for key in ("of", "kind", "number") if key in value})
