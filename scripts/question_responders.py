"""Answer a `tabletest questions` file as three reference responders, for checking the report's balance:
`oracle` (the gold answer, as `gold_text` words it), `always-yes` and `always-left`.

    python scripts/question_responders.py questions.jsonl --out responses/
    tabletest score --prompts questions.jsonl --responses responses/oracle.jsonl \
        --responses responses/always-yes.jsonl --responses responses/always-left.jsonl --out report/
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tabletest.prompts.hierarchy.record import gold_text
from tabletest.files.jsonl import dumps, read_jsonl, write_lines

RESPONDERS = {"oracle": gold_text, "always-yes": lambda q: "Yes.", "always-left": lambda q: "Left."}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--out", type=Path, default=Path("responses"))
    args = parser.parse_args()
    for name, answer in RESPONDERS.items():
        lines = (dumps({"qid": q["qid"], "response": answer(q)}) for q in read_jsonl(args.questions))
        print(f"{name}: {write_lines(args.out / f'{name}.jsonl', lines)} answers")


if __name__ == "__main__":
    main()
