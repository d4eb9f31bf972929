"""Where a command writes, on folders that are not what it left there: a folder it writes that is a link out
of its own (a render's images/, masks/, depth/, logs/ or metadata, a gallery's thumbs/, a resumed export's,
a layer set of composite mode's cache) is refused in one line naming the link, and nothing outside is
touched; a file under the name of an image no record holds is set aside, never replaced; the contact sheet
refuses a place inside a dataset and a folder; a full disk stops a gallery or a sheet leaving no temporary
file, and the gallery goes on when rerun; a verify.json of other types is read without a crash. Real
commands on tiny renders."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from tabletest.assets.builtin.build import build_assets
from tabletest.config import load_catalog
from tabletest.errors import UserError
from tabletest.export.staging import MARKER, Staging
from tabletest.files.digest import sha256_of
from tabletest.files.verdict import files_digest

from conftest import run_cli, worker_pids
from test_layer_cache_disk import small_disk  # noqa: F401 (a fixture: a tmpfs of its own)

pytestmark = pytest.mark.render  # every test here renders (or reads what a render made)

NAMES = ("mug", "lamp")
TINY = ["--resolution", "64x48", "--samples", "1", "--masks", "--quiet"]
YOURS = b"not yours to replace"


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    build_assets(load_catalog(), folder, list(NAMES), jobs=1)
    return folder


def render(out: Path, assets: Path, *args: str, mode: str = "direct") -> subprocess.CompletedProcess:
    only = ",".join(NAMES)
    return run_cli("render", "--objects", "1", "--only", only, "--out", str(out), "--assets", str(assets), "--mode", mode, *TINY, *args)


@pytest.fixture(scope="module")
def first(tmp_path_factory, assets) -> Path:
    """The first of the two one-object scenes rendered, with masks and depth: a render to resume."""
    out = tmp_path_factory.mktemp("first") / "render"
    made = render(out, assets, "--limit", "1")
    assert made.returncode == 0, made.stderr
    return out


@pytest.fixture
def resumable(first, tmp_path) -> Path:
    return Path(shutil.copytree(first, tmp_path / "render"))


def ids() -> list[str]:
    """The two scenes' ids, in the order a render takes them."""
    return sorted(f"1obj-{load_catalog().names.index(name):06d}" for name in NAMES)


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "metadata.jsonl").read_text().splitlines()]


def one_line_refusal(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("error: ")
    return result.stderr


def linked_out(path: Path, elsewhere: Path) -> Path:
    """Move what is at `path` to `elsewhere` (a folder of someone's, outside) and leave a link to it in its place."""
    elsewhere.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        shutil.move(path, elsewhere)
    else:
        elsewhere.mkdir()
    path.symlink_to(elsewhere, target_is_directory=elsewhere.is_dir())
    return path


@pytest.mark.parametrize("name", ["images", "masks", "depth", "logs", "metadata.jsonl"])
def test_a_render_resumed_through_a_link_out_of_its_folder_is_refused_naming_it(resumable, assets, tmp_path, name):
    """images/ a link to a folder of pictures outside, holding one under the next image's name: once replaced."""
    link = linked_out(resumable / name, tmp_path / "elsewhere" / name)
    yours = (tmp_path / "elsewhere" / name / f"{ids()[1]}.png") if link.is_dir() else None
    if yours:
        yours.write_bytes(YOURS)
    before = sorted((tmp_path / "elsewhere").rglob("*"))
    refused = one_line_refusal(render(resumable, assets, "--limit", "2"))
    assert refused.startswith(f"error: {link} is a link to {link.resolve()}, outside {resumable}, and a render writes nothing"), refused
    assert sorted((tmp_path / "elsewhere").rglob("*")) == before and (yours is None or yours.read_bytes() == YOURS)
    assert not worker_pids(resumable) and len(records(resumable if name != "metadata.jsonl" else link.resolve().parent)) == 1


def test_a_file_under_the_name_of_an_image_not_rendered_yet_is_set_aside_not_replaced(resumable, assets):
    """A render writes an image's files only after its record: what no record names is not the render's own."""
    done, next_one = ids()
    image, mask = resumable / "images" / f"{next_one}.png", resumable / "masks" / f"{next_one}.png"
    image.write_bytes(YOURS)
    Image.new("L", (4, 4)).save(mask)
    mask_bytes = mask.read_bytes()
    resumed = render(resumable, assets, "--limit", "2")
    assert resumed.returncode == 0, resumed.stderr
    assert "note: set aside 2 file(s) under the names of images no record in" in resumed.stderr, resumed.stderr
    assert f"images/{next_one}.png to {next_one}.png.set-aside" in resumed.stderr
    assert (resumable / "images" / f"{next_one}.png.set-aside").read_bytes() == YOURS
    assert (resumable / "masks" / f"{next_one}.png.set-aside").read_bytes() == mask_bytes
    assert [r["id"] for r in records(resumable)] == [done, next_one]
    with Image.open(image) as rendered:
        assert rendered.size == (64, 48)  # the render's own image, beside the file set aside
    again = render(resumable, assets, "--limit", "2")
    assert again.returncode == 0 and "set aside" not in again.stderr, again.stderr


def test_composite_mode_refuses_a_layer_set_that_is_a_link_out_of_its_cache(assets, tmp_path):
    cache = tmp_path / "layers"
    made = render(tmp_path / "composite", assets, "--limit", "1", "--layer-cache", str(cache), mode="composite")
    assert made.returncode == 0, made.stderr
    (layer_set,) = (p for p in cache.iterdir() if p.is_dir())
    link = linked_out(layer_set, tmp_path / "elsewhere" / layer_set.name)
    before = {p: p.read_bytes() for p in link.resolve().rglob("*") if p.is_file()}
    refused = one_line_refusal(render(tmp_path / "again", assets, "--limit", "2", "--layer-cache", str(cache), mode="composite"))
    assert refused.startswith(f"error: {link} is a link to {link.resolve()}, outside {cache}, and composite mode's layer cache"), refused
    assert {p: p.read_bytes() for p in link.resolve().rglob("*") if p.is_file()} == before


def test_a_merge_into_a_folder_whose_images_are_a_link_out_of_it_is_refused(first, tmp_path):
    out = tmp_path / "merged"
    out.mkdir()
    link = linked_out(out / "images", tmp_path / "elsewhere")
    refused = one_line_refusal(run_cli("merge", str(first), "--out", str(out)))
    assert refused.startswith(f"error: {link} is a link to {link.resolve()}, outside {out}, and a merge writes nothing"), refused
    assert not any((tmp_path / "elsewhere").iterdir())


def test_a_resumed_export_refuses_a_link_out_of_its_unfinished_folder(tmp_path):
    out, fingerprint = tmp_path / "export", {"format": "llava", "dataset": "d"}
    Staging(out, fingerprint).open()  # an export begun, then stopped
    partial = tmp_path / ".export.partial"
    assert (partial / MARKER).is_file()
    link = linked_out(partial / "images", tmp_path / "elsewhere")
    said = f"{link} is a link to {link.resolve()}, outside {partial}, and an export writes nothing"
    with pytest.raises(UserError, match=f"^{re.escape(said)}"):
        Staging(out, fingerprint).open()
    assert link.is_symlink() and (partial / MARKER).is_file()  # nothing of the stopped export was dropped
    shutil.move(partial, tmp_path / "moved")
    partial.symlink_to(tmp_path / "moved")
    with pytest.raises(UserError, match=f"^{re.escape(str(partial))} is a link to .*, where an export keeps its unfinished files"):
        Staging(out, fingerprint).open()


def gallery(dataset: Path, out: Path) -> subprocess.CompletedProcess:
    return run_cli("gallery", str(dataset), "--out", str(out), "--workers", "1")


def test_a_gallery_refuses_its_thumbnails_through_a_link_out_of_its_folder(first, tmp_path):
    site = tmp_path / "site"
    assert gallery(first, site).returncode == 0
    (site / "data" / "thumbs-made.json").unlink()  # every thumbnail to make again
    link = linked_out(site / "thumbs", tmp_path / "elsewhere")
    (yours,) = link.resolve().iterdir()
    yours.write_bytes(YOURS)
    refused = one_line_refusal(gallery(first, site))
    assert refused.startswith(f"error: {link} is a link to {link.resolve()}, outside {site}, and a gallery writes nothing"), refused
    assert yours.read_bytes() == YOURS


def test_a_gallery_reads_a_verify_json_of_other_types_without_a_crash(resumable, assets, tmp_path):
    assert render(resumable, assets, "--limit", "2").returncode == 0
    one, other = ids()
    for disputed, unreadable in (({one: "box: moved", other: ["box: moved"]}, [one]), ({one: [1, None], other: {"box": 1}}, [one, other])):
        verdict = {
            "metadata_sha256": sha256_of(resumable / "metadata.jsonl"), "images": 2, "disagreements": disputed, "partial": [],
            "files_sha256": {r["id"]: files_digest(resumable, r) for r in records(resumable)},
        }  # fmt: skip
        (resumable / "verify.json").write_text(json.dumps(verdict))
        site = tmp_path / f"site-{len(unreadable)}"
        built = gallery(resumable, site)
        assert built.returncode == 0 and "Traceback" not in built.stderr, built.stderr
        shown = ", ".join(repr(scene) for scene in unreadable)
        assert f"note: {resumable / 'verify.json'} holds the disagreements of {shown} as something else than lines" in built.stderr
        index = json.loads((site / "data" / "index.js").read_text().removeprefix("tabletestIndex(").removesuffix(");\n"))
        states = [index["vocab"]["verify"][k] for k in index["scenes"]["verify"]]
        assert states == ["not verified" if scene in unreadable else "disagrees" for scene in (one, other)]
    (resumable / "verify.json").write_text("[" * 100_000 + "]" * 100_000)  # no verdict at all: nested past any reader
    built = gallery(resumable, tmp_path / "site-deep")
    assert built.returncode == 0 and "Traceback" not in built.stderr, built.stderr


def fill(disk: Path, leave: int) -> Path:
    """Fill `disk` but for `leave` bytes."""
    filler = disk / "filler"
    filler.unlink(missing_ok=True)
    with open(filler, "wb") as fh:
        try:
            fh.write(b"\0" * max(0, shutil.disk_usage(disk).free - leave))
        except OSError:  # full a few bytes early: full all the same
            pass
    return filler


def temporaries(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def test_a_gallery_stopped_by_a_full_disk_leaves_no_temporary_and_goes_on_when_rerun(first, small_disk):
    """Stopped at several points (before its mark, among the images and thumbnails, among its data files)."""
    site = small_disk / "site"
    stopped = 0
    for leave in (0, 4096, 8192, 16384, 32768):
        filler = fill(small_disk, leave)
        built = gallery(first, site)
        if built.returncode:
            stopped += 1
            [line] = [line for line in built.stderr.splitlines() if line.startswith("error:")]
            assert line.startswith("error: the disk is full") and "Traceback" not in built.stderr, built.stderr
        assert not temporaries(small_disk), temporaries(small_disk)
        filler.unlink()
    assert stopped >= 2
    built = gallery(first, site)
    assert built.returncode == 0 and " 0 missing or unreadable)" in built.stderr, built.stderr
    assert (site / "index.html").is_file() and not temporaries(small_disk)


def sheet(out: Path, assets: Path) -> subprocess.CompletedProcess:
    return run_cli("assets", "sheet", str(out), "--only", "mug", "--cell", "32", "--assets", str(assets))


def test_the_sheet_refuses_a_place_in_a_dataset_even_through_a_link_and_a_folder(resumable, assets, tmp_path):
    image = resumable / records(resumable)[0]["file_name"]
    kept = image.read_bytes()
    (tmp_path / "shortcut").symlink_to(resumable / "images", target_is_directory=True)
    for out in (image, tmp_path / "shortcut" / image.name, resumable / "sheet.png", resumable / "images" / "new" / "sheet.png"):
        refused = one_line_refusal(sheet(out, assets))
        assert f"error: the sheet {out} is inside the dataset {resumable.resolve()}, whose files it would replace" in refused, refused
    assert image.read_bytes() == kept and not (resumable / "sheet.png").exists() and not (resumable / "images" / "new").exists()
    folder = tmp_path / "sheets"
    folder.mkdir()
    refused = one_line_refusal(sheet(folder, assets))
    assert f"error: {folder} is a folder; give the sheet a file name, e.g. {folder / 'sheet.png'}" in refused
    assert not any(folder.iterdir()) and not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


def test_a_sheet_stopped_by_a_full_disk_leaves_no_temporary(assets, small_disk):
    fill(small_disk, 0)
    stopped = sheet(small_disk / "sheet.png", assets)
    assert stopped.returncode == 2 and stopped.stderr.startswith("error: the disk is full"), stopped.stderr
    assert not temporaries(small_disk) and not (small_disk / "sheet.png").exists()
