"""Wilson, pass@k, McNemar, bootstrap and majority vote against values computed by hand."""

from __future__ import annotations

import math

import pytest

from vcot.analysis.metrics import majority_vote, mcnemar, paired_bootstrap, pass_at_k, relative_gain, wilson


def test_wilson_hand_values():
    # k=5, n=25, z=1.96: centre = (0.2 + 3.8416/50) / (1 + 3.8416/25) = 0.276832 / 1.153664 = 0.239960,
    # half = 1.96 * sqrt(0.2*0.8/25 + 3.8416/2500) / 1.153664 = 1.96 * 0.0890884 / 1.153664 = 0.151356.
    lo, hi = wilson(5, 25)
    assert lo == pytest.approx(0.239960 - 0.151356, abs=1e-4)
    assert hi == pytest.approx(0.239960 + 0.151356, abs=1e-4)
    # k=2, n=4: centre exactly 0.5, half = 1.96 * sqrt(0.0625 + 0.060025) / 1.9604 = 0.349964.
    lo, hi = wilson(2, 4)
    assert (lo, hi) == (pytest.approx(0.150036, abs=1e-5), pytest.approx(0.849964, abs=1e-5))
    # k=0, n=10: the interval starts at 0 and ends at 2 * 0.19208 / 1.38416 = 0.277540.
    assert wilson(0, 10) == (pytest.approx(0.0, abs=1e-12), pytest.approx(0.277540, abs=1e-5))
    assert wilson(10, 10) == (pytest.approx(1 - 0.277540, abs=1e-5), pytest.approx(1.0))
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_pass_at_k_hand_values():
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - 3 / 6)  # 1 - C(3,2)/C(4,2)
    assert pass_at_k(8, 2, 4) == pytest.approx(1 - 15 / 70)  # 1 - C(6,4)/C(8,4)
    assert pass_at_k(8, 3, 1) == pytest.approx(3 / 8)  # pass@1 is plain accuracy
    assert pass_at_k(5, 0, 3) == 0.0
    assert pass_at_k(5, 5, 3) == 1.0
    assert pass_at_k(8, 6, 4) == 1.0  # fewer than k wrong samples: always passes
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_mcnemar_hand_values():
    # Exact: 2 * P(X <= 2 | n=12, p=1/2) = 2 * (1 + 12 + 66) / 4096.
    t = mcnemar(10, 2)
    assert t.method == "exact" and t.p_value == pytest.approx(158 / 4096)
    assert mcnemar(2, 10).p_value == pytest.approx(158 / 4096)
    # Chi-square with continuity correction: (|30 - 15| - 1)^2 / 45 = 196/45; 1 dof: p = erfc(sqrt(x/2)).
    t = mcnemar(30, 15)
    assert t.method == "chi2"
    assert t.statistic == pytest.approx(196 / 45)
    assert t.p_value == pytest.approx(math.erfc(math.sqrt(196 / 45 / 2)))
    assert mcnemar(3, 3).p_value == 1.0
    assert mcnemar(0, 0).p_value == 1.0


def test_paired_bootstrap():
    a = [0, 0, 1, 1, 0, 1, 0, 0]
    b = [1, 0, 1, 1, 1, 1, 0, 1]
    d, lo, hi = paired_bootstrap(a, b, n_boot=4000, seed=1)
    assert d == pytest.approx(3 / 8)
    assert 0 <= lo < d < hi <= 0.75  # no pair got worse, so no resample can go below 0
    assert paired_bootstrap(a, b, seed=1) == paired_bootstrap(a, b, seed=1)  # seeded, reproducible
    assert paired_bootstrap(a, a) == (0.0, 0.0, 0.0)


def test_majority_vote_ties_break_to_first_seen():
    assert majority_vote(["B", "C", "C", "B"]) == ("B", 0)
    assert majority_vote(["C", "B", "B", "C"]) == ("C", 0)
    assert majority_vote([None, "C", None, "A", "C"]) == ("C", 1)
    assert majority_vote([None, None]) == (None, -1)


def test_relative_gain():
    assert relative_gain(0.2, 0.3) == pytest.approx(0.5)
    assert math.isnan(relative_gain(0.0, 0.3))


def test_mcnemar_closed_forms_equal_scipy_on_every_small_table() -> None:
    # metrics.py computes the binomial CDF and the chi-square tail without scipy (its import is slow); scipy is
    # the independent reference here.
    from scipy import stats

    from vcot.analysis.metrics import mcnemar

    for b in range(40):
        for c in range(40):
            n = b + c
            if n == 0:
                continue
            ref = (
                min(1.0, 2 * stats.binom.cdf(min(b, c), n, 0.5))
                if n < 25
                else stats.chi2.sf((abs(b - c) - 1) ** 2 / n, 1)
            )
            assert abs(mcnemar(b, c).p_value - ref) <= 1e-12 * max(ref, 1e-300) + 1e-300, (b, c)
