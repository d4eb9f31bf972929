"""The canonical enumeration and its selections (docs/architecture.md: identifiers, sharding, sampling)."""

import itertools

import pytest

from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.files.family import index_problem
from tabletest.layout.enumeration import index_to_tuple, scene_count, scene_id, tuple_to_index
from tabletest.layout.selection import Selection, Shard, count_selected, select_scenes

CATALOG = load_catalog()


@pytest.mark.parametrize("n, expected", [(1, 64), (2, 4032), (3, 249984)])
def test_counts(n, expected):
    assert scene_count(64, n) == expected
    assert count_selected(CATALOG, Selection(n)) == expected
    assert sum(1 for _ in select_scenes(CATALOG, Selection(n))) == expected


@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_index_round_trips_and_matches_itertools(n):
    for index, objects in enumerate(itertools.permutations(range(64), n)):
        assert index_to_tuple(index, 64, n) == objects
        assert tuple_to_index(objects, 64) == index


def test_scene_ids_and_names_follow_catalog_order():
    scenes = list(select_scenes(CATALOG, Selection(2, limit=3)))
    assert [s.id for s in scenes] == ["2obj-000000", "2obj-000001", "2obj-000002"]
    assert scenes[0].objects == (CATALOG.names[0], CATALOG.names[1])
    assert scene_id(3, 249983) == "3obj-249983"
    # what readers take back from an id: its index and its object count (a record's index and objects must agree)
    two = [{"name": name} for name in CATALOG.names[:2]]
    assert index_problem({"id": scene_id(2, 123), "index": 123, "objects": two}) is None
    assert "is not the 123 its id 2obj-000123 names" in index_problem({"id": scene_id(2, 123), "index": 124, "objects": two})
    assert "names a 3-object scene" in index_problem({"id": scene_id(3, 5), "index": 5, "objects": two})


def test_shards_are_disjoint_and_cover_the_set():
    shards = [{s.id for s in select_scenes(CATALOG, Selection(2, shard=Shard(i, 3)))} for i in range(3)]
    assert sum(len(s) for s in shards) == 4032
    assert set.union(*shards) == {s.id for s in select_scenes(CATALOG, Selection(2))}
    assert all(int(sid[-6:]) % 3 == i for i, shard in enumerate(shards) for sid in shard)
    assert [count_selected(CATALOG, Selection(2, shard=Shard(i, 3))) for i in range(3)] == [len(s) for s in shards]


def test_sample_is_seeded_and_shards_split_it():
    def ids(**kw):
        return [s.id for s in select_scenes(CATALOG, Selection(3, **kw))]

    first, again, other = ids(sample=50, seed=7), ids(sample=50, seed=7), ids(sample=50, seed=8)
    assert first == again and len(first) == 50 and first == sorted(first)
    assert first != other
    parts = [ids(sample=50, seed=7, shard=Shard(i, 4)) for i in range(4)]
    assert sorted(itertools.chain(*parts)) == first
    assert ids(sample=50, seed=7, limit=5) == first[:5]


def test_only_keeps_canonical_ids():
    names = ("mug", "banana", "lamp")
    scenes = list(select_scenes(CATALOG, Selection(2, only=names)))
    assert len(scenes) == 6
    for scene in scenes:
        assert set(scene.objects) <= set(names)
        assert scene.index == tuple_to_index(tuple(CATALOG.index_of(n) for n in scene.objects), 64)
    assert [s.index for s in scenes] == sorted(s.index for s in scenes)
    sampled = list(select_scenes(CATALOG, Selection(3, only=names, sample=2, seed=1)))
    assert len(sampled) == 2 and all(set(s.objects) == set(names) for s in sampled)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Selection(0), "--objects 0 is not supported; use 1, 2 or 3"),
        (lambda: Selection(4), "--objects 4 is not supported; use 1, 2 or 3"),
        (lambda: Shard.parse("3/2"), "shards count from 0"),
        (lambda: Shard.parse("3/3"), "0 <= i < n"),
        (lambda: Shard.parse("a/b"), "not of the form i/n"),
        (lambda: list(select_scenes(CATALOG, Selection(2, only=("mug", "bananna")))), "did you mean 'banana'"),
        (lambda: list(select_scenes(CATALOG, Selection(3, only=("mug", "banana")))), "needs at least 3"),
        (lambda: list(select_scenes(CATALOG, Selection(2, sample=5000))), "more than the 4032 scenes"),
    ],
)
def test_bad_selections_are_refused_clearly(make, message):
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()
