"""How many distinct scenes a task's setting produces, estimated from the scenes drawn so far.

Used where a setting runs out of scenes: `vcot generate` (a suite asks for more instances than there are
scenes) and `vcot.rl` streams (`ProblemStream.capacity`), so both say the same number.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable


def chao1(counts: Iterable[int]) -> float:
    """The bias-corrected Chao1 estimate of the number of distinct scenes from how often each scene seen was
    drawn: the distinct scenes seen plus f1(f1 - 1) / (2(f2 + 1)), f1 and f2 the scenes drawn once and twice.
    With no scene seen once, the scenes seen are taken as all there are."""
    counts = [c for c in counts if c > 0]
    freq = Counter(counts)
    f1, f2 = freq.get(1, 0), freq.get(2, 0)
    return len(counts) + f1 * (f1 - 1) / (2 * (f2 + 1))


def no_repeat_bound(n: int) -> float:
    """A 95 % lower bound on the number of scenes when n draws repeated none: P(no repeat | N) is about
    exp(-n(n - 1) / 2N), below 5 % for N under the bound."""
    return n * (n - 1) / (2 * math.log(20))


def describe(counts: Iterable[int]) -> str:
    """One sentence on the scene space from per-scene draw counts, for an error message."""
    counts = [c for c in counts if c > 0]
    n, distinct = sum(counts), len(counts)
    estimate = chao1(counts)
    return (
        f"about {estimate:.0f} distinct scenes (Chao1 estimate: {distinct} distinct in {n} draws, "
        f"{sum(1 for c in counts if c == 1)} of them seen once)"
    )
