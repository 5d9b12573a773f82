"""Issue 26: cross-model averages leave the built-in baselines out, and relative gains carry a paired
bootstrap interval or are left out below a stated number of problems."""

from __future__ import annotations

import json
import math
import re

import pytest

from vcot.analysis.metrics import relative_gain_bootstrap
from vcot.analysis.report import analyse
from vcot.analysis.tables import MIN_GAIN_N, SMALL_N_MARK, gain_cell, relative_gains, table1
from vcot.analysis.units import to_samples


def _row(model: str, cond: str, uid: str, ok: bool, domain: str = "EG") -> dict:
    return dict(
        run_id=f"r-{model}",
        model=model,
        condition=cond,
        uid=uid,
        task="overlap",
        domain=domain,
        answer_type="choice",
        gold="B",
        options=json.dumps(["p", "q", "r", "s"]),
        epoch=0,
        extracted="B" if ok else "A",
        tier="tag",
        correct=ok,
    )


def _rows(model: str, n: int, right_direct: int, right_visual: int, domain: str = "EG") -> list[dict]:
    return [_row(model, "direct", f"{domain}{i}", i < right_direct, domain) for i in range(n)] + [
        _row(model, "visual_cot", f"{domain}{i}", i < right_visual, domain) for i in range(n)
    ]


def _gain_number(text: str) -> tuple[float, float, float]:
    m = re.fullmatch(r"([+-][\d.]+)% \[([+-][\d.]+), ([+-][\d.]+)\]", text)
    assert m, text
    return float(m[1]), float(m[2]), float(m[3])


def test_table1_average_leaves_out_chance():
    rows = _rows("a", 40, 10, 20) + _rows("b", 40, 20, 30) + _rows("chance", 40, 40, 40)
    t = table1(to_samples(rows))
    labels = [r[0] for r in t.rows]
    assert labels == ["a", "b", "chance", "avg (models, baselines excluded)", "chance level"]
    avg = t.rows[3]
    # Overall direct: (0.25 + 0.5) / 2; chance's 1.0 would have made it 0.583.
    overall_d = t.header.index("Overall D")
    assert avg[overall_d] == pytest.approx(0.375)
    assert "baselines" in t.note


def test_table1_without_baselines_keeps_plain_label():
    t = table1(to_samples(_rows("a", 40, 10, 20) + _rows("b", 40, 20, 30)))
    assert [r[0] for r in t.rows] == ["a", "b", "avg (models)", "chance level"]


def test_only_baselines_says_so_instead_of_an_average():
    t = table1(to_samples(_rows("chance", 40, 10, 12)))
    assert not any(str(r[0]).startswith("avg") for r in t.rows)
    assert "No average" in t.note and "chance" in t.note
    g = relative_gains(to_samples(_rows("chance", 40, 10, 12)))
    assert g is not None and not any(str(r[0]).startswith("average") for r in g.rows)
    assert "No average" in g.note


def test_relative_gain_average_leaves_out_baselines():
    rows = _rows("a", 40, 10, 20) + _rows("b", 40, 20, 30) + _rows("chance", 40, 10, 40)
    t = relative_gains(to_samples(rows))
    avg = t.rows[-1]
    assert avg[0] == "average (models, baselines excluded)"
    # a: +100%, b: +50% → +75%; chance's +300% is left out.
    assert avg[-1] == "+75.0%"


def test_gain_interval_contains_point_and_is_deterministic():
    samples = to_samples(_rows("a", 60, 15, 27))
    text, g = gain_cell(samples, "direct", "visual_cot")
    point, lo, hi = _gain_number(text)
    assert g == pytest.approx(0.8) and point == pytest.approx(80.0)
    assert lo < point < hi
    assert gain_cell(samples, "direct", "visual_cot") == (text, g)  # same seed, same interval
    a = [1.0] * 15 + [0.0] * 45
    b = [1.0] * 27 + [0.0] * 33
    assert relative_gain_bootstrap(a, b) == relative_gain_bootstrap(a, b)
    p, lo2, hi2 = relative_gain_bootstrap(a, b)
    assert lo2 <= p <= hi2 and p == pytest.approx(0.8)


def test_small_n_gain_left_out_with_footnote():
    rows = _rows("a", MIN_GAIN_N - 1, 3, 9, domain="EG") + _rows("a", MIN_GAIN_N, 10, 12, domain="CT")
    t = relative_gains(to_samples(rows))
    row = t.rows[0]
    eg, ct, overall = row[t.header.index("EG")], row[t.header.index("CT")], row[t.header.index("Overall")]
    assert eg == f"—{SMALL_N_MARK}"  # +200% on 29 problems is not printed
    _gain_number(ct)
    _gain_number(overall)
    assert f"n < {MIN_GAIN_N}" in t.note and f"n = {MIN_GAIN_N}" in t.title


def test_zero_base_has_no_gain():
    text, g = gain_cell(to_samples(_rows("a", 40, 0, 5)), "direct", "visual_cot")
    assert text == "—" and math.isnan(g)


def test_report_analysis_carries_intervals():
    tables = dict(analyse(_rows("a", 40, 10, 20)).tables)
    assert "[" in tables["gain-visual"].rows[0][-1]
    assert "[" in tables["table1"].rows[0][-1]
