"""Instruction-tuning files: LLaVA's JSON and the ShareGPT `messages` form LLaMA-Factory reads.

Each sample is one question about one image (or, with `--questions hierarchy`, about a scene and its
partner or other view), answered with its gold text; `--variations` sets how many of the study's
variations each scene gives, `--split-by` holds out scenes or whole objects. Images sit under
`images/`, referenced relative to the export folder.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Callable
from typing import IO

from tabletest.export.run import Job
from tabletest.layout.split import TRAIN
from tabletest.prompts.hierarchy.balance_report import AnswerTally, report, write_report
from tabletest.files.reading import images_asked
from tabletest.files.jsonl import atomic_output, dumps

IMAGE_TOKEN = "<image>"
MULTI_IMAGE = "_multi_image"  # `train_multi_image.json`: LLaVA's samples of several images, apart from its one-image ones
VIDEO = "_video"  # `train_video.json`: with `--sequences video`, LLaVA-Video's samples of a sequence as one video
BALANCE = "question_balance.md"


def llava_sample(query: dict, image: str) -> dict:
    """One image as LLaVA's training code opens it, or a list of them with an `<image>` each, as
    LLaVA-OneVision's (LLaVA-NeXT's `train.py`) reads a multi-image sample."""
    images = images_asked(query)
    return {
        "id": query["qid"],
        "image": images[0] if len(images) == 1 else images,  # the image, or its marked copy
        "conversations": [
            {"from": "human", "value": f"{IMAGE_TOKEN}\n" * len(images) + query["text"]},
            {"from": "gpt", "value": query["gold"]},
        ],
        **wording(query),
    }


def llava_video_sample(query: dict, video: str) -> dict:
    """A sequence as one video, as LLaVA-Video's training code (LLaVA-NeXT's `train.py`) opens it: `video` relative
    to its `--video_folder`, one `<image>` standing for the video's frames."""
    return {
        "id": query["qid"],
        "video": video,
        "conversations": [
            {"from": "human", "value": f"{IMAGE_TOKEN}\n{query['text']}"},
            {"from": "gpt", "value": query["gold"]},
        ],
        **wording(query),
    }


def sharegpt_sample(query: dict, image: str) -> dict:
    """One `<image>` per image, in order, as LLaMA-Factory matches them (two for a question about a scene
    and its counterfactual partner)."""
    images = images_asked(query)
    return {
        "id": query["qid"],
        "messages": [
            {"role": "user", "content": IMAGE_TOKEN * len(images) + query["text"]},
            {"role": "assistant", "content": query["gold"]},
        ],
        "images": images,
        **wording(query),
    }


def wording(query: dict) -> dict:
    """A question of the hierarchy's template and phrasing, so a user can hold phrasings out (none for the study's)."""
    return {"template": query["template"], "phrasing": query["phrasing"]} if "template" in query else {}


class _JsonArray:
    """A JSON array written one element at a time (LLaVA's loader reads one JSON document)."""

    def __init__(self, fh: IO[str]) -> None:
        self.fh, self.first = fh, True
        fh.write("[")

    def write(self, item: dict) -> None:
        self.fh.write(("\n" if self.first else ",\n") + dumps(item))
        self.first = False

    def close(self) -> None:
        self.fh.write("\n]\n")


class _JsonLines:
    def __init__(self, fh: IO[str]) -> None:
        self.fh = fh

    def write(self, item: dict) -> None:
        self.fh.write(dumps(item) + "\n")

    def close(self) -> None:
        pass


def question_tally(job: Job) -> AnswerTally | None:
    """A tally of the samples' questions for `question_balance.md`: the hierarchy's (the study's prompts
    have no answer types or templates to balance)."""
    return AnswerTally(job.options.seed) if job.options.questions == "hierarchy" else None


def write_balance(job: Job, tally: AnswerTally | None) -> str:
    """Write `question_balance.md` of the tallied questions into the export; return the card's line linking it."""
    if tally is None:
        return ""
    write_report(job.staging.file(BALANCE), report(job.options.seed, tally))
    return (
        f"\n\nHow far each skill's and question template's gold answers can be guessed without the image "
        f"(chance, the best constant answer, a text-only prior): [{BALANCE}]({BALANCE})."
    )


def _write_samples(
    job: Job, suffix: str, writer: Callable, sample: Callable, tally: AnswerTally | None, apart: str = ""
) -> Counter[str]:
    """Every question of every split as a sample (each added to `tally`); with `apart`, those about several images
    go to `<split><apart><suffix>` instead (opened on the first), for tools that read one image per sample, and with
    `--sequences video` those about a sequence to `<split>_video<suffix>`, as LLaVA-Video's samples."""
    counts: Counter[str] = Counter()
    with contextlib.ExitStack() as stack:

        def opened(name: str):
            return writer(stack.enter_context(atomic_output(job.staging.file(name))))

        files = {s: opened(f"{s}{suffix}") for s in job.split.names}
        for split, record in job.scenes():
            image = job.place_image(record)
            for query in job.queries(record):
                name, video = split, job.video(query, record)
                if video is not None or (apart and len(images_asked(query)) > 1):
                    name = f"{split}{VIDEO if video is not None else apart}"
                    if name not in files:
                        files[name] = opened(f"{name}{suffix}")
                files[name].write(llava_video_sample(query, video) if video is not None else sample(query, image))
                counts[name] += 1
                if tally is not None:
                    tally.add(query)
        for f in files.values():
            f.close()
    return counts


def _describe(job: Job) -> str:
    options = job.options
    return (
        f"Questions: prompt types {','.join(map(str, options.types))} of the TableTest study, "
        f"`--variations {options.variations}`, seed {options.seed}; each answered with its gold text."
    )


def export_llava(job: Job) -> dict:
    tally = question_tally(job)
    counts = _write_samples(job, ".json", _JsonArray, llava_sample, tally, apart=MULTI_IMAGE)
    balance = write_balance(job, tally)
    multi = ""
    if f"{TRAIN}{MULTI_IMAGE}" in counts:
        multi = f"""

Questions about several images (a scene and its counterfactual partner or another view, or the frames of a
sequence) are in `train{MULTI_IMAGE}.json`, each with `image` a list and an `<image>` per image, as LLaVA-OneVision's
training code (LLaVA-NeXT) reads them; it takes both files at once:

```bash
python llava/train/train_mem.py --data_path "{job.out}/{{train,train{MULTI_IMAGE}}}.json" --image_folder {job.out} ...
```"""
    if f"{TRAIN}{VIDEO}" in counts:
        multi += f"""

Questions about a sequence of frames are in `train{VIDEO}.json`, each showing the sequence as one video (`video`:
`videos/<scene>.mp4`, H.264, one frame a second), as LLaVA-Video's training code (LLaVA-NeXT) reads them:

```bash
python llava/train/train_mem.py --data_path "{job.out}/{{train,train{VIDEO}}}.json" --image_folder {job.out} --video_folder {job.out} ...
```"""
    job.write_card(
        "TableTest (LLaVA instruction tuning)",
        f"""Questions about where everyday objects stand on a table, with their true answers, in LLaVA's
conversation format (`id`, `image` relative to this folder, `conversations`).

```bash
python llava/train/train_mem.py --data_path {job.out}/train.json --image_folder {job.out} ...
```{multi}

{_describe(job)}{balance}""",
        {"task_categories": ["visual-question-answering"]},
        sum(counts.values()),
    )
    return {"samples": dict(counts)}


def export_sharegpt(job: Job) -> dict:
    tally = question_tally(job)
    counts = _write_samples(job, ".jsonl", _JsonLines, sharegpt_sample, tally)
    balance = write_balance(job, tally)
    info = {
        f"tabletest_{split}": {
            "file_name": f"{split}.jsonl",
            "formatting": "sharegpt",
            "columns": {"messages": "messages", "images": "images"},
            "tags": {"role_tag": "role", "content_tag": "content", "user_tag": "user", "assistant_tag": "assistant"},
        }
        for split in job.split.names
    }
    with atomic_output(job.staging.file("dataset_info.json")) as fh:
        fh.write(json.dumps(info, indent=2) + "\n")
    job.write_card(
        "TableTest (ShareGPT / LLaMA-Factory)",
        f"""Questions about where everyday objects stand on a table, with their true answers, in the ShareGPT
`messages` form with a LLaMA-Factory `dataset_info.json` (datasets {", ".join(info)}).

```bash
llamafactory-cli train --dataset_dir {job.out} --dataset tabletest_train --template qwen2_vl ...
```

{_describe(job)}{balance}""",
        {"task_categories": ["visual-question-answering"]},
        sum(counts.values()),
    )
    return {"samples": dict(counts)}
