"""The images of model files are read by Pillow's own decoders for plain raster formats, and only those.

Pillow identifies an image by trying every format it knows, and decodes EPS by running Ghostscript, an
external program. Nothing from an asset file may ever be executed, so every image of a model, whether
opened here (the glTF checks) or by trimesh while it reads a GLB, glTF, OBJ/MTL or PLY, is read as one
of `TEXTURE_FORMATS` or refused: glTF's PNG and JPEG (and WebP, by its EXT_texture_webp extension) and
the BMP and TGA files that OBJ materials often name. None of their decoders runs another program.
"""

from __future__ import annotations

import contextlib
import io
import os
import threading
from collections.abc import Iterator
from typing import IO

from PIL import Image, UnidentifiedImageError

TEXTURE_FORMATS = ("PNG", "JPEG", "WEBP", "BMP", "TGA")  # TGA last: it has no signature to recognise it by
_FORMAT_NAMES = "PNG, JPEG, WebP, BMP and TGA"

_pillow_open = Image.open
_state = threading.local()
_install = threading.Lock()


class TextureRefused(ValueError):
    """An image that is not read as a texture; the message continues "image N …" or "a texture …"."""


def decode_texture(raw: bytes, max_px: int | None = None) -> None:
    """Decode the image in full as one of `TEXTURE_FORMATS`; TextureRefused says why it cannot be.

    With `max_px`, an image with a side over it is refused from its header, before any pixel is decoded.
    """
    try:
        with _pillow_open(io.BytesIO(raw), formats=TEXTURE_FORMATS) as image:
            if max_px is not None and max(image.size) > max_px:
                width, height = image.size
                raise TextureRefused(f"of {width}×{height} px, over the {max_px} px a stored model may have")
            image.load()
    except TextureRefused:
        raise
    except UnidentifiedImageError:
        raise TextureRefused(_unread(raw[:16])) from None
    except Exception as err:  # noqa: BLE001 - whatever else Pillow raises, the texture cannot be shown
        raise TextureRefused(f"that does not decode ({type(err).__name__}: {err})") from None


@contextlib.contextmanager
def textures_only() -> Iterator[None]:
    """Within the block, in this thread, Pillow opens images only as `TEXTURE_FORMATS`.

    trimesh opens a model's images with Pillow and drops any it cannot open without a word, so an image
    refused inside the block is raised as TextureRefused when the block ends. Other threads are unaffected.
    """
    with _install:
        if Image.open is not _open_texture:
            Image.open = _open_texture  # trimesh looks `Image.open` up on the module at each call
    outer = getattr(_state, "refused", None)
    _state.refused = []
    try:
        yield
        if _state.refused:
            raise TextureRefused(f"a texture {_state.refused[0]}")
    finally:
        _state.refused = outer


def _open_texture(fp: str | os.PathLike | IO[bytes], mode: str = "r", formats: tuple[str, ...] | None = None):
    """`Image.open`, which inside `textures_only` tries no format outside `TEXTURE_FORMATS`."""
    refused = getattr(_state, "refused", None)
    if refused is None:
        return _pillow_open(fp, mode, formats)
    allowed = [f for f in (formats or TEXTURE_FORMATS) if f.upper() in TEXTURE_FORMATS]
    try:
        return _pillow_open(fp, mode, allowed)
    except UnidentifiedImageError:
        refused.append(_unread(_prefix(fp)))
        raise


def _prefix(fp: str | os.PathLike | IO[bytes]) -> bytes:
    if isinstance(fp, (str, bytes, os.PathLike)):
        with open(fp, "rb") as fh:
            return fh.read(16)
    fp.seek(0)
    return fp.read(16)


def _unread(prefix: bytes) -> str:
    """Why an image Pillow did not open as a texture was not read, named by the format its first bytes show."""
    found = _signature(prefix)
    if found is None:
        return "in no image format Pillow knows"
    if found in TEXTURE_FORMATS:
        return f"in no image format Pillow knows (it starts like {found}, but is not one)"
    return f"in {found} format, which is not read as a texture (only {_FORMAT_NAMES} are)"


def _signature(prefix: bytes) -> str | None:
    """The Pillow format whose signature `prefix` starts with; only signatures are compared, nothing is parsed."""
    Image.init()
    for name in Image.ID:
        accept = Image.OPEN[name][1]
        with contextlib.suppress(Exception):
            verdict = accept(prefix) if accept else False
            if verdict and not isinstance(verdict, str):
                return name
    return None
