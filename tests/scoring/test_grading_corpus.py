"""The adversarial grading corpus: every verdict, and every documented difference from MIRA's exact match."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.grading_cases import CASES, Case
from vcot.analysis.mira_interop import mira_exact_match
from vcot.scoring import score_fields

DOC = Path(__file__).resolve().parents[2] / "docs" / "scoring.md"


def test_corpus_is_large_and_unique():
    assert len(CASES) >= 150
    keys = [(c.response, c.gold, c.type, c.options) for c in CASES]
    assert len(set(keys)) == len(keys), "duplicate cases"
    assert all(c.reason for c in CASES)
    assert {c.type for c in CASES} >= {
        "integer",
        "number",
        "choice",
        "time",
        "coordinates",
        "set",
        "pair",
        "direction",
        "text",
    }


@pytest.mark.parametrize("case", CASES, ids=[f"{i:03d}-{c.type}" for i, c in enumerate(CASES)])
def test_case(case: Case):
    s = score_fields(case.response, case.gold, case.type, case.options)
    assert s.correct is case.expected, f"{case.reason}: got {s} for {case.response!r} (gold {case.gold!r})"


def test_differences_from_mira_are_labelled():
    """Where MIRA's rule gives the other verdict the case names its class; where they agree it names none."""
    wrong = []
    for c in CASES:
        em = mira_exact_match(c.response, c.gold)
        if (em != c.expected) != (c.mira is not None):
            wrong.append((c.response, c.gold, em, c.mira))
    assert not wrong, wrong


def test_every_difference_class_is_documented_with_an_example():
    text = DOC.read_text(encoding="utf-8")
    classes = {c.mira for c in CASES if c.mira}
    for cls in classes:
        assert f"`{cls}`" in text, f"difference class {cls} missing from docs/scoring.md"


def test_mira_only_right_cases_exist_and_are_tag_choice():
    """The only class where MIRA says right and we say wrong: it read an answer the model later replaced."""
    mira_only = [c for c in CASES if c.mira and not c.expected]
    assert mira_only
    assert {c.mira for c in mira_only} == {"tag-choice"}
