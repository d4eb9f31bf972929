"""Benchmark `tabletest gallery` on a folder of many scenes: the build, a second build, a build after the
folder grew, the size of what a page loads, and how long a browser takes to open and filter it.

    python scripts/bench_gallery.py --scenes 100000

The folder is a stand-in: a few random scenes rendered for real at the default 1024x768 (1 sample), their
records copied under new ids up to `--scenes`, each image a hard link to one of the rendered PNGs, so every
thumbnail still decodes a full-size render and every scene's details still ask all its questions. Each
build is `tabletest gallery` in a fresh process; the browser is Debian's chromium (headless, selenium).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench_export import MEASURED_CLI  # noqa: E402  (scripts/ is on the path when a script runs)

from tabletest.show.gallery import DETAIL_CHUNK  # noqa: E402

REAL = 6  # scenes rendered for real; the rest are copies of them


def cli(*args: str) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MEASURED_CLI, *args], capture_output=True, text=True, cwd=REPO)
    if done.returncode:
        sys.exit(done.stderr[-3000:])
    return time.perf_counter() - start, done.stderr


def stand_in(real: Path, folder: Path, scenes: int, start: int = 0) -> None:
    """`scenes` records (ids from `start`) copied from the real render's, their images hard links to its PNGs."""
    records = [json.loads(line) for line in (real / "metadata.jsonl").read_text().splitlines()]
    (folder / "images").mkdir(parents=True, exist_ok=True)
    with open(folder / "metadata.jsonl", "a") as fh:
        for k in range(start, start + scenes):
            record = dict(records[k % len(records)], id=f"rnd0-{k:07d}", index=k, file_name=f"images/rnd0-{k:07d}.png")
            record.pop("mask_file_name", None)
            record.pop("depth_file_name", None)
            os.link(real / records[k % len(records)]["file_name"], folder / record["file_name"])
            fh.write(json.dumps(record) + "\n")
    if not (folder / "run.json").exists():
        shutil.copyfile(real / "run.json", folder / "run.json")


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and p.stat().st_nlink == 1)


def browse(site: Path) -> str:
    """Seconds for headless chromium to open the site and show the first page, and to apply one filter."""
    from selenium import webdriver
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")), options=options)
    try:
        start = time.perf_counter()
        driver.get((site / "index.html").as_uri())
        WebDriverWait(driver, 120).until(lambda d: " of " in d.find_element(By.ID, "count").text)
        opened = time.perf_counter() - start
        start = time.perf_counter()
        Select(driver.find_element(By.ID, "f-object")).select_by_index(1)
        filtered = time.perf_counter() - start
        return f"opened with its first page in {opened:.2f} s, one filter applied in {filtered:.2f} s ({driver.find_element(By.ID, 'count').text})"
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=100_000)
    parser.add_argument("--grow", type=int, default=1000, help="scenes added before the third build")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f} at the start")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(tmp / "cache")
        real = tmp / "real"
        cli("render", "--scenes", "random", "--count", str(REAL), "--seed", "0", "--samples", "1", "--out", str(real), "--quiet")
        folder, site = tmp / "folder", tmp / "site"
        stand_in(real, folder, args.scenes)
        print(f"stand-in: {args.scenes:,} scenes, images hard links to {REAL} real 1024x768 renders")
        for label, grow in (("first build", 0), ("second build, nothing new", 0), (f"after {args.grow:,} more scenes", args.grow)):
            if grow:
                stand_in(real, folder, grow, start=args.scenes)
            wall, said = cli("gallery", str(folder), "--out", str(site))
            peak = int(said.rsplit("peak_kib=", 1)[1]) // 1024
            print(f"{label:<30} {wall:7.1f} s  {said.splitlines()[0].split(' -> ')[0]}  peak RSS {peak} MiB")
        index = (site / "data" / "index.js").stat().st_size
        details = sorted(p.stat().st_size for p in (site / "data").glob("details-*.js"))
        print(f"a page loads data/index.js: {index / 2**20:.1f} MiB for {args.scenes + args.grow:,} scenes ({index / (args.scenes + args.grow):.0f} bytes a scene); "
              f"a click loads one details file: median {details[len(details) // 2] / 2**10:.0f} KiB ({DETAIL_CHUNK} scenes)")
        print(f"site: {size(site) / 2**20:,.0f} MiB written besides the hard-linked images (thumbnails {size(site / 'thumbs') / 2**20:,.0f} MiB)")
        if shutil.which("chromedriver"):
            print(f"browser: {browse(site)}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
