"""Benchmark: the 2-object multimodal prompt battery, and scoring 100,000 responses.

    python scripts/bench_prompts_score.py [--responses 100000]

Builds a stand-in render output (metadata.jsonl for the 4,032 two-object scenes, no images) in a
temporary folder, times `tabletest prompts --dataset` under both protocols, then answers a seeded
sample of the full battery with a mix of clean, paraphrased, wrong and unreadable answers and
times the scoring (reading and judging) and the report (tables, tests, plots) apart.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import tempfile
import time
from pathlib import Path

from tabletest.config import load_catalog
from tabletest.layout.selection import Selection, select_scenes
from tabletest.commands.options import make_selection
from tabletest.prompts.battery import PROMPT_TYPES, scene_queries
from tabletest.prompts.sources import dataset_scenes
from tabletest.score.collect import score_responses
from tabletest.score.lexicon import load_lexicon
from tabletest.score.report import write_report
from tabletest.truth.records import vignette_record
from tabletest.truth.relations import table_sides
from tabletest.files.jsonl import dumps, write_lines


def fake_render(directory: Path) -> None:
    def records():
        for scene in select_scenes(load_catalog(), Selection(n_objects=2)):
            record = vignette_record(scene)
            record["file_name"] = f"images/{scene.id}.png"
            record["objects"] = [{"name": n, "slot": s} for n, s in zip(scene.objects, table_sides(2))]
            yield dumps(record)

    write_lines(directory / "metadata.jsonl", records())


def write_battery(directory: Path, protocol: str, out: Path) -> tuple[int, float]:
    start = time.perf_counter()
    scenes = dataset_scenes(
        directory, load_catalog(), lambda n: make_selection(n, None, None, None, 0, None), None, None
    )
    lines = (dumps(r) for s in scenes for r in scene_queries(s, PROMPT_TYPES, protocol, "image", 0))
    count = write_lines(out, lines)
    return count, time.perf_counter() - start


def answer(record: dict, rng: random.Random) -> str:
    """A plausible model: mostly right, sometimes mirrored, in varied wording, now and then unreadable."""
    gold, ptype = record["answer"], record["prompt_type"]
    a, b = record["objects"]["A"], record["objects"]["B"]
    roll = rng.random()
    if roll < 0.05:
        return rng.choice(["I cannot tell from the image.", "The image shows a table.", ""])
    flip = roll > 0.8
    if ptype == 1:
        return (
            rng.choice(["True.", "Yes, that is true.", "true"])
            if gold["truth"] != flip
            else rng.choice(["False.", "No.", "It is not true."])
        )
    if ptype in (2, 3):
        return rng.choice(gold["options"] if not flip else [o for o in record["options"] if o not in gold["options"]])
    if ptype in (4, 5, 8):
        word = gold["relation"] if not flip else ("right" if gold["relation"] == "left" else "left")
        x, y = gold["names"]
        return rng.choice([word, f"It is to the {word}.", f"The {x} is to the {word} of the {y}."])
    if ptype == 6:
        first, second = gold["names"] if not flip else gold["names"][::-1]
        return rng.choice([f"{first}, {second}", f"The {first} is to the {gold['relation']} of the {second}."])
    name = gold["names"][0] if not flip else (b if gold["names"][0] == a else a)
    return rng.choice([name, f"The {name}."])


def cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=100_000)
    args = parser.parse_args()
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        fake_render(tmp)
        for protocol in ("paper", "full"):
            count, seconds = write_battery(tmp, protocol, tmp / f"prompts-{protocol}.jsonl")
            print(
                f"prompts --protocol {protocol}: {count:,} image queries in {seconds:.2f} s ({count / seconds:,.0f}/s), "
                f"peak RSS so far {peak_rss_mib():.0f} MiB"
            )
        rng = random.Random(0)
        prompts = tmp / "prompts-full.jsonl"
        with open(prompts, encoding="utf-8") as fh:
            total = sum(1 for _ in fh)
        chosen = set(rng.sample(range(total), min(args.responses, total)))
        with open(prompts, encoding="utf-8") as fh, open(tmp / "model.jsonl", "w", encoding="utf-8") as out:
            for i, line in enumerate(fh):
                if i in chosen:
                    record = json.loads(line)
                    out.write(json.dumps({"qid": record["qid"], "response": answer(record, rng)}) + "\n")
        lexicon = load_lexicon(load_catalog())
        start = time.perf_counter()
        scoring = score_responses([prompts], [tmp / "model.jsonl"], lexicon)
        rows = scoring.rows
        judged = time.perf_counter() - start
        start = time.perf_counter()
        write_report(scoring, tmp / "report", {"prompts": [prompts], "responses": [tmp / "model.jsonl"]})
        reported = time.perf_counter() - start
        read_ok = sum(r.outcome.status != "unparsed" for r in rows) / len(rows)
        print(
            f"score: {len(rows):,} responses read and judged in {judged:.2f} s ({len(rows) / judged:,.0f}/s; "
            f"{read_ok:.1%} readable), report (tables, tests, plots) in {reported:.2f} s"
        )


if __name__ == "__main__":
    main()
