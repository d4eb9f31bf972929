"""What a change of each kind costs: the files it touches, measured by making it.

    python scripts/change_costs.py [--keep DIR]

For each kind of change (a scene family, a stored relation, a question template, an export format) it copies the
package into a scratch folder, makes the change there as a developer would (a new module, and edits each anchored on
text the code holds, so that a change which no longer applies fails here rather than being counted wrong), writes the
shipped JSON Schemas again (`python -m tabletest.write.schema`), runs a check that the change works in that copy, and
counts the files that then differ from the package: code files (`.py`), and generated files apart. It prints one line
per change and exits 1 when a change no longer applies or its check fails. `tests/test_change_costs.py` runs it and
holds docs/architecture.md's figures to it; `tests/test_new_family.py` renders the scene family it adds and reads it
with every command.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "tabletest"


@dataclass(frozen=True)
class Edit:
    """One file's part of a change: `text` inserted after `anchor` (text the file holds once), or a new file
    (`anchor` None)."""

    path: str  # inside the package's folder: "tabletest/files/family.py"
    text: str
    anchor: str | None = None


@dataclass(frozen=True)
class Change:
    kind: str
    edits: tuple[Edit, ...]
    check: str  # Python run in the changed copy (its folder first on the path): exits non-zero if the change does not work


# --- a scene family: one object at a random place on the table ----------------------------------------------------

ONE_OBJECT = '''\
"""One object at a random place on the table (`tabletest render --scenes one --count N`): a random set of one
object a scene, with ids `one{seed}-{index:07d}`, no views and no partners."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from tabletest.errors import UserError
from tabletest.layout.random_config import RandomConfig, load_random_config
from tabletest.layout.random_scene import RandomScene
from tabletest.layout.random_set import make_random_set
from tabletest.write.families import Asked, RandomScenes


class OneObject(RandomScenes):
    name = "one"

    @classmethod
    def asked(cls, asked: Asked) -> OneObject:
        if asked.counterfactuals is not None or asked.views is not None:
            raise UserError("--scenes one has no views and no partners; drop --views and --counterfactuals")
        config = load_random_config(asked.random_config).model_dump(mode="json")
        config["objects"]["count"] = [1, 1]
        s = asked.selection
        return cls(make_random_set(asked.catalog, RandomConfig.model_validate(config), asked.seed, asked.count, s.only, s.shard, s.limit, s.sample))

    @staticmethod
    def scene_id(seed: int, index: int) -> str:
        return f"one{seed}-{index:07d}"

    def scenes(self, indices: Iterator[int], done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[RandomScene]:
        return (replace(scene, id=self.scene_id(self.random_set.seed, scene.index)) for scene in super().scenes(indices, done, on_skip))
'''
ONE_ENTRY = '''\
ONE = Family(
    "one", "one-object scenes", r"one\\d+-(?P<index>\\d{7})", "free",
    "tabletest.write.one_object:OneObject", "--count scenes of one object at a random place",
)  # fmt: skip
'''
FAMILY = Change(
    "a scene family",
    (
        Edit("tabletest/write/one_object.py", ONE_OBJECT),
        Edit("tabletest/files/family.py", ONE_ENTRY, anchor="companions=True,\n)  # fmt: skip\n"),  # its entry, and
        Edit("tabletest/files/family.py", ", ONE", anchor="FAMILIES: tuple[Family, ...] = (BENCHMARK, RANDOM"),  # its place in the registry
    ),
    """
from tabletest.config import load_catalog
from tabletest.files.family import family_of
from tabletest.files.records import models_of
from tabletest.layout.selection import Selection, Shard
from tabletest.write.families import Asked, scene_family

family = scene_family("one", Asked(load_catalog(), Selection(2, shard=Shard(0, 2), limit=2), 0, count=6))
assert list(family.image_ids()) == ["one0-0000000", "one0-0000002"], list(family.image_ids())
assert family.random_set.config.objects.count == (1, 1) and family_of("one0-0000004").name == "one"
assert models_of(family.records)[0].model_fields["id"].metadata[0].pattern.startswith("^one")
""",
)

# --- a stored relation: wider and narrower, by the footprint's longer side, in random scenes' records ----------------

WIDER_DECIDE = '''

def wider(g: SceneGeometry, a: Thing, b: Thing) -> bool | None:
    """Its footprint's longer side at least the size ratio times the other's (False the other way round, else withheld)."""
    wa, wb, ratio = max(a.size[:2]), max(b.size[:2]), g.margins.size_ratio
    return True if wa >= ratio * wb else False if wb >= ratio * wa else None
'''
WIDER_ENTRIES = '''\
    Relation("wider", ("wider than",), "narrower", "size", None, "unallocated",
             "its footprint's longer side at least the size ratio times the other's", "within the size ratio", wider),
    Relation("narrower", ("narrower than",), "wider", "size", None, "unallocated",
             "the other's footprint's longer side at least the size ratio times its own", "within the size ratio", _converse(wider)),
'''
RELATION = Change(
    "a stored relation",
    (
        Edit("tabletest/truth/relation_table.py", WIDER_DECIDE, anchor="    return g.same_way(a, b, \"opposite\")\n"),
        Edit("tabletest/truth/relation_table.py", WIDER_ENTRIES, anchor="RELATIONS: tuple[Relation, ...] = (\n"),
        # the record model: what the writer stores (`truth.geometry.scene_relations`), the schema and the export's columns
        Edit("tabletest/files/records.py", "    wider: list[Pair] = Field(default_factory=list)\n    narrower: list[Pair] = Field(default_factory=list)\n",
             anchor="    shorter: list[Pair]\n"),
        # the first relation of its axis: captions word it under the size skill
        Edit("tabletest/prompts/hierarchy/phrasings.py", ' "size": "size",', anchor='"proximity": "distance",'),
    ),
    """
import subprocess, sys
import pyarrow as pa
from tabletest.config import load_catalog
from tabletest.export.records import _unheld, record_fields
from tabletest.files.family import family_named
from tabletest.files.records import RandomVignette
from tabletest.layout.random_config import RandomConfig, load_random_config
from tabletest.layout.random_set import make_random_set
from tabletest.truth.records import random_vignette_records

catalog = load_catalog()
config = load_random_config().model_dump(mode="json")
config["arrangements"].update(stack=0, contain=0, touch=0)  # every object on the table: boxes suffice, no models needed
config["looks"] = {"models": 1, "colours": False}  # each object in its catalog model: the sizes below are its
config = RandomConfig.model_validate(config)
chosen = make_random_set(catalog, config, 3, 4, None, None, None, None)
sizes = {o.name: (o.size_m * 0.6, o.size_m * 0.4, o.size_m) for o in catalog.objects}
records = list(random_vignette_records(chosen, sizes, 0.75, 36.0, (1024, 768), {o.name: o.kind for o in catalog.objects}))
assert any(r["relations"]["wider"] for r in records), "no scene holds a wider pair"
assert all(r["relations"]["narrower"] == [[b, a] for a, b in r["relations"]["wider"]] for r in records), "narrower is not its converse"
for record in records:
    RandomVignette.model_validate(record)  # the record model holds it
    row = {key: value for key, value in record.items() if key != "instances"}
    assert _unheld(row, pa.struct(record_fields(family_named("random"))), "") is None  # and so do the export's columns
fixture = sys.argv[1] + "/tests/fixtures/random-scene-records.jsonl"  # records with their geometry: captions ask of them
asked = subprocess.run([sys.executable, "-m", "tabletest.cli", "questions", "--from", fixture, "--forms", "captions"],
                       capture_output=True, text=True, check=True).stdout
assert "wider than" in asked and "narrower than" in asked, "no caption asks it"
""",
)

# --- a question template: whether one object is bigger than another, yes or no ---------------------------------------

SIZE_ROW = '''\
    Template(
        "size-yes/no",
        (
            "Is the {x} bigger than the {y} in real life?",
            "In reality, is the {x} bigger than the {y}?",
            "Compared with the {y}, is the {x} bigger in real life?",
        ),
        "size", "size", "single", None, "yes/no", pairs, _measured("bigger"), both_ways, ("size", "yn"),
        lambda h: _said(h, "bigger_than"), relation="bigger",
    ),
'''
TEMPLATE = Change(
    "a question template",
    (
        # one row of the template table, of a kind generate.py asks (`size`): which is bigger, asked both ways round
        Edit("tabletest/prompts/hierarchy/template_table.py", SIZE_ROW, anchor='    _size("taller", ("taller", "shorter")),\n'),
    ),
    """
import json, subprocess, sys
fixture = sys.argv[1] + "/tests/fixtures/random-scene-records.jsonl"
asked = subprocess.run([sys.executable, "-m", "tabletest.cli", "questions", "--from", fixture, "--forms", "questions"],
                       capture_output=True, text=True, check=True).stdout
made = [json.loads(line) for line in asked.splitlines() if '"size-yes/no"' in line]
assert made and {q["answer"] for q in made} == {True, False}, "the template asks nothing, or only one answer"
assert all(q["text"].startswith(("Is the", "In reality", "Compared with")) for q in made), "not worded in its row's phrasings"
""",
)

# --- an export format: one JSON line per image, its id, image and relations --------------------------------------------

RELATIONS_FORMAT = '''\
"""`tabletest export --format relations`: one JSON line per image, its id, image and relations."""

from __future__ import annotations

from tabletest.export.run import Job
from tabletest.files.jsonl import dumps


def export(job: Job) -> dict:
    with open(job.staging.file("relations.jsonl"), "w", encoding="utf-8") as fh:
        for split, record in job.scenes():
            image = job.place_image(record, job.in_split(split))
            fh.write(dumps({"id": record.id, "split": split, "image": image, "relations": record.raw["relations"]}) + "\\n")
    job.write_card("TableTest (relations)", "One JSON line per image: its id, split, image and relations.")
    return {}
'''
FORMAT = Change(
    "an export format",
    (
        Edit("tabletest/export/relations_lines.py", RELATIONS_FORMAT),
        Edit("tabletest/commands/export.py", '    "relations": ("relations_lines:export", SPLITS),\n', anchor="FORMATS = {\n"),
    ),
    """
import json, subprocess, sys
fixture = sys.argv[1] + "/tests/fixtures/benchmark-main"
subprocess.run([sys.executable, "-m", "tabletest.cli", "export", "--format", "relations", "--dataset", fixture, "--out", "out"],
               capture_output=True, text=True, check=True)
rows = [json.loads(line) for line in open("out/relations.jsonl")]
assert rows and all(row["relations"]["left_of"] for row in rows if len(row["id"]) and row["id"][0] != "1")
""",
)

CHANGES = (FAMILY, RELATION, TEMPLATE, FORMAT)


@dataclass(frozen=True)
class Cost:
    kind: str
    code: tuple[str, ...]  # the code files it touched, new ones included
    generated: tuple[str, ...]  # files written by a command (the shipped JSON Schemas)


def make(change: Change, root: Path) -> Path:
    """A copy of the package under `root` with `change` made in it (a UserError-free ValueError where it no longer applies)."""
    shutil.copytree(PACKAGE, root / "tabletest", ignore=shutil.ignore_patterns("__pycache__"))
    for edit in change.edits:
        path = root / edit.path
        if edit.anchor is None:
            path.write_text(edit.text, encoding="utf-8")
            continue
        text = path.read_text(encoding="utf-8")
        if text.count(edit.anchor) != 1:
            raise ValueError(f"{change.kind}: {edit.path} holds its anchor {text.count(edit.anchor)} times, not once: {edit.anchor.strip()[:80]!r}")
        path.write_text(text.replace(edit.anchor, edit.anchor + edit.text), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run([sys.executable, "-m", "tabletest.write.schema"], env=env, cwd=root, check=True, capture_output=True)
    return root


def run_check(change: Change, root: Path) -> subprocess.CompletedProcess:
    """The change's check, run in the changed copy (its own folder as the working directory)."""
    work = root / "check"
    work.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(change.check), str(REPO)], env=env, cwd=work, capture_output=True, text=True)


def cost(root: Path) -> Cost:
    """The files of the copy under `root` that differ from the package's, or are new."""
    touched = []
    for path in sorted((root / "tabletest").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            original = REPO / path.relative_to(root)
            if not original.is_file() or not filecmp.cmp(path, original, shallow=False):
                touched.append(path.relative_to(root).as_posix())
    return Cost("", tuple(p for p in touched if p.endswith(".py")), tuple(p for p in touched if not p.endswith(".py")))


def measure(change: Change, root: Path) -> Cost:
    make(change, root)
    checked = run_check(change, root)
    if checked.returncode != 0:
        raise RuntimeError(f"{change.kind}: its check failed in {root}:\n{checked.stdout}{checked.stderr}")
    found = cost(root)
    return Cost(change.kind, found.code, found.generated)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="make the changed copies here (one folder per change) and keep them")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="change-costs-"))
    failed = 0
    for number, change in enumerate(CHANGES):
        try:
            found = measure(change, base / f"{number}")
        except (ValueError, RuntimeError, subprocess.CalledProcessError) as err:
            print(f"{change.kind}: does not apply: {err}")
            failed = 1
            continue
        extra = f" (+{len(found.generated)} generated: {', '.join(found.generated)})" if found.generated else ""
        print(f"{change.kind}: {len(found.code)} code files: {', '.join(found.code)}{extra}")
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)
    return failed


if __name__ == "__main__":
    sys.exit(main())
