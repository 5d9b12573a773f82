"""Scoring a step judge against exact labels (vcot.process.judging): a perfect judge, a judge scripted to be
right 80 % of the time and the judge-free baselines score what they must, with intervals."""

from __future__ import annotations

import math

import pytest

from vcot.process.judging import Verdict, baselines, score, scripted_verdicts, summary
from vcot.process.labelled import labelled_stream


@pytest.fixture(scope="module")
def labelled_set():
    stream = labelled_stream(["gear_rotation", "cubes_count", "billiards"], seed=9, difficulty="easy")
    return [next(stream) for _ in range(90)]


def test_a_perfect_judge_scores_one(labelled_set):
    s = score(labelled_set, scripted_verdicts(labelled_set, right=1.0))
    assert s.localisation.value == 1.0 and s.precision.value == 1.0 and s.recall.value == 1.0
    assert s.localisation.n == 90 and s.recall.n == sum(x.first_error is not None for x in labelled_set)
    assert set(s.by_kind) == {x.kind for x in labelled_set} and set(s.by_task) == {
        "gear_rotation",
        "cubes_count",
        "billiards",
    }


def test_a_judge_right_80_percent_of_the_time_is_measured_so(labelled_set):
    s = score(labelled_set, scripted_verdicts(labelled_set, right=0.8, seed=3))
    lo, hi = s.localisation.interval
    assert lo <= 0.8 <= hi and 0.6 < s.localisation.value < 0.95, str(s.localisation)
    assert s.precision.value < 1.0 and s.recall.value < 1.0


def test_judge_free_baselines(labelled_set):
    base = baselines(labelled_set)
    correct_share = sum(x.first_error is None for x in labelled_set) / len(labelled_set)
    first_share = sum(x.first_error == 1 for x in labelled_set) / len(labelled_set)
    assert base["always correct"].localisation.value == pytest.approx(correct_share)
    assert base["always correct"].recall.value == 0.0 and math.isnan(base["always correct"].precision.value)
    assert base["always step 1"].localisation.value == pytest.approx(first_share)
    assert 0.0 < base["random step or none"].localisation.value < 0.5
    rows = summary({"perfect": score(labelled_set, scripted_verdicts(labelled_set, 1.0)), **base})
    assert rows[0][0] == "perfect" and rows[0][1].startswith("100.0% [") and "n = 90" in rows[0][1]
    assert "— (n = 0)" in rows[1][2]  # always correct calls no step incorrect: precision undefined, said so


def test_per_step_verdicts_and_bad_input(labelled_set):
    x = next(t for t in labelled_set if t.first_error == 2)
    right = Verdict(None, tuple("incorrect" if lab == "incorrect" else "correct" for lab in x.labels))
    early = Verdict(None, ("incorrect",) + ("correct",) * (len(x.steps) - 1))
    assert score([x], [right]).localisation.value == 1.0
    s = score([x], [early])
    assert s.localisation.value == 0.0 and s.precision.value == 0.0 and s.recall.value == 0.0
    with pytest.raises(ValueError, match="verdicts for"):
        score(labelled_set, [])
