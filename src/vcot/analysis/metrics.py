"""Statistics the papers lacked (docs/scoring.md): Wilson intervals, unbiased pass@k, majority vote, McNemar and a
paired bootstrap. Pure functions on counts and arrays, so each is checked against hand-computed values."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass


def wilson(k: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (95% by default); (nan, nan) when n == 0.

    Chosen over the normal interval because per-task cells are small (20-30 items) and accuracies sit
    near 0, where the normal interval leaves [0, 1]."""
    if n <= 0:
        return (math.nan, math.nan)
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # At p = 0 or 1 the bound equals p exactly in theory, but rounding leaves it ~1e-17 on the wrong side of
    # p; clamping keeps lo <= p <= hi, which error bars (and readers) rely on.
    return (min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k), from n >= k samples with c correct."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    # The product form avoids huge binomials: C(n-c,k)/C(n,k) = prod_{i=n-c+1..n} (1 - k/i).
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def majority_vote(votes: Sequence[Hashable | None]) -> tuple[Hashable | None, int]:
    """(winning value, its index of first appearance). Missing answers (None) do not vote.

    Ties go to the value that appeared first (lowest epoch), so the result depends only on the samples
    and their order, never on hashing or dict order."""
    counts: dict[Hashable, int] = {}
    first: dict[Hashable, int] = {}
    for i, v in enumerate(votes):
        if v is None:
            continue
        counts[v] = counts.get(v, 0) + 1
        first.setdefault(v, i)
    if not counts:
        return None, -1
    best = max(counts, key=lambda v: (counts[v], -first[v]))
    return best, first[best]


@dataclass(frozen=True, slots=True)
class McNemar:
    b: int  # baseline right, other wrong
    c: int  # baseline wrong, other right
    statistic: float
    p_value: float
    method: str


def mcnemar(b: int, c: int, exact: bool | None = None) -> McNemar:
    """McNemar's test on the discordant counts. Exact (binomial, two-sided) when b + c < 25 unless told
    otherwise; else the chi-square with continuity correction."""
    n = b + c
    if exact is None:
        exact = n < 25
    if n == 0:
        return McNemar(b, c, 0.0, 1.0, "exact" if exact else "chi2")
    # In closed form rather than through scipy.stats, whose import alone takes longer than a whole report:
    # the binomial CDF at p = 1/2 as a sum of binomial coefficients, and the chi-square survival function
    # with one degree of freedom as erfc(sqrt(x / 2)).
    if exact:
        k = min(b, c)
        p = min(1.0, 2.0 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)
        return McNemar(b, c, float(k), float(p), "exact")
    chi2 = (abs(b - c) - 1) ** 2 / n
    return McNemar(b, c, float(chi2), math.erfc(math.sqrt(chi2 / 2)), "chi2")


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], n_boot: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """(mean(b) - mean(a), low, high): percentile interval from resampling paired units with replacement."""
    import numpy as np

    xa = np.asarray(a, dtype=float)
    xb = np.asarray(b, dtype=float)
    if xa.shape != xb.shape:
        raise ValueError("paired samples must have the same length")
    if xa.size == 0:
        return (math.nan, math.nan, math.nan)
    d = xb - xa
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, d.size, size=(n_boot, d.size))
    means = d[idx].mean(axis=1)
    alpha = (1 - level) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return float(d.mean()), float(lo), float(hi)


def relative_gain(base: float, new: float) -> float:
    """(new - base) / base, MIRA's "relative gain"; nan when the base is 0."""
    if base == 0 or math.isnan(base):
        return math.nan
    return (new - base) / base


def relative_gain_bootstrap(
    base: Sequence[float], treat: Sequence[float], n_boot: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """(relative gain, low, high) of paired per-problem scores: (mean(treat) - mean(base)) / mean(base), with a
    percentile interval from resampling problems with replacement (one seeded generator, so a report is
    reproducible). NaN when the base mean is 0. Resamples whose base mean is 0 have no gain and are left
    out of the quantiles; with a base accuracy that low the interval is wide anyway."""
    import numpy as np

    xa = np.asarray(base, dtype=float)
    xb = np.asarray(treat, dtype=float)
    if xa.shape != xb.shape:
        raise ValueError("paired samples must have the same length")
    if xa.size == 0 or xa.mean() == 0:
        return (math.nan, math.nan, math.nan)
    point = float((xb.mean() - xa.mean()) / xa.mean())
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, xa.size, size=(n_boot, xa.size))
    ma, mb = xa[idx].mean(axis=1), xb[idx].mean(axis=1)
    ok = ma > 0
    gains = (mb[ok] - ma[ok]) / ma[ok]
    alpha = (1 - level) / 2
    lo, hi = np.quantile(gains, [alpha, 1 - alpha])
    return point, float(lo), float(hi)
