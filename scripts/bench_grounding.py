"""Questions answered with a place in the image, on a real render: how many of each template a render gives, and
how fast the one judge (`tabletest score`, the rewards) judges point and box answers.

Each point and box question is answered three ways (its gold in its coordinates, a point or box moved off it, and
a hedge naming both), and the answers are judged once with every cache cold (each object's mask decoded on first
use) and then again eight times (as GRPO judges the completions of one prompt). Times are the process's CPU time,
which a machine busy with other jobs does not inflate.

    python scripts/bench_grounding.py --dataset renders/r16
"""

from __future__ import annotations

import argparse
import platform
import time
from collections import Counter
from pathlib import Path

from tabletest.config import load_catalog
from tabletest.files.dataset import RenderDataset
from tabletest.files.rle import _run_ends
from tabletest.prompts.hierarchy.generate import drawn_from
from tabletest.prompts.hierarchy.of_render import Asking, RenderQuestions
from tabletest.prompts.hierarchy.record import gold_text
from tabletest.score.answer import judge_answer
from tabletest.score.lexicon import load_lexicon
from tabletest.truth.described import described

NEW = ("point-object", "box-object", "point-free", "fit-yes/no", "map-cell", "mark-which", "mark-position-yes/no")
REPEATS = 8


def answers(question: dict) -> list[str]:
    """The gold, the point or box moved a quarter of the image to the right (mostly off it), and a hedge of both."""
    width = question["image_size"][0]
    moved = {**question, "answer": [v + (width / 4 if i % 2 == 0 else 0) for i, v in enumerate(question["answer"])]}
    gold, wrong = gold_text(question), gold_text(moved)
    return [gold, wrong, f"{gold} or {wrong}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, required=True)
    args = parser.parse_args()
    catalog = load_catalog()
    render = RenderDataset.open(args.dataset)
    records = [described(r.raw, render.root) for r in render.records()]
    asking = Asking(("questions",), image_only=True, marks="numbers")
    started = time.process_time()
    made = list(RenderQuestions(lambda: records, catalog, asking, drawn_from(render.root), root=render.root).all())
    asked_s = time.process_time() - started
    counts = Counter(q["template"] for q in made)
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    width, height = records[0]["camera"]["resolution"]
    print(f"{len(records)} scenes at {width}x{height}: {len(made)} questions (marks asked) in {asked_s:.1f} s of CPU")
    for template in NEW:
        print(f"  {template:22} {counts[template]:5}")
    lexicon = load_lexicon(catalog)
    pairs = [(q, a) for q in made if q["answer_type"] in ("point", "box") for a in answers(q)]
    _run_ends.cache_clear()
    started = time.process_time()
    right = [judge_answer(q, a, lexicon).correct for q, a in pairs]
    cold = time.process_time() - started
    started = time.process_time()
    for _ in range(REPEATS):
        for q, a in pairs:
            judge_answer(q, a, lexicon)
    warm = time.process_time() - started
    assert all(right[::3]) and right[2::3] == right[1::3], "a gold judged wrong, or a hedge judged unlike its worse point"
    print(f"judge: {len(pairs)} point and box answers, cold {len(pairs) / cold:,.0f} answers/s, "
          f"judged {REPEATS} times more {REPEATS * len(pairs) / warm:,.0f} answers/s")  # fmt: skip


if __name__ == "__main__":
    main()
