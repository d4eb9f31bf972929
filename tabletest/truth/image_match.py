"""Whether each image shows its own scene: the RGB's edges against the edges its masks and depth predict.

Where the mask changes label, or the depth jumps (an object's outline, the table's edge against the
backdrop), the picture changes colour; elsewhere it mostly does not. So the mean colour gradient on
those predicted edges, over the mean elsewhere (the edge contrast), is high for an image and its own
masks: at least 3.0 in a 300-scene random render at 96x72, median 9. For another scene's image it is
low (median 1.4), and that image matches its own scene's masks several times better (5.8x for a swapped
pair) while an image matches no other scene's masks better than its own by more than 1.07x.

Images under `MIN_WIDTH_PX` are too noisy to compare (at 32x24 and 1 sample, a true image matched
another scene's masks 1.8x better). Only scenes whose own contrast is low become suspects, and each
suspect is compared with the other suspects: an image and a scene swapped with each other are both
suspects, and the comparison stays small however large the folder.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

MIN_WIDTH_PX = 64
SUSPECT_BELOW = 3.0  # own edge contrast under which an image is compared with the other suspects
BETTER_BY = 1.5  # another scene's masks fit this much better than its own: the image is not of its scene
MAX_SUSPECTS = 200
MAX_SIDE_PX = 256  # larger images are compared on a grid of pixels at most this many across
DEPTH_JUMP = 0.05  # a relative depth change this large is an edge


@dataclass(order=True)
class _Suspect:
    priority: float  # minus its own contrast: the heap keeps the lowest contrasts
    scene_id: str = field(compare=False)
    gradient: np.ndarray = field(compare=False)
    edges: np.ndarray = field(compare=False)


@dataclass
class ImageMatcher:
    """Collects each scene's edge contrast as the audit reads it; `mismatches` compares the suspects."""

    compared: int = 0
    too_small: int = 0
    _suspects: list[_Suspect] = field(default_factory=list)

    def add(self, scene_id: str, image: np.ndarray, mask: np.ndarray, depth: np.ndarray | None) -> None:
        if image.shape[1] < MIN_WIDTH_PX or image.ndim != 3:
            self.too_small += 1
            return
        step = max(1, -(-max(image.shape[:2]) // MAX_SIDE_PX))
        gradient = _gradient(image[..., :3].astype(np.float32))[::step, ::step]
        edges = _edges(mask, depth)[::step, ::step]
        self.compared += 1
        own = contrast(gradient, edges)
        if own < SUSPECT_BELOW:
            suspect = _Suspect(-own, scene_id, gradient, edges)
            (heapq.heappush if len(self._suspects) < MAX_SUSPECTS else heapq.heappushpop)(self._suspects, suspect)

    def mismatches(self) -> Iterator[tuple[str, str]]:
        """(scene id, what) for each image that another scene's masks fit `BETTER_BY` better than its own."""
        for suspect in self._suspects:
            own = -suspect.priority
            fits = [
                (contrast(suspect.gradient, other.edges), other.scene_id)
                for other in self._suspects
                if other is not suspect and other.edges.shape == suspect.edges.shape
            ]
            best, other = max(fits, default=(0.0, ""))
            if best >= BETTER_BY * max(own, 1e-9):
                yield suspect.scene_id, (
                    f"the image does not show this scene: {other}'s masks fit it {best / max(own, 1e-9):.1f}x better "
                    f"than its own (edge contrast {best:.2f} vs {own:.2f})"
                )


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
