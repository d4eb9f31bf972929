"""The image files a command opens because a record names them (`tabletest show`, `tabletest gallery`, the masks
that questions about points and boxes read).

A record is data: the path of each file it names is checked to stay inside the dataset (`RenderDataset.file`)
before anything opens, links or deletes by it, and each image is decoded whole here, in one place, so a
file that is not an image, is cut short, or is larger than any render (a decompression bomb) is one line
naming the file and the fix, never a traceback.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from PIL import Image

from tabletest.config import MAX_PIXELS
from tabletest.errors import UserError

REDO = "delete it and rerun the same `tabletest render` command to render it again"


def open_image(path: Path) -> Image.Image:
    """The image at `path`, decoded to the end; refused in one line where it cannot be: larger than any
    render may be (judged from its header, before any pixel is decoded), or not a whole image."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)  # a warning would let it decode
            with Image.open(path) as image:
                if image.width * image.height > MAX_PIXELS:
                    raise UserError(_too_large(path, f"{image.width}x{image.height} pixels"))
                image.load()
                return image
    except UserError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        pixels = re.search(r"\((\d+) pixels\)", str(error))
        raise UserError(_too_large(path, f"{int(pixels[1]):,} pixels" if pixels else "too many pixels")) from None
    except Exception as error:  # decoding hostile bytes: Pillow raises OSError, SyntaxError, ValueError and others
        reason = " ".join(str(error).replace(f" {str(path)!r}", "").split())[:120] or type(error).__name__
        raise UserError(f"{path} is not a readable image ({reason}); {REDO}") from None


def _too_large(path: Path, size: str) -> str:
    return (
        f"{path} has {size}, more than any render ({MAX_PIXELS:,} pixels at most), so it is not decoded "
        f"(a decompression bomb); {REDO}"
    )
