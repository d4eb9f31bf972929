"""`tabletest gallery`: a static site of a render folder, opened from disk in a real browser (Debian's
chromium, headless, driven by selenium). Its filters narrow the thumbnails to the scenes the records say,
a click shows the right scene with its labels, a missing or unreadable image is marked and the rest
still builds, and a second build makes only what changed."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

import pytest
from conftest import run_cli
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from tabletest.files.dataset import RenderDataset
from tabletest.show.gallery import build

pytestmark = [pytest.mark.render, pytest.mark.browser]  # a real render's folder, in a real browser


@pytest.fixture(scope="module")
def render(tmp_path_factory, builtin_assets) -> Path:
    """Five random scenes, a swap partner and a second view of each where possible, verified: one scene's
    record then disagrees with its pixels (a box moved), one image is unreadable, one is missing."""
    out = tmp_path_factory.mktemp("gallery") / "render"
    made = run_cli(
        "render", "--scenes", "random", "--count", "5", "--seed", "3", "--resolution", "64x48", "--samples", "1",
        "--counterfactuals", "swap", "--views", "2", "--masks", "--assets", str(builtin_assets), "--out", str(out), "--quiet",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    lines = (out / "metadata.jsonl").read_text().splitlines()
    tampered = json.loads(lines[1])
    tampered["objects"][0]["bbox_px"] = [0.0, 0.0, 4.0, 4.0]
    lines[1] = json.dumps(tampered)
    (out / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    verified = run_cli("verify", str(out))
    assert verified.returncode == 1 and (out / "verify.json").is_file(), verified.stdout + verified.stderr
    (out / json.loads(lines[2])["file_name"]).write_bytes(b"not a png")
    (out / json.loads(lines[3])["file_name"]).unlink()
    return out


@pytest.fixture(scope="module")
def records(render) -> list[dict]:
    return [json.loads(line) for line in (render / "metadata.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def site(render, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "gallery"
    built = run_cli("gallery", str(render), "--out", str(out), "--per-page", "6")
    assert built.returncode == 0, built.stderr
    assert "2 missing or unreadable" in built.stderr and "Traceback" not in built.stderr
    return out


@pytest.fixture(scope="module")
def browser():
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.fail("the gallery tests drive Debian's chromium: run scripts/ci/browser.sh install as root (scripts/test.sh does)")
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")), options=options)
    yield driver
    driver.quit()


def opened(browser, site: Path):
    browser.get((site / "index.html").as_uri())
    WebDriverWait(browser, 10).until(lambda b: "images" in b.find_element(By.ID, "count").text)
    return browser


def shown_ids(browser) -> list[str]:
    """Every thumbnail's scene id across the pages of the current filter, turning the pages."""
    ids = []
    while True:
        ids += [f.get_attribute("data-id") for f in browser.find_elements(By.CSS_SELECTOR, "#grid figure")]
        following = browser.find_element(By.ID, "next")
        if not following.is_enabled():
            return ids
        following.click()


def choose(browser, select: str, label: str | None) -> None:
    menu = Select(browser.find_element(By.ID, select))
    if label is None:
        menu.select_by_value("")
    else:
        menu.select_by_visible_text(label)


def test_the_page_loads_from_disk_without_errors_and_pages_through_every_image(browser, site, records, tmp_path):
    page = opened(browser, site)
    assert page.find_element(By.ID, "count").text == f"{len(records)} of {len(records)} images"
    assert page.find_element(By.ID, "page").text == f"page 1 of {-(-len(records) // 6)}"
    assert shown_ids(page) == [r["id"] for r in records]
    page.save_screenshot(str(tmp_path / "grid.png"))
    assert (tmp_path / "grid.png").stat().st_size > 10_000
    errors = [e for e in page.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


@pytest.mark.parametrize("select", ["f-object", "f-n", "f-relation", "f-family", "f-hidden", "f-verify"])
def test_each_filter_narrows_the_thumbnails_to_the_scenes_the_records_say(browser, site, records, render, select):
    page = opened(browser, site)
    verdicts = json.loads((render / "verify.json").read_text())["disagreements"]
    facets = {
        "f-object": lambda r: {o["name"] for o in r["objects"]},
        "f-n": lambda r: {str(len(r["objects"]))},
        "f-relation": lambda r: {k.replace("_", " ") for k in ("on", "inside", "left_of", "bigger", "next_to") if r["relations"].get(k)},
        "f-family": lambda r: {"partner: swap" if "counterfactual" in r else "other view" if "view" in r else "random"},
        "f-hidden": lambda r: {"some" if r["relations"].get("hidden") else "none"},
        "f-verify": lambda r: {"outdated" if r in records[2:4] else "disagrees" if r["id"] in verdicts else "agrees"},  # images broken after verify
    }
    counts = Counter(label for r in records for label in facets[select](r))
    assert len(counts) >= 2 or select == "f-hidden", f"the fixture gives {select} more than one value: {counts}"
    for label in counts:
        choose(page, select, label)
        expected = [r["id"] for r in records if label in facets[select](r)]
        assert page.find_element(By.ID, "count").text == f"{len(expected)} of {len(records)} images", (select, label)
        assert shown_ids(page) == expected, (select, label)
    choose(page, select, None)
    assert page.find_element(By.ID, "count").text == f"{len(records)} of {len(records)} images"


def test_filters_combine_and_a_link_names_them_and_a_scene(browser, site, records):
    page = opened(browser, site)
    name = Counter(o["name"] for r in records for o in r["objects"]).most_common(1)[0][0]
    choose(page, "f-object", name)
    choose(page, "f-family", "other view")
    expected = [r["id"] for r in records if "view" in r and name in {o["name"] for o in r["objects"]}]
    assert shown_ids(page) == expected and expected
    browser.get(f"{(site / 'index.html').as_uri()}#{urlencode({'object': name, 'family': 'other view', 'id': expected[-1]})}")
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "detail").is_displayed())
    assert shown_ids(browser) == expected and browser.find_element(By.ID, "d-title").text.startswith(expected[-1])


def test_a_click_shows_the_scene_its_labels_questions_and_record(browser, site, records, tmp_path):
    page = opened(browser, site)
    choose(page, "f-family", "partner: swap")
    figure = next(f for f in page.find_elements(By.CSS_SELECTOR, "#grid figure") if f.find_elements(By.TAG_NAME, "img"))
    record = next(r for r in records if r["id"] == figure.get_attribute("data-id"))
    figure.click()
    WebDriverWait(page, 10).until(lambda b: b.find_element(By.ID, "detail").is_displayed())
    assert page.find_element(By.ID, "d-title").text == f"{record['id']} (made from {record['counterfactual']['of']})"
    assert len(page.find_elements(By.CSS_SELECTOR, "#d-view svg rect.box2d")) == len(record["objects"])
    assert len(page.find_elements(By.CSS_SELECTOR, "#d-view svg line.box3d")) == 12 * len(record["objects"])
    assert json.loads(page.find_element(By.ID, "d-record").get_attribute("textContent")) == record
    rows = page.find_elements(By.CSS_SELECTOR, "#d-questions tbody tr")
    assert rows and all(len(row.find_elements(By.TAG_NAME, "td")) == 3 for row in rows)
    assert len({row.find_elements(By.TAG_NAME, "td")[0].text for row in rows}) >= 3, "questions of several skills"
    page.save_screenshot(str(tmp_path / "detail.png"))
    assert not [e for e in page.get_log("browser") if e["level"] == "SEVERE"]


def test_a_scenes_views_show_side_by_side_and_each_opens_on_a_click(browser, site, records):
    view = next(r for r in records[4:] if "view" in r)  # the render fixture spoils lines 2-4's images
    scene = view["view"]["of"]
    browser.get(f"{(site / 'index.html').as_uri()}#{urlencode({'id': view['id']})}")
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "detail").is_displayed())
    strip = browser.find_elements(By.CSS_SELECTOR, "#d-views figure")
    assert [f.text for f in strip] == [scene, view["id"]] and "current" in strip[1].get_attribute("class")
    assert strip[1].find_element(By.TAG_NAME, "img").get_attribute("src").endswith(f"thumbs/{view['id']}.jpg")
    strip[0].click()
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "d-title").text == scene)
    assert "current" in browser.find_elements(By.CSS_SELECTOR, "#d-views figure")[0].get_attribute("class")
    partner = next(r for r in records if "counterfactual" in r)  # a partner is no view: no strip
    browser.get(f"{(site / 'index.html').as_uri()}#{urlencode({'id': partner['id']})}")
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "d-title").text.startswith(partner["id"]))
    assert not browser.find_element(By.ID, "d-views").is_displayed()
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_missing_and_unreadable_images_are_marked(browser, site, records, render):
    page = opened(browser, site)
    marks = {f.get_attribute("data-id"): f.text for f in page.find_elements(By.CSS_SELECTOR, "#grid figure")}
    assert marks[records[2]["id"]].startswith("image unreadable") and marks[records[3]["id"]].startswith("image missing")
    assert not (site / "thumbs" / f"{records[2]['id']}.jpg").exists()
    assert (site / records[0]["file_name"]).read_bytes() == (render / records[0]["file_name"]).read_bytes()


def test_a_second_build_makes_only_what_changed(render, site, records):
    again = run_cli("gallery", str(render), "--out", str(site), "--per-page", "6")
    assert again.returncode == 0 and "(0 thumbnails made" in again.stderr, again.stderr
    image = render / records[0]["file_name"]
    image.write_bytes(image.read_bytes() + b"\0")  # rendered again, after the gallery: other bytes (past the PNG's end)
    once = run_cli("gallery", str(render), "--out", str(site), "--per-page", "6")
    assert once.returncode == 0 and "(1 thumbnails made" in once.stderr, once.stderr


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: (tmp / "empty").mkdir() or (tmp / "empty", tmp / "site"), "metadata.jsonl"),
        (lambda tmp: (tmp / "site.txt").write_text("x") and (None, tmp / "site.txt"), "is not a folder"),
        (lambda tmp: (tmp / "other").mkdir() or (tmp / "other" / "notes.txt").write_text("mine") and (None, tmp / "other"), "holds other files"),
    ],
)
def test_bad_input_is_one_line_and_nothing_is_lost(render, tmp_path, make, message):
    source, out = make(tmp_path)
    before = sorted(p.name for p in out.iterdir()) if out.is_dir() else None
    result = run_cli("gallery", str(source or render), "--out", str(out))
    assert result.returncode == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert (sorted(p.name for p in out.iterdir()) if out.is_dir() else None) == before


def test_every_scene_opens_from_its_details_file(browser, render, records, tmp_path):
    """Details come in files of a few scenes: the first and last of each file open as themselves."""
    site = tmp_path / "small-chunks"
    build(RenderDataset.open(render), site, per_page=100, workers=1, chunk_size=5)
    assert len(list((site / "data").glob("details-*.js"))) == -(-len(records) // 5)
    page = opened(browser, site)
    for k in sorted({0, 4, 5, 9, 10, len(records) - 1}):
        page.execute_script("document.getElementById('detail').hidden = true")
        page.find_elements(By.CSS_SELECTOR, "#grid figure")[k].click()
        WebDriverWait(page, 10).until(lambda b: b.find_element(By.ID, "detail").is_displayed())
        assert page.find_element(By.ID, "d-title").text.split(" ")[0] == records[k]["id"]

