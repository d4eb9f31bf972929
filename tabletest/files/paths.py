"""A record's paths are data, never a way out of its dataset: every path a record names (its image, mask,
depth map) and every identifier used as a file name is checked here before any command opens, links,
copies or deletes by it; and what a command writes in its own folder never passes through a link out of it.

A path must be relative, in forward slashes, without `..`, and must resolve (symbolic links followed)
inside the dataset's own folder; an identifier must be a plain file name. Anything else is refused in
one line naming the record's field and value.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from tabletest.errors import UserError

# What a record may name as a file: `images/<id>.png`, `masks/<id>.png`, `depth/<id>.png` and the like.
RELATIVE_PATH = r"^(?!/)(?!.*(^|/)\.\.?(/|$))[A-Za-z0-9_.#-]+(/[A-Za-z0-9_.#-]+)*$"
# What an identifier may be (a scene, a partner, a view): a plain file name, as `2obj-000123`, `rnd0-0000001-swap`.
IDENTIFIER = r"^[A-Za-z0-9][A-Za-z0-9_.#-]*$"
_RELATIVE, _IDENTIFIER = re.compile(RELATIVE_PATH), re.compile(IDENTIFIER)


def record_path(root: Path, relative: object, field: str) -> Path:
    """`root / relative` for the path a record's `field` names, refused unless it stays inside `root`."""
    if not isinstance(relative, str) or not _RELATIVE.match(relative):
        raise UserError(
            f"{root}: a record's {field} {relative!r} is not a path inside the dataset (relative, no '..', "
            f"e.g. images/<id>.png); restore metadata.jsonl from the render, or render the folder again"
        )
    path = root / PurePosixPath(relative)
    if not path.resolve().is_relative_to(root.resolve()):
        raise UserError(
            f"{root}: a record's {field} {relative!r} leads outside the dataset (a link to {path.resolve()}); "
            "replace the link with the file itself"
        )
    return path


def record_id(value: object, field: str = "id") -> str:
    """A record's identifier, refused unless it is a plain file name (it names thumbnails and exported files)."""
    if not isinstance(value, str) or not _IDENTIFIER.match(value):
        raise UserError(
            f"a record's {field} {value!r} is not an identifier (letters, digits, '.', '_', '-', '#'; no '/'); "
            "restore metadata.jsonl from the render, or render the folder again"
        )
    return value


def output_outside(out: Path, dataset: Path, flag: str) -> Path:
    """`out`, refused when it lies in (or is) the dataset a command reads: a command writes into a dataset
    only the files it owns, never over its images or records."""
    target, root = Path(out).resolve(), Path(dataset).resolve()
    if target == root or root in target.parents:
        raise UserError(f"{flag} {out} is inside the dataset {dataset}, whose files it would replace; write it elsewhere")
    return Path(out)


def no_link_out(root: Path, path: Path, writer: str) -> Path:
    """`path` (a file or folder `writer` writes under `root`), refused in one line naming the link where one on the
    way to it leads out of `root`: what is written there would land in a folder of someone else's, over its
    files. A link that stays inside `root`, and `root` itself being a link, are followed as they are."""
    inside = Path(root).resolve()
    if path.resolve().is_relative_to(inside):
        return path
    step = Path(root)
    for part in path.relative_to(root).parts:
        step = step / part
        if step.is_symlink() and not step.resolve().is_relative_to(inside):
            break
    raise UserError(
        f"{step} is a link to {step.resolve()}, outside {root}, and {writer} writes nothing through a link out of "
        "its folder; put a folder (or file) of its own there, moving in what the link leads to if it is this one's"
    )
