"""Questions of the hierarchy for the export formats, each with its gold answer worded one of several ways.

`--variations all` writes every wording of each answer, `paper` one per question (seeded by its
id), `one` one question per skill and scene; each question comes worded in one of its template's
phrasings (`phrasing` records which). Every wording is read as correct by `tabletest score`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

from tabletest.prompts.hierarchy.record import IN_A_SENTENCE, gold_text, location_text
from tabletest.truth.nouns import Nouns

SPOKEN = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty"
).split()


def answer_wordings(question: dict, nouns: Nouns = Nouns()) -> list[str]:
    """The gold answer in the ways a person might give it that obey the question's instruction ("Answer yes
    or no.", "Answer with a number."); the first is the plainest. A question about a pair noun ("Are the
    scissors ...?") is answered "Yes, they are."."""
    answer, kind = question["answer"], question["answer_type"]
    if kind == "yes/no":
        it = "they are" if re.search(r"(^|, )are the ", question["text"], re.IGNORECASE) else "it is"
        return ["Yes.", f"Yes, {it}."] if answer else ["No.", f"No, {it} not."]
    if kind == "number":
        return [f"{answer}.", f"{answer}", f"{SPOKEN[answer].capitalize()}."]
    if kind == "names":
        listed = " and ".join(f"the {n}" for n in answer)
        return [f"{listed[0].upper()}{listed[1:]}.", f"It is {listed}."] if answer else ["None."]
    if kind in ("point", "box"):
        family = {"percent": "molmo", "0-1000": "qwen2"}.get(question["coordinates"], "json")
        return list(dict.fromkeys([gold_text(question), location_text(question), location_text(question, family)]))
    if kind == "cell":
        return [gold_text(question), f"It is in the {answer} cell." if answer != "centre" else "It is in the centre."]
    if kind == "quantity":
        plain = gold_text(question)
        return [plain, f"About {plain[0].lower()}{plain[1:]}", plain.replace(" cm.", " centimetres.").replace(" m.", " metres.")]
    if answer in question["scene_objects"]:
        return [f"The {answer}.", nouns.agree(f"The {answer} is."), f"It is the {answer}."]
    return [f"{answer.capitalize()}.", *([IN_A_SENTENCE[answer]] if answer in IN_A_SENTENCE else [])]


def hierarchy_queries(record_id: str, questions: list[dict], variations: str, seed: int, nouns: Nouns) -> Iterator[dict]:
    """A record's questions (`prompts.hierarchy.of_render`, as `tabletest questions` asks them), each with its
    `gold` text (see the module docstring)."""
    rng = random.Random(f"{seed}:{record_id}:wording")
    if variations == "one":
        by_skill: dict[str, list[dict]] = {}
        for q in questions:
            by_skill.setdefault(q["skill"], []).append(q)
        questions = [rng.choice(qs) for _, qs in sorted(by_skill.items())]
    for q in questions:
        wordings = answer_wordings(q, nouns)
        chosen = list(enumerate(wordings)) if variations == "all" else [rng.choice(list(enumerate(wordings)))]
        for k, gold in chosen:
            qid = f"{q['qid']}-a{k}" if variations == "all" else q["qid"]
            yield {**q, "qid": qid, "gold": gold}
