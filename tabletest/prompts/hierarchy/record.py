"""The question record: one JSON line per question, the same shape for every skill, form and modality."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tabletest.prompts.hierarchy.phrasings import Wording, drawn
from tabletest.truth.locations import from_pixels
from tabletest.truth.nouns import Nouns

AnswerType = Literal["yes/no", "choice", "number", "names", "quantity", "point", "box", "cell"]
Coordinates = Literal["pixels", "0-1000", "0-1", "percent"]
INSTRUCTION = {
    "yes/no": "Answer yes or no.",
    "number": "Answer with a number.",
    "names": "Answer with the name of each such object.",
    "quantity": "Answer with a number in {unit}.",  # the unit a number alone is read in, the gold's own
    "cell": "Answer with the cell's row (top, middle, bottom) and column (left, middle, right), or centre.",
}
# how a point's or a box's numbers run, per coordinates (x to the right, y down, from the top-left corner)
SCALES = {
    "pixels": " in pixels",
    "0-1000": ", each from 0 to 1000 across the image's width and height",
    "0-1": ", each from 0 to 1 across the image's width and height",
    "percent": " in percent of the image's width and height",
}
SHAPES = {"point": "the point as (x, y)", "box": "the box as [x1, y1, x2, y2], its top-left and bottom-right corners"}
DECIMALS = {"pixels": 0, "0-1000": 0, "0-1": 3, "percent": 1}
UNIT_WORDS = {"cm": "cm", "m": "m", "deg": "degrees"}  # a quantity's unit as its gold answer says it
UNIT_NAMES = {"cm": "centimetres", "m": "metres", "deg": "degrees"}  # ... and as its question names it
# a choice's option that names no object, said as a whole sentence (what a person answers beside the bare word)
IN_A_SENTENCE = {
    "left": "To the left.",
    "right": "To the right.",
    "in front": "It is in front of it.",
    "behind": "It is behind it.",
    "above": "It is above it.",
    "below": "It is below it.",
    "first": "The first one.",
    "second": "The second one.",
    "swapped": "Two objects swapped places.",
    "moved": "One object moved to the other side of another.",
    "removed": "One object was removed.",
    "replaced": "One object was replaced by another object.",
    "taken off": "One object was taken off what it stood on or in.",
    "turned": "One object was turned round where it stands.",
    "clockwise": "It turned clockwise.",
    "anticlockwise": "It turned anticlockwise.",
}
QUESTION_FIELDS = ("qid", "scene_id", "skill", "level", "frame", "answer_type", "answer", "scene_objects")
Phrasings = Literal["one", "all"]


@dataclass(frozen=True)
class Quantity:
    """A metric answer: the value stated in `unit` (rounded as the answer says it) and the exact value in SI."""

    stated: float
    unit: Literal["cm", "m", "deg"]
    exact_value: float

    @property
    def exact(self) -> dict:
        return {"value": self.exact_value, "unit": "deg" if self.unit == "deg" else "m"}


@dataclass
class Asker:
    """Builds the question records of one scene in one modality (`image`, `text` with a context, or `images`:
    a scene and its counterfactual partner, asked together). Each question is asked in one of its template's
    phrasings, drawn from `seed` and its id (its pair's, which its inverse shares), or with `phrasings="all"` in
    every one (ids ending `-p0`, `-p1`, ...)."""

    scene_id: str
    modality: Literal["image", "text", "images"]
    scene_objects: list[str]
    image: str | None = None
    images: list[str] | None = None
    context: str | None = None
    nouns: Nouns = Nouns()  # a pair noun ("scissors") takes "are"
    seed: int = 0
    phrasings: Phrasings = "one"
    coordinates: Coordinates = "pixels"  # how a point or box question asks for its numbers
    made: list[dict] = field(default_factory=list)

    def ask(
        self,
        key: str,
        question: Wording,
        *,
        skill: str,
        level: str,
        frame: str | None,
        relation: str,
        answer_type: AnswerType,
        answer: bool | int | str | list[str],
        objects: list[str],
        options: list[str] | None = None,
        facts: list[list[str]] | None = None,
        rules: list[str] | None = None,
        hops: int | None = None,
        pair: str | None = None,
        form: str = "question",
        stated: list[list[str]] | None = None,
        quantity: Quantity | None = None,
        observer: str | None = None,
        located: dict | None = None,
    ) -> None:
        """Record a question; `pair` names the question and its inverse, whose answers must agree; `stated`
        holds a story's stated facts, from which `facts` and `rules` derive the answer in `hops` steps; a
        `quantity` question's answer is its stated value, its unit and exact value are the quantity's; `observer`: the
        table side a frame `person` question's person stands at; `located`: what a point or box question's answer is
        judged against (its image's size and the object's `mask` or the free `region`), or a map question's grid."""
        if answer_type in SHAPES:
            located = {"coordinates": self.coordinates, **(located or {})}
        instruction = location_instruction(answer_type, self.coordinates) or INSTRUCTION.get(answer_type) or _choose(options, self.scene_objects)
        if quantity is not None:
            instruction = instruction.format(unit=UNIT_NAMES[quantity.unit])
        code = {"image": "img", "text": "txt", "images": "imgs"}[self.modality]
        key, pair = key.replace(" ", "_"), pair and pair.replace(" ", "_")
        qid, pair_id = f"{self.scene_id}-{code}-{key}", pair and f"{self.scene_id}-{code}-{pair}"
        count = len(question.phrasings())
        # a question and its inverse share a phrasing, so every phrasing holds as many yes as no answers
        chosen = [(drawn(self.seed, pair_id or qid, count), "")] if self.phrasings == "one" else [(k, f"-p{k}") for k in range(count)]
        for phrasing, suffix in chosen:
            text = self.nouns.agree(f"{question.text(phrasing)} {instruction}")
            self.made.append(
                {
                    "qid": qid + suffix,
                    "scene_id": self.scene_id,
                    "family": "hierarchy",
                    "form": form,
                    "modality": self.modality,
                    "image": self.image,
                    "context": self.context,
                    "text": f"{self.context}\n\n{text}" if self.context else text,
                    "template": question.template,
                    "phrasing": phrasing,
                    "skill": skill,
                    "level": level,
                    "frame": frame,
                    "relation": relation,
                    "answer_type": answer_type,
                    "options": options,
                    "answer": answer,
                    "objects": objects,
                    "scene_objects": self.scene_objects,
                    "derivation": {
                        "facts": facts or [],
                        "rules": rules or [],
                        "hops": hops,
                        **({"stated": stated} if stated else {}),
                    },
                    "pair": f"{pair_id}{suffix}" if pair_id else None,
                    **({"unit": quantity.unit, "exact": quantity.exact} if quantity else {}),
                    **({"images": self.images} if self.images else {}),
                    **({"observer": observer} if observer else {}),
                    **(located or {}),
                }
            )


def location_instruction(answer_type: str, coordinates: str) -> str | None:
    """How a point or box question asks for its answer: `Answer with the point as (x, y) in pixels, x to the right
    and y down from the image's top-left corner.`"""
    if answer_type not in SHAPES:
        return None
    return f"Answer with {SHAPES[answer_type]}{SCALES[coordinates]}, x to the right and y down from the image's top-left corner."


def _choose(options: list[str], scene_objects: list[str]) -> str:
    """`Answer left or right.`; objects with their article: `Answer the mug or the lamp.`; options that hold "and"
    themselves, listed: `Answer with one of: towards, away, ..., away and right.`"""
    if all(o in scene_objects for o in options):
        return f"Answer {' or '.join(f'the {o}' for o in options)}."
    if any(" and " in o for o in options):
        return f"Answer with one of: {', '.join(options)}."
    return f"Answer {' or '.join(options)}."


def gold_text(question: dict) -> str:
    """The gold answer as a short reply that `tabletest score` reads as correct (training targets, oracles)."""
    answer, kind = question["answer"], question["answer_type"]
    if kind == "yes/no":
        return "Yes." if answer else "No."
    if kind == "number":
        return f"{answer}."
    if kind == "names":
        return " and ".join(f"The {n}" for n in answer) + "." if answer else "None."
    if kind == "quantity":
        return f"{_decimal(answer)} {UNIT_WORDS[question['unit']]}."
    if kind in SHAPES:
        return location_text(question, "molmo" if question["coordinates"] == "percent" else "plain")
    if kind == "cell":
        return f"{answer.capitalize()}."
    return f"The {answer}." if answer in question["scene_objects"] else f"{answer.capitalize()}."


def location_text(question: dict, style: str = "plain") -> str:
    """A point or box answer in the question's coordinates: plain `(x, y)` and `[x1, y1, x2, y2]`, or as a model
    family writes it (`style`): Molmo's `<point x=".." y=".." alt="..">..</point>` for a point in percent,
    Qwen2-VL's `<|box_start|>(x1,y1),(x2,y2)<|box_end|>`, Qwen2.5-VL's `{"bbox_2d": [...]}` / `{"point_2d": [...]}`."""
    coordinates = question["coordinates"]
    digits = DECIMALS[coordinates]
    values = [_decimal(round(v, digits)) for v in from_pixels(question["answer"], coordinates, question["image_size"])]
    point = question["answer_type"] == "point"
    if style == "molmo" and point:
        alt = question["objects"][0] if question["objects"] else "free spot"
        return f'<point x="{values[0]}" y="{values[1]}" alt="{alt}">{alt}</point>'
    if style == "qwen2" and not point:
        return f"<|box_start|>({values[0]},{values[1]}),({values[2]},{values[3]})<|box_end|>"
    if style == "json":
        return '{"%s": [%s]}' % ("point_2d" if point else "bbox_2d", ", ".join(values))
    return f"({values[0]}, {values[1]})" if point else f"[{', '.join(values)}]"


def _decimal(number: float) -> str:
    """A number as plain decimals, which the scorer reads: `23`, `1.2`, `0.00001`, never `1e-05`."""
    return f"{number:.10f}".rstrip("0").rstrip(".")
