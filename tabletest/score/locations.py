"""Reading points, boxes and grid cells from an answer, in the syntaxes the main model families write them:

- a point: `(x, y)` or `[x, y]` (Qwen2.5-VL's `"point_2d": [x, y]` among them), Molmo's `<point x="…" y="…">` and
  `<points x1="…" y1="…" x2="…" …>`;
- a box: `[x1, y1, x2, y2]` or `(x1, y1, x2, y2)` (Qwen2.5-VL's `"bbox_2d": [...]`, InternVL's
  `<box>[[x1, y1, x2, y2]]</box>`), and Qwen2-VL's `<|box_start|>(x1,y1),(x2,y2)<|box_end|>`;
- a cell of a map's grid: its row and column in words (`bottom left`, `top middle`, `centre`), or
  `row 3, column 1`.

Every value an answer names is read, so several points or boxes (or cells) are a hedge, judged as the worst.
Numbers are in the question's coordinates (`truth.locations.COORDINATES`), which the judge turns into pixels.
"""

from __future__ import annotations

import re

from tabletest.truth.top_down import CELLS, GRID

NUMBER = r"-?\d+(?:\.\d+)?|-?\.\d+"
QWEN_BOX = re.compile(
    rf"<\|box_start\|>\s*\(\s*({NUMBER})\s*,\s*({NUMBER})\s*\)\s*,?\s*\(\s*({NUMBER})\s*,\s*({NUMBER})\s*\)\s*<\|box_end\|>"
)
MOLMO_POINT = re.compile(r"<points?\b([^>]*)>", re.IGNORECASE)
ATTRIBUTE = re.compile(rf"\b([xy])(\d*)\s*=\s*[\"']?\s*({NUMBER})", re.IGNORECASE)
GROUP = re.compile(rf"[\[(]\s*((?:{NUMBER})(?:\s*,\s*(?:{NUMBER}))*)\s*[\])]")
SEPARATOR = re.compile(r"\s*,\s*")

# a cell: a row word and a column word ("bottom left", "upper-right", "middle left"), the centre alone, or its
# row and column numbered from the top left
ROW_WORDS = {"top": 0, "upper": 0, "far": 0, "back": 0, "middle": 1, "centre": 1, "center": 1, "central": 1, "bottom": 2, "lower": 2, "near": 2, "front": 2}
COLUMN_WORDS = {"left": 0, "middle": 1, "centre": 1, "center": 1, "central": 1, "right": 2}
CELL_PHRASE = re.compile(
    rf"\b(?:(?P<row>{'|'.join(ROW_WORDS)})(?:[\s-]+(?:row[\s,-]+)?)(?P<col>{'|'.join(COLUMN_WORDS)})\b"
    rf"|(?P<alone>centre|center|middle)\b(?!\s*(?:of|row|column))"
    rf"|row\s+(?P<r>[1-9])\s*,?\s*(?:and\s+)?col(?:umn)?\s+(?P<c>[1-9]))"
)
NEGATED_CELL = re.compile(r"\bnot\s+(?:in\s+)?(?:the\s+)?$")


def read_points(response: str) -> list[tuple[float, float]]:
    """Every point the answer names, in order."""
    points, rest = _molmo_points(response)
    for numbers in _groups(rest):
        if len(numbers) == 2:
            points.append((numbers[0], numbers[1]))
    return points


def read_boxes(response: str) -> list[tuple[float, float, float, float]]:
    """Every box the answer names, in order."""
    boxes = [tuple(float(v) for v in m.groups()) for m in QWEN_BOX.finditer(response)]
    for numbers in _groups(QWEN_BOX.sub(" ", response)):
        if len(numbers) == 4:
            boxes.append(tuple(numbers))
    return boxes  # type: ignore[return-value]


def read_cells(response: str) -> list[str]:
    """Every cell the answer names (`CELLS`), once each, in order; a cell after `not` is set aside."""
    text = response.lower()
    found = []
    for match in CELL_PHRASE.finditer(text):
        if NEGATED_CELL.search(text, max(0, match.start() - 12), match.start()):
            continue
        if match["alone"]:
            row, col = 1, 1
        elif match["r"]:
            row, col = int(match["r"]) - 1, int(match["c"]) - 1
            if row >= GRID or col >= GRID:
                continue
        else:
            row, col = ROW_WORDS[match["row"]], COLUMN_WORDS[match["col"]]
        found.append(CELLS[row * GRID + col])
    return list(dict.fromkeys(found))


def _molmo_points(response: str) -> tuple[list[tuple[float, float]], str]:
    """Molmo's points (`<point x=".." y="..">`, `<points x1=".." y1=".." ...>`), and the text without them."""
    points = []
    for match in MOLMO_POINT.finditer(response):
        xs: dict[str, float] = {}
        ys: dict[str, float] = {}
        for axis, index, value in ATTRIBUTE.findall(match[1]):
            (xs if axis.lower() == "x" else ys)[index] = float(value)
        points += [(xs[i], ys[i]) for i in xs if i in ys]
    return points, MOLMO_POINT.sub(" ", response)


def _groups(text: str) -> list[tuple[float, ...]]:
    """The numbers of each bracketed group, `[1, 2]`, `(1, 2, 3, 4)`."""
    return [tuple(float(v) for v in SEPARATOR.split(m[1])) for m in GROUP.finditer(text)]
