"""`tabletest show` and `tabletest gallery` on a render folder that lies: a record naming a file outside the
folder (by '..', by a link) or an id that is no file name is refused in one line and nothing outside is
touched; an image that does not decode, or would decode to gigabytes, and a box of NaN are one line, never
a traceback; a thumbnail follows its image's bytes, not its time stamp. And catalog regions too small to
hold anything, or a container no object fits, are refused in one line before any scene is placed."""

from __future__ import annotations

import json
import os
import shutil
import struct
import zlib
from pathlib import Path

import pytest
import yaml
from conftest import REPO, run_cli

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

TINY = ["--resolution", "64x48", "--samples", "1", "--masks", "--quiet"]
VICTIM = b"not yours to delete"


@pytest.fixture(scope="module")
def render(tmp_path_factory, builtin_assets) -> Path:
    """Three random scenes at 64x48, one sample, with masks."""
    out = tmp_path_factory.mktemp("hostile") / "render"
    made = run_cli("render", "--scenes", "random", "--count", "3", "--out", str(out), "--assets", str(builtin_assets), *TINY)
    assert made.returncode == 0, made.stderr
    return out


@pytest.fixture
def ds(render, tmp_path) -> Path:
    """A copy of the render to tamper with, beside `victim/keep.png`: a file that is not the dataset's."""
    (tmp_path / "victim").mkdir()
    (tmp_path / "victim" / "keep.png").write_bytes(VICTIM)
    return Path(shutil.copytree(render, tmp_path / "ds"))


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "metadata.jsonl").read_text().splitlines()]


def edit_first(folder: Path, change) -> dict:
    """Apply `change` to the first record (written back as Python's json writes it: NaN stays NaN)."""
    rows = records(folder)
    change(rows[0])
    (folder / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows[0]


def one_line_refusal(result) -> str:
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("error: ")
    return result.stderr


def show(folder: Path, out: Path):
    return run_cli("show", "--dataset", str(folder), "--out", str(out))


def gallery(folder: Path, out: Path):
    return run_cli("gallery", str(folder), "--out", str(out), "--workers", "1")


def escape_by_dots(ds: Path, record: dict) -> str:
    record["file_name"] = "images/../../victim/keep.png"
    return "file_name 'images/../../victim/keep.png': String should match pattern"


def escape_by_link(ds: Path, record: dict) -> str:
    (ds / "images" / "x.png").symlink_to(ds.parent / "victim" / "keep.png")
    record["file_name"] = "images/x.png"
    return "leads outside the dataset"


def escape_by_mask(ds: Path, record: dict) -> str:
    record["mask_file_name"] = "masks/../../victim/keep.png"
    return "mask_file_name 'masks/../../victim/keep.png': String should match pattern"


def escape_by_id(ds: Path, record: dict) -> str:
    record["id"] = "../../x"
    return "id '../../x': String should match pattern"


@pytest.mark.parametrize(
    ("command", "escape"),
    [(show, escape_by_link), (show, escape_by_mask), (gallery, escape_by_dots), (gallery, escape_by_id)],
    ids=["show-link", "show-mask", "gallery-dots", "gallery-id"],  # every way out, each command once (one check serves both)
)  # fmt: skip
def test_a_record_naming_a_file_outside_is_refused_and_nothing_outside_is_touched(ds, tmp_path, command, escape):
    message = None

    def change(record: dict) -> None:
        nonlocal message
        message = escape(ds, record)

    edit_first(ds, change)
    out = tmp_path / ("show.png" if command is show else "site")
    refused = one_line_refusal(command(ds, out))
    assert message in refused
    assert (tmp_path / "victim" / "keep.png").read_bytes() == VICTIM
    assert not out.exists() and not (tmp_path / "x.jpg").exists() and not (tmp_path / "x.png").exists()


def png_of_side(path: Path, side: int) -> None:
    """A valid PNG of side x side black pixels, 1 bit each, compressed to a few KB: a decompression bomb."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    packer, row = zlib.compressobj(9), bytes(1 + -(-side // 8))
    pixels = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b""))


@pytest.mark.parametrize(
    ("field", "spoil", "message"),
    [
        ("file_name", lambda path: path.write_bytes(b"x\n"), "is not a readable image (cannot identify image file)"),
        ("file_name", lambda path: path.write_bytes(path.read_bytes()[:200]), "is not a readable image"),
        ("mask_file_name", lambda path: path.write_bytes(b"x\n"), "is not a readable image"),
        ("file_name", lambda path: png_of_side(path, 20000), "has 400,000,000 pixels, more than any render"),
        ("file_name", lambda path: png_of_side(path, 10000), "has 100,000,000 pixels, more than any render"),
        ("file_name", lambda path: png_of_side(path, 9000), "has 9000x9000 pixels, more than any render"),
    ],
    ids=["not-a-png", "cut-short", "mask", "bomb-20000", "bomb-10000", "over-the-limit-9000"],
)
def test_an_image_that_does_not_decode_is_one_line_naming_it_and_the_gallery_marks_it(ds, tmp_path, field, spoil, message):
    record = records(ds)[0]
    spoil(ds / record[field])
    refused = one_line_refusal(show(ds, tmp_path / "show.png"))
    assert f"{ds / record[field]} {message}" in refused and "rerun the same `tabletest render`" in refused, refused
    assert not (tmp_path / "show.png").exists()
    built = gallery(ds, tmp_path / "site")  # the gallery marks what it cannot read, and builds the rest
    assert built.returncode == 0 and "Traceback" not in built.stderr, built.stderr
    thumbnail = tmp_path / "site" / "thumbs" / f"{record['id']}.jpg"
    if field == "file_name":
        assert "(2 thumbnails made, 1 missing or unreadable)" in built.stderr and not thumbnail.exists(), built.stderr
    else:  # the gallery shows no mask
        assert "(3 thumbnails made, 0 missing or unreadable)" in built.stderr and thumbnail.is_file(), built.stderr


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda r: r["objects"][0]["bbox_px"].__setitem__(0, float("nan")), "line 1: objects.0.bbox_px.0 is NaN, which JSON does not allow"),
        (lambda r: r["objects"][0]["bbox_px"].__setitem__(3, float("-inf")), "line 1: objects.0.bbox_px.3 is -Infinity, which JSON does not allow"),
        (lambda r: r["camera"]["K"][0].__setitem__(0, float("inf")), "line 1: camera.K.0.0 is Infinity, which JSON does not allow"),
        (lambda r: r["camera"].__setitem__("resolution", [0, 48]), "camera.resolution [0, 48] is not 2 positive finite numbers, so it cannot be drawn"),
    ],
    ids=["bbox-nan", "bbox-minus-inf", "camera-inf", "camera-no-pixels"],  # a box of three numbers is refused as it is read (test_typed_records)
)
def test_a_number_that_cannot_be_drawn_is_refused_naming_where_it_is(ds, tmp_path, change, said):
    """NaN and the infinities, which no record holds, as the line is read; an image of no pixels as it is drawn."""
    edit_first(ds, change)
    refused = one_line_refusal(show(ds, tmp_path / "show.png"))
    assert said in refused, refused
    assert not (tmp_path / "show.png").exists()


def test_a_thumbnail_follows_its_images_bytes_not_its_time_stamp(ds, tmp_path):
    site = tmp_path / "site"
    first, other = records(ds)[:2]
    assert gallery(ds, site).returncode == 0
    thumb, other_thumb = (site / "thumbs" / f"{r['id']}.jpg" for r in (first, other))
    before = thumb.read_bytes()
    assert before != other_thumb.read_bytes()
    image = ds / first["file_name"]
    made = image.stat().st_mtime
    image.write_bytes((ds / other["file_name"]).read_bytes())  # replaced by another image ...
    os.utime(image, (made - 3600, made - 3600))  # ... whose time stamp is an hour older
    again = gallery(ds, site)
    assert again.returncode == 0 and "(1 thumbnails made" in again.stderr, again.stderr
    assert thumb.read_bytes() == other_thumb.read_bytes() != before
    assert (site / first["file_name"]).read_bytes() == image.read_bytes()
    touched = gallery(ds, site)  # the same bytes, a new time stamp: nothing to make
    assert touched.returncode == 0 and "(0 thumbnails made" in touched.stderr, touched.stderr


def catalog_with(tmp_path: Path, **regions) -> Path:
    """A copy of the catalog with `name=(field, region)` set, and an entry that has no model anywhere."""
    data = yaml.safe_load((REPO / "tabletest" / "configs" / "objects.yaml").read_text())
    for name, (field, region) in regions.items():
        next(o for o in data["objects"] if o["name"] == name.replace("_", " "))[field] = region
    data["objects"].append({"name": "moon rock", "kind": "natural", "group": "misc", "size_m": 0.05})
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.parametrize(
    ("regions", "only", "message"),
    [
        (
            {"laptop": ("support", [0.5, 0.5, 0.5001, 0.5001])},
            "laptop,apple",
            "objects[42] ('laptop').support: support [0.5, 0.5, 0.5001, 0.5001] is at most 0.034 x 0.034 mm of this 0.34 m "
            "object, too small to hold anything; give a region of at least 5 mm on each side, or drop support",
        ),
        (
            {"mug": ("container", [0.45, 0.45, 0.4501, 0.9])},
            "mug,apple",
            "objects[25] ('mug').container: container [0.45, 0.45, 0.4501, 0.9] is at most 0.012 x 54 mm",
        ),
        (
            {"hourglass": ("support", [0.4, 0.4, 0.43, 0.43])},
            "hourglass,apple",
            "the hourglass's support region [0.4, 0.4, 0.43, 0.43] is 3.1 x 3.1 mm on its model, too small to hold anything",
        ),
        (
            {"bowl": ("support", [0.0, 0.0, 0.08, 0.08])},
            "bowl,apple",
            "the bowl's support region [0.0, 0.0, 0.08, 0.08] (12.8 x 12.8 mm) lies beside its model, over none of its top",
        ),
        (
            {"mug": ("container", [0.45, 0.45, 0.55, 0.55])},
            "mug,apple",
            "the mug's container opening (1.2 x 0.9 cm) is smaller than every other object of the catalog",
        ),
    ],
    ids=["support-of-no-area", "container-of-no-width", "support-small-on-its-model", "support-beside-its-model", "container-nothing-fits"],
)
def test_a_region_that_holds_nothing_is_refused_in_one_line(tmp_path, builtin_assets, regions, only, message):
    """Each catalog also holds an entry no assets folder has a model of: the container is judged all the same."""
    out = tmp_path / "vignettes.jsonl"
    result = run_cli(
        "vignettes", "--scenes", "random", "--count", "5", "--catalog", str(catalog_with(tmp_path, **regions)),
        "--only", only, "--assets", str(builtin_assets), "--out", str(out),
    )  # fmt: skip
    assert message in one_line_refusal(result) and not out.exists()


def test_objects_without_a_model_leave_good_containers_alone(tmp_path, builtin_assets):
    """An object without a model counts at its catalog size: it neither hides a bad container (above) nor
    condemns a good one, be it a new catalog entry or one the assets folder (only the objects drawn) lacks."""
    from tabletest.assets.builtin.build import build_assets
    from tabletest.config import load_catalog

    drawn = tmp_path / "drawn-only"
    build_assets(load_catalog(), drawn, ["mug", "lamp", "banana"], jobs=1)
    for assets, only in ((builtin_assets, "mug,bowl,apple"), (drawn, "mug,lamp,banana")):
        out = tmp_path / "vignettes.jsonl"
        result = run_cli(
            "vignettes", "--scenes", "random", "--count", "5", "--catalog", str(catalog_with(tmp_path)), "--only", only,
            "--assets", str(assets), "--out", str(out),
        )  # fmt: skip
        assert result.returncode == 0 and len(out.read_text().splitlines()) == 5, result.stderr


@pytest.fixture
def browser():
    """Debian's chromium, headless (as tests/test_gallery.py drives it)."""
    from selenium import webdriver

    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.fail("the gallery tests drive Debian's chromium: run scripts/ci/browser.sh install as root (scripts/test.sh does)")
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")), options=options)
    yield driver
    driver.quit()


@pytest.mark.browser
def test_the_gallery_links_an_image_whose_name_holds_a_hash(ds, tmp_path, browser):
    """A name a record may hold ('#' is allowed in one) is linked as itself, not cut at the '#'."""
    from urllib.parse import urlencode

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    record = records(ds)[0]
    (ds / record["file_name"]).rename(ds / "images" / "a#1.png")
    edit_first(ds, lambda r: r.__setitem__("file_name", "images/a#1.png"))
    site = tmp_path / "site"
    assert gallery(ds, site).returncode == 0
    browser.get(f"{(site / 'index.html').as_uri()}#{urlencode({'id': record['id']})}")
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "detail").is_displayed())
    image = browser.find_element(By.CSS_SELECTOR, "#d-view img")
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return arguments[0].complete", image))
    assert browser.execute_script("return arguments[0].naturalWidth", image) == 64


def test_a_mask_of_another_size_than_its_image_is_refused_not_drawn_askew(ds, tmp_path):
    from PIL import Image

    record = records(ds)[0]
    Image.new("L", (32, 24)).save(ds / record["mask_file_name"])
    refused = one_line_refusal(show(ds, tmp_path / "show.png"))
    assert f"{ds / record['mask_file_name']} is 32x24 pixels, its image 64x48" in refused, refused
