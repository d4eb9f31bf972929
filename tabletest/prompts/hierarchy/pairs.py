"""Questions asked of two images at once: a scene and its counterfactual partner, from the partner's
recorded difference. "Which image shows the mug to the left of the lamp?" asks of each relation item that
holds in exactly one of them; "What changed?" has a closed set of answers, one per kind of change.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tabletest.prompts.hierarchy.record import Asker
from tabletest.truth.nouns import Nouns

WHICH = ("first", "second")
# relation key -> how the question words it; the frame it is judged in
WORDED = {
    "left_of": ("to the left of", "viewer"),
    "right_of": ("to the right of", "viewer"),
    "in_front_of": ("in front of", "viewer"),
    "behind": ("behind", "viewer"),
    "on": ("on", None),
    "inside": ("in", None),
}
CHANGED = {"swap": "swapped", "move": "moved", "remove": "removed", "replace": "replaced", "unstack": "taken off"}
WHAT_CHANGED = (
    "What changed between the first image and the second: did two objects swap places, did one move to the "
    "other side of another, was one removed, was one replaced by another object, or was one taken off what "
    "it stood on or in?"
)


def with_pair_questions(records: Iterable[dict], questions, nouns: Nouns = Nouns()) -> Iterator[dict]:
    """`questions(record)` of every record, and after each counterfactual partner of a rendered scene the
    questions asked of it and its scene together (a render keeps a scene's partners right after it)."""
    scene = None
    for record in records:
        yield from questions(record)
        change = record.get("counterfactual")
        if change is None and "view" not in record:
            scene = record
        elif change is not None and scene is not None and scene["id"] == change.get("of"):
            if "file_name" in scene and "file_name" in record:
                yield from pair_questions(scene, record, nouns)


def pair_questions(scene: dict, partner: dict, nouns: Nouns = Nouns()) -> list[dict]:
    """The questions of a scene (the first image) and its partner (the second)."""
    change = partner["counterfactual"]
    hidden = {*scene["relations"].get("hidden", []), *partner["relations"].get("hidden", [])}
    both = [o["name"] for o in scene["objects"] if o["name"] in {p["name"] for p in partner["objects"]}]
    shown = list(dict.fromkeys([*(o["name"] for o in scene["objects"]), *(o["name"] for o in partner["objects"])]))
    ask = Asker(partner["id"], "images", shown, images=[scene["file_name"], partner["file_name"]], nouns=nouns)
    for side, image in (("became_false", "first"), ("became_true", "second")):
        for key, (words, frame) in WORDED.items():
            for a, b in change.get(side, {}).get(key, []):
                if a in hidden or b in hidden or a not in both or b not in both:
                    continue
                ask.ask(
                    f"which-{key}-{a}-{b}", f"Which image shows the {a} {words} the {b}, the first or the second?",
                    skill="which image", level="multi", frame=frame, relation=key, answer_type="choice",
                    options=list(WHICH), answer=image, objects=[a, b],
                )  # fmt: skip
    if not hidden & set(change["objects"]):
        ask.ask(
            "what-changed", WHAT_CHANGED, skill="what changed", level="multi", frame=None, relation=change["kind"],
            answer_type="choice", options=list(CHANGED.values()), answer=CHANGED[change["kind"]], objects=list(change["objects"]),
        )  # fmt: skip
    return ask.made
