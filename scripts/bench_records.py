"""Benchmark: reading a render folder's records (`RenderDataset.records()`), which every export, show, gallery
and verify pass makes, against parsing its lines alone: what checking each line against its model costs.

    python scripts/bench_records.py [--records 5000] [--passes 3]

Builds stand-in folders from the render test's golden records (random scenes with masks and depth; the
benchmark's three-object scenes), each line repeated to `--records` lines, and prints the best of
`--passes` times per pass and per record. Runs on commits from before the reader moved to files/ too, so
the two can be compared on one machine.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path

from tabletest.files.reading import read_records

try:
    from tabletest.files.dataset import RenderDataset
except ImportError:  # a commit from before the reader moved to files/
    from tabletest.export.dataset import RenderDataset

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"


def stand_in(folder: Path, golden: Path, count: int) -> Path:
    folder.mkdir()
    lines = (golden / "metadata.jsonl").read_text().splitlines()
    (folder / "metadata.jsonl").write_text("\n".join(itertools.islice(itertools.cycle(lines), count)) + "\n")
    return folder


def best(passes: int, run) -> float:
    times = []
    for _ in range(passes):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-records-") as work:
        for kind, golden in (("random", FIXTURES / "random-golden"), ("benchmark", FIXTURES / "benchmark-main")):
            folder = stand_in(Path(work) / kind, golden, args.records)
            dataset = RenderDataset.open(folder)
            parse = best(args.passes, lambda: sum(1 for _ in read_records(dataset.metadata, "metadata file")))
            read = best(args.passes, lambda: sum(1 for _ in dataset.records()))
            per = 1e6 / args.records
            print(f"{kind:9} {args.records:,} records: lines parsed {parse:6.3f} s ({parse * per:5.1f} µs each), "
                  f"records() {read:6.3f} s ({read * per:5.1f} µs each)")  # fmt: skip


if __name__ == "__main__":
    main()
