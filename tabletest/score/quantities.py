"""Reading lengths, angles and counts from a free-text answer (how close a value comes to the exact one is
`prompts/hierarchy/closeness.py`'s, which the text-only reader shares).

Number words become digits through `text2num` ("twenty-three", "one hundred and five", "two point five");
halves and quarters are read here ("half a metre", "a metre and a half", "a quarter of a metre").

An answer may name several values, and a hedge must not pay: every value it names is read, and the judge
scores the worst of them. The values of a length or an angle are

- every number that carries a unit of the asked kind (a length for cm and m, an angle for degrees), so
  "the 2 objects are 30 cm apart" reads 30 cm and "2 m tall and turned 30 degrees" reads 30 degrees;
- and every lone number that stands as an answer, in the asked unit ("23", "about 23.", "23 cm or 47");
  a number that counts or labels something else ("2 objects", "1st", "50%", "object 2") is no value;
- none, where numbers carry only units of another kind ("30 degrees" to a length question).

A range ("20-25 cm", "between 20 and 25 centimetres", "20 cm to 25 cm", "23 cm ± 5 cm") is read as its two
ends; two lengths in a row add up to one ("1 m 20 cm", `5'6"`); a sign is read from a `-` touching the
number, `minus` or `negative`. Words around a value ("about", "roughly", "~", "30-ish") are read past.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from text_to_num import alpha2digit

from tabletest.prompts.hierarchy.closeness import Closeness, closeness
from tabletest.score.parse import NEGATED

Asked = Literal["cm", "m", "deg"]

# each unit's kind and size in SI (metres, or degrees for angles), then how it may be written
UNITS: dict[str, tuple[str, float]] = {
    "mm": ("length", 0.001),
    "cm": ("length", 0.01),
    "m": ("length", 1.0),
    "in": ("length", 0.0254),
    "ft": ("length", 0.3048),
    "deg": ("angle", 1.0),
}
SPELLINGS = {
    "mm": r"millimet(?:re|er)s?|mm",
    "cm": r"centimet(?:re|er)s?|cms?",
    "m": r"met(?:re|er)s?|m",
    "in": r"inch(?:es)?|in\.?(?!\s*[a-z\d])|\"|''",  # "in" only where no word follows: "30 in the photo" is no inch
    "ft": r"f(?:oo|ee)t|ft|'",
    "deg": r"deg(?:ree)?s?|°",
}
UNIT = re.compile("|".join(rf"(?P<{unit}>(?:{spelling})(?![a-z]))" for unit, spelling in SPELLINGS.items()))
QUOTES = ("'", '"', "''")
UNIT_WORD = r"(?:millimet(?:re|er)s?|centimet(?:re|er)s?|met(?:re|er)s?|inch(?:es)?|foot|feet|deg(?:ree)?s?)\b"
# a minus touching its number ("- 30 cm" is a dash); "30-ish" is 30
NUMBER = re.compile(
    r"(?P<sign>(?<![\w.])-(?=\.?\d)|\b(?:minus|negative)\s+)?(?<![\w.])(?P<number>\d+(?:\.\d+)?|\.\d+)(?:-?ish\b)?"
)
# after a number without a unit: words that leave it the answer ("23 tall", "40 in the second photo"); any
# other word means it counts or names something ("2 objects", "1st", "3d", "50%")
ANSWER_FOLLOWS = re.compile(
    r"\s*(?:$|[^\sa-z%]|(?:tall|high|long|wide|deep|apart|away|across|from|between|in|at|on|or|and|to|is|i|ish"
    r"|roughly|approximately|about|around|exactly|total|give|more)\b)"
)
PRONOUN_ONE = re.compile(r"\b(?:the|this|that|which|each|every|any|another|no)\s+(?:[a-z\d]+\s+)?$")  # the taller one
RANGE_JOIN = re.compile(r"\s*(?:-|to|or)\s*")
PLUS_MINUS = re.compile(r"\+\s*/?\s*-|\bplus\s+or\s+minus\b")  # written as "±" before the numbers are read
# a number that names a thing rather than a value: "object 2", "image 1", "step 3", "#2"
LABEL = re.compile(
    r"(?:\b(?:objects?|images?|photos?|pictures?|views?|options?|numbers?|no\.|marks?|steps?|frames?|items?)|#)\s*$"
)
BETWEEN = re.compile(r"\bbetween\s+$")
COMPOUND_JOIN = re.compile(r"\s*(?:,|and)?\s*")
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
SIMPLE = str.maketrans(
    {"’": "'", "‘": "'", "′": "'", "″": '"', "“": '"', "”": '"', "−": "-", "–": "-", "—": "-", "º": "°"}
)
# halves and quarters, once text2num has written the numbers in digits
FRACTIONS = {"half": 0.5, "quarter": 0.25}
FRACTION_OF = re.compile(rf"\b(?:(?:an?|1)\s+)?(half|quarter)\s+(?:of\s+)?(?:an?|1)\s+(?={UNIT_WORD})")  # half a metre
FRACTION_BEFORE = re.compile(rf"\b(?:an?|1)\s+(half|quarter)\s+(?={UNIT_WORD})")  # a half metre
QUARTERS_OF = re.compile(rf"\b(\d+)\s+quarters\s+(?:of\s+)?(?:an?|1)\s+(?={UNIT_WORD})")  # 3 quarters of a metre
ONE_UNIT = re.compile(rf"\ban?\s+(?={UNIT_WORD})")  # a metre
AND_A_FRACTION = re.compile(
    rf"(\d+(?:\.\d+)?)(\s*{UNIT_WORD})?\s+and\s+(?:(?:an?|1)\s+(half|quarter)|(\d+)\s+quarters)\b"
)  # 2 and a half metres, 1 metre and a half


@dataclass(frozen=True, slots=True)
class _Mention:
    start: int
    end: int
    values: tuple[float, ...]  # in SI where `unit` is set, else as written; a range's two ends
    unit: str | None
    answer_like: bool  # without a unit: stands as an answer, not as a count or label of something
    joined: bool = False  # a range or a sum already: joins nothing more


def read_quantities(response: str, asked: Asked) -> tuple[float, ...]:
    """Every value of the asked kind the answer names, in SI (metres, or degrees), in order; a range's two ends
    each; empty where it states no quantity of the asked kind."""
    kind, scale = UNITS[asked]
    text = _digits(response)
    values: list[float] = []
    for mention in _merged(text, _mentions(text)):
        if mention.unit is not None and UNITS[mention.unit][0] == kind:
            values += mention.values
        elif mention.unit is None and mention.answer_like:
            values += (value * scale for value in mention.values)
    return tuple(values)


def read_numbers(response: str) -> tuple[float, ...]:
    """Every number the answer names, in digits or words, signed and with decimals as written ("-5", "5.5"),
    except ordinals ("1st"), the pronoun "one" ("the one on the left") and a number it denies ("not 4", "there
    aren't 3"), as a denied option is no choice: the values of a count, a mark or an hour."""
    text = _digits(response)
    said = (m for m in _mentions(text, units=False) if not NEGATED.search(text, max(0, m.start - 40), m.start))
    return tuple(value for mention in said for value in mention.values)


def worst(values: tuple[float, ...], truth: float, kind: str) -> tuple[float, Closeness]:
    """Of the values an answer names, the one judged worst against `truth` (least MRA, then largest error):
    an answer that names several values scores as the worst of them."""
    judged = [(value, closeness(value, truth, kind)) for value in values]
    return min(judged, key=lambda pair: (pair[1].mra, -pair[1].error))


def as_asked(value: float, asked: Asked) -> str:
    """A value in SI as the question asks it: `23 cm`, `1.2 m`, `40 deg`."""
    return f"{value / UNITS[asked][1]:.4g} {asked}"


def _digits(response: str) -> str:
    """Lower case, numbers in digits, halves and quarters as decimals, "a metre" as 1 metre, "+/-" as "±"."""
    text = THOUSANDS.sub("", response.lower().translate(SIMPLE))
    text = ONE_UNIT.sub("1 ", alpha2digit(text, "en", threshold=0))
    text = PLUS_MINUS.sub(" ± ", text)
    if "half" in text or "quarter" in text:  # "1 and a half" first: its "a half" is no half on its own
        text = AND_A_FRACTION.sub(_add_fraction, text)
        text = FRACTION_OF.sub(lambda m: f"{FRACTIONS[m[1]]} ", text)
        text = FRACTION_BEFORE.sub(lambda m: f"{FRACTIONS[m[1]]} ", text)
        text = QUARTERS_OF.sub(lambda m: f"{int(m[1]) / 4} ", text)
    return text


def _add_fraction(match: re.Match[str]) -> str:
    part = FRACTIONS[match[3]] if match[3] else int(match[4]) / 4
    return f"{float(match[1]) + part:g}{match[2] or ''}"


def _mentions(text: str, units: bool = True) -> list[_Mention]:
    """Every number, with the unit right after it (a quote mark only touching it, and not closing a quote);
    with `units` False every number stands alone, as a count's or an hour's do."""
    out = []
    for match in NUMBER.finditer(text):
        end = match.end()
        if end < len(text) and (text[end].isalpha() and not UNIT.match(text, end) or text[end].isdigit()):
            continue  # 1st, 3d, 2x, a digit of a longer token
        value = float(match["number"]) * (-1 if match["sign"] else 1)
        pronoun = value == 1 and PRONOUN_ONE.search(text, max(0, match.start() - 40), match.start())
        if not units:
            if not pronoun:
                out.append(_Mention(match.start(), end, (value,), None, True))
            continue
        unit = UNIT.match(text, end) or UNIT.match(text, _after_spaces(text, end))
        opened = text[match.start() - 1 : match.start()]
        if unit and unit[0] in QUOTES and (unit.start() != end or opened == unit[0][0]):
            unit = None  # '30' or "30": a number in quotes, not feet or inches
        if unit:
            out.append(_Mention(match.start(), unit.end(), (value * UNITS[unit.lastgroup][1],), unit.lastgroup, True))
            continue
        label = LABEL.search(text, max(0, match.start() - 12), match.start())
        answer_like = bool(ANSWER_FOLLOWS.match(text, end)) and not (pronoun or label)
        out.append(_Mention(match.start(), end, (value,), None, answer_like))
    return out


def _after_spaces(text: str, at: int) -> int:
    while at < len(text) and text[at] == " ":
        at += 1
    return at


def _merged(text: str, mentions: list[_Mention]) -> list[_Mention]:
    """Ranges as their two ends and lengths in a row as their sum (`1 m 20 cm`), read from the text between."""
    out: list[_Mention] = []
    for mention in mentions:
        joined = _join(text, out[-1], mention) if out and not out[-1].joined else None
        if joined is None:
            out.append(mention)
        else:
            out[-1] = joined
    return out


def _join(text: str, first: _Mention, then: _Mention) -> _Mention | None:
    gap = text[first.end : then.start]
    if text.startswith("-", then.start) and not gap.strip():  # "20 -25": the dash joins a range, it is no sign
        then = _Mention(then.start, then.end, (-then.values[0],), then.unit, then.answer_like)
        gap = "-"
    units = {u for u in (first.unit, then.unit) if u}
    if len({UNITS[u][0] for u in units}) > 1:
        return None
    (low,), (high,) = first.values, then.values
    if first.unit and then.unit and UNITS[then.unit][1] < UNITS[first.unit][1] and COMPOUND_JOIN.fullmatch(gap):
        return _Mention(first.start, then.end, (low + high,), first.unit, True, True)
    between = gap.strip() == "and" and BETWEEN.search(text, max(0, first.start - 20), first.start)
    plus_minus = gap.strip() == "±"
    if not (RANGE_JOIN.fullmatch(gap) or between or plus_minus) or not (then.unit or then.answer_like):
        return None
    scale = UNITS[next(iter(units))][1] if len(units) == 1 else 1.0
    low = low if first.unit or not units else low * scale
    high = high if then.unit or not units else high * scale
    ends = (low - high, low + high) if plus_minus else (low, high)
    return _Mention(first.start, then.end, ends, then.unit or first.unit, then.answer_like or bool(units), True)
