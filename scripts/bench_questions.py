"""Time `tabletest questions` (and `tabletest score` on its oracle answers) on stand-in scene records.

Text records: the 4,032 two-object vignettes. Render records: the benchmark fixture's records
(tests/fixtures/benchmark-3obj-metadata.jsonl) repeated under new ids, N of them. Each command runs
in a fresh process, start-up included; its peak memory is read from the kernel.

    python scripts/bench_questions.py --render-records 2000
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "benchmark-3obj-metadata.jsonl"


def timed(*args: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tabletest.cli", *args], check=True, capture_output=True)
    return time.perf_counter() - started


def lines(path: Path) -> int:
    with open(path, encoding="utf-8") as fh:
        return sum(1 for _ in fh)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--render-records", type=int, default=2000)
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        timed("vignettes", "--objects", "2", "--out", str(folder / "v2.jsonl"))
        records = [json.loads(x) for x in FIXTURE.read_text().splitlines()]
        with open(folder / "render.jsonl", "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps({**records[i % len(records)], "id": f"3obj-{i:06d}", "index": i}) + "\n" for i in range(args.render_records))
        for name, scenes in (("v2.jsonl", 4032), ("render.jsonl", args.render_records)):
            out = folder / f"q-{name}"
            wall = timed("questions", "--from", str(folder / name), "--out", str(out))
            n = lines(out)
            print(
                f"questions --from {name:12} {scenes:6,} scenes {n:9,} questions {wall:6.1f} s  {scenes / wall:7.0f} scenes/s"
            )
        out = folder / "q-render.jsonl"
        oracle = folder / "oracle.jsonl"
        subprocess.run([sys.executable, str(Path(__file__).with_name("question_responders.py")), str(out), "--out", str(folder)],
                       check=True, capture_output=True)  # fmt: skip
        wall = timed("score", "--prompts", str(out), "--responses", str(oracle), "--out", str(folder / "report"))
        print(
            f"score (oracle answers)      {lines(oracle):9,} answers {wall:6.1f} s  {lines(oracle) / wall:7.0f} answers/s"
        )
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of any command: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
