"""The report's before/after comparison (vcot.analysis.learning): the paired gain, chance, the best constant
answer, and a verdict that a prior-only policy cannot pass."""

from __future__ import annotations

import random

from vcot.analysis.learning import before_after
from vcot.analysis.units import to_samples


def _rows(model: str, run: str, golds: list[str], answers: list[str]) -> list[dict]:
    return [
        {
            "run_id": run,
            "model": model,
            "condition": "direct",
            "uid": f"t-{i:03d}",
            "task": "t",
            "domain": "EG",
            "epoch": 0,
            "gold": g,
            "answer_type": "integer",
            "options": None,
            "extracted": a,
            "correct": a == g,
            "tier": "tag",
        }
        for i, (g, a) in enumerate(zip(golds, answers, strict=True))
    ]


def _table(before, after):
    rows = before + after
    return before_after(to_samples(rows), rows, n_boot=500)


# Gold answers with a strong prior: "4" is right on 40 % of the problems.
GOLDS = ["4"] * 24 + [str(5 + i % 6) for i in range(36)]


def test_a_real_gain_beats_the_best_constant():
    rng = random.Random(0)
    before = _rows("base", "r1", GOLDS, [str(rng.randint(4, 10)) for _ in GOLDS])
    after = _rows("tuned", "r2", GOLDS, [g if i % 10 else "9" for i, g in enumerate(GOLDS)])  # 90 % right
    t = _table(before, after)
    (row,) = t.rows
    assert row[0] == "base → tuned" and row[2] == 60 and row[8] == "40.0"
    assert row[9:] == ["yes", "yes"] and row[5].startswith("+")
    assert t.note.startswith(
        "base → tuned, direct: gain: the interval excludes 0; after beats the best constant answer (40.0%)."
    )


def test_learning_the_answer_prior_does_not_pass():
    rng = random.Random(1)
    before = _rows("base", "r1", GOLDS, [str(rng.randint(4, 10)) for _ in GOLDS])
    after = _rows("prior", "r2", GOLDS, ["4"] * len(GOLDS))  # always the most frequent answer
    t = _table(before, after)
    (row,) = t.rows
    assert row[4] == "40.0" and row[8] == "40.0" and row[9:] == ["yes", "no"]
    assert "gain: the interval excludes 0; after does not beat the best constant answer (40.0%)" in t.note


def test_one_model_has_no_comparison_and_few_problems_say_so():
    rows = _rows("base", "r1", GOLDS[:5], GOLDS[:5])
    assert before_after(to_samples(rows), rows) is None
    t = _table(rows, _rows("tuned", "r2", GOLDS[:5], GOLDS[:5]))
    assert t.rows[0][9:] == ["—", "—"] and "too few problems (5 < 10) to read" in t.note
