"""What a question may name and the words it says relations and frames in, shared by every module that asks
(below the phrasings, which the template table fills, and the askers)."""

from __future__ import annotations

from dataclasses import replace

from tabletest.layout.instances import kind_of
from tabletest.truth.relation_table import BY_KEY
from tabletest.truth.scene_facts import SceneGeometry, Thing

FACT = {"left": "left_of", "right": "right_of", "front": "in_front_of", "behind": "behind"}  # each viewer's word's relation
PHRASE = {word: BY_KEY[key].words[0] for word, key in FACT.items()}  # its plainest words
OTHER = {word: next(w for w, k in FACT.items() if k == BY_KEY[key].converse) for word, key in FACT.items()}
CHOICE = {
    "left": ["left", "right"],
    "right": ["left", "right"],
    "front": ["in front", "behind"],
    "behind": ["in front", "behind"],
}
WORD = {"left": "left", "right": "right", "front": "in front", "behind": "behind"}
AXIS = {"lr": ("left", "right"), "fb": ("front", "behind")}
OWN_WHERE = {"left": "on its left", "right": "on its right", "front": "in front of it", "behind": "behind it"}

VIEWER = "From the viewer's point of view"
# The viewer is named so that it can never be an object of the scene (a scene may hold a camera).
VIEWERS = (VIEWER, "As the viewer sees it", "Seen from the viewer's position", "From the viewer's perspective", "From where the viewer stands")
OWN = (
    "From the {of}'s own point of view (facing where its front faces)",
    "Facing the way the {of}'s front faces",
    "Relative to the {of}'s own front",
    "From where the {of} stands, facing its own front",
    "From the {of}'s point of view, looking where its front faces",
)


def viewer_phrasings(asked: str) -> tuple[str, ...]:
    """`asked` after each way of naming the viewer's frame, and once with the frame named at its end."""
    tail = asked[0].upper() + asked[1:-1] + ", as the viewer sees it?"
    return (*(f"{v}, {asked}" for v in VIEWERS), tail)


def id_key(*parts: object) -> str:
    """A question's id within its scene and modality: its parts joined by dashes."""
    return "-".join(str(p) for p in parts)


def named(geometry: SceneGeometry) -> list[Thing]:
    """The objects a question may name: those whose name no other object in the scene shares."""
    counts = geometry.kinds()
    return [t for t in geometry.things if counts[t.name] == 1]


def placed_by_side(geometry: SceneGeometry) -> list[Thing]:
    """`named`, and of each kind the scene holds several of (none hidden): each by its colour where their looks'
    colours tell them apart ("the red mug"), else the leftmost and the rightmost where the scene decides them,
    named so ("leftmost apple"): left (right) of each other one of its kind, and clearly apart from it in the
    image (`SceneGeometry.ordinal_lateral`)."""
    counts, hidden = geometry.kinds(), {kind_of(h) for h in geometry.hidden_names}
    extra = []
    for kind in (k for k, n in counts.items() if n > 1 and k not in hidden):
        same = [t for t in geometry.things if t.name == kind]
        colours = [t.colour for t in same]
        if None not in colours and len(set(colours)) == len(colours):
            extra += [replace(t, name=f"{t.colour} {kind}") for t in same]
            continue
        for t in same:
            others = [u for u in same if u is not t]
            sides = {geometry.ordinal_lateral(t, u) for u in others}
            if len(sides) == 1 and None not in sides:
                extra.append(replace(t, name=f"{sides.pop()}most {kind}"))
    return named(geometry) + extra
