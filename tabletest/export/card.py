"""The dataset card (README.md with a YAML header) that every export carries, with its credits.

CC BY models must be credited wherever the images go, so an export of a render that used
Objaverse models lists each one's title, author, licence and source, taken from the lock file of
the assets folder the render used (`tabletest assets credits`).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tabletest.assets.objaverse.credits import credit_rows, render_credits
from tabletest.config import Catalog
from tabletest.errors import UserError

SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"))


def credits(catalog: Catalog, assets: Path, used: dict[str, str]) -> str | None:
    """The Markdown credits of the Objaverse models in `used` (name -> uid); None when there are none."""
    if not used:
        return None
    rows = {row["object"]: row for row in credit_rows(catalog, assets)}
    for name, uid in sorted(used.items()):
        if name not in rows or rows[name]["uid"] != uid:
            raise UserError(
                f"the render shows Objaverse model {uid} for {name!r} but {assets} does not record it; "
                "pass --assets DIR, the assets folder the render used, so the card can credit its author"
            )
    return render_credits([rows[name] for name in sorted(used, key=catalog.index_of)], "markdown")


def card(title: str, header: dict, body: str, credits_markdown: str | None, samples: int) -> str:
    """README.md text: the YAML header Hugging Face reads, the body, then the credits."""
    size = next((label for limit, label in SIZE_CATEGORIES if samples < limit), "1M<n<10M")
    meta = {
        "license": "other" if credits_markdown else "mit",
        "pretty_name": "TableTest",
        "size_categories": [size],
        "tags": ["synthetic", "spatial-reasoning", "tabletest"],
        **header,
    }
    if credits_markdown:
        meta["license_name"] = "per-model, see Attribution"
    builtin = "TableTest's built-in procedural models, released with TableTest under the MIT licence"
    attribution = (
        f"The images show these 3D models from Objaverse; their licences apply to the images. "
        f"Any other object is one of {builtin}.\n\n{credits_markdown}"
        if credits_markdown
        else f"Every object in the images is one of {builtin}.\n"
    )
    return (
        f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n\n# {title}\n\n{body.strip()}\n\n"
        f"## Attribution\n\n{attribution}"
    )
