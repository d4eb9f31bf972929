"""Whether each image shows its own scene: the RGB's edges against the edges its masks and depth predict,
and, within a scene's family (its views and counterfactual partners), against each other member's.

Where the mask changes label, or the depth jumps (an object's outline, the table's edge against the
backdrop), the picture changes colour; elsewhere it mostly does not. So the mean colour gradient on
those predicted edges, over the mean elsewhere (the edge contrast), is high for an image and its own
masks: at least 3.0 in a 300-scene random render at 96x72, median 9. For another scene's image it is
low (median 1.4), and that image matches its own scene's masks several times better (5.8x for a swapped
pair) while an image matches no other scene's masks better than its own by more than 1.07x.

Images under `MIN_WIDTH_PX` are too noisy to compare (at 32x24 and 1 sample, a true image matched
another scene's masks 1.8x better). Scenes whose own contrast is low become suspects; once every
scene has been read, each suspect is compared with every scene outside its family (their masks read
again only when there is a suspect), so an image copied over another scene's is found whatever
scene it came from.

A scene's partners and views look too much alike for this: `family_match.py` judges them against each
other.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from tabletest.verify.family_match import Member, family_mismatches

MIN_WIDTH_PX = 64
SUSPECT_BELOW = 3.0  # own edge contrast under which an image is compared with every other scene's masks
BETTER_BY = 1.5  # another scene's masks fit this much better than its own: the image is not of its scene
MAX_SUSPECTS = 200
MAX_SIDE_PX = 256  # larger images are compared on a grid of pixels at most this many across
DEPTH_JUMP = 0.05  # a relative depth change this large is an edge
OPEN_FAMILIES = 16  # families kept while their members are read (a folder keeps a family's records together)


@dataclass(order=True)
class _Suspect:
    priority: float  # minus its own contrast: the heap keeps the lowest contrasts
    scene_id: str = field(compare=False)
    family: str = field(compare=False)
    gradient: np.ndarray = field(compare=False)
    best: tuple[float, str] = field(default=(0.0, ""), compare=False)  # the best-fitting other scene so far


@dataclass
class ImageMatcher:
    """Collects each scene's edge contrast as the audit reads it; `mismatches` compares the suspects
    with every scene and a family's images with each other."""

    compared: int = 0
    too_small: int = 0
    _suspects: list[_Suspect] = field(default_factory=list)
    _families: OrderedDict = field(default_factory=OrderedDict)  # family -> its members read so far
    _family_mismatches: list[tuple[str, str]] = field(default_factory=list)

    def add(
        self, scene_id: str, family: str, image: np.ndarray, mask: np.ndarray, depth: np.ndarray | None,
        labels: Mapping[str, int], replaced: tuple[str, str] | None = None,
    ) -> None:  # fmt: skip
        """A scene's image with its masks; `labels`: its objects' mask values by name; `replaced`: a replace
        partner's old and new object."""
        if image.shape[1] < MIN_WIDTH_PX or image.ndim != 3:
            self.too_small += 1
            return
        step = _step(image)
        gradient = np.ascontiguousarray(_gradient(image[..., :3].astype(np.float32))[::step, ::step])  # not a view: kept
        edges = np.ascontiguousarray(_edges(mask, depth)[::step, ::step])
        self.compared += 1
        own = contrast(gradient, edges)
        if own < SUSPECT_BELOW:
            suspect = _Suspect(-own, scene_id, family, gradient)
            (heapq.heappush if len(self._suspects) < MAX_SUSPECTS else heapq.heappushpop)(self._suspects, suspect)
        members = self._families.setdefault(family, [])
        if all(m.scene_id != scene_id for m in members):  # a line repeated is the metadata check's
            rgb, labelled = image[::step, ::step, :3].copy(), mask[::step, ::step].copy()  # copies: the full size is not kept
            members.append(Member(scene_id, rgb, gradient, edges, labelled, dict(labels), replaced))
        self._families.move_to_end(family)
        while len(self._families) > OPEN_FAMILIES:
            self._family_mismatches += family_mismatches(self._families.popitem(last=False)[1])

    def mismatches(self, scenes: Callable[[], Iterable[tuple[str, str, np.ndarray, np.ndarray | None]]]) -> Iterator[tuple[str, str]]:
        """(scene id, what) for each image another scene's masks fit `BETTER_BY` better than its own, and each
        family member showing another's image. `scenes` gives every scene's (id, family, mask, depth) again:
        called only when there is a suspect."""
        while self._families:
            self._family_mismatches += family_mismatches(self._families.popitem(last=False)[1])
        yield from self._family_mismatches
        if not self._suspects:
            return
        for scene_id, family, mask, depth in scenes():
            step = _step(mask)
            edges = _edges(mask, depth)[::step, ::step]
            for suspect in self._suspects:
                if suspect.family != family and suspect.gradient.shape == edges.shape:
                    suspect.best = max(suspect.best, (contrast(suspect.gradient, edges), scene_id))
        for suspect in sorted(self._suspects, key=lambda s: s.scene_id):
            own, (best, other) = -suspect.priority, suspect.best
            if best >= BETTER_BY * max(own, 1e-9):
                yield suspect.scene_id, (
                    f"the image does not show this scene: {other}'s masks fit it {best / max(own, 1e-9):.1f}x better "
                    f"than its own (edge contrast {best:.2f} vs {own:.2f})"
                )


def _step(pixels: np.ndarray) -> int:
    """Every how many pixels an image (and its masks alike) is compared: at most `MAX_SIDE_PX` across."""
    return max(1, -(-max(pixels.shape[:2]) // MAX_SIDE_PX))


def contrast(gradient: np.ndarray, edges: np.ndarray) -> float:
    """Mean gradient on the predicted edges over the mean elsewhere."""
    if not edges.any() or edges.all():
        return 0.0
    return float(gradient[edges].mean() / max(float(gradient[~edges].mean()), 1e-6))


def _gradient(rgb: np.ndarray) -> np.ndarray:
    """Per pixel, the summed absolute colour differences to its four neighbours."""
    out = np.zeros(rgb.shape[:2], dtype=np.float32)
    rows = np.abs(np.diff(rgb, axis=0)).sum(-1)
    cols = np.abs(np.diff(rgb, axis=1)).sum(-1)
    out[1:] += rows
    out[:-1] += rows
    out[:, 1:] += cols
    out[:, :-1] += cols
    return out


def _edges(mask: np.ndarray, depth: np.ndarray | None) -> np.ndarray:
    """Pixels beside a change of mask label, or of depth by more than `DEPTH_JUMP` of the nearer side."""
    changes = [(mask[1:] != mask[:-1], 0), (mask[:, 1:] != mask[:, :-1], 1)]
    if depth is not None:
        z = depth.astype(np.float32)
        for axis in (0, 1):
            a, b = (z[1:], z[:-1]) if axis == 0 else (z[:, 1:], z[:, :-1])
            changes.append((np.abs(a - b) > DEPTH_JUMP * np.maximum(np.minimum(a, b), 1), axis))
    edges = np.zeros(mask.shape[:2], dtype=bool)
    for change, axis in changes:
        if axis == 0:
            edges[1:] |= change
            edges[:-1] |= change
        else:
            edges[:, 1:] |= change
            edges[:, :-1] |= change
    return edges
