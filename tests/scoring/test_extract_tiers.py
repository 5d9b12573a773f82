"""Extraction tiers and the Score contract."""

from __future__ import annotations

import pytest

from vcot.schema import AnswerType, Instance
from vcot.scoring import extract_answer, grade, score_response
from vcot.scoring.grade import canonical


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("<answer>B</answer>", ("B", "tag")),
        ("<think><answer>A</answer></think><answer>B</answer>", ("B", "tag")),
        ("The answer is 7.", ("7", "regex")),
        ("Final answer: **C**", ("C", "regex")),
        ("\\boxed{3:05}", ("3:05", "regex")),
        ("Nothing to see here, sorry about that.", (None, "none")),
        ("", (None, "none")),
        (None, (None, "none")),
        ("<answer></answer>", (None, "none")),
    ],
)
def test_extract_tiers(response, expected):
    assert extract_answer(response) == expected


def _inst(**kw) -> Instance:
    base = dict(
        uid="u1",
        task="overlap",
        domain="EG",
        question="Which pair?",
        image="a.png",
        answer="B",
        answer_type=AnswerType.CHOICE,
        options=["p1", "p2", "p3"],
    )
    base.update(kw)
    return Instance(**base)


def test_score_response_contract():
    s = score_response("I pick <answer>(B)</answer>", _inst())
    assert (s.extracted, s.tier, s.correct) == ("(B)", "tag", True)
    assert s.reason == "match"
    s = score_response("no idea", _inst())
    assert (s.extracted, s.tier, s.correct) == (None, "none", False)


def test_grade_signature_and_options():
    assert grade("p2", "B", "choice", ["p1", "p2", "p3"])
    assert not grade("p3", "B", AnswerType.CHOICE, ["p1", "p2", "p3"])
    assert grade("eleven", "11", "integer")


def test_canonical_votes_merge_spellings():
    assert canonical("(B)", "choice") == canonical("Option B", "choice") == "B"
    assert canonical("up-left", "direction") == canonical("NW", "direction") == "northwest"
    assert canonical("15:05", "time") == canonical("3:05", "time")
    assert canonical("A or B", "choice") is None
    assert canonical("anticlockwise", "text", gold="clockwise") == "counterclockwise"


def test_unreadable_gold_is_wrong_not_a_crash():
    s = score_response("<answer>7</answer>", _inst(answer_type=AnswerType.INTEGER, answer="many", options=None))
    assert s.correct is False and "ungradable" in s.reason


def test_unknown_answer_type_is_wrong_not_a_crash():
    from vcot.scoring import grade_detail

    v = grade_detail("7", "7", "weird")
    assert v.correct is False and "ungradable" in v.reason
