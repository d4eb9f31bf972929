"""Several objects of one kind in random scenes (three apples): drawn at the configured rate, each its own object
in the record, counted exactly, and singled out only where the scene says which is which."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from tabletest.assets.manifest import load_manifest
from tabletest.config import load_catalog, load_config
from tabletest.errors import UserError
from tabletest.layout.random_config import RandomConfig, load_random_config
from tabletest.layout.random_scene import sample_scene

from conftest import REPO, one_look_random_data, run_cli
from hierarchy_scenes import stacked_scene

TINY = ["--resolution", "64x48", "--samples", "1", "--masks", "--quiet"]
TOP = load_config().table.height_m
NAMES = load_catalog().names


def shipped() -> dict:
    """The shipped random config with its looks off: several of a kind told apart by place, not by colour (a
    look's colour naming them: test_looks.py)."""
    return one_look_random_data()


def with_repeats(chance: float, most: int = 3, arrangements: bool = False) -> dict:
    data = shipped()
    data["objects"]["repeats"] = {"chance": chance, "max": most}
    if not arrangements:
        del data["arrangements"]
    return data


def kinds_of(scene) -> Counter:
    return Counter(o.name.partition("#")[0] for o in scene.objects)


@pytest.fixture(scope="module")
def sizes(builtin_assets) -> dict:
    return {name: entry.size_m for name, entry in load_manifest(builtin_assets).objects.items()}


@pytest.mark.parametrize("chance", [0.4, 0.8])
def test_several_of_a_kind_come_at_the_configured_rate(sizes, chance):
    config = RandomConfig.model_validate(with_repeats(chance))
    scenes = [sample_scene(config, NAMES, sizes, 0, i, TOP, 36.0, (512, 384)) for i in range(1500)]
    two_or_more = [s for s in scenes if len(s.objects) >= 2]
    repeating = [s for s in two_or_more if max(kinds_of(s).values()) > 1]
    assert abs(len(repeating) / len(two_or_more) - chance) < 0.05
    most = Counter(max(kinds_of(s).values()) for s in repeating)
    assert set(most) == {2, 3}  # 2 to `max` of a kind, never more
    assert all(sum(n > 1 for n in kinds_of(s).values()) == 1 for s in repeating)  # one kind repeats per scene
    for s in scenes:  # labels: a kind held once keeps its name; several are numbered left to right
        counts, seen = kinds_of(s), Counter()
        for o in s.objects:
            kind = o.name.partition("#")[0]
            seen[kind] += 1
            assert o.name == (kind if counts[kind] == 1 else f"{kind}#{seen[kind]}")


def test_without_repeats_a_config_draws_the_scenes_it_always_drew(sizes):
    """A config that leaves `repeats` out (or at chance 0) has the digest, and so the scenes, it had before."""
    data = with_repeats(0.4)
    del data["objects"]["repeats"]
    before = RandomConfig.model_validate(data)
    data["objects"]["repeats"] = {"chance": 0, "max": 3}
    assert RandomConfig.model_validate(data).digest == before.digest
    data["objects"]["repeats"] = {"chance": 0.4, "max": 3}
    assert RandomConfig.model_validate(data).digest != before.digest
    scenes = [sample_scene(before, NAMES, sizes, 0, i, TOP, 36.0, (512, 384)) for i in range(200)]
    assert all(max(kinds_of(s).values()) == 1 for s in scenes)


@pytest.mark.parametrize(
    "repeats,message",
    [({"chance": 1.5}, "objects.repeats.chance: Input should be less than or equal to 1"), ({"max": 1}, "objects.repeats.max: Input should be greater than or equal to 2")],
)
def test_bad_repeats_are_refused_in_one_line(tmp_path, repeats, message):
    data = shipped()
    data["objects"]["repeats"] = repeats
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(UserError) as err:
        load_random_config(path)
    assert str(err.value).startswith(f"{path}: {message}") and "\n" not in str(err.value)


def test_a_catalog_name_with_the_instance_mark_is_refused(tmp_path, builtin_assets):
    catalog = yaml.safe_load((REPO / "tabletest" / "configs" / "objects.yaml").read_text())
    first = catalog["objects"][0] if isinstance(catalog, dict) else catalog[0]
    first["name"] = "apple#2"
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump(catalog))
    result = run_cli("vignettes", "--scenes", "random", "--count", "1", "--catalog", str(path), "--assets", str(builtin_assets))
    assert result.returncode != 0 and "has a '#'" in result.stderr and "Traceback" not in result.stderr


@pytest.fixture(scope="module")
def render(tmp_path_factory, builtin_assets) -> Path:
    """Random scenes where every scene of two objects or more holds several of one kind, rendered tiny."""
    root = tmp_path_factory.mktemp("repeats")
    config = root / "repeats.yaml"
    data = with_repeats(1.0, arrangements=True)
    data["objects"]["count"] = [3, 5]
    data["arrangements"].update(stack=0.6, contain=0.35, touch=0.05)  # objects on and in others too, as often as they can
    config.write_text(yaml.safe_dump(data))
    out = root / "render"
    pool = "book,laptop,bowl,mug,apple,lemon,egg,tomato,orange,candle,banana"  # carriers, and what fits on and in them
    args = ["render", "--scenes", "random", "--count", "10", "--random-config", str(config), "--only", pool, "--out", str(out)]
    result = run_cli(*args, "--assets", str(builtin_assets), *TINY)
    assert result.returncode == 0, result.stderr
    return out


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "metadata.jsonl").read_text().splitlines()]


@pytest.mark.render
def test_each_of_several_is_its_own_object_with_its_own_box_and_mask(render):
    import numpy as np
    from PIL import Image

    for record in records(render):
        labels = [o.get("instance") or o["name"] for o in record["objects"]]
        assert len(set(labels)) == len(labels) and any("instance" in o for o in record["objects"])
        for o in record["objects"]:
            assert o.get("instance", o["name"]).partition("#")[0] == o["name"]  # the name stays the catalog's
        items = [item[:2] if key == "ambiguous" else item for key, value in record["relations"].items() if isinstance(value, list) for item in value]
        named = {n for item in items for n in (item if isinstance(item, list) else [item])}
        assert named <= set(labels) | {"table"}  # relations name objects by label
        mask = np.asarray(Image.open(render / record["mask_file_name"]))
        for position, o in enumerate(record["objects"], start=1):  # each instance its own mask value, inside its box
            ys, xs = np.nonzero(mask == position)
            if o["visible_fraction"] > 0.1 and len(xs):
                x0, y0, x1, y1 = o["bbox_px"]
                assert x0 - 1 <= xs.min() and xs.max() <= x1 + 1 and y0 - 1 <= ys.min() and ys.max() <= y1 + 1
    result = run_cli("verify", str(render))
    assert result.returncode == 0 and "0 disagreement(s)" in result.stdout, result.stdout[-2000:]


@pytest.mark.render
def test_counts_are_exact_and_only_an_unambiguous_one_of_several_is_named(render):
    result = run_cli("questions", "--from", str(render), "--forms", "questions")
    assert result.returncode == 0, result.stderr
    by_scene: dict[str, list[dict]] = {}
    for line in result.stdout.splitlines():
        q = json.loads(line)
        by_scene.setdefault(q["scene_id"], []).append(q)
    answers: Counter = Counter()
    kind_position = 0
    for record in records(render):
        hidden = set(record["relations"]["hidden"])
        kinds = Counter(o["name"] for o in record["objects"])
        labels = {o.get("instance") or o["name"]: o["name"] for o in record["objects"]}
        sides = {key: {tuple(p) for p in record["relations"][key]} for key in ("left_of", "right_of", "in_front_of", "behind")}
        for q in by_scene[record["id"]]:
            assert "#" not in q["text"]
            if q["template"] == "count-kind":
                kind = q["objects"][0]
                assert q["answer"] == kinds[kind], q["qid"]  # recounted from the record's objects
                answers[q["answer"]] += 1
            if q["template"] == "count-kind-position":  # how many X are <side> the Y: recounted from the relations
                kind, y = q["objects"]
                relation = {"left": "left_of", "right": "right_of", "front": "in_front_of", "behind": "behind"}[q["relation"]]
                assert q["answer"] == sum((label, y) in sides[relation] for label, k in labels.items() if k == kind), q["qid"]
                kind_position += 1
            named = q["objects"]
            if q["template"] in ("point-object", "box-object"):  # "the egg left of the bowl": one egg stands so
                kind, y = named
                relation = {"left": "left_of", "right": "right_of", "front": "in_front_of", "behind": "behind"}[q["relation"]]
                assert len([label for label, k in labels.items() if k == kind and (label, y) in sides[relation]]) == 1, q["qid"]
                named = [y]
            for name in named:
                if q["template"] not in ("count-kind", "count-kind-position") and name in kinds:
                    assert kinds[name] == 1, q["qid"]  # a kind held several times is never named bare (but by a relation that picks one out)
                if name.startswith(("leftmost ", "rightmost ")):
                    side, kind = name.split(" ", 1)
                    same = [label for label, k in labels.items() if k == kind]
                    assert not hidden & set(same)
                    relation = "left_of" if side == "leftmost" else "right_of"
                    chosen = [a for a in same if all((a, b) in sides[relation] for b in same if b != a)]
                    assert len(chosen) == 1, q["qid"]
    assert {0, 1, 2, 3} <= set(answers) and kind_position >= 5


# Each phrasing read back by hand-written patterns (not the generator's own templates) and its gold recomputed
# from the record's stored relations: a phrasing that said something else would get another answer here.
SIDE = r"(?P<rel>to the left of|to the right of|in front of|behind)"
CARRY = r"(?P<rel>on top of|under|inside|holding|above|below)"
CARRIED = {"on top of": ("on", False), "under": ("on", True), "inside": ("inside", False), "holding": ("inside", True), "above": ("above", False), "below": ("above", True)}
RELATION = {"to the left of": "left_of", "to the right of": "right_of", "in front of": "in_front_of", "behind": "behind"}
CAPTION_WORDS = {"left of": "left_of", "at the left side of": "left_of", "right of": "right_of", "at the right side of": "right_of",
                 "ahead of": "in_front_of", "at the back of": "behind"}  # a caption says a side in any of its relation's words
RELATION |= CAPTION_WORDS
READ = {
    "position-yes/no": rf"(?:is|are) the (?P<x>.+?) {SIDE} the (?P<y>.+?)(?:, as the viewer sees it)?\?",
    "position-choice": r"(?:is|are) the (?P<x>.+?) (?P<axis>to the left of or to the right of|in front of or behind) the (?P<y>.+?)(?:, as the viewer sees it)?\?",
    "count-all": r"(?:How many objects (?:are there|does the scene)|Count the objects|What is the number of objects in the scene)",
    "count-kind": r"(?:How many|Count the|What is the number of) (?P<xs>[a-z ]+?)(?: are there| in the scene|\.| does the scene)",
    "count-position": rf"how many objects are {SIDE} the (?P<x>.+?)(?:, as the viewer sees it)?\?",
    "count-kind-position": rf"how many (?P<xs>[a-z ]+?) are {SIDE} the (?P<x>.+?)(?:, as the viewer sees it)?\?",
    "support-yes/no": r"(?:(?:is|are) the (?P<x>.+?)|(?:say|that) the (?P<x2>.+?) (?:is|are)) (?P<rel>on top of|inside|above) the (?P<y>.+?)\?",
    "support-choice": rf"which(?: object)? (?:is|are) {CARRY} the (?P<z>.+?)[,:] the (?P<x>.+?) or the (?P<y>.+?)\?|"
    rf"of the (?P<x2>.+?) and the (?P<y2>.+?), which (?:is|are) {CARRY.replace('rel', 'rel2')} the (?P<z2>.+?)\?",
    "touching-yes/no": r"(?:(?:is|are) the (?P<x>.+?) (?:touching|in contact with) the (?P<y>.+?)|(?:Are|Do) the (?P<x2>.+?) and the (?P<y2>.+?) (?:touching|touch each other)|contact between the (?P<x3>.+?) and the (?P<y3>.+?))\?",
    "caption-position": rf'"The (?P<x>.+?) (?:is|are) (?P<rel>{"|".join(sorted(RELATION, key=len, reverse=True))}) the (?P<y>.+?)\."',
    "size-choice": r"(?P<rel>bigger|smaller|taller|shorter)\b.*?the (?P<x>[a-z ]+?) (?:or|and) the (?P<y>[a-z ]+?)(?:,| in real life)?\?|"
    r"the (?P<x2>[a-z ]+?) and the (?P<y2>[a-z ]+?), which is (?P<rel2>bigger|smaller|taller|shorter)",
}
SUPPORT_KEY = {"on top of": "on", "inside": "inside", "above": "above"}


def _pick(match: re.Match, *names: str) -> str:
    return next(match.group(n) for n in names if match.group(n))


class Reading:
    """One record's objects and relations, to answer a question read from its words."""

    def __init__(self, record: dict):
        self.record = record
        self.labels = {o.get("instance") or o["name"]: o["name"] for o in record["objects"]}
        self.holds = {key: {tuple(p[:2]) for p in value} for key, value in record["relations"].items() if isinstance(value, list)}
        nouns = __import__("tabletest.truth.nouns", fromlist=["Nouns"]).Nouns.of(load_catalog())
        self.kind_of_plural = {nouns.plural(n): n for n in NAMES}

    def label(self, words: str) -> str:
        """The object a question's words name: a name held once, or the leftmost/rightmost of several."""
        if words.startswith(("leftmost ", "rightmost ")):
            side, kind = words.split(" ", 1)
            same = [a for a, k in self.labels.items() if k == kind]
            relation = "left_of" if side == "leftmost" else "right_of"
            (chosen,) = [a for a in same if all((a, b) in self.holds[relation] for b in same if b != a)]
            return chosen
        (only,) = [a for a, k in self.labels.items() if k == words]
        return only

    def answer(self, template: str, m: re.Match):
        if template == "position-yes/no":
            return (self.label(m["x"]), self.label(m["y"])) in self.holds[RELATION[m["rel"]]]
        if template == "position-choice":
            pair = (self.label(m["x"]), self.label(m["y"]))
            words = (("left", "left_of"), ("right", "right_of")) if m["axis"].startswith("to") else (("in front", "in_front_of"), ("behind", "behind"))
            for word, key in words:
                if pair in self.holds[key]:
                    return word
        if template == "count-all":
            return len(self.labels)
        if template == "count-kind":
            return list(self.labels.values()).count(self.kind_of_plural[m["xs"]])
        if template in ("count-position", "count-kind-position"):
            x, key = self.label(m["x"]), RELATION[m["rel"]]
            kind = self.kind_of_plural.get(m.groupdict().get("xs") or "")
            return sum((a, x) in self.holds[key] for a, k in self.labels.items() if a != x and kind in (None, k))
        if template == "support-yes/no":
            return (self.label(_pick(m, "x", "x2")), self.label(m["y"])) in self.holds[SUPPORT_KEY[m["rel"]]]
        if template == "support-choice":  # which of two stands in the relation to a third: exactly one does
            key, turned = CARRIED[_pick(m, "rel", "rel2")]
            z = self.label(_pick(m, "z", "z2"))
            holding = [w for w in (_pick(m, "x", "x2"), _pick(m, "y", "y2")) if ((z, self.label(w)) if turned else (self.label(w), z)) in self.holds[key]]
            (only,) = holding
            return only
        if template == "touching-yes/no":
            return (self.label(_pick(m, "x", "x2", "x3")), self.label(_pick(m, "y", "y2", "y3"))) in self.holds["touching"]
        if template == "caption-position":
            return (self.label(m["x"]), self.label(m["y"])) in self.holds[RELATION[m["rel"]]]
        if template == "size-choice":
            x, y, word = _pick(m, "x", "x2"), _pick(m, "y", "y2"), _pick(m, "rel", "rel2")
            key = "bigger" if word in ("bigger", "smaller") else "taller"
            more = x if (self.label(x), self.label(y)) in self.holds[key] else y if (self.label(y), self.label(x)) in self.holds[key] else None
            return more if word in ("bigger", "taller") else ({x, y} - {more}).pop()
        raise AssertionError(template)


def in_the_middle(record: dict, name: str) -> bool:
    """Whether the object's box centre lies within a fifth of the table's half width and half depth of its centre
    (asked only within a fifth or beyond two fifths)."""
    (box,) = [o["box3d"]["center_m"] for o in record["objects"] if (o.get("instance") or o["name"]) == name]
    table = record["scene"]["table"]
    share = max(abs(box[0]) / (table["width_m"] / 2), abs(box[1]) / (table["depth_m"] / 2))
    assert share <= 0.2 or share >= 0.4, (name, share)
    return share <= 0.2


@pytest.mark.render
def test_every_phrasing_gets_its_gold_from_an_independent_recomputation(render):
    from tabletest.prompts.hierarchy.generate import scene_questions
    from tabletest.prompts.hierarchy.phrasings import PHRASINGS

    checked: dict[str, set[int]] = {}
    stacked = [(scene, ("support-yes/no", "support-choice")) for scene in map(stacked_scene, range(12))]  # which of two is on or in a third
    for record, read in [*((r, tuple(READ)) for r in records(render)), *stacked]:
        reading = Reading(record)
        for q in scene_questions(record, load_catalog(), seed=0, phrasings="all"):
            if q["template"] not in read:
                continue
            if q["template"] == "caption-position" and q["relation"] not in RELATION.values():  # the table's other relations
                assert q["relation"] != "in_middle" or in_the_middle(record, q["objects"][0]) == q["answer"], q["text"]
                continue
            question = q["text"].rsplit("?", 1)[0] + "?" if q["template"] != "caption-position" else q["text"]
            m = re.search(READ[q["template"]], question, re.IGNORECASE)
            assert m, (q["template"], q["phrasing"], q["text"])
            assert reading.answer(q["template"], m) == q["answer"], (q["qid"], q["text"])
            checked.setdefault(q["template"], set()).add(q["phrasing"])
    assert checked.keys() == READ.keys()  # the render asked every template read here
    for template, phrasings in checked.items():
        assert phrasings == set(range(len(PHRASINGS[template]))), template  # and every phrasing of it
        assert len(PHRASINGS[template]) >= 5


@pytest.mark.render
def test_the_same_seed_asks_the_same_questions_in_the_same_words(render, tmp_path):
    runs = {}
    for name, seed in (("a", "0"), ("b", "0"), ("c", "1")):
        result = run_cli("questions", "--from", str(render), "--seed", seed, "--out", str(tmp_path / f"{name}.jsonl"))
        assert result.returncode == 0, result.stderr
        runs[name] = (tmp_path / f"{name}.jsonl").read_bytes()
    assert runs["a"] == runs["b"]
    # the seed also draws the absent kinds of trick counts and the stories: the other questions stay the same ...
    first, other = ({q["qid"]: q for q in map(json.loads, runs[k].splitlines()) if q["form"] != "story" and q["relation"] != "absent"} for k in ("a", "c"))
    assert first.keys() == other.keys() and all(q["answer"] == other[qid]["answer"] for qid, q in first.items())
    assert sum(q["phrasing"] != other[qid]["phrasing"] for qid, q in first.items()) > len(first) / 3  # ... worded anew


@pytest.mark.render
def test_the_studys_prompts_never_name_one_of_several(render, tmp_path):
    result = run_cli("prompts", "--dataset", str(render), "--out", str(tmp_path / "prompts.jsonl"))
    assert result.returncode == 0, result.stderr
    repeated = {r["id"]: {k for k, n in Counter(o["name"] for o in r["objects"]).items() if n > 1} for r in records(render)}
    prompts = [json.loads(line) for line in (tmp_path / "prompts.jsonl").read_text().splitlines()]
    assert prompts  # the scenes' other objects are still asked about
    for p in prompts:
        assert not set(p["objects"].values()) & repeated[p["scene_id"]] and "#" not in p["text"], p["qid"]


@pytest.mark.render
def test_training_exports_record_each_questions_template_and_phrasing(render, tmp_path):
    asked = run_cli("questions", "--from", str(render), "--forms", "questions,captions", "--out", str(tmp_path / "q.jsonl"))
    assert asked.returncode == 0, asked.stderr
    questions = {q["qid"]: q for q in map(json.loads, (tmp_path / "q.jsonl").read_text().splitlines())}
    out = tmp_path / "sharegpt"
    result = run_cli("export", "--dataset", str(render), "--format", "sharegpt", "--questions", "hierarchy", "--out", str(out))
    assert result.returncode == 0, result.stderr
    samples = [json.loads(line) for line in (out / "train.jsonl").read_text().splitlines()]
    assert len(samples) == len([q for q in questions.values() if q["image"]])
    for sample in samples:  # the phrasing a user can hold out is the one the question was asked in
        q = questions[sample["id"]]
        assert (sample["template"], sample["phrasing"]) == (q["template"], q["phrasing"])
        assert sample["messages"][0]["content"].endswith(q["text"])
    assert len({s["phrasing"] for s in samples}) >= 5


@pytest.mark.render
def test_a_balanced_export_keeps_what_tabletest_questions_balance_keeps(render, tmp_path):
    asked = run_cli("questions", "--from", str(render), "--forms", "questions,captions", "--balance", "--out", str(tmp_path / "q.jsonl"))
    assert asked.returncode == 0, asked.stderr
    kept = [json.loads(line)["qid"] for line in (tmp_path / "q.jsonl").read_text().splitlines()]
    out = tmp_path / "sharegpt"
    result = run_cli("export", "--dataset", str(render), "--format", "sharegpt", "--questions", "hierarchy", "--balance", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert [json.loads(line)["id"] for line in (out / "train.jsonl").read_text().splitlines()] == kept
    study = run_cli("export", "--dataset", str(render), "--format", "sharegpt", "--balance", "--out", str(tmp_path / "study"))
    assert study.returncode == 2 and study.stderr.count("\n") == 1 and "add --questions hierarchy" in study.stderr
    assert not (tmp_path / "study").exists()


@pytest.mark.render
def test_the_score_report_measures_whether_the_wording_changes_the_answer(render, tmp_path):
    """Every question in every phrasing: an oracle answers alike in all of them; a responder that turns its yes/no
    answers round unless a question is in its plainest phrasing answers alike only where it cannot turn round."""
    import csv

    from tabletest.prompts.hierarchy.record import gold_text

    asked = run_cli("questions", "--from", str(render), "--forms", "questions", "--phrasings", "all", "--out", str(tmp_path / "q.jsonl"))
    assert asked.returncode == 0, asked.stderr
    questions = [json.loads(line) for line in (tmp_path / "q.jsonl").read_text().splitlines()]
    assert all(q["qid"].endswith(f"-p{q['phrasing']}") for q in questions)

    def swayed(q):
        if q["answer_type"] != "yes/no" or q["phrasing"] == 0:
            return gold_text(q)
        return "No." if q["answer"] else "Yes."

    for model, answer in (("oracle", gold_text), ("swayed", swayed)):
        (tmp_path / f"{model}.jsonl").write_text("".join(json.dumps({"qid": q["qid"], "response": answer(q)}) + "\n" for q in questions))
    scored = run_cli("score", "--prompts", str(tmp_path / "q.jsonl"), "--responses", str(tmp_path / "oracle.jsonl"),
                     "--responses", str(tmp_path / "swayed.jsonl"), "--out", str(tmp_path / "report"))  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    with open(tmp_path / "report" / "phrasing_consistency.csv") as fh:
        share = {row["model"]: float(row["share"]) for row in csv.DictReader(fh)}
    stems = {q["qid"].rpartition("-p")[0]: q["answer_type"] for q in questions}
    assert share["oracle"] == 1.0
    assert share["swayed"] == pytest.approx(sum(t != "yes/no" for t in stems.values()) / len(stems))
    assert "## Consistency across phrasings" in (tmp_path / "report" / "report.md").read_text()
