"""The study's nonparametric tests on per-object-A scores (scipy): Wilcoxon signed-rank, Friedman.

Scores are pooled by object A (the paper's unit: every scene whose left object is, say, the
blender counts towards the blender), so each test pairs the 64 objects' scores across conditions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats


@dataclass(frozen=True)
class Test:
    name: str  # wilcoxon | friedman
    statistic: float  # W (the smaller signed-rank sum) or the Friedman chi-square
    z: float | None  # Wilcoxon's normal approximation, as the paper reports it
    p: float
    blocks: int  # objects A with a score in every condition
    nonzero_pairs: int | None  # Wilcoxon: the blocks whose two scores differ, the only ones it ranks


def wilcoxon(x: Sequence[float], y: Sequence[float]) -> Test:
    """Paired two-sided signed-rank test with the normal approximation (zero differences dropped)."""
    nonzero = sum(a != b for a, b in zip(x, y, strict=True))
    if not nonzero:
        return Test("wilcoxon", 0.0, 0.0, 1.0, len(x), 0)
    result = stats.wilcoxon(x, y, method="approx")
    return Test("wilcoxon", float(result.statistic), float(result.zstatistic), float(result.pvalue), len(x), nonzero)


def friedman(groups: Sequence[Sequence[float]]) -> Test:
    """Friedman's rank test across three or more conditions; every block identical gives p = 1."""
    blocks = len(groups[0])
    if all(len(set(values)) == 1 for values in zip(*groups)):
        return Test("friedman", 0.0, None, 1.0, blocks, None)
    result = stats.friedmanchisquare(*groups)
    p = float(result.pvalue)
    return Test("friedman", float(result.statistic), None, 1.0 if math.isnan(p) else p, blocks, None)


def compare(groups: Sequence[Sequence[float]]) -> Test | None:
    """Wilcoxon for two paired conditions, Friedman for more; None when there is nothing to test."""
    if len(groups) < 2 or len(groups[0]) < 2:
        return None
    return wilcoxon(*groups) if len(groups) == 2 else friedman(groups)
