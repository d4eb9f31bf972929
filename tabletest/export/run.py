"""One export from start to finish: check the inputs, stream the render into a format, land it whole.

`tabletest export` is a thin layer of flags over `run_export`; each format module holds one
`export(job)` function that streams `job.scenes()` into files under `job.staging`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from tabletest import __version__
from tabletest.config import Catalog
from tabletest.errors import UserError
from tabletest.export import card
from tabletest.files.dataset import MASK, RenderDataset
from tabletest.export.hierarchy_queries import hierarchy_queries
from tabletest.export.queries import Variations, queries
from tabletest.layout.split import BY_LABEL, TEST, TRAIN, VALIDATION, Split, SplitBy, labels, make_split
from tabletest.export.marked import marked_png
from tabletest.export.png import png_problem
from tabletest.files.images import open_image
from tabletest.files.jsonl import atomic_bytes
from tabletest.prompts.hierarchy.maps import map_text, mapped_first
from tabletest.prompts.hierarchy.marks import marked_file
from tabletest.truth.marks import place_marks
from tabletest.truth.seen import seen_objects
from tabletest.export.staging import Staging, check_out, place
from tabletest.export.video import sequence_of, video_name, write_video
from tabletest.files.reading import images_asked
from tabletest.prompts.battery import PROMPT_TYPES
from tabletest.prompts.hierarchy.generate import drawn_from, views_made
from tabletest.prompts.hierarchy.of_render import Asking, RenderQuestions
from tabletest.prompts.hierarchy.pairs import Companions
from tabletest.prompts.sources import scene_input
from tabletest.files.lock import output_lock, reading_lock
from tabletest.files.paths import output_outside
from tabletest.files.records import RenderRecord
from tabletest.truth.described import described

HIERARCHY_FORMS = ("questions", "captions")  # what an export of images asks: its stories are text alone


@dataclass(frozen=True)
class ExportOptions:
    variations: Variations = "paper"
    types: tuple[int, ...] = PROMPT_TYPES
    split_by: SplitBy | None = None
    val_fraction: float = 0.0
    seed: int = 0
    shard_size: int = 1000
    shard_mb: float = 500.0
    assets: Path | None = None
    segmentation: bool | None = None  # COCO masks: None takes them when the render has them
    evaluation: bool = False  # an evaluation set: its one split is `test`
    questions: str = "study"  # study: the prompt battery; hierarchy: `tabletest questions`
    balance: bool = False  # hierarchy: keep only what `tabletest questions --balance` keeps
    modality: str = "image"  # text: questions about each scene's vignette, no image (the RL and preference formats)
    reasoning: bool = False  # the prompt asks for reasoning in <think>, then the answer in <answer> (trl, verl)
    coordinates: str = "pixels"  # hierarchy: how points and boxes are asked for and answered
    marks: str | None = None  # hierarchy: numbered marks on a copy of each image (`numbers`, `boxes`), and questions about them
    map_first: bool = False  # hierarchy: each answer about an image after the scene's map
    sequences: str = "images"  # a sequence's frames as a list of images, or (video) as one video file (llava, lmms-eval)


class Job:
    """What every format needs: the render's records with their split, images placed, the card written.
    `digest` names what the export holds (the render's records, the format and its options), wherever
    the render lies."""

    def __init__(self, fmt: str, dataset: RenderDataset, out: Path, options: ExportOptions, catalog: Catalog) -> None:
        self.fmt, self.dataset, self.out, self.options, self.catalog = fmt, dataset, out, options, catalog
        # scene id -> what it, its views and its partners hold out by: their objects, or their labels (tables and skies, looks)
        self._family_shows: dict[str, set[str]] = {}
        if options.split_by in ("object", *BY_LABEL):
            for record in dataset.records():
                self._family_shows.setdefault(record.made_from or record.id, set()).update(self._shows(record))
        shown = (n for family in self._family_shows.values() for n in family)
        whole = TEST if options.evaluation else TRAIN
        self.split: Split = make_split(options.split_by, options.val_fraction, options.seed, shown, whole)
        if self.split.by is not None:
            self._refuse_an_empty_split()
        fingerprint = {
            "tabletest": __version__,
            "format": fmt,
            "dataset": str(dataset.root.resolve()),
            "metadata_sha256": dataset.digest(),
            "options": {**asdict(self.options), "assets": str(options.assets) if options.assets else None},
        }
        self.staging = Staging(out, fingerprint)
        same_anywhere = {k: v for k, v in fingerprint.items() if k != "dataset"}
        self.digest = hashlib.sha256(json.dumps(same_anywhere, sort_keys=True).encode()).hexdigest()
        self.image_counts: Counter[str] = Counter()  # per split: every record (a scene, its views, its partners)
        self.scene_counts: Counter[str] = Counter()  # per split: the scenes of the set alone
        self.objaverse: dict[str, str] = {}
        self.hdris: set[str] = set()  # the HDRIs random scenes were lit by, to credit
        # pairs views and partners with their scene, for questions about both, and a scene's views, for those about all
        self._companions = Companions(views_made(dataset.root))
        # the record last yielded, its scene's line (a view or partner), its sequence's (the last frame of one) and
        # its scene's photos (the last view of one)
        self._made_from: tuple[str, dict | None, list[dict] | None, list[dict] | None] = ("", None, None, None)
        self._videos: set[str] = set()  # the sequences' videos written so far
        self._marked: dict[str, bytes] = {}  # the marked copies of the record last drawn and of its scene, as PNGs

    def _refuse_an_empty_split(self) -> None:
        """A split with no scene is a training or validation file of `[]`: say so before writing anything."""
        counts = Counter(self._split_of(record) for record in self.dataset.records())
        empty = [name for name in self.split.names if not counts[name]]
        if empty:
            o = self.options
            raise UserError(
                f"--split-by {o.split_by} --val-fraction {o.val_fraction} leaves {empty[0]} with no scene "
                f"(of {sum(counts.values())}, all went to {max(counts, key=counts.get)}); "
                + ("lower --val-fraction" if empty[0] == TRAIN else "raise --val-fraction")
                + " or export more scenes"
            )

    def held_out_reach(self) -> str:
        """Why validation's share of the scenes is not `--val-fraction` with a split that holds out objects or labels:
        the fraction is of what the render shows, and validation gets every scene showing any of it."""
        families = list(self._family_shows.values())
        what = {"object": "objects", "appearance": "tables and HDRIs", "look": "object looks"}[self.split.by]
        held = sum(1 for shown in families if self.split.of("", shown) == VALIDATION)
        per_scene = sum(len(shown) for shown in families) / len(families)
        return (
            f"validation holds every scene showing one of the {len(self.split.held_out)} held-out {what} (--val-fraction "
            f"{self.split.val_fraction} of the {len(set().union(*families))} the render shows): {held} of {len(families)} "
            f"scenes ({held / len(families):.0%}), as a scene with its views and partners shows {per_scene:.1f} of them"
        )

    def _shows(self, record: RenderRecord) -> tuple[str, ...]:
        """What the split holds a record out by: its objects, or its labels (`split.labels`)."""
        return tuple(record.names) if self.options.split_by == "object" else labels(self.options.split_by, record.raw)

    def _split_of(self, record: RenderRecord) -> str:
        """A scene's views and partners land in its split: all held out when any of them shows a held-out object
        or look (a replace partner brings in another), as a table or sky they share holds them all out."""
        scene = record.made_from or record.id
        return self.split.of(scene, self._family_shows.get(scene, ()))

    def scenes(self) -> Iterator[tuple[str, RenderRecord]]:
        """(split, record) for every scene of the render, in file order."""
        for record in self.dataset.records():
            split = self._split_of(record)
            scene = self._companions.scene_of(record.raw)  # seen even when a resume skips it
            self._made_from = (record.id, scene, self._companions.sequence_ending(record.raw), self._companions.views_ending(record.raw))
            self.image_counts[split] += 1
            self.scene_counts[split] += record.made_from is None
            if (appearance := getattr(record, "scene", None)) is not None:  # a record with its own table, lights and sky
                self.hdris.add(appearance.world.hdri)
            for obj in record.objects:
                if obj.source == "objaverse":
                    self.objaverse[obj.name] = obj.uid
            yield split, record

    @staticmethod
    def counted(images: Counter, scenes: Counter, split: str | None = None) -> str:
        """`42 images of 8 scenes (with their views, partners and frames)`, or `8 images` where each scene is one."""
        n_images = images[split] if split else sum(images.values())
        n_scenes = scenes[split] if split else sum(scenes.values())
        return f"{n_images} images" + (f" of {n_scenes} scenes (with their views, partners and frames)" if n_images != n_scenes else "")

    def in_split(self, split: str, relative: str = "") -> str:
        """Where a split's file goes: OUT itself without --split-by, else OUT/train/ and OUT/validation/."""
        return relative if self.split.by is None else f"{split}/{relative}"

    def queries(self, record: RenderRecord) -> Iterator[dict]:
        """The questions of `record` with their gold text: with `--questions hierarchy`, after a view or
        partner also those asked of it and its scene together (`images`: both), after the last frame of a sequence
        those asked of all its frames (`images`: each, in order), after a scene's last view those asked of all its
        photos (`images`: the scene's, then each view's)."""
        if self.options.questions == "hierarchy":
            scene, frames, photos = self._made_from[1:] if self._made_from[0] == record.id else (None, None, None)
            root = self.dataset.root
            frames = frames and [described(frame, root) for frame in frames]
            photos = photos and [described(photo, root) for photo in photos]
            raw = described(record.raw, root)
            asked = self._hierarchy.of(raw, scene and described(scene, root), frames, photos)
            made = hierarchy_queries(record.id, asked, self.options.variations, self.options.seed, self._hierarchy.nouns)
            return mapped_first(made, map_text(raw, self.catalog)) if self.options.map_first else made
        o = self.options
        return queries(scene_input(record.raw), o.types, o.variations, o.seed, o.modality)

    @cached_property
    def _hierarchy(self) -> RenderQuestions:
        """The render's questions as `tabletest questions --forms questions,captions --image-only` asks them (with
        `--balance` and `--seed` as given): the questions about its images, which an export ships; with
        `--modality text`, as `tabletest questions --text-only` asks them, about each scene's vignette."""
        o = self.options
        if o.modality == "text":
            asking = Asking(seed=o.seed, text_only=True, balance=o.balance)
        else:
            asking = Asking(HIERARCHY_FORMS, o.seed, balance=o.balance, image_only=True, coordinates=o.coordinates, marks=o.marks)  # type: ignore[arg-type]
        return RenderQuestions(self._described, self.catalog, asking, drawn_from(self.dataset.root), root=self.dataset.root)

    def _described(self) -> Iterator[dict]:
        """The render's records as they describe themselves (`truth.described`)."""
        return (described(r.raw, self.dataset.root) for r in self.dataset.records())

    def place_image(self, record: RenderRecord, folder: str = "", with_mask: bool = False) -> str:
        """Put the record's image (and its mask and depth, if asked and rendered; its marked copy with --marks)
        under `folder` of the export, hard-linked when possible, each checked first (`picture`); return the image's
        path in the export. Paths inside `folder` are the record's own."""
        files = [(record.file_name, self.dataset.image)]
        if with_mask:
            files += [(record.mask_file_name, self.dataset.mask), (record.depth_file_name, self.dataset.depth)]
        for relative, source in files:
            if relative is not None:  # else not rendered
                path = source(record)
                self.picture(record, path)
                place(path, self.staging.file(folder + relative))
        if self.options.marks and record.mask_file_name is not None:
            target = self.staging.file(folder + marked_file(record.raw))
            if not target.exists():  # placed by an earlier run of this export
                atomic_bytes(target, self.marked_copy(record))
        return folder + record.file_name

    def shown(self, record: RenderRecord, relative: str) -> bytes:
        """The bytes of an image a question asks about: the render's own file, or (`marked/<id>.png`) its marked copy
        or its scene's (a question about a view's marks and its scene's shows both)."""
        scene = self._made_from[1] if self._made_from[0] == record.id else None
        for raw in (record.raw, scene):
            if raw is not None and relative == marked_file(raw):
                return self.marked_copy(record, raw)
        return self.picture(record, self.dataset.file(relative))

    def marked_copy(self, record: RenderRecord, raw: dict | None = None) -> bytes:
        """The image of `raw` (the record's own line, or its scene's) with numbered marks on its objects, drawn from
        its mask (the record's and its scene's are kept: a record's questions ask about them one after another)."""
        raw = raw or record.raw
        if raw["id"] not in self._marked:
            image = self.picture(record, self.dataset.file(raw["file_name"]))
            mask = np.asarray(open_image(self.dataset.file(raw["mask_file_name"], MASK)))
            seen = seen_objects(raw, mask)
            drawn = marked_png(image, mask, place_marks(raw["id"], mask, seen), seen, self.options.marks or "")
            kept = {key: png for key, png in self._marked.items() if key in (record.id, record.made_from)}
            self._marked = {**kept, raw["id"]: drawn}
        return self._marked[raw["id"]]
    def video(self, question: dict, record: RenderRecord) -> str | None:
        """With `--sequences video`, the video of the sequence a question shows (`export.video`), written once; its
        path in the export. None for a question of no sequence, or without that option."""
        scene = sequence_of(question) if self.options.sequences == "video" else None
        if scene is None:
            return None
        name = video_name(scene)
        if name not in self._videos:
            target = self.staging.file(name)
            if not target.is_file():  # a resumed export keeps the videos it finished
                write_video([self.picture(record, self.dataset.file(f)) for f in images_asked(question)], target)
            self._videos.add(name)
        return name

    def picture(self, record: RenderRecord, path: Path) -> bytes:
        """The bytes of one of the render's PNGs shown with `record` (its image, mask or depth, or its scene's
        image) as they will ship: refused in one line unless whole and of the record's resolution, as a
        consumer would otherwise fail on it, or train on an image of another size, far into a run."""
        data = path.read_bytes()
        if problem := png_problem(data, tuple(record.render.resolution)):
            raise UserError(
                f"--dataset {self.dataset.root}: {path.relative_to(self.dataset.root).as_posix()} {problem}; render it "
                f"again: delete it and its record's line in {self.dataset.metadata.name}, then rerun the same "
                "`tabletest render` command (`tabletest verify` finds every such file)"
            )
        return data

    def write_card(self, title: str, body: str, header: dict | None = None, samples: int | None = None) -> None:
        assets = self.options.assets or Path(self.dataset.run_info().get("assets", {}).get("folder", "assets"))
        text = card.card(
            title,
            header or {},
            body + "\n\n" + self.summary_markdown(),
            card.credits(self.catalog, assets, self.objaverse),
            samples if samples is not None else sum(self.image_counts.values()),
        )
        with open(self.staging.file("README.md"), "w", encoding="utf-8") as fh:
            fh.write(text)

    def summary_markdown(self) -> str:
        lines = [
            "## Contents",
            "",
            (
                f"Exported by `tabletest export --format {self.fmt}` (TableTest {__version__}) from a render of "
                f"{self.counted(self.image_counts, self.scene_counts)}; scene ids (`2obj-000123`) join every file with the "
                "render's `metadata.jsonl`, the prompts and the scores."
            ),
            "",
            *(f"- {split}: {self.counted(self.image_counts, self.scene_counts, split)}" for split in self.split.names),
        ]
        if self.split.by in ("object", *BY_LABEL):
            lines.append(f"- held out of training (validation only): {', '.join(self.split.held_out)}")
            lines.append(f"- {self.held_out_reach()}")
        elif self.split.by == "scene":
            lines.append(
                f"- validation: scenes drawn with probability {self.split.val_fraction} (seed {self.split.seed})"
            )
        if self.options.questions == "hierarchy" and self.options.modality == "image":
            for line in self._located_lines():
                lines += ["", line]
        if self.hdris:
            lines += ["", f"The random scenes are lit by HDRIs that ship with Blender ({', '.join(sorted(self.hdris))}): CC0, by Greg Zaal, Poly Haven (https://polyhaven.com)."]
        return "\n".join(lines)

    def _located_lines(self) -> list[str]:
        """What the card says of points, boxes, marks and maps: the coordinates they are in (for which models)."""
        o = self.options
        lines = [
            f"Points and boxes are {COORDINATE_WORDS[o.coordinates]}, x to the right and y down from the image's top-left "
            "corner; a point is right on the object's visible pixels (or in the free table asked for), a box at IoU >= 0.5 "
            "with the object's visible extent. Answers are read as `(x, y)`, `[x1, y1, x2, y2]`, Molmo's "
            '`<point x="..." y="...">` and Qwen2-VL\'s `<|box_start|>(x1,y1),(x2,y2)<|box_end|>`; several are judged as the worst.'
        ]
        if o.marks:
            drawn = "discs" if o.marks == "numbers" else "discs and boxes"
            lines.append(f"Questions about marks show a copy of the image with numbered {drawn} on its objects (`marked/<id>.png`, embedded as `<id>-marked.png`).")
        if o.map_first:
            lines.append("Each answer about an image comes after a map of its objects seen from above (`<map>JSON</map>`): their cells on a square 3x3 grid just spanning them, you at the bottom, and where each with a front faces.")
        return lines


COORDINATE_WORDS = {
    "pixels": "in the image's own pixels (as Qwen2.5-VL writes them)",
    "0-1000": "from 0 to 1000 across the image's width and height (as Qwen2-VL and InternVL write them)",
    "0-1": "from 0 to 1 across the image's width and height",
    "percent": "in percent of the image's width and height (as Molmo writes its points)",
}
Exporter = Callable[[Job], dict]


def run_export(
    fmt: str, exporter: Exporter, dataset: Path, out: Path, options: ExportOptions, catalog: Catalog
) -> dict:
    started = time.time()
    render = RenderDataset.open(dataset)
    if options.marks and not render.has_masks():
        raise UserError(f"--marks draws marks where each object's mask says it is, and --dataset {dataset} has no masks; render it with --masks, or drop --marks")
    output_outside(out, dataset, "--out")
    check_out(out)
    with reading_lock(dataset, "export"), output_lock(out, beside=True, flag="--out"):
        job = Job(fmt, render, out, options, catalog)
        job.staging.open()
        try:
            details = exporter(job)
        except UserError:
            job.staging.discard_unless_resumable()
            raise
        summary = {
            "images": dict(job.image_counts),
            "scenes": dict(job.scene_counts),
            "split": job.split.describe(),
            **({"held_out_reach": job.held_out_reach()} if job.split.by in ("object", *BY_LABEL) else {}),
            **details,
            "wall_s": round(time.time() - started, 3),
            "resumed": job.staging.resumed,
        }
        summary["kept"] = job.staging.finish(summary)
        return summary
