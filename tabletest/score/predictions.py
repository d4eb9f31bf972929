"""VLMEvalKit's prediction files as responses: `<model>_<dataset>.xlsx` (or `.tsv`), as its run.py writes them.

Each row is the dataset's row (without `image`) plus `prediction`, the model's raw answer. Rows of a
multiple-choice dataset carry their options in columns `A`, `B`, ...: an answer given as a letter
("B", "B. False", "(B)", "Answer: B") is read as that option's text, so the study's reader judges it
like any other answer. The model is the file name before `_TableTest_`, so one model's files of the
two datasets count as one model.
"""

from __future__ import annotations

import csv
import re
import string
from collections.abc import Iterator
from pathlib import Path

from tabletest.errors import UserError

SUFFIXES = {".xlsx", ".tsv"}
DATASET_PART = "_TableTest_"
# `<model>_TableTest_MCQ`, `..._OpenEnded`, `..._<skill>_OpenEnded`; not the judge's `..._MCQ_exact_matching_result`
PREDICTIONS = re.compile(r"^.+_TableTest_(MCQ|(\w+_)?OpenEnded)$")
LETTER = re.compile(
    r"^\s*(?:(?:the\s+)?(?:correct\s+)?(?:answer|option|choice)\s*(?:is\s*:?|:)?\s*)?[(\[]?([A-Z])[)\].:]?(?:\s|$)",
    re.IGNORECASE,
)

MARK = r"[(\[]?[A-Z][)\].:]?"
SEVERAL_LETTERS = re.compile(rf"^\s*{MARK}(?:\s*(?:[,;/&]|\bor\b|\band\b)?\s*{MARK})+\s*$", re.IGNORECASE)


def in_folders(paths: list[Path]) -> list[Path]:
    """`paths` with each folder replaced by the prediction files under it (a VLMEvalKit output folder, e.g.
    `outputs/<model>/`): the newest of each model and dataset, since run.py writes each run into its own
    `T<date>_G<hash>/` and a second run would otherwise answer every question twice."""
    files: list[Path] = []
    for path in paths:
        if not path.is_dir():
            files.append(path)
            continue
        newest: dict[str, Path] = {}
        for found in sorted(path.rglob(f"*{DATASET_PART}*")):
            if PREDICTIONS.match(found.stem) and is_prediction_file(found) and found.is_file():
                name = found.stem
                if name not in newest or found.stat().st_mtime > newest[name].stat().st_mtime:
                    newest[name] = found
        if not newest:
            raise UserError(
                f"{path}: no VLMEvalKit prediction file (<model>_TableTest_<kind>.xlsx or .tsv) under this folder; "
                "pass the folder run.py wrote them to (outputs/<model>/) or the files themselves"
            )
        files.extend(newest[name] for name in sorted(newest))
    return files


def is_prediction_file(path: Path) -> bool:
    return path.suffix.lower() in SUFFIXES


def model_name(path: Path) -> str:
    """`Qwen2-VL-7B-Instruct_TableTest_MCQ.xlsx` -> `Qwen2-VL-7B-Instruct`."""
    stem = path.stem
    return stem[: stem.index(DATASET_PART)] if DATASET_PART in stem else stem


def read_predictions(path: Path) -> Iterator[tuple[int, dict]]:
    """(row number, {"qid", "response", "model"}) per row, letters read as their options."""
    rows = _xlsx_rows(path) if path.suffix.lower() == ".xlsx" else _tsv_rows(path)
    header = next(rows, None)
    if header is None or not {"qid", "prediction"} <= set(header):
        raise UserError(
            f"{path}: not a VLMEvalKit prediction file of a TableTest export (it needs columns 'qid' and "
            "'prediction'); pass the <model>_TableTest_<kind>.xlsx or .tsv that VLMEvalKit's run.py wrote"
        )
    model = model_name(path)
    for number, values in enumerate(rows, start=2):
        row = dict(zip(header, values))
        yield number, {"qid": _text(row["qid"]), "response": response(row), "model": model}


def response(row: dict) -> str:
    """The prediction, or the text of the option it names by letter; several letters ("A or B", "A, B") name
    every one of their options, so the judge scores the hedge as the worst of them."""
    prediction = _text(row.get("prediction"))
    options = {c: _text(row.get(c)) for c in string.ascii_uppercase if _text(row.get(c))}
    if options and SEVERAL_LETTERS.match(prediction):
        named = dict.fromkeys(letter.upper() for letter in re.findall(r"\b[A-Za-z]\b", prediction))
        if len(named) > 1 and all(letter in options for letter in named):
            return " and ".join(options[letter] for letter in named)
    match = LETTER.match(prediction) if options else None
    if match and match.group(1).upper() in options:
        letter = match.group(1).upper()
        # "A mug is ..." starts with a capital A too: a letter counts when it stands alone or as "A." "A)" "(A)"
        rest = prediction[match.end() :].strip()
        if match.group(0).rstrip()[-1:] in ".):]" or not rest or rest.lower().startswith(options[letter].lower()):
            return options[letter]
    return prediction


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if value != value else f"{value:g}"  # NaN: an empty cell
    return str(value).strip()


def _xlsx_rows(path: Path) -> Iterator[list]:
    from openpyxl import load_workbook  # only when an .xlsx is read

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises several kinds for a file that is not a workbook
        raise UserError(
            f"{path}: cannot read it as an .xlsx workbook ({exc}); pass the prediction file VLMEvalKit wrote"
        ) from None
    try:
        for values in book.worksheets[0].iter_rows(values_only=True):
            yield list(values)
    finally:
        book.close()


def _tsv_rows(path: Path) -> Iterator[list]:
    with path.open(encoding="utf-8", newline="") as fh:
        yield from csv.reader(fh, delimiter="\t")
