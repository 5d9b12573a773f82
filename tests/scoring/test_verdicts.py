"""Verdict values, truncated responses, the judge route for ambiguous answers, explain(), and tables."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from vcot.schema import AnswerType, Instance
from vcot.scoring import (
    VERDICTS,
    Explanation,
    JudgeVerdict,
    Score,
    canonical,
    explain,
    extract_answer,
    grade_detail,
    is_truncated,
    score_fields,
    score_response,
    score_table,
)


@pytest.mark.parametrize(
    ("reason", "cut"),
    [
        ("length", True),
        ("max_tokens", True),
        ("MAX_TOKENS", True),
        ("FinishReason.MAX_TOKENS", True),
        ("max_output_tokens", True),
        ("model_context_window_exceeded", True),
        ("model_length", True),
        ("stop", False),
        ("end_turn", False),
        ("STOP", False),
        ("tool_calls", False),
        ("max_turns", False),
        (None, False),
        ("", False),
    ],
)
def test_is_truncated(reason, cut):
    assert is_truncated(reason) is cut


def test_truncated_without_a_complete_tag_is_its_own_verdict():
    s = score_fields("Counting rows: 3, 4, so the answer is 7", "7", "integer", truncated=True)
    assert (s.correct, s.verdict, s.tier, s.extracted) == (False, "truncated", "none", None)
    assert "truncated" in s.reason
    # The same text, not truncated, is read from its phrase; with no answer at all it is "no answer".
    assert score_fields("Counting rows: 3, 4, so the answer is 7", "7", "integer").verdict == "correct"
    assert score_fields("I could not work it out.", "7", "integer").verdict == "no answer"
    assert score_fields("I could not work it out.", "7", "integer", truncated=True).verdict == "truncated"


def test_truncated_response_is_graded_from_a_complete_tag_only():
    assert score_fields("<answer>7</answer> let me verify by count", "7", "integer", truncated=True).correct
    assert score_fields("<answer>6</answer> let me verify by count", "7", "integer", truncated=True).verdict == "wrong"
    s = score_fields("so it is\n<answer>7", "7", "integer", truncated=True)
    assert s.verdict == "truncated"  # the unclosed tag counts only when the response was not cut off
    assert score_fields("so it is\n<answer>7", "7", "integer").correct
    assert extract_answer("so it is\n<answer>7", truncated=True) == (None, "none")


def test_truncated_is_never_sent_to_a_judge():
    judge = _FakeJudge(True)
    s = score_fields("The answer is probably 7 but", "7", "integer", judge=judge, truncated=True)
    assert s.verdict == "truncated" and not s.correct and judge.calls == []


class _FakeJudge:
    model = "fake-judge"

    def __init__(self, verdict: bool):
        self.verdict = verdict
        self.calls: list[tuple[str, str]] = []

    def judge_answer(self, question: str, gold: str, response: str) -> JudgeVerdict:
        self.calls.append(("answer", response))
        return JudgeVerdict(self.verdict, "Correct" if self.verdict else "Incorrect", self.model)

    def judge_equivalence(self, question: str, gold: str, candidate: str) -> JudgeVerdict:
        self.calls.append(("equivalence", candidate))
        return JudgeVerdict(self.verdict, "Correct" if self.verdict else "Incorrect", self.model)


@pytest.mark.parametrize(
    ("response", "gold", "type_", "verdict"),
    [
        ("<answer>7</answer>", "7", "integer", "correct"),
        ("<answer>8</answer>", "7", "integer", "wrong"),
        ("<answer>not 7</answer>", "7", "integer", "wrong"),  # rejects the gold: decided, no judge
        ("<answer>7 or 8</answer>", "7", "integer", "wrong"),  # hedged
        ("<answer>4 of the 9 points</answer>", "4", "integer", "ambiguous"),
        ("<answer>9 — it is 11</answer>", "9", "integer", "ambiguous"),
        ("<answer>a ripe apple</answer>", "a pear", "text", "undecidable"),
        ("Nothing to report.", "7", "integer", "no answer"),
        ("", "7", "integer", "no answer"),
    ],
)
def test_verdict_values_without_a_judge(response, gold, type_, verdict):
    s = score_fields(response, gold, type_)
    assert s.verdict == verdict and s.verdict in VERDICTS
    assert s.correct is (verdict == "correct")


def test_ambiguous_answers_go_to_the_judge_rejections_do_not():
    judge = _FakeJudge(True)
    s = score_fields("<answer>4 of the 9 points</answer>", "4", "integer", judge=judge)
    assert (s.tier, s.correct, s.verdict, s.judge_model) == ("judge", True, "correct", "fake-judge")
    assert judge.calls == [("equivalence", "4 of the 9 points")]
    assert "ambiguous" in s.reason
    judge.calls.clear()
    for response in ("<answer>not 4</answer>", "<answer>4 or 5</answer>", "<answer>4 is wrong</answer>"):
        assert score_fields(response, "4", "integer", judge=judge).correct is False
    assert judge.calls == []


def test_grade_detail_status_and_old_contract():
    v = grade_detail("not E", "E", "choice", list("ABCDE"))
    assert (v.correct, v.status) == (False, "wrong") and "rejects E" in v.reason
    v = grade_detail("B and C", "B", "choice", list("ABCD"))
    assert (v.correct, v.status) == (None, "ambiguous")
    # Positional construction of Score and Verdict still works as before.
    assert Score("7", "tag", True, "match").verdict == ""
    assert grade_detail("7", "7", "integer").status == "correct"


def test_score_response_passes_truncation():
    inst = Instance(
        uid="u",
        task="convex_hull",
        domain="EG",
        question="How many?",
        image="a.png",
        answer="5",
        answer_type=AnswerType.INTEGER,
    )
    assert score_response("The answer is 5", inst).correct
    assert score_response("The answer is 5", inst, truncated=True).verdict == "truncated"


def _rows() -> list[dict]:
    base = dict(
        run_id="r",
        model="m",
        condition="direct",
        task="convex_hull",
        domain="EG",
        answer_type="integer",
        gold="5",
        options=None,
        epoch=0,
        error=None,
        finish_reason="stop",
    )
    return [
        dict(base, uid="1", response="<answer>5</answer>"),
        dict(base, uid="2", response="So far I count 5 and", finish_reason="length"),
        dict(base, uid="3", response="<answer>5</answer> and then", finish_reason="MAX_TOKENS"),
        dict(base, uid="4", response="<answer>not 5</answer>"),
        dict(base, uid="5", response=None, error="timeout"),
        dict(base, uid="6", response="The answer is 5", finish_reason=None),
    ]


def test_score_table_reads_finish_reason():
    out = score_table(pa.Table.from_pylist(_rows()))
    assert out.column("verdict").to_pylist() == ["correct", "truncated", "correct", "wrong", "error", "correct"]
    assert out.column("correct").to_pylist() == [True, False, True, False, False, True]
    again = score_table(out)
    assert again.column_names.count("verdict") == 1


def test_score_records_truncated_column_wins():
    rows = [dict(_rows()[5], truncated=True)]
    assert score_table(rows)[0]["verdict"] == "truncated"


def test_explain_says_why():
    e = explain("<think>9?</think><answer>not 9 — on a recount it is 11</answer>", "11", "integer")
    assert isinstance(e, Explanation)
    assert (e.extracted, e.tier, e.verdict, e.correct, e.value, e.gold_value) == (
        "not 9 — on a recount it is 11",
        "tag",
        "correct",
        True,
        "11",
        "11",
    )
    assert "answer" in e.rule and "supersedes 9" in e.reason
    text = str(e)
    assert "verdict:" in text and "reason:" in text
    e = explain("<answer>E is wrong</answer>", "E", "choice", ["A", "B", "C", "D", "E"])
    assert (e.verdict, e.correct, e.value) == ("wrong", False, None) and "rejects E" in e.reason
    e = explain("Still counting the cubes in the", "7", "integer", truncated=True)
    assert e.verdict == "truncated" and e.extracted is None and "truncated" in e.reason
    e = explain("So the clock reads twenty to eight.", "7:40", "time")
    assert (e.tier, e.verdict, e.value) == ("regex", "correct", "7:40") and "concluding" in e.rule
    e = explain('{"answer": "D"}', "D", "choice", ["A", "B", "C", "D"])
    assert e.correct and "JSON" in e.rule


def test_canonical_votes_follow_commitment():
    assert canonical("not E", "choice", list("ABCDE")) is None
    assert canonical("D (A and C are ruled out)", "choice", list("ABCD")) == "D"
    assert canonical("not 9 — on a recount it is 11", "integer") == canonical("11", "integer")
    assert canonical("quarter past three", "time") == canonical("3:15", "time")
    assert canonical("x = 4, y = -1", "coordinates") == canonical("(4, -1)", "coordinates")
    assert canonical("CW", "direction", gold="clockwise") == "clockwise"
    assert canonical('{"answer": 9}', "integer") == canonical("9", "integer")


def test_json_list_and_object_flattening():
    from vcot.scoring.extract import clean_answer

    assert clean_answer('{"answer": [[1, 2], [3, 4]]}') == "(1, 2), (3, 4)"
    assert clean_answer('{"x": 4, "y": -1}') == "x = 4, y = -1"
    assert clean_answer('{"reasoning": "long", "final_answer": "B"}') == "B"
    assert clean_answer("[B]") == "[B]"  # a bracketed letter is not JSON
    assert json.loads('{"a": 1}')  # the parser is the standard one
