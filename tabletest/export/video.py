"""A sequence's frames as one video file, for video models (`tabletest export --sequences video`).

Questions about a whole sequence (`prompts.hierarchy.sequences`) show its frames in order; the multi-image formats
list them as images, and with `--sequences video` the formats with a video convention point at one file instead:
LLaVA-Video's training samples name it in `video` (relative to `--video_folder`), lmms-eval's video tasks return its
path from `doc_to_visual`. The file is `videos/<scene>.mp4`: H.264 in MP4, 4:2:0 chroma (what decord, PyAV, OpenCV
and browsers all read), one frame a second, so a reader that samples one frame a second (LLaVA-Video's default)
gets every frame, each once. PyAV (FFmpeg's libraries, in its wheel) encodes it; it is the `video` extra.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from tabletest.errors import UserError
from tabletest.files.family import family_of
from tabletest.files.reading import images_asked
from tabletest.files.temp import temp_path

FPS = 1
CRF = 12  # x264's constant quality: decoded back, 41 dB PSNR against the PNGs at 320x240, 16 samples (27 dB at 64x48, 1 sample: noise)
VIDEOS = "videos"


def sequence_of(question: dict) -> str | None:
    """The scene whose sequence a question shows, where its images are the scene's frames 0, 1, ... in order; else None."""
    stems = [Path(name).stem for name in images_asked(question)]
    family = family_of(stems[0]) if len(stems) > 1 else None
    named = [family.match(stem) for stem in stems] if family is not None else []
    if not named or any(match is None for match in named):
        return None
    numbers = [0 if match["scene"] == stem else int(match["frame"] or -1) for match, stem in zip(named, stems)]
    same = all(match["scene"] == stems[0] for match in named)
    return stems[0] if same and numbers == list(range(len(stems))) else None


def video_name(scene_id: str) -> str:
    return f"{VIDEOS}/{scene_id}.mp4"


def require_video() -> None:
    """Refuse `--sequences video` in one line where PyAV is not installed."""
    import importlib.util

    if importlib.util.find_spec("av") is None:
        raise UserError("--sequences video encodes with PyAV, which is not installed: run pip install -e '.[video]' (or pip install av)")


def write_video(frames: Sequence[bytes], path: Path) -> None:
    """The PNG frames as an H.264 MP4 at `path` (written under a temporary name, then renamed)."""
    import av
    from PIL import Image

    pictures = [Image.open(io.BytesIO(png)).convert("RGB") for png in frames]
    width, height = pictures[0].size
    if width % 2 or height % 2:
        raise UserError(
            f"a video's frames are {width}x{height}, but H.264 in 4:2:0 needs an even width and height; render with an "
            "even --resolution, or export the sequences as images (drop --sequences video)"
        )
    partial = temp_path(path)
    with av.open(str(partial), "w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.options = {"crf": str(CRF)}
        for picture in pictures:
            container.mux(stream.encode(av.VideoFrame.from_image(picture)))
        container.mux(stream.encode())
    partial.replace(path)
