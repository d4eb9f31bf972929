"""Reading which way an answer says an object faces, as the viewer sees it: one of the eight directions of
`truth.facing` (towards the viewer, away, left, right, and the diagonals such as "towards and left").

An answer is read as every direction it names, so a hedge scores as its worst ("left or right" names two). A
side word (left, right) and a depth word (towards, away) joined by nothing but words like "and", "to the",
"from the viewer" make one diagonal ("away from the viewer and to the right"); any other word between them (an
"or") keeps them apart. "Towards" is a depth word only said of the viewer ("towards the camera", "towards me")
or standing alone ("towards the left" is the left), as is facing or pointing at the viewer ("it faces the camera"). A word the answer rules out ("not towards the viewer") is
not named.
"""

from __future__ import annotations

import re

from tabletest.score.parse import NEGATOR
from tabletest.truth.facing import OPTIONS

VIEWER = r"(?:the\s+)?(?:viewer|camera|photographer|us|me|you)\b"
WORDS = re.compile(
    rf"(?P<towards>\btowards?\b(?=\s+{VIEWER}|\s*(?:$|[,.;:!?/)-]|\s+(?:and|or)\b))|\b(?:fac(?:e|es|ing)|point(?:s|ing)?\s+at)\s+{VIEWER})"
    r"|(?P<away>\baway\b)|(?P<left>\bleft\b)|(?P<right>\bright\b)"
)
FILLER = re.compile(rf"^(?:[\s,/-]|\band\b|\bto\b|\bthe\b|\bfrom\b|\bits\b|\btheir\b|{VIEWER}|'s\b|\bside\b)*$")
# `not` governing a word: right before it, or before the verb of its clause ("it is not facing towards the viewer")
NEGATED = re.compile(NEGATOR + r"(?:(?!but\b|and\b|or\b)[a-z]+\s+){0,3}?(?:(?:to|towards?|facing)\s+)?(?:the\s+)?$")
DEPTH, SIDE = ("towards", "away"), ("left", "right")


def read_directions(text: str) -> tuple[str, ...]:
    """Every direction `text` (lower case) names, each once, in order (see the module's docstring)."""
    said = []
    for match in WORDS.finditer(text):
        if not NEGATED.search(text, max(0, match.start() - 40), match.start()):
            said.append((match.start(), match.end(), match.lastgroup))
    found: list[str] = []
    k = 0
    while k < len(said):
        start, end, word = said[k]
        if k + 1 < len(said) and _axes(word, said[k + 1][2]) and FILLER.match(text[end : said[k + 1][0]]):
            other = said[k + 1][2]
            depth, side = (word, other) if word in DEPTH else (other, word)
            found.append(f"{depth} and {side}")
            k += 2
            continue
        found.append(word)
        k += 1
    return tuple(dict.fromkeys(found))


def is_facing_choice(options: list[str]) -> bool:
    """Whether a choice's options are the eight directions an object may face."""
    return sorted(options) == sorted(OPTIONS)


def _axes(first: str, second: str) -> bool:
    """Whether two words name one direction together: a depth and a side."""
    return (first in DEPTH) != (second in DEPTH)
