"""How far the question text alone gives the answers away after `--balance`, per template, against guessing, by
two text-only readers scored on held-out scene families: the balance report's (a logistic regression on the
words and the names in their places, each with each word) and a stronger one (`text_only.ordered_features`:
those, each pair of neighbouring words with the names as their places, and the whole question, which a reader
of the majority answer per question string reads). On two random renders, each scene with a second view and
every kind of counterfactual partner it allows: the shipped config with looks on (4 models per kind, each
recoloured), and a dense one (4 to 6 objects of the carriers and what fits on and in them, each stood on, put
into or stood touching another as often as it can be).

    python scripts/bench_text_prior.py --scenes 400                                  # before → after --balance
    python scripts/bench_text_prior.py --scenes 400 --baseline /tmp/other-checkout   # its questions, these readers

Each template reads before → after for the report's reader: this checkout's questions without `--balance`,
then with it; or, with `--baseline`, another checkout's `tabletest questions --balance` (its records must be
ones it reads), then this checkout's, both scored by this checkout's reader; the stronger reader's after. A
template either reader reads more than 5 points above its guess is marked (world knowledge apart). A
quantity's text prior and guess are mean relative accuracies (the report's regression, and the median).
`--keep DIR` renders into DIR and reuses renders already there.
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

from tabletest.files.family import KINDS  # noqa: E402
from tabletest.layout.random_config import load_random_config  # noqa: E402
from tabletest.prompts.hierarchy.balance_report import SHORTCUT, AnswerTally, report  # noqa: E402
from tabletest.prompts.hierarchy.text_only import TextReader, ordered_features  # noqa: E402
from tabletest.truth.relation_table import OWN_WORDS, VSR_NAMES, vsr_asked  # noqa: E402

TINY = ["--resolution", "64x48", "--samples", "1"]
COMPANIONS = ["--views", "2", "--counterfactuals", ",".join(KINDS)]
LOOK_MODELS = 4
DENSE_POOL = "book,laptop,bowl,mug,trophy,apple,lemon,egg,tomato,orange,candle,banana,strawberry,tennis ball,rubber duck"


def looks_config(folder: Path) -> Path:
    """The shipped random config with looks on: 4 models per kind, each recoloured from its kind's palette."""
    shipped = load_random_config().model_dump()
    return _written(folder / "looks.yaml", {**shipped, "looks": {**shipped["looks"], "models": LOOK_MODELS, "colours": True}})


def dense_config(folder: Path) -> Path:
    """The shipped random config with 4 to 6 objects, arranged on, in and beside one another as often as they can be."""
    shipped = load_random_config().model_dump()
    dense = {
        **shipped,
        "objects": {**shipped["objects"], "count": [4, 6]},
        "arrangements": {**shipped["arrangements"], "stack": 0.4, "contain": 0.4, "touch": 0.2},
    }
    return _written(folder / "dense.yaml", dense)


def _written(path: Path, config: dict) -> Path:
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def cli(code: Path, *args: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(code)}
    made = subprocess.run([sys.executable, "-m", "tabletest.cli", *args], capture_output=True, text=True, env=env, cwd=code)
    if made.returncode:
        sys.exit(made.stderr[-3000:])


def render(folder: Path, scenes: int, seed: int, assets: Path, config: Path, only: str | None) -> Path:
    """The set's scenes, each with a second view and every kind of counterfactual partner it allows."""
    if not (folder / "metadata.jsonl").is_file():
        extra = ["--only", only] if only else []
        cli(REPO, "render", "--scenes", "random", "--count", str(scenes), "--seed", str(seed), *TINY, *COMPANIONS, "--assets", str(assets),
            "--random-config", str(config), "--out", str(folder), "--quiet", *extra)  # fmt: skip
    return folder


def read(code: Path, rendered: Path, out: Path, seed: int, balance: bool = True) -> dict[str, dict]:
    """The questions `code` writes of the render (balanced, or not), and this checkout's report of them, per template,
    with the stronger reader's accuracy (`ordered`) beside the report's."""
    cli(code, "questions", "--from", str(rendered), "--out", str(out), *(["--balance"] if balance else []), "--seed", str(seed))
    tally, stronger = AnswerTally(seed), TextReader(seed, ordered_features)
    with open(out, encoding="utf-8") as fh:
        for line in fh:
            question = json.loads(line)
            tally.add(question)
            stronger.add(question, question.get("scene_of") or question["scene_id"], (question["template"],))
    ordered = {template: right / n for template, (n, right, _) in stronger.scores().items()}
    return {g["template"]: {**g, "ordered": ordered.get(g["template"])} for g in report(seed, tally)["questions"]["templates"]}


def table(renders: dict[str, tuple[dict[str, dict], dict[str, dict] | None]]) -> None:
    """One row per template: per render the questions kept, the guess, the text prior (before → after) and the
    stronger reader's (after); a template either reader reads more than `SHORTCUT` above its guess is marked."""
    names = sorted({t for after, before in renders.values() for t in (*after, *(before or {}))})
    head = "| template | " + " | ".join(f"{r}: n | guess | text prior | stronger" for r in renders) + " |"
    print(head, "|" + " --- |" * (1 + 4 * len(renders)), sep="\n")
    for template in names:
        cells, known = [], False
        for after, before in renders.values():
            now, then = after.get(template), (before or {}).get(template)
            if now is None and then is None:  # a template this render never asks (a kind of scene it lacks)
                cells += ["0", "–", "–", "–"]
                continue
            figures = [_percent(g and g["text_prior"]) for g in ((then, now) if before is not None else (now,))]
            cells += [str(now["n"]) if now else "0", _percent((now or then)["text_chance"]), " → ".join(figures)]
            cells.append(_percent(now and now["ordered"]) + (" (above guess)" if now and above(now) else ""))
            known = known or (now or then)["world_knowledge"]
        print(f"| {template}{' (world knowledge)' if known else ''} | {' | '.join(cells)} |")


def above(template: dict) -> bool:
    """Whether either reader beats the guess by more than `SHORTCUT` on a template that asks no world knowledge
    (a quantity's stronger reader is an MRA, as the report's)."""
    guess = template["text_chance"]
    readers = [r for r in (template["text_prior"], template["ordered"]) if r is not None]
    return guess is not None and not template["world_knowledge"] and any(r > guess + SHORTCUT for r in readers)


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
        for name, config, only in (("looks", looks_config(root), None), ("dense", dense_config(root), DENSE_POOL)):
            started = time.perf_counter()
            rendered = render(root / name, args.scenes, args.seed, assets, config, only)
            after = read(REPO, rendered, root / f"{name}-after.jsonl", args.seed)
            before = read(args.baseline or REPO, rendered, root / f"{name}-before.jsonl", args.seed, balance=bool(args.baseline))
            renders[name] = (after, before)
            print(f"{name}: {args.scenes} scenes, seed {args.seed}, {time.perf_counter() - started:.0f} s")
        table(renders)
        for name, (after, before) in renders.items():
            print(f"{name}: above guess by either reader: {', '.join(t for t, g in sorted(after.items()) if above(g)) or 'none'}; "
                  f"kept {sum(g['n'] for g in after.values())} of {sum(g['n'] for g in before.values())} questions")
        asked = vsr_asked_in([root / f"{name}-before.jsonl" for name in renders])
        print(f"VSR's relations asked in their own words: {len(asked)} of {len(VSR_NAMES)} ({', '.join(asked)})")

if __name__ == "__main__":
    main()
