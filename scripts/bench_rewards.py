"""How fast the rewards judge, and how fast the RL and preference exports write.

Rewards: `accuracy_reward` over completions of every answer type, in batches as GRPO hands them over (each
question's record parsed once for its batch's completions, as TRL samples several per prompt); the completions
are each question's gold, a hedge, another answer and a reasoning-wrapped gold, all distinct strings. One
process, one core. Exports: `tabletest export --format trl|verl|dpo --questions hierarchy` of a render, rows/s.

    python scripts/bench_rewards.py --dataset tests/fixtures/random-golden --repeat 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def completions(question: dict) -> list[str]:
    from tabletest.prompts.hierarchy.record import gold_text

    gold = gold_text(question)
    kind, answer = question["answer_type"], question["answer"]
    if kind == "yes/no":
        other = "No." if answer else "Yes."
    elif kind in ("number", "quantity"):
        other = f"{answer * 1.2 + 1:g} {question.get('unit') or ''}."
    else:
        other = "I cannot tell."
    return [gold, f"{gold} Or maybe not.", other, f"<think>Looking at the table.</think><answer>{gold}</answer>"]


def bench_rewards(dataset: Path, repeat: int, batch: int) -> None:
    from tabletest.config import load_catalog
    from tabletest.prompts.hierarchy.generate import scene_questions
    from tabletest.rewards import accuracy_reward
    from tabletest.score.answer import judged_fields

    catalog = load_catalog()
    records = [json.loads(line) for line in (dataset / "metadata.jsonl").read_text().splitlines()]
    questions = [q for r in records for q in scene_questions(r, catalog, seed=0)]
    rows = [(json.dumps(judged_fields(q)), c) for q in questions for c in completions(q)]
    accuracy_reward(completions=[c for _, c in rows[:batch]], ground_truth=[t for t, _ in rows[:batch]])  # warm: the lexicon
    rates = []
    for _ in range(repeat):
        started = time.process_time()
        for at in range(0, len(rows), batch):
            chunk = rows[at : at + batch]
            accuracy_reward(completions=[c for _, c in chunk], ground_truth=[t for t, _ in chunk])
        rates.append(len(rows) / (time.process_time() - started))
    kinds = sorted({q["answer_type"] for q in questions})
    print(f"rewards: {len(rows)} completions of {len(questions)} questions ({', '.join(kinds)}), batches of {batch}: "
          f"{statistics.median(rates):,.0f} judged completions/s (median of {repeat}; CPU time, one process)")  # fmt: skip


def bench_exports(dataset: Path, repeat: int) -> None:
    for fmt in ("trl", "verl", "dpo"):
        times, rows = [], 0
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as scratch:
                out = Path(scratch) / fmt
                started = time.perf_counter()
                command = [sys.executable, "-m", "tabletest.cli", "export", "--dataset", str(dataset), "--format", fmt,
                           "--questions", "hierarchy", "--out", str(out)]  # fmt: skip
                subprocess.run(command, check=True, capture_output=True, cwd=REPO)
                times.append(time.perf_counter() - started)
                import pyarrow.parquet as pq

                rows = sum(pq.ParquetFile(p).metadata.num_rows for p in out.glob("data/*.parquet"))
        wall = statistics.median(times)
        print(f"export --format {fmt}: {rows} rows in {wall:.2f} s ({rows / wall:,.0f} rows/s, the command's start included; median of {repeat})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, default=REPO / "tests" / "fixtures" / "random-golden")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch", type=int, default=64, help="completions per reward call")
    args = parser.parse_args()
    bench_rewards(args.dataset, args.repeat, args.batch)
    bench_exports(args.dataset, args.repeat)


if __name__ == "__main__":
    main()
