"""How far the question text alone gives the answers away after `--balance`: the balance report's text-only
reader (a logistic regression on the words and object names, scored on held-out scene families) per
template, against guessing, on two random renders: the shipped config, and a dense one (4 to 6 objects of
the carriers and what fits on and in them, each stood on, put into or stood touching another as often as it
can be).

    python scripts/bench_text_prior.py --scenes 400                                  # before → after --balance
    python scripts/bench_text_prior.py --scenes 400 --baseline /tmp/other-checkout   # its questions, this reader

Each template reads before → after: this checkout's questions without `--balance`, then with it; or, with
`--baseline`, another checkout's `tabletest questions --balance` (its records must be ones it reads), then
this checkout's, both scored by this checkout's reader. A quantity's text prior and guess are mean relative
accuracies (the report's regression, and the median). `--keep DIR` renders into DIR and reuses renders
already there.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tabletest.layout.random_config import load_random_config  # noqa: E402
from tabletest.prompts.hierarchy.balance_report import AnswerTally, report  # noqa: E402
from tabletest.truth.relation_table import OWN_WORDS, VSR_NAMES, vsr_asked  # noqa: E402

TINY = ["--resolution", "64x48", "--samples", "1"]
DENSE_POOL = "book,laptop,bowl,mug,trophy,apple,lemon,egg,tomato,orange,candle,banana,strawberry,tennis ball,rubber duck"


def dense_config(folder: Path) -> Path:
    """The shipped random config with 4 to 6 objects, arranged on, in and beside one another as often as they can be."""
    shipped = load_random_config().model_dump()
    dense = {
        **shipped,
        "objects": {**shipped["objects"], "count": [4, 6]},
        "arrangements": {**shipped["arrangements"], "stack": 0.4, "contain": 0.4, "touch": 0.2},
    }
    path = folder / "dense.yaml"
    path.write_text(yaml.safe_dump(dense, sort_keys=False))
    return path


def cli(code: Path, *args: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(code)}
    made = subprocess.run([sys.executable, "-m", "tabletest.cli", *args], capture_output=True, text=True, env=env, cwd=code)
    if made.returncode:
        sys.exit(made.stderr[-3000:])


def render(folder: Path, scenes: int, seed: int, assets: Path, config: Path | None) -> Path:
    if not (folder / "metadata.jsonl").is_file():
        extra = ["--random-config", str(config), "--only", DENSE_POOL] if config else []
        cli(REPO, "render", "--scenes", "random", "--count", str(scenes), "--seed", str(seed), *TINY, "--assets", str(assets), "--out", str(folder), "--quiet", *extra)
    return folder


def read(code: Path, rendered: Path, out: Path, seed: int, balance: bool = True) -> dict[str, dict]:
    """The questions `code` writes of the render (balanced, or not), and this checkout's report of them, per template."""
    cli(code, "questions", "--from", str(rendered), "--out", str(out), *(["--balance"] if balance else []), "--seed", str(seed))
    tally = AnswerTally(seed)
    with open(out, encoding="utf-8") as fh:
        for line in fh:
            tally.add(json.loads(line))
    return {g["template"]: g for g in report(seed, tally)["questions"]["templates"]}


def table(renders: dict[str, tuple[dict[str, dict], dict[str, dict] | None]]) -> None:
    """One row per template: per render the questions kept, the guess and the text prior (before → after)."""
    names = sorted({t for after, before in renders.values() for t in (*after, *(before or {}))})
    head = "| template | " + " | ".join(f"{r}: n | guess | text prior" for r in renders) + " |"
    print(head, "|" + " --- |" * (1 + 3 * len(renders)), sep="\n")
    for template in names:
        cells, known = [], False
        for after, before in renders.values():
            now, then = after.get(template), (before or {}).get(template)
            figures = [_percent(g and g["text_prior"]) for g in ((then, now) if before is not None else (now,))]
            above = " (above guess)" if now and now["text_shortcut"] and not now["world_knowledge"] else ""
            cells += [str(now["n"]) if now else "0", _percent((now or then)["text_chance"]), " → ".join(figures) + above]
            known = known or (now or then)["world_knowledge"]
        print(f"| {template}{' (world knowledge)' if known else ''} | {' | '.join(cells)} |")


def vsr_asked_in(files: list[Path]) -> list[str]:
    """VSR's relations the relation table words that some question in the files says in those words (a word
    alone, as "around the table" or "at the side", is no relation asked)."""
    said = "\n".join({json.loads(line)["text"].lower() for path in files for line in path.open(encoding="utf-8")})
    return [name for name in vsr_asked() if re.search(rf"\b{re.escape(OWN_WORDS.get(name, name).lower())}\b", said)]


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", type=Path, help="another checkout: its balanced questions are the before (default: this checkout's unbalanced)")
    parser.add_argument("--keep", type=Path, help="render into this folder (reused when there)")
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        assets = root / "assets"
        cli(REPO, "assets", "build", "--out", str(assets))  # the built-in models, in seconds
        renders = {}
        for name, config in (("shipped", None), ("dense", dense_config(root))):
            started = time.perf_counter()
            rendered = render(root / name, args.scenes, args.seed, assets, config)
            after = read(REPO, rendered, root / f"{name}-after.jsonl", args.seed)
            before = read(args.baseline or REPO, rendered, root / f"{name}-before.jsonl", args.seed, balance=bool(args.baseline))
            renders[name] = (after, before)
            print(f"{name}: {args.scenes} scenes, seed {args.seed}, {time.perf_counter() - started:.0f} s")
        table(renders)
        asked = vsr_asked_in([root / f"{name}-before.jsonl" for name in renders])
        print(f"VSR's relations asked in their own words: {len(asked)} of {len(VSR_NAMES)} ({', '.join(asked)})")

if __name__ == "__main__":
    main()
