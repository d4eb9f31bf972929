"""The scene families: each record's family found from its id through one registry, and `--shard`, `--limit` and
resume applied once for every family by the machinery that drives it, which stops a family yielding anything else."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.export.records import columns_of, record_fields
from tabletest.files.dataset import RenderDataset
from tabletest.files.family import BENCHMARK, FAMILIES, RANDOM, companion_of, family_of
from tabletest.layout.selection import Scene, Selection, Shard
from tabletest.write.families import Asked, Benchmark, family_class, scene_family

from conftest import REPO

CATALOG = load_catalog()
RANDOM_GOLDEN = REPO / "tests" / "fixtures" / "random-golden"


@pytest.mark.parametrize(
    "sid, family, scene",
    [
        ("2obj-000123", BENCHMARK, None),
        ("rnd5-0000012", RANDOM, None),
        ("rnd5-0000012-swap", RANDOM, "rnd5-0000012"),
        ("rnd5-0000012-view3", RANDOM, "rnd5-0000012"),
        ("4obj-000123", None, None),  # no family has four-object scenes
        ("2obj-000123-swap", None, None),  # nor benchmark partners
        ("rnd5-0000012-teleport", None, None),
    ],
)
def test_a_record_answers_for_its_family_by_its_own_id(sid, family, scene):
    assert family_of(sid) is family and family_of({"id": sid}) is family
    assert companion_of(sid) == scene


def test_every_family_names_a_write_side_that_names_it_back():
    assert [family.name for family in FAMILIES] == ["benchmark", "random"]
    for family in FAMILIES:
        assert family_class(family).name == family.name


def test_shard_and_limit_are_taken_alike_by_every_family():
    benchmark = scene_family("benchmark", Asked(CATALOG, Selection(2, shard=Shard(1, 3), limit=4), 0))
    assert list(benchmark.image_ids()) == ["2obj-000001", "2obj-000004", "2obj-000007", "2obj-000010"]
    assert benchmark.images() == 4
    random = scene_family("random", Asked(CATALOG, Selection(2, shard=Shard(0, 2), limit=2), 0, count=10, counterfactuals="swap", views=2))
    assert list(random.image_ids()) == ["rnd0-0000000", "rnd0-0000000-view2", "rnd0-0000000-swap", "rnd0-0000002", "rnd0-0000002-view2", "rnd0-0000002-swap"]
    assert random.images() == 6
    only = scene_family("benchmark", Asked(CATALOG, Selection(2, only=("mug", "lamp", "banana"), shard=Shard(0, 2)), 0))
    assert all(int(sid[-6:]) % 2 == 0 for sid in only.image_ids()) and only.images() == len(list(only.image_ids()))


def test_resume_skips_what_is_done_for_every_family():
    family = scene_family("benchmark", Asked(CATALOG, Selection(1, shard=Shard(0, 8)), 0))
    done = {"1obj-000000", "1obj-000016"}
    assert [s.id for s in family.pending(done, lambda kind, sid: None)] == ["1obj-000008", "1obj-000024", "1obj-000032", "1obj-000040", "1obj-000048", "1obj-000056"]


class Careless(Benchmark):
    """A family that forgets the run: it yields every scene of its set, whatever it is asked for."""

    def scenes(self, indices: Iterator[int], done: set[str], on_skip: Callable[[str, str], None]) -> Iterator[Scene]:
        return super().scenes(iter(self.indices()), done, on_skip)


@pytest.mark.parametrize(
    "selection, done, said",
    [
        (Selection(1, shard=Shard(1, 2)), set(), "1obj-000000, with an index outside --shard 1/2"),
        (Selection(1), {"1obj-000000"}, "1obj-000000, with an image made already"),
        (Selection(1, limit=2), set(), "1obj-000002, with more scenes than --limit 2"),
    ],
)
def test_a_family_that_yields_what_the_run_did_not_ask_for_is_stopped(selection, done, said):
    careless = Careless(CATALOG, selection)
    careless.shard, careless.limit = selection.shard, selection.limit
    with pytest.raises(RuntimeError, match=f"the benchmark family made {said}"):
        list(careless.pending(done, lambda kind, sid: None))


def test_export_columns_are_the_family_s_and_a_field_without_one_is_refused():
    dataset = RenderDataset.open(RANDOM_GOLDEN)
    assert dataset.family() is RANDOM and record_fields(RANDOM) != record_fields(BENCHMARK)
    record = next(dataset.records())
    columns = pa.schema(record_fields(RANDOM))
    assert columns_of(record, columns, RANDOM, ("file_name", "mask_file_name", "depth_file_name"))["relations"]["in_front_of"] is not None
    # a random scene's record under the benchmark's columns: Arrow would drop its relations beyond left and right without a word
    with pytest.raises(UserError, match=r"rnd6-0000000 holds objects\.center_camera_m, which the columns of random scenes"):
        columns_of(record, pa.schema(record_fields(BENCHMARK)), RANDOM, ("file_name", "mask_file_name", "depth_file_name"))


def test_the_benchmark_family_refuses_a_random_set_s_flags():
    with pytest.raises(UserError, match="--count and --random-config go with --scenes random"):
        scene_family("benchmark", Asked(CATALOG, Selection(2), 0, count=5))
    with pytest.raises(UserError, match="--scenes teleport is no scene family; give one of benchmark, random"):
        scene_family("teleport", Asked(CATALOG, Selection(2), 0))


def test_a_folder_is_of_the_family_its_records_say(tmp_path: Path):
    assert RenderDataset.open(REPO / "tests" / "fixtures" / "benchmark-main").family() is BENCHMARK
