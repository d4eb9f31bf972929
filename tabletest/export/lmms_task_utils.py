"""lmms-eval hooks of the TableTest tasks: the image, the study's question, and `tabletest score`'s judge.

`tabletest export --format lmms-eval` copies this file beside the task YAML files as `utils.py`;
lmms-eval imports it from there (`!function utils.process_results`), so TableTest must be installed
in the environment that runs lmms-eval. Answers are judged by `tabletest score`'s lenient reader.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

from PIL import Image


def _require_tabletest() -> None:
    """PyPI's `tabletest` is an unrelated package with the same import name: with it (or nothing) installed,
    lmms-eval would log the failed import and run nothing, yet exit 0. Stop the run instead, saying what to do."""
    fix = "pip install -e /path/to/TableTest in the environment that runs lmms-eval"
    found = importlib.util.find_spec("tabletest")
    if found is None:
        raise SystemExit(f"error: this lmms-eval task needs TableTest (distribution tabletest-vlm), which is not installed: {fix}")
    if not any((Path(folder) / "export" / "lmms_task_utils.py").is_file() for folder in found.submodule_search_locations or ()):
        raise SystemExit(
            "error: this lmms-eval task needs TableTest (distribution tabletest-vlm), but the `tabletest` module here "
            f"is another package (PyPI's tabletest?): run pip uninstall -y tabletest, then {fix}"
        )


_require_tabletest()

from tabletest.config import load_catalog  # noqa: E402  (after the check: its error is the one to see)
from tabletest.files.reading import images_asked  # noqa: E402
from tabletest.score.answer import judge_answer  # noqa: E402
from tabletest.score.lexicon import Lexicon, load_lexicon  # noqa: E402

HERE = Path(__file__).resolve().parent


class TableTestTask:
    """The task lmms-eval builds from a TableTest task file (`class: !function utils.TableTestTask`): its
    own ConfigurableTask, with the data files named relative to this folder made absolute, so the export
    reads its own questions wherever it is (lmms-eval would read them from the working directory)."""

    def __new__(cls, config: dict):
        from lmms_eval.api.task import ConfigurableTask  # only lmms-eval builds tasks, in its environment

        return ConfigurableTask(config=resolved(config))

    def __init__(self, config: dict) -> None:
        """Never runs (`__new__` returns the task); its `config` tells lmms-eval to pass the task's config."""


def resolved(config: dict) -> dict:
    """The task's config without `class`, its data files as paths under this folder."""
    kwargs = config["dataset_kwargs"]
    files = {split: str(HERE / path) for split, path in kwargs["data_files"].items()}
    rest = {key: value for key, value in config.items() if key != "class"}
    return {**rest, "dataset_kwargs": {**kwargs, "data_files": files}}


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    return load_lexicon(load_catalog())


def doc_to_visual(doc: dict) -> list[Image.Image] | list[str]:
    """The question's images in order: one, a scene and its counterfactual partner or other view, or a sequence's
    frames; or, for a sequence exported as a video (`--sequences video`), the video's path, as lmms-eval's video
    tasks give it to the models that read videos."""
    if doc.get("video"):
        return [str(HERE / doc["video"])]
    return [_rgb(HERE / name) for name in images_asked(doc)]


def _rgb(path: Path) -> Image.Image:
    with Image.open(path) as image:
        return image.convert("RGB")


def doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{doc['text']}{kwargs.get('post_prompt', '')}"


def process_results(doc: dict, results: list[str]) -> dict[str, float]:
    """`accuracy`: the answer is correct; `unparsed`: it could not be read as any answer (counted wrong); for a
    length or an angle also `mra` (mean relative accuracy) and `within_2x` (within half to twice the truth).
    Judged by `tabletest score`'s own judge; a doc it cannot judge stops the run, naming the problem."""
    judged = judge_answer(doc, results[0], lexicon())
    scores = {"accuracy": float(judged.correct), "unparsed": float(judged.status == "unparsed")}
    if judged.mra is not None:
        scores |= {"mra": judged.mra, "within_2x": judged.within_2x}
    return scores
