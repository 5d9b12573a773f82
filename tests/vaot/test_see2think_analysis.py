"""See2Think analyses reproduce hand-computed values on a small constructed results table."""

import math

import pandas as pd
import pytest

from vcot.analysis.see2think import (
    agreement,
    answer_change_rate,
    correct_incorrect_gaps,
    process_means,
    render_transitions,
    wrongrender_gap,
)


def _rows():
    # Four samples (u1..u4) of one model in domain EG, two (u5, u6) in CT.
    # NoRender correctness:          u1 F, u2 T, u3 F, u4 T, u5 F, u6 T
    # VAoT correctness and RF:       u1 T rf1, u2 F rf0, u3 T rf1, u4 T rf1, u5 T rf.5, u6 T rf.5
    # WrongRender correctness, FU:   u1 F fu1, u2 F fu1, u3 T fu0, u4 F fu1, u5 T fu.5, u6 F fu.5
    spec = {
        "vaot_norender": [
            (False, None, None, None, "1"),
            (True, None, None, None, "2"),
            (False, None, None, None, "3"),
            (True, None, None, None, "4"),
            (False, None, None, None, "5"),
            (True, None, None, None, "6"),
        ],
        "vaot": [
            (True, 1.0, 1.0, 1.0, "A"),
            (False, 0.5, 0.0, 1.0, "B"),
            (True, 1.0, 1.0, 0.5, "C"),
            (True, 1.0, 1.0, 1.0, "D"),
            (True, 1.0, 0.5, 0.5, "E"),
            (True, 0.5, 0.5, 1.0, "F"),
        ],
        "vaot_wrongrender": [
            (False, 1.0, 0.0, 1.0, "X"),
            (False, 1.0, 0.0, 1.0, "b"),
            (True, 1.0, 0.0, 0.0, "C"),
            (False, 1.0, 0.0, 1.0, "Y"),
            (True, 1.0, 0.0, 0.5, "e "),
            (False, 1.0, 0.0, 0.5, "Z"),
        ],
    }
    rows = []
    for cond, vals in spec.items():
        for k, (correct, ar, rf, fu, ans) in enumerate(vals, start=1):
            rows.append(
                {
                    "model": "m",
                    "condition": cond,
                    "uid": f"u{k}",
                    "epoch": 0,
                    "domain": "EG" if k <= 4 else "CT",
                    "correct": correct,
                    "extracted": ans,
                    "ar": ar,
                    "rf": rf,
                    "fu": fu,
                    "corruptions": 1 if cond == "vaot_wrongrender" else 0,
                }
            )
    return pd.DataFrame(rows)


def test_render_transitions_by_rf_group():
    t = render_transitions(_rows()).set_index(["domain", "rf"])
    # EG, rf=1: u1 F→T (benefit), u3 F→T (benefit), u4 T→T  → n=3, benefit 2, harm 0, balance +66.7 pts
    eg1 = t.loc[("EG", 1.0)]
    assert (eg1["n"], eg1["benefit"], eg1["harm"]) == (3, 2, 0)
    assert eg1["balance_pts"] == pytest.approx(200 / 3)
    # EG, rf=0: u2 T→F (harm) → balance −100 pts
    eg0 = t.loc[("EG", 0.0)]
    assert (eg0["n"], eg0["benefit"], eg0["harm"], eg0["balance_pts"]) == (1, 0, 1, -100.0)
    # CT, rf=0.5: u5 F→T, u6 T→T → benefit share 0.5, harm share 0
    ct = t.loc[("CT", 0.5)]
    assert (ct["benefit_share"], ct["harm_share"], ct["balance_pts"]) == (0.5, 0.0, 50.0)


def test_wrongrender_gap_by_fu_group():
    g = wrongrender_gap(_rows()).set_index(["domain", "fu"])
    # EG fu=1 (wrongrender FU): u1 T/F, u2 F/F, u4 T/F → acc_vaot 2/3, acc_wrong 0 → gap 66.7 pts
    assert g.loc[("EG", 1.0), "gap_pts"] == pytest.approx(200 / 3)
    # EG fu=0: u3 T/T → 0
    assert g.loc[("EG", 0.0), "gap_pts"] == 0.0
    # CT fu=0.5: u5 T/T, u6 T/F → 100 − 50 = 50
    assert g.loc[("CT", 0.5), "gap_pts"] == pytest.approx(50.0)
    # Grouping by the vaot trajectory's FU instead: EG fu=1 → u1, u2, u4 (vaot fu 1,1,1) … same set here,
    # but CT: u5 vaot fu .5 → gap 0; u6 vaot fu 1 → gap 100.
    gv = wrongrender_gap(_rows(), fu_from="vaot").set_index(["domain", "fu"])
    assert gv.loc[("CT", 1.0), "gap_pts"] == 100.0 and gv.loc[("CT", 0.5), "gap_pts"] == 0.0


def test_answer_change_rate():
    r = answer_change_rate(_rows()).set_index("model")
    # pairs (vaot, wrong): A/X ch, B/b same (case), C/C same, D/Y ch, E/"e " same, F/Z ch → 3/6
    assert r.loc["m", "change_rate"] == 0.5 and r.loc["m", "n"] == 6
    strict = answer_change_rate(_rows(), same=lambda a, b: a == b).set_index("model")
    assert strict.loc["m", "change_rate"] == pytest.approx(5 / 6)


def test_answer_change_rate_counts_only_pairs_with_a_corruption():
    """A WrongRender episode in which nothing was corrupted (no action taken) says nothing about corrupted
    feedback: its answer change is sampling noise and must not count."""
    df = _rows()
    # No corruption in the episodes of u1 (A/X changed) and u2 (B/b same).
    df.loc[(df.condition == "vaot_wrongrender") & df.uid.isin(["u1", "u2"]), "corruptions"] = 0
    r = answer_change_rate(df).set_index("model")
    # Counted: C/C same, D/Y changed, E/"e " same, F/Z changed → 2 of 4.
    assert (r.loc["m", "n"], r.loc["m", "changed"], r.loc["m", "excluded"]) == (4, 2, 2)
    assert r.loc["m", "change_rate"] == 0.5
    df["corruptions"] = 0
    none = answer_change_rate(df).set_index("model")
    assert none.loc["m", "n"] == 0 and math.isnan(none.loc["m", "change_rate"])


def test_process_means_and_gaps():
    df = _rows()
    m = process_means(df[df.condition == "vaot"], by=["domain"]).set_index("domain")
    # EG vaot: ar (1, .5, 1, 1) → .875 ; rf (1, 0, 1, 1) → .75 ; fu (1, 1, .5, 1) → .875
    assert (m.loc["EG", "ar"], m.loc["EG", "rf"], m.loc["EG", "fu"], m.loc["EG", "n"]) == (0.875, 0.75, 0.875, 4)
    gaps = correct_incorrect_gaps(df[df.condition == "vaot"]).set_index("domain")
    # EG correct: u1,u3,u4 rf mean 1; incorrect u2 rf 0 → rf gap 1; ar gap 1 − .5 = .5; fu gap (2.5/3) − 1
    assert gaps.loc["EG", "rf_gap"] == 1.0 and gaps.loc["EG", "ar_gap"] == 0.5
    assert gaps.loc["EG", "fu_gap"] == pytest.approx(2.5 / 3 - 1)
    assert math.isnan(gaps.loc["CT", "rf_gap"])  # no incorrect CT trajectory


def test_agreement_strict_and_partial():
    human = pd.DataFrame(
        {"trajectory_id": [1, 2, 3, 4], "ar": [1, 1, 0.5, 0], "rf": [1, 0, 0.5, 1], "fu": [0, 0, 1, None]}
    )
    judge = pd.DataFrame(
        {"trajectory_id": [1, 2, 3, 4], "ar": [1, 0.5, 0.5, 1], "rf": [1, 1, 0, 1], "fu": [0, 0.5, 1, 1]}
    )
    a = agreement(human, judge).set_index("dimension")
    # ar diffs 0, .5, 0, 1 → strict 2/4, partial 3/4 ; rf diffs 0, 1, .5, 0 → strict .5, partial .75
    assert (a.loc["ar", "strict"], a.loc["ar", "partial"]) == (0.5, 0.75)
    assert (a.loc["rf", "strict"], a.loc["rf", "partial"]) == (0.5, 0.75)
    # fu: human row 4 missing → 3 pairs, diffs 0, .5, 0 → strict 2/3, partial 1
    assert a.loc["fu", "n"] == 3 and a.loc["fu", "strict"] == pytest.approx(2 / 3) and a.loc["fu", "partial"] == 1.0
