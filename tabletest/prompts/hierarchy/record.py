"""The question record: one JSON line per question, the same shape for every skill, form and modality."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tabletest.prompts.hierarchy.phrasings import Wording, drawn
from tabletest.truth.nouns import Nouns

AnswerType = Literal["yes/no", "choice", "number", "names", "quantity"]
INSTRUCTION = {
    "yes/no": "Answer yes or no.",
    "number": "Answer with a number.",
    "names": "Answer with the name of each such object.",
    "quantity": "Answer with a number in {unit}.",  # the unit a number alone is read in, the gold's own
}
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
    ) -> None:
        """Record a question; `pair` names the question and its inverse, whose answers must agree; `stated`
        holds a story's stated facts, from which `facts` and `rules` derive the answer in `hops` steps; a
        `quantity` question's answer is its stated value, its unit and exact value are the quantity's; `observer`: the
        table side a frame `person` question's person stands at."""
        instruction = INSTRUCTION.get(answer_type) or _choose(options, self.scene_objects)
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
                }
            )


def _choose(options: list[str], scene_objects: list[str]) -> str:
    """`Answer left or right.`; objects with their article: `Answer the mug or the lamp.`"""
    if all(o in scene_objects for o in options):
        return f"Answer {' or '.join(f'the {o}' for o in options)}."
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
    return f"The {answer}." if answer in question["scene_objects"] else f"{answer.capitalize()}."


def _decimal(number: float) -> str:
    """A number as plain decimals, which the scorer reads: `23`, `1.2`, `0.00001`, never `1e-05`."""
    return f"{number:.10f}".rstrip("0").rstrip(".")
