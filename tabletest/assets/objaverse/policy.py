"""What an Objaverse model must satisfy to be used: an allowed licence, a GLB under a size limit.

Objaverse 1.0 annotations carry Sketchfab's licence slugs (`by`, `by-nc`, `cc0`, …). The licence
policy is a set of those slugs; the default allows use in any product, with attribution: CC BY and
CC0, never NC. Each licence also has the title and link the credits print.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletest.assets.limits import DEFAULT_MAX_TRIANGLES
from tabletest.errors import UserError


@dataclass(frozen=True)
class License:
    slug: str
    title: str
    url: str


LICENSES = {
    lic.slug: lic
    for lic in (
        License("by", "CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/"),
        License("by-sa", "CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/"),
        License("by-nd", "CC BY-ND 4.0", "https://creativecommons.org/licenses/by-nd/4.0/"),
        License("by-nc", "CC BY-NC 4.0", "https://creativecommons.org/licenses/by-nc/4.0/"),
        License("by-nc-sa", "CC BY-NC-SA 4.0", "https://creativecommons.org/licenses/by-nc-sa/4.0/"),
        License("by-nc-nd", "CC BY-NC-ND 4.0", "https://creativecommons.org/licenses/by-nc-nd/4.0/"),
        License("cc0", "CC0 1.0", "https://creativecommons.org/publicdomain/zero/1.0/"),
    )
}
DEFAULT_LICENSES = "by,cc0"
DEFAULT_MAX_MB = 50.0


@dataclass(frozen=True)
class Policy:
    """The licences allowed (slugs), the largest GLB accepted and the most triangles a model may have."""

    licenses: frozenset[str]
    max_bytes: int
    max_triangles: int = DEFAULT_MAX_TRIANGLES


def license_slug(name: str) -> str:
    """`CC-BY-NC 4.0`, `cc_by_nc`, `by-nc` → `by-nc`: the spellings people write for the same licence."""
    slug = "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())
    slug = slug.removesuffix("-4.0").removesuffix("-1.0").removesuffix("-4").removesuffix("-1")
    return "cc0" if slug in {"cc-0", "cc0"} else slug.removeprefix("cc-")


def parse_licenses(spec: str) -> frozenset[str]:
    """A comma-separated licence list as slugs; an unknown one is a UserError listing the known ones."""
    slugs = [license_slug(part) for part in spec.split(",") if part.strip()]
    unknown = [s for s in slugs if s not in LICENSES]
    if unknown or not slugs:
        what = f"unknown licence {unknown[0]!r}" if unknown else "no licence given"
        raise UserError(
            f"--licenses: {what}; write a comma-separated list of {', '.join(LICENSES)} (default {DEFAULT_LICENSES})"
        )
    return frozenset(slugs)


def describe(slug: str | None) -> License:
    """The licence's title and link; an unknown slug is shown as itself, with no link."""
    return LICENSES.get(license_slug(slug or ""), License(slug or "unknown", slug or "unknown", ""))
