"""Questions asked of a whole sequence of frames at once (`render --sequence`), its frames shown in order: which of
two objects came into view first, or went out of view first (an orbit or a dolly, where objects enter or leave the
picture); which object moved, which way and about how far (a slide); which way and about how many degrees the
viewpoint went round the table (an orbit); about how far it moved towards the objects (a dolly).

Every answer is decided from the frames' records (`truth.sequence_motion`), never from pixels. Which came first is
asked of each two objects whose order the frames decide, once with each of them as the first option (so each place
holds the answer as often); the slide's way is drawn near one of the viewer's four ways, and an orbit's way and a
frame's object at random, so a constant answer scores chance. An object of a kind the scene holds several of is never
named. The questions carry the frames' images in order (`images`), the last frame's id as `scene_id` and the
scene's as `scene_of`.
"""

from __future__ import annotations

from tabletest.prompts.hierarchy.metric import MIN_LENGTH_M, stated
from tabletest.prompts.hierarchy.pairs import nameable, stated_turn
from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker, Phrasings
from tabletest.truth.nouns import Nouns
from tabletest.truth.sequence_motion import SequenceMotion, sequence_motion

WAY_WORDS = {"left": "left", "right": "right", "towards": "towards the viewer", "away": "away from the viewer"}
MIN_ORBIT_DEG = 5.0  # a turn under this is not asked about: neither its way nor its size


def sequence_questions(frames: list[dict], nouns: Nouns = Nouns(), seed: int = 0, phrasings: Phrasings = "one") -> list[dict]:
    """The questions of a sequence whose records are `frames` (frame 0 first); none unless every frame was rendered."""
    if len(frames) < 2 or any("file_name" not in frame for frame in frames):
        return []
    last = frames[-1]
    names = list(dict.fromkeys(o["name"] for o in frames[0]["objects"]))
    ask = Asker(last["id"], "images", names, images=[f["file_name"] for f in frames], nouns=nouns, seed=seed, phrasings=phrasings)
    motion = sequence_motion(frames)
    named = set(nameable(frames[0]))
    count = {"n": str(len(frames))}
    if motion.kind in ("orbit", "dolly"):
        _order(ask, "seq-enter-first", "entered", {n: k for n, k in motion.entered.items() if n in named}, count)
        _order(ask, "seq-leave-first", "left", {n: k for n, k in motion.left.items() if n in named}, count)
    if motion.kind == "slide":
        _slide(ask, motion, frames, named, count)
    if motion.kind == "orbit" and abs(motion.turn_deg) >= MIN_ORBIT_DEG:
        _orbit(ask, motion, count)
    if motion.kind == "dolly" and motion.travel_m >= MIN_LENGTH_M:
        travel = stated(motion.travel_m)
        ask.ask(
            "dolly-distance", Wording("seq-dolly-distance", count), skill="camera motion", level="multi", frame=None,
            relation="camera_travel", answer_type="quantity", answer=travel.stated, objects=[],
            facts=[["camera", "moved towards the objects", f"{travel.exact_value} m"]], quantity=travel,
        )  # fmt: skip
    return [{**question, "scene_of": frames[0]["id"]} for question in ask.made]


def _order(ask: Asker, template: str, happened: str, frame_of: dict[str, int], count: dict[str, str]) -> None:
    """Of each two objects the frames put in order (one `happened` in an earlier frame than the other), which did first,
    asked with each as the first option."""
    ordered = sorted(frame_of.items(), key=lambda item: (item[1], item[0]))
    for i, (a, ka) in enumerate(ordered):
        for b, kb in ordered[i + 1 :]:
            if ka == kb:
                continue
            pair = "-".join(sorted((a, b)))
            for x, y in ((a, b), (b, a)):
                ask.ask(
                    f"{template}-{x}-{y}", Wording(template, {**count, "x": x, "y": y}), skill="order", level="multi", frame=None,
                    relation=happened, answer_type="choice", options=[x, y], answer=a, objects=[x, y],
                    facts=[[a, happened, f"frame {ka}"], [b, happened, f"frame {kb}"]], pair=f"{template}-{pair}",
                )  # fmt: skip


def _slide(ask: Asker, motion: SequenceMotion, frames: list[dict], named: set[str], count: dict[str, str]) -> None:
    """Which object moved, which way and about how far: of one object, seen in the first frame and the last."""
    if len(motion.moved) != 1:
        return
    (slid,) = motion.moved
    seen = [n for n in nameable(frames[0]) if all(n not in f["relations"].get("hidden", []) for f in (frames[0], frames[-1]))]
    if slid not in named or slid not in seen:
        return
    fact = [[slid, "moved", f"{motion.distance_m(slid):.4f} m"]]
    if len(seen) >= 2:
        ask.ask(
            "moved-which", Wording("seq-moved-which", count), skill="object motion", level="multi", frame=None, relation="moved",
            answer_type="choice", options=seen, answer=slid, objects=seen, facts=fact,
        )  # fmt: skip
    if (way := motion.way(slid)) is not None:
        ask.ask(
            f"moved-way-{slid}", Wording("seq-moved-way", {**count, "x": slid}), skill="object motion", level="multi",
            frame="viewer", relation="moved_way", answer_type="choice", options=list(WAY_WORDS.values()),
            answer=WAY_WORDS[way], objects=[slid], facts=[[slid, f"moved {way}", "as the first frame's viewer sees it"]],
        )  # fmt: skip
    if motion.distance_m(slid) >= MIN_LENGTH_M:
        length = stated(motion.distance_m(slid))
        ask.ask(
            f"moved-distance-{slid}", Wording("seq-moved-distance", {**count, "x": slid}), skill="object motion", level="multi",
            frame=None, relation="moved_distance", answer_type="quantity", answer=length.stated, objects=[slid], facts=fact,
            quantity=length,
        )  # fmt: skip


def _orbit(ask: Asker, motion: SequenceMotion, count: dict[str, str]) -> None:
    """Which way the viewpoint went round the table, and by about how many degrees, first frame to last."""
    turn = stated_turn(motion.turn_deg)
    facts = [["camera", "turned", f"{motion.turn_deg:+.3f} deg"]]
    ask.ask(
        "orbit-way", Wording("seq-orbit-way", count), skill="camera motion", level="multi", frame="viewer", relation="turn",
        answer_type="choice", options=["left", "right"], answer="right" if motion.turn_deg > 0 else "left", objects=[], facts=facts,
    )  # fmt: skip
    ask.ask(
        "orbit-deg", Wording("seq-orbit-deg", count), skill="camera motion", level="multi", frame=None, relation="turn_deg",
        answer_type="quantity", answer=turn.stated, objects=[], facts=facts, quantity=turn,
    )  # fmt: skip
