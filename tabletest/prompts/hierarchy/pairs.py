"""Questions asked of two images at once: a scene and its counterfactual partner, or a scene and another
view of it.

Of a partner, from its recorded difference: "Which image shows the mug to the left of the lamp?" of each
relation item that holds in exactly one of them; "Is the answer to 'Is the mug to the left of the lamp?'
the same in both images?" of each item that changed or held in both, as many yes as no per relation; "What
changed?" with a closed set of answers, one per kind of change; of a rotate, which way its object turned seen from
above (clockwise or anticlockwise, asked from the first image to the second and back, so each answers both once)
and by about how many degrees, from the turn it records. Of a view, from the two records: "Which photo was taken from further
left?", and whether a relation of the viewer's frame still holds from the second camera, as many yes as
no per relation (on, in and which is bigger always hold still: asked, a constant yes would answer them).
How the camera moved from the first photo to the second, from the two records' world-to-camera poses
alone (`camera_motion`): which way it went round the table, by about how many degrees, whether it moved
closer to what it looks at, and which of two objects is now on the left. The yes/no
families keep as many yes as no answers per pair; which way the camera went is asked both ways round, and
which object is now on the left of as many pairs the turn kept as it turned round. An object of a kind the
scene holds several of is never named.
"""

from __future__ import annotations

from tabletest.layout.instances import SEPARATOR, label_of
from tabletest.prompts.hierarchy.balance import balanced
from tabletest.prompts.hierarchy.correspondence import correspondence_questions
from tabletest.prompts.hierarchy.phrasings import Wording, one
from tabletest.prompts.hierarchy.record import Asker, Phrasings, Quantity
from tabletest.files.family import made_from
from tabletest.truth.camera_motion import camera_motion
from tabletest.truth.nouns import Nouns
from tabletest.truth.relation_table import BY_KEY
from tabletest.truth.relations import CONVERSE

WHICH = ("first", "second")
# relation key -> how the question words it (one of its words in the relation table) and the frame it is judged in
SAID = {"left_of": "to the left of", "right_of": "to the right of", "in_front_of": "in front of", "behind": "behind", "on": "on", "inside": "in"}
WORDED = {key: (word, BY_KEY[key].frame) for key, word in SAID.items()}
# across views only what a camera can turn round: left and right, in front and behind
VIEW_WORDED = {key: worded for key, worded in WORDED.items() if key in CONVERSE}
CHANGED = {"swap": "swapped", "move": "moved", "remove": "removed", "replace": "replaced", "unstack": "taken off", "rotate": "turned"}
TURN_WAYS = ("clockwise", "anticlockwise")  # a rotate's way round, seen from above: negative and positive turns
FURTHER_LEFT_DEG = 10.0  # two cameras closer in azimuth than this are not asked which stood further left
# A turn round the table smaller than this is not asked about (neither its way nor its size): between two views
# the distance and the focal length change too, and reframe the objects by more than such a turn moves them.
MIN_TURN_DEG = FURTHER_LEFT_DEG
ROUND_TO_5_FROM_DEG = 25.0  # a turn is stated to the nearest 5° from here (within 10 % of it), to the degree below
MIN_DISTANCE_RATIO = 1.1  # closer or farther: the farther camera at least this many times the nearer one's distance
WHAT_CHANGED = (
    "What changed between the first image and the second: did two objects swap places, did one move to the "
    "other side of another, was one removed, was one replaced by another object, was one taken off what "
    "it stood on or in, or was one turned round where it stands?"
)


class Companions:
    """Pairs each view or counterfactual partner with its scene, which a render keeps right before it, and gathers the
    frames of a scene's sequence, which follow it in order, and its photos (the scene's and its other views', in view
    order) where the render made `views` of each scene."""

    def __init__(self, views: int | None = None) -> None:
        self.scene: dict | None = None  # the last scene of the set seen
        self.frames: list[dict] = []  # its sequence's frames so far, frame 0 first
        self.views = views
        self.photos: list[dict] = []  # its photos so far, its own first

    def scene_of(self, record: dict) -> dict | None:
        """The scene a view or partner `record` was made from, if it came before; None for a scene of the set
        (remembered) and for a frame of a sequence (gathered: `sequence_ending`)."""
        of = made_from(record)
        sequence = record.get("sequence")
        if of is None:
            self.scene, self.frames, self.photos = record, [record] if isinstance(sequence, dict) else [], [record]
            return None
        view = record.get("view")
        if isinstance(view, dict):
            follows = self.photos and self.photos[0]["id"] == of and view.get("number") == len(self.photos) + 1
            self.photos = [*self.photos, record] if follows else []
        if isinstance(sequence, dict):
            follows = self.frames and self.frames[0]["id"] == of and sequence.get("frame") == len(self.frames)
            self.frames = [*self.frames, record] if follows else []
            return None
        return self.scene if self.scene is not None and self.scene["id"] == of else None

    def sequence_ending(self, record: dict) -> list[dict] | None:
        """Every frame of a sequence, in order, where `record` (just seen by `scene_of`) is its last; else None."""
        sequence = record.get("sequence")
        whole = isinstance(sequence, dict) and self.frames and self.frames[-1] is record and len(self.frames) == sequence.get("frames")
        return list(self.frames) if whole else None

    def views_ending(self, record: dict) -> list[dict] | None:
        """Every photo of a scene, its own first, where `record` (just seen by `scene_of`) is its last view; else None."""
        whole = self.views is not None and self.views > 1 and self.photos and self.photos[-1] is record and len(self.photos) == self.views
        return list(self.photos) if whole else None


def two_image_questions(scene: dict, record: dict, nouns: Nouns = Nouns(), seed: int = 0, phrasings: Phrasings = "one") -> list[dict]:
    """The questions of a scene and its partner or view, asked together (`scene_of`: the scene, as the partner's
    or view's own questions name it); none unless both were rendered."""
    if "file_name" not in scene or "file_name" not in record:
        return []
    made = (pair_questions if "counterfactual" in record else view_questions)(scene, record, nouns, seed, phrasings)
    return [{**question, "scene_of": scene["id"]} for question in made]


def pair_questions(scene: dict, partner: dict, nouns: Nouns = Nouns(), seed: int = 0, phrasings: Phrasings = "one") -> list[dict]:
    """The questions of a scene (the first image) and its partner (the second)."""
    change = partner["counterfactual"]
    hidden = {*scene["relations"].get("hidden", []), *partner["relations"].get("hidden", [])}
    both = [label for label in nameable(scene) if label in nameable(partner)]
    shown = list(dict.fromkeys([*(o["name"] for o in scene["objects"]), *(o["name"] for o in partner["objects"])]))
    ask = Asker(partner["id"], "images", shown, images=[scene["file_name"], partner["file_name"]], nouns=nouns, seed=seed, phrasings=phrasings)
    for side, image in (("became_false", "first"), ("became_true", "second")):
        for key, (words, frame) in WORDED.items():
            for a, b in change.get(side, {}).get(key, []):
                if a in hidden or b in hidden or a not in both or b not in both or not _turned_round(change, side, key, [a, b]):
                    continue
                ask.ask(
                    f"which-{key}-{a}-{b}", one("which-image", f"Which image shows the {a} {words} the {b}, the first or the second?"),
                    skill="which image", level="multi", frame=frame, relation=key, answer_type="choice",
                    options=list(WHICH), answer=image, objects=[a, b],
                )  # fmt: skip
    same = [
        (key, a, b, side == "unchanged")
        for side in ("became_false", "became_true", "unchanged")
        for key in WORDED
        for a, b in change.get(side, {}).get(key, [])
        if not {a, b} & hidden and {a, b} <= set(both) and _answered_in_both(change, side, key, [a, b])
    ]
    # as many yes as no of each relation: across all, left and right (which a change turns round) would read no
    each = [item for relation in WORDED for item in balanced([s for s in same if s[0] == relation], f"{partner['id']}:{relation}")]
    for key, a, b, answer in each:
        words, frame = WORDED[key]
        inner = nouns.agree(f"Is the {a} {words} the {b}?")
        ask.ask(
            f"same-{key}-{a}-{b}", one("same-answer", f"Is the answer to \"{inner}\" the same in both images?"), skill="same answer",
            level="multi", frame=frame, relation=key, answer_type="yes/no", answer=answer, objects=[a, b],
        )  # fmt: skip
    if not hidden & set(change["objects"]):
        ask.ask(
            "what-changed", one("what-changed", WHAT_CHANGED), skill="what changed", level="multi", frame=None, relation=change["kind"],
            answer_type="choice", options=list(CHANGED.values()), answer=CHANGED[change["kind"]], objects=list(change["objects"]),
        )  # fmt: skip
        if change["kind"] == "rotate" and change["objects"][0] in both:
            _object_turn(ask, change["objects"][0], change["turn_deg"])
    return ask.made


def _object_turn(ask: Asker, turned: str, turn_deg: float) -> None:
    """Which way a rotate's object turned seen from above, asked from the first image to the second and back (so
    each pair answers clockwise once and anticlockwise once), and by about how many degrees."""
    way = TURN_WAYS[turn_deg > 0]
    fact = [turned, "turned", f"{turn_deg:+.3f} deg anticlockwise seen from above"]
    for start, end, answer in (("first", "second", way), ("second", "first", TURN_WAYS[turn_deg < 0])):
        ask.ask(
            f"object-turn-way-{start}-{end}", Wording("object-turn-way", {"x": turned, "a": start, "b": end}), skill="object motion",
            level="multi", frame=None, relation="turn", answer_type="choice", options=list(TURN_WAYS), answer=answer, objects=[turned],
            facts=[fact], pair="object-turn-way-first-second",
        )  # fmt: skip
    turn = stated_turn(turn_deg)
    ask.ask(
        "object-turn-deg", Wording("object-turn-deg", {"x": turned}), skill="object motion", level="multi", frame=None,
        relation="turn_deg", answer_type="quantity", answer=turn.stated, objects=[turned], facts=[fact], quantity=turn,
    )  # fmt: skip


def nameable(record: dict) -> list[str]:
    """The objects of a record questions may name: those of a kind it holds once."""
    return [label for label in map(label_of, record["objects"]) if SEPARATOR not in label]


def _turned_round(change: dict, side: str, key: str, pair: list[str]) -> bool:
    """Whether the other image shows the opposite of a viewer relation that held in one (left in one, right in
    the other), not the pair inside its margin, which shows neither and would answer "which image" both ways;
    on and in hold or do not."""
    other = "became_true" if side == "became_false" else "became_false"
    return key not in CONVERSE or pair in change.get(other, {}).get(CONVERSE[key], [])


def _answered_in_both(change: dict, side: str, key: str, pair: list[str]) -> bool:
    """Whether "Is A <key> B?" has an answer in both images: a viewer relation that held in both, or turned
    round (not one that went into or came out of a margin, where one image has no answer); on or in, which
    hold or do not. A turned-round pair is asked once, from the image where it held first."""
    if key not in CONVERSE or side == "unchanged":
        return True
    return side == "became_false" and _turned_round(change, side, key, pair)


def view_questions(scene: dict, view: dict, nouns: Nouns = Nouns(), seed: int = 0, phrasings: Phrasings = "one") -> list[dict]:
    """The questions of a scene (the first photo) and another view of it (the second)."""
    hidden = {*scene["relations"].get("hidden", []), *view["relations"].get("hidden", [])}
    names = list(dict.fromkeys(o["name"] for o in scene["objects"]))
    named = set(nameable(scene))
    ask = Asker(view["id"], "images", names, images=[scene["file_name"], view["file_name"]], nouns=nouns, seed=seed, phrasings=phrasings)
    turn = view["camera"]["azimuth_deg"] - scene["camera"]["azimuth_deg"]
    if abs(turn) >= FURTHER_LEFT_DEG:
        ask.ask(
            "further-left", one("further-left", "Both photos show the same table. Which photo was taken from further left, the first or the second?"),
            skill="viewpoint", level="multi", frame="viewer", relation="azimuth", answer_type="choice", options=list(WHICH),
            answer="second" if turn < 0 else "first", objects=[],
        )  # fmt: skip
    still = [
        (key, a, b, [a, b] in view["relations"].get(key, []))
        for key in VIEW_WORDED
        for a, b in scene["relations"].get(key, [])
        if not {a, b} & hidden and {a, b} <= named
        # withheld from the second camera (within a margin): no answer to give
        and ([a, b] in view["relations"].get(key, []) or [a, b] in view["relations"].get(CONVERSE[key], []))
    ]
    # as many yes as no of each relation: across all, left and right (which a turn keeps) would read yes
    each = [item for key in VIEW_WORDED for item in balanced([s for s in still if s[0] == key], f"{view['id']}:{key}")]
    for key, a, b, held in each:
        words, frame = VIEW_WORDED[key]
        ask.ask(
            f"still-{key}-{a}-{b}", one("still-holds", nouns.agree(f"In the first photo the {a} is {words} the {b}. Is it still {words} the {b} in the second photo?")),
            skill="viewpoint", level="multi", frame=frame, relation=key, answer_type="yes/no", answer=held, objects=[a, b],
        )  # fmt: skip
    seen = [label for label in nameable(scene) if label in nameable(view) and label not in hidden]
    motion_questions(ask, scene, view, seen)
    correspondence_questions(ask, scene, view)
    return ask.made


def stated_turn(degrees: float) -> Quantity:
    """A turn's size as a person says it: to the nearest 5° (the nearest degree under `ROUND_TO_5_FROM_DEG`,
    where 5° steps would miss by 10 % or more)."""
    size = abs(degrees)
    step = 5 if size >= ROUND_TO_5_FROM_DEG else 1
    return Quantity(int(step * round(size / step)), "deg", round(size, 3))


def motion_questions(ask: Asker, scene: dict, view: dict, named: list[str]) -> None:
    """The questions of how the camera moved from the scene's photo to the view's, of objects in `named`."""
    motion = camera_motion(scene["camera"], view["camera"])
    if abs(motion.turn_deg) >= MIN_TURN_DEG:
        _turn_way(ask, motion.turn_deg)
        _turn_size(ask, motion.turn_deg)
    if motion.distances_m is not None and max(motion.distances_m) >= MIN_DISTANCE_RATIO * min(motion.distances_m):
        _distance_change(ask, motion.distances_m)
    _now_left(ask, scene, view, named)


def _turn_way(ask: Asker, turn_deg: float) -> None:
    """Which way the camera went round the table, asked from the first photo to the second and back (so each
    pair of views answers left once and right once)."""
    way = "right" if turn_deg > 0 else "left"
    for start, end, answer in (("first", "second", way), ("second", "first", {"left": "right", "right": "left"}[way])):
        ask.ask(
            f"turn-way-{start}-{end}", Wording("turn-way", {"a": start, "b": end}), skill="camera motion", level="multi",
            frame="viewer", relation="turn", answer_type="choice", options=["left", "right"], answer=answer, objects=[],
            facts=[["camera", "turned", f"{turn_deg:+.3f} deg"]], pair="turn-way-first-second",
        )  # fmt: skip


def _turn_size(ask: Asker, turn_deg: float) -> None:
    """About how many degrees the camera went round the table."""
    turn = stated_turn(turn_deg)
    ask.ask(
        "turn-deg", Wording("turn-deg"), skill="camera motion", level="multi", frame=None, relation="turn_deg",
        answer_type="quantity", answer=turn.stated, objects=[], facts=[["camera", "turned", f"{turn.exact_value} deg"]],
        quantity=turn,
    )  # fmt: skip


def _distance_change(ask: Asker, distances_m: tuple[float, float]) -> None:
    """Whether the camera moved closer to the point it looks at, and whether farther (one yes, one no)."""
    closer = distances_m[1] < distances_m[0]
    for way, answer in (("closer to", closer), ("farther from", not closer)):
        ask.ask(
            f"move-distance-{way.split()[0]}", Wording("move-distance", {"way": way}), skill="camera motion",
            level="multi", frame=None, relation="look_at_distance", answer_type="yes/no", answer=answer, objects=[],
            facts=[["camera", "distance to look-at point", f"{distances_m[0]:.4f} m", f"{distances_m[1]:.4f} m"]],
            pair="move-distance-closer",
        )  # fmt: skip


def _now_left(ask: Asker, scene: dict, view: dict, named: list[str]) -> None:
    """Of two objects, the first left of the second in the first photo: which is left of the other in the second
    photo, as many kept as turned round (the options in the first photo's order, so each is the answer as often)."""
    before, after = scene["relations"].get("left_of", []), view["relations"].get("left_of", [])
    pairs = [(a, b, [a, b] in after) for a, b in before if {a, b} <= set(named) and ([a, b] in after or [b, a] in after)]
    for a, b, kept in balanced(pairs, f"{view['id']}:now-left"):
        ask.ask(
            f"now-left-{a}-{b}", Wording("now-left", {"x": a, "y": b}), skill="camera motion", level="multi", frame="viewer",
            relation="left_of", answer_type="choice", options=[a, b], answer=a if kept else b, objects=[a, b],
            facts=[[a, "left_of", b, "first"], [a, "left_of", b, "second"] if kept else [b, "left_of", a, "second"]],
        )  # fmt: skip

