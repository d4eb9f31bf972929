"""`assets fetch` against a real HTTP server on 127.0.0.1 that serves Objaverse's layout, through the
real `objaverse` package: every awkward model ends accepted and normalised, or refused with its
reason, and nothing bad reaches the assets folder."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import socket
from pathlib import Path

import glbmaker as gm
import numpy as np
import pytest
from hubserver import REAL_LVIS, HubFixture, HubServer, uid_of, write_catalog
from PIL import Image

objaverse = pytest.importorskip("objaverse", reason="needs the render extra (objaverse): pip install -e '.[render,dev]'")

from tabletest.assets.canonical import load_world
from tabletest.assets.check import check_assets
from tabletest.assets.manifest import MANIFEST_NAME, load_manifest
from tabletest.files.digest import sha256_of
from tabletest.assets.normalize import read_glb
from tabletest.assets.objaverse import fetch
from tabletest.assets.objaverse.fetch import fetch_assets
from tabletest.assets.objaverse.hub import HUB_URL, Network, hub_endpoint, session
from tabletest.assets.objaverse.lock import LOCK_NAME, load_lock
from tabletest.assets.objaverse.policy import Policy
from tabletest.config import load_catalog
from tabletest.errors import UserError

FAST = Network(timeout_s=5, tries=2, backoff_s=0.01)
POLICY = Policy(frozenset({"by", "cc0"}), max_bytes=200_000, max_triangles=40)

# name -> (model bytes, licence, catalog size_m, accepted?, words the refusal must contain)
CASES = {
    "tall box": (gm.y_up_tall(), "by", 0.3, True, ""),
    "multi root": (gm.multi_root(), "by", 0.5, True, ""),
    "animated": (gm.animated(), "cc0", 0.2, True, ""),
    "giant": (gm.absurdly_scaled(), "by", 0.1, True, ""),
    "big texture": (gm.huge_texture(), "by", 0.15, True, ""),
    "nc model": (gm.plain_box(), "by-nc", 0.1, False, "licence 'CC BY-NC 4.0', not allowed"),
    "sa model": (gm.plain_box(), "by-sa", 0.1, False, "licence 'CC BY-SA 4.0', not allowed"),
    "truncated": (gm.plain_box()[:-200], "by", 0.1, False, "truncated"),
    "not a glb": (b"<html><body>Too many requests</body></html>", "by", 0.1, False, "not a GLB file"),
    "external texture": (gm.external_texture(), "by", 0.1, False, "external file 'diffuse.png'"),
    "corrupt texture": (gm.corrupt_texture(), "by", 0.1, False, "image 0 in no image format"),
    "eps texture": (gm.eps_texture(), "by", 0.1, False, "has image 0 in EPS format, which is not read as a texture"),
    "nan": (gm.non_finite(), "by", 0.1, False, "non-finite vertex coordinates"),
    "camera only": (gm.camera_only(), "by", 0.1, False, "no mesh with faces"),
    "degenerate": (gm.degenerate(), "by", 0.1, False, "cannot be scaled to size (degenerate extent 0.0)"),
    "oversized": (gm.plain_box(size_bytes=300_000), "by", 0.1, False, "by its metadata, over the 200 kB limit"),
    "flat": (gm.collinear_triangle(), "by", 0.1, False, "has no visible surface (every triangle has zero area"),
    "dense": (gm.instanced_box(4), "by", 0.1, False, "has 48 triangles, more than the 40 allowed (--max-triangles)"),
}


def ignore(line: str) -> None:
    """A log for fetches whose progress lines a test does not read."""


def serve(cases: dict[str, bytes], licenses: dict[str, str] | None = None) -> HubFixture:
    fixture = HubFixture()
    for name, glb in cases.items():
        fixture.add(uid_of(name), glb, license=(licenses or {}).get(name, "by"))
    return fixture


@pytest.fixture(scope="module")
def fetched(tmp_path_factory):
    """One fetch of every case, four at a time, through a mirror given as --mirror would give it."""
    root = tmp_path_factory.mktemp("fetch")
    fixture = serve({n: c[0] for n, c in CASES.items()}, {n: c[1] for n, c in CASES.items()})
    fixture.add(uid_of("liar"), gm.plain_box(size_bytes=300_000), archives={"glb": {"size": 1000}})
    objects = [{"name": n, "size_m": c[2], "candidates": [uid_of(n)]} for n, c in CASES.items()]
    objects.append({"name": "liar", "size_m": 0.1, "candidates": [uid_of("liar")]})
    catalog = load_catalog(write_catalog(root / "catalog.yaml", objects))
    log: list[str] = []
    with HubServer(fixture) as server, session(server.url, root / "cache", FAST) as hub:
        report = fetch_assets(catalog, root / "assets", hub, POLICY, jobs=4, log=log.append)
    return catalog, root, report, log, server


def test_each_case_is_accepted_or_refused_with_its_reason(fetched):
    _, _, report, log, _ = fetched
    accepted = {n for n, c in CASES.items() if c[3]}
    assert {e.name for e in report.fetched} == accepted
    for name, (*_, ok, reason) in CASES.items():
        if not ok:
            assert report.failed[name].startswith("none of 1 uids from its candidates (it has no LVIS category) passed")
            assert any(line.startswith(f"{name}: skipped {uid_of(name)}: ") and reason in line for line in log)
    assert any("liar" in line and "is 302 kB, over the 200 kB limit" in line for line in log)  # metadata said 1 kB


def test_nothing_bad_reaches_the_assets_folder(fetched):
    catalog, root, report, _, _ = fetched
    accepted = sorted(e.name for e in report.fetched)
    slugs = {catalog.by_name(n).slug + ".glb" for n in accepted}
    assert {p.name for p in (root / "assets").iterdir()} == slugs | {MANIFEST_NAME, LOCK_NAME}
    manifest, lock = load_manifest(root / "assets"), load_lock(root / "assets")
    assert sorted(manifest.objects) == sorted(lock.objects) == accepted
    assert check_assets(catalog, root / "assets", accepted) == []
    # a download that was not a whole GLB is not kept in the cache either, to be taken by a later run
    cached = {p.name for p in (root / "cache" / "glbs").rglob("*.glb")}
    assert f"{uid_of('truncated')}.glb" not in cached and f"{uid_of('not a glb')}.glb" not in cached


def test_manifest_and_lock_record_source_uid_license_and_the_exact_bytes(fetched):
    _, root, _, _, _ = fetched
    manifest, lock = load_manifest(root / "assets"), load_lock(root / "assets")
    for name, entry in manifest.objects.items():
        glb, license = CASES[name][0], CASES[name][1]
        assert (entry.source, entry.uid, entry.license) == ("objaverse", uid_of(name), license)
        assert entry.sha256 == sha256_of(root / "assets" / entry.file)
        locked = lock.objects[name]
        assert (locked.uid, locked.sha256, locked.bytes) == (uid_of(name), hashlib.sha256(glb).hexdigest(), len(glb))
        assert (locked.title, locked.author) == (f"Model {uid_of(name)[:6]}", f"Author {uid_of(name)[:4]}")
        assert locked.url == f"https://sketchfab.com/3d-models/{uid_of(name)}"


def _extents(path: Path) -> np.ndarray:
    lo, hi = load_world(path).bounds
    return hi - lo


def test_y_up_models_stand_up_along_z(fetched):
    _, root, *_ = fetched
    # the file's box is 0.2 x 1.0 (up, +Y) x 0.4 deep: scaled to 0.3 tall, it is 0.06 wide and 0.12 deep
    assert np.allclose(_extents(root / "assets" / "tall_box.glb"), [0.06, 0.12, 0.3], atol=1e-6)


def test_every_root_and_child_is_kept_with_its_transform(fetched):
    _, root, *_ = fetched
    world = load_world(root / "assets" / "multi_root.glb")
    assert len(world.geometry) == 3
    # roots at x = -2 and +2 (one scaled 2x in y), a child 3 up: 5 wide, 1 deep, 4.5 tall, scaled to 0.5;
    # only the taller root reaches the ground, so its rest pose lays it down (4.5 deep, 1 tall)
    assert np.allclose(_extents(root / "assets" / "multi_root.glb"), np.array([5.0, 4.5, 1.0]) * 0.1, atol=1e-6)


def test_cameras_lights_armatures_and_animation_are_dropped(fetched):
    _, root, *_ = fetched
    gltf, _ = read_glb((root / "assets" / "animated.glb").read_bytes())
    assert not {"animations", "skins", "cameras"} & set(gltf)
    assert "KHR_lights_punctual" not in json.dumps(gltf)
    assert len(gltf["meshes"]) == 1 and all("mesh" in node for node in gltf["nodes"] if not node.get("children"))


def test_absurd_scales_become_the_catalog_size_resting_on_the_table(fetched):
    _, root, *_ = fetched
    lo, hi = load_world(root / "assets" / "giant.glb").bounds
    assert np.isclose(max(hi - lo), 0.1) and np.isclose(lo[2], 0.0)
    assert np.allclose((lo[:2] + hi[:2]) / 2, 0.0, atol=1e-9)


def test_textures_above_2048_px_are_downscaled(fetched):
    _, root, *_ = fetched
    gltf, binary = read_glb((root / "assets" / "big_texture.glb").read_bytes())
    sizes = []
    for image in gltf["images"]:
        view = gltf["bufferViews"][image["bufferView"]]
        start = view.get("byteOffset", 0)
        sizes.append(Image.open(io.BytesIO(binary[start : start + view["byteLength"]])).size)
    assert sizes == [(2048, 32)]


def test_what_is_stored_is_the_model_that_was_verified(tmp_path, monkeypatch):
    """Another fetch sharing the cache may replace a file between its check and its use: the bytes that
    passed the checks are the ones normalised and stored."""
    catalog = load_catalog(
        write_catalog(tmp_path / "c.yaml", [{"name": "cup", "size_m": 0.1, "candidates": [uid_of("a")]}])
    )
    cache, verified = tmp_path / "cache", fetch._transfer_problem

    def then_replaced(data: bytes, expected: object) -> str:
        problem = verified(data, expected)
        next(cache.rglob(f"{uid_of('a')}.glb")).write_bytes(gm.plain_box(extents=(1.0, 1.0, 3.0)))
        return problem

    monkeypatch.setattr(fetch, "_transfer_problem", then_replaced)
    served = gm.plain_box(extents=(1.0, 0.5, 0.8))
    with HubServer(serve({"a": served})) as server, session(server.url, cache, FAST) as hub:
        report = fetch_assets(catalog, tmp_path / "assets", hub, POLICY, log=ignore)
    assert report.fetched and load_lock(tmp_path / "assets").objects["cup"].sha256 == hashlib.sha256(served).hexdigest()
    # the served box is 1 wide, 0.5 tall (+Y), 0.8 deep: at 0.1 m it is 0.1 x 0.08 x 0.05 in the world
    assert np.allclose(_extents(tmp_path / "assets" / "cup.glb"), [0.1, 0.08, 0.05], atol=1e-6)


def test_only_fetches_in_catalog_order(tmp_path):
    names = ["first", "second", "third"]
    catalog = load_catalog(
        write_catalog(tmp_path / "c.yaml", [{"name": n, "size_m": 0.1, "candidates": [uid_of(n)]} for n in names])
    )
    only, fixture = ["third", "first", "third"], serve({n: gm.plain_box() for n in names})
    with HubServer(fixture) as server, session(server.url, tmp_path / "cache", FAST) as hub:
        report = fetch_assets(catalog, tmp_path / "assets", hub, POLICY, only, jobs=1, log=ignore)
    assert [e.name for e in report.fetched] == ["first", "third"]
    assert [p.rsplit("/", 1)[1] for p in server.glb_requests()] == [f"{uid_of('first')}.glb", f"{uid_of('third')}.glb"]


# ---- choosing a uid: candidates, LVIS, pins ----


def test_a_failing_candidate_falls_through_to_the_lvis_category(tmp_path):
    with gzip.open(REAL_LVIS) as fh:
        mug = json.load(fh)["mug"]
    fixture = serve({"first": gm.plain_box()}, {"first": "by-nc"})
    fixture.add(mug[0], gm.plain_box(), license="by-nc-sa")
    fixture.add(mug[1], gm.plain_box(extents=(0.3, 0.3, 0.3)), license="cc0")
    catalog = load_catalog(
        write_catalog(
            tmp_path / "c.yaml", [{"name": "mug", "size_m": 0.1, "lvis": "mug", "candidates": [uid_of("first")]}]
        )
    )
    log: list[str] = []
    with HubServer(fixture) as server, session(server.url, tmp_path / "cache", FAST) as hub:
        report = fetch_assets(catalog, tmp_path / "assets", hub, POLICY, log=log.append)
    assert [e.uid for e in report.fetched] == [mug[1]] and not report.failed
    assert [line.split(":")[1].split()[-1] for line in log if "skipped" in line] == [uid_of("first"), mug[0]]


def test_a_pinned_uid_that_fails_is_refused_not_replaced(tmp_path):
    fixture = serve({"pinned": gm.plain_box(), "good": gm.plain_box()}, {"pinned": "by-nc"})
    catalog = load_catalog(
        write_catalog(
            tmp_path / "c.yaml",
            [{"name": "cup", "size_m": 0.1, "uid": uid_of("pinned"), "candidates": [uid_of("good")]}],
        )
    )
    with HubServer(fixture) as server, session(server.url, tmp_path / "cache", FAST) as hub:
        report = fetch_assets(catalog, tmp_path / "assets", hub, POLICY, log=ignore)
    assert not report.fetched
    assert f"uid {uid_of('pinned')}, pinned by the catalog, has licence" in report.failed["cup"]
    assert "pin another uid for 'cup' in the catalog" in report.failed["cup"]


def test_the_lock_brings_back_the_same_files_and_refuses_changed_bytes(tmp_path):
    catalog = load_catalog(
        write_catalog(tmp_path / "c.yaml", [{"name": "cup", "size_m": 0.1, "candidates": [uid_of("a"), uid_of("b")]}])
    )
    fixture = serve({"a": gm.plain_box(), "b": gm.plain_box(extents=(2, 1, 1))})
    out, cache = tmp_path / "assets", tmp_path / "cache"
    with HubServer(fixture) as server, session(server.url, cache, FAST) as hub:
        fetch_assets(catalog, out, hub, POLICY, log=ignore)
        first = (out / "cup.glb").read_bytes()
        # rerun: same uid, from the cache (no download), same output bytes
        fetch_assets(catalog, out, hub, POLICY, log=ignore)
        assert len(server.glb_requests()) == 1 and (out / "cup.glb").read_bytes() == first
        # a cached copy damaged on disk is downloaded again and accepted only as the locked bytes
        cached = next(cache.rglob(f"{uid_of('a')}.glb"))
        cached.write_bytes(cached.read_bytes() + b"!")
        log: list[str] = []
        report = fetch_assets(catalog, out, hub, POLICY, log=log.append)
        assert report.fetched and len(server.glb_requests()) == 2 and "not the locked" in log[0]
    # the hub now serves other bytes under the locked uid: refused, and the good asset stays
    shutil.rmtree(cache)
    fixture.models[uid_of("a")] = gm.plain_box(extents=(1, 1, 3))
    with HubServer(fixture) as server, session(server.url, cache, FAST) as hub:
        report = fetch_assets(catalog, out, hub, POLICY, log=ignore)
        assert not report.fetched and "not the locked" in report.failed["cup"]
        assert "pinned by the lock file" in report.failed["cup"] and "delete the 'cup' entry" in report.failed["cup"]
        assert (out / "cup.glb").read_bytes() == first and not any(cache.rglob(f"{uid_of('a')}.glb"))
        # a fresh folder with only the lock: nothing is written for the refused object
        fresh = tmp_path / "fresh"
        fresh.mkdir()
        shutil.copy(out / LOCK_NAME, fresh / LOCK_NAME)
        fetch_assets(catalog, fresh, hub, POLICY, log=ignore)
        assert [p.name for p in fresh.iterdir()] == [LOCK_NAME]


# ---- the network: mirrors, retries, timeouts, half-written files ----


def test_hf_endpoint_routes_every_request_to_the_mirror(tmp_path, monkeypatch):
    package_cache = objaverse._VERSIONED_PATH
    catalog = load_catalog(
        write_catalog(tmp_path / "c.yaml", [{"name": "cup", "size_m": 0.1, "candidates": [uid_of("a")]}])
    )
    with HubServer(serve({"a": gm.plain_box()})) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url + "/")
        with session(None, tmp_path / "cache", FAST) as hub:
            assert hub.endpoint == server.url
            report = fetch_assets(catalog, tmp_path / "assets", hub, POLICY, log=ignore)
    assert report.fetched
    assert sorted(p.split("/main/")[1] for p in server.requests) == [
        "glbs/000-001/" + uid_of("a") + ".glb",
        "metadata/000-001.json.gz",
        "object-paths.json.gz",
    ]
    assert objaverse._VERSIONED_PATH == package_cache  # the package is left as it was


def test_mirror_and_endpoint_values_are_checked(monkeypatch):
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    assert hub_endpoint(None) == HUB_URL
    with pytest.raises(UserError, match=r"--mirror 'hf-mirror.com' is not an http\(s\) base URL"):
        hub_endpoint("hf-mirror.com")
    monkeypatch.setenv("HF_ENDPOINT", "ftp://mirror")
    with pytest.raises(UserError, match="HF_ENDPOINT 'ftp://mirror'"):
        hub_endpoint(None)


def test_flaky_files_are_retried_and_cut_short_ones_never_accepted(tmp_path):
    catalog = load_catalog(
        write_catalog(
            tmp_path / "c.yaml",
            [
                {"name": "flaky", "size_m": 0.1, "candidates": [uid_of("flaky")]},
                {"name": "cut", "size_m": 0.1, "candidates": [uid_of("cut")]},
            ],
        )
    )
    log: list[str] = []
    with HubServer(serve({"flaky": gm.plain_box(), "cut": gm.plain_box(size_bytes=50_000)})) as server:
        server.fail["glbs/000-001/" + uid_of("flaky") + ".glb"] = 2
        server.fail["object-paths.json.gz"] = 1
        server.cut.add("glbs/000-001/" + uid_of("cut") + ".glb")
        with session(server.url, tmp_path / "cache", Network(timeout_s=5, tries=3, backoff_s=0.01)) as hub:
            report = fetch_assets(catalog, tmp_path / "assets", hub, POLICY, jobs=1, log=log.append)
    assert [e.name for e in report.fetched] == ["flaky"] and list(report.failed) == ["cut"]
    requested = [p.split("/")[-1].removesuffix(".glb") for p in server.glb_requests()]
    assert requested.count(uid_of("flaky")) == 3 and requested.count(uid_of("cut")) == 3
    assert sum(p.endswith("object-paths.json.gz") for p in server.requests) == 2
    [skipped] = [line for line in log if "skipped" in line]
    assert skipped.startswith(
        f"cut: skipped {uid_of('cut')}: could not be downloaded (GLB {uid_of('cut')}: gave up after 3 tries"
    )
    assert "ContentTooShortError" in skipped and "out of 51584 bytes" in skipped
    assert not list((tmp_path / "cache").rglob(f"{uid_of('cut')}.glb"))


def test_a_half_written_index_file_is_discarded_and_fetched_again(tmp_path):
    catalog = load_catalog(
        write_catalog(tmp_path / "c.yaml", [{"name": "cup", "size_m": 0.1, "candidates": [uid_of("a")]}])
    )
    fixture = serve({"a": gm.plain_box()})
    whole = fixture.files()["object-paths.json.gz"]
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "object-paths.json.gz").write_bytes(whole[: len(whole) // 2])
    with HubServer(fixture) as server, session(server.url, tmp_path / "cache", FAST) as hub:
        assert fetch_assets(catalog, tmp_path / "assets", hub, POLICY, log=ignore).fetched
    assert (tmp_path / "cache" / "object-paths.json.gz").read_bytes() == whole


def test_an_unreachable_mirror_is_one_clear_error(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again below: nothing listens there
    catalog = load_catalog(
        write_catalog(tmp_path / "c.yaml", [{"name": "cup", "size_m": 0.1, "candidates": [uid_of("a")]}])
    )
    with pytest.raises(UserError) as err, session(f"http://127.0.0.1:{port}", tmp_path / "cache", FAST) as hub:
        fetch_assets(catalog, tmp_path / "assets", hub, POLICY, log=ignore)
    message = str(err.value)
    assert f"cannot reach the Objaverse hub at http://127.0.0.1:{port}" in message and "after 2 tries" in message
    assert "--mirror" in message and "tabletest assets import DIR" in message and "\n" not in message


def test_a_stalled_download_times_out(tmp_path):
    catalog = load_catalog(
        write_catalog(tmp_path / "c.yaml", [{"name": "cup", "size_m": 0.1, "candidates": [uid_of("a")]}])
    )
    with HubServer(serve({"a": gm.plain_box(size_bytes=20_000)})) as server:
        server.chunk_delay_s = 1.0  # one 4 KiB chunk a second; the timeout is 0.3 s
        with (
            pytest.raises(UserError, match="timed out"),
            session(server.url, tmp_path / "cache", Network(0.3, 1, 0.01)) as hub,
        ):
            fetch_assets(catalog, tmp_path / "assets", hub, POLICY, log=ignore)
    assert not (tmp_path / "assets" / "cup.glb").exists()


def test_per_object_keeps_several_models_that_pass_every_check(tmp_path):
    """`--per-object 3`: the first model as before, then the next candidates that pass (a refused one is
    skipped), as `name/1`, `name/2` in the manifest's looks and the lock, each with its credits."""
    fixture = serve({"one": gm.plain_box(), "nc": gm.plain_box(), "two": gm.plain_box(extents=(2, 1, 1)), "three": gm.plain_box()}, {"nc": "by-nc"})
    catalog = load_catalog(write_catalog(tmp_path / "c.yaml", [{"name": "mug", "size_m": 0.1, "candidates": [uid_of(n) for n in ("one", "nc", "two", "three")]}]))
    log: list[str] = []
    with HubServer(fixture) as server, session(server.url, tmp_path / "cache", FAST) as hub:
        report = fetch_assets(catalog, tmp_path / "assets", hub, POLICY, log=ignore, per_object=3)
        again = fetch_assets(catalog, tmp_path / "again", hub, POLICY, log=log.append, per_object=5)
    manifest, lock = load_manifest(tmp_path / "assets"), load_lock(tmp_path / "assets")
    assert [e.uid for e in report.fetched] == [uid_of("one")] and [e.uid for e in report.more] == [uid_of("two"), uid_of("three")]
    assert {k: e.uid for k, e in manifest.looks.items()} == {"mug/1": uid_of("two"), "mug/2": uid_of("three")}
    assert {k: v.uid for k, v in lock.objects.items()} == {"mug": uid_of("one"), "mug/1": uid_of("two"), "mug/2": uid_of("three")}
    assert not check_assets(catalog, tmp_path / "assets", ["mug"], POLICY.max_triangles)
    assert len(again.more) == 2 and "mug: 3 of the 5 models asked for passed the checks" in log
