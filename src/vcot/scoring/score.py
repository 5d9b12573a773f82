"""One response -> one Score; one results table -> the same table with extracted, tier, correct, score_reason."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vcot.schema import AnswerType, Instance
from vcot.scoring.extract import JUDGE, NONE, extract_answer
from vcot.scoring.grade import grade_detail
from vcot.scoring.judge import Judge

SCORE_COLUMNS = ("extracted", "tier", "correct", "score_reason", "judge_model")


@dataclass(frozen=True, slots=True)
class Score:
    extracted: str | None
    tier: str  # "tag" | "regex" | "judge" | "none"
    correct: bool
    reason: str
    judge_model: str | None = None  # set when a judge gave the verdict, so results name their judge


def score_fields(response: str | None, gold: str, answer_type: AnswerType | str,
                 options: Sequence[str] | None = None, question: str = "", judge: Judge | None = None) -> Score:
    """score_response without building an Instance (tables hold plain columns)."""
    if response is None or not str(response).strip():
        return Score(None, NONE, False, "empty response")
    text, tier = extract_answer(response)
    if text is None:
        if judge is None:
            return Score(None, NONE, False, "no answer found")
        v = judge.judge_answer(question, gold, response)
        return Score(None, JUDGE, v.correct, f"answer judge {v.model}: {v.raw}", v.model)
    verdict = grade_detail(text, gold, answer_type, options)
    if verdict.correct is not None:
        return Score(text, tier, verdict.correct, verdict.reason)
    if judge is None:
        return Score(text, tier, False, f"{verdict.reason}; no judge configured")
    v = judge.judge_equivalence(question, gold, text)
    return Score(text, JUDGE, v.correct, f"equivalence judge {v.model}: {v.raw}", v.model)


def score_response(response: str | None, instance: Instance, judge: Judge | None = None) -> Score:
    """Tiers 1-2 (tags, phrasings), type-aware grading, and the judge only when the rules cannot decide."""
    return score_fields(response, instance.answer, instance.answer_type, instance.options, instance.question, judge)


def parse_options(value: Any) -> list[str] | None:
    """Options as stored in a results row (JSON text, a list, or null)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else None
    return list(value) if value else None


def score_records(rows: list[dict[str, Any]], questions: dict[str, str] | None = None,
                  judge: Judge | None = None) -> list[dict[str, Any]]:
    """Adds the score columns to each row (new dicts); rows with an engine error are wrong, not judged."""
    questions = questions or {}
    out = []
    for row in rows:
        new = dict(row)
        err = row.get("error")
        if err:
            s = Score(None, NONE, False, f"error: {str(err)[:200]}")
        else:
            s = score_fields(row.get("response"), str(row["gold"]), row["answer_type"], parse_options(row.get("options")),
                             questions.get(row.get("uid", ""), ""), judge)
        new.update(extracted=s.extracted, tier=s.tier, correct=s.correct, score_reason=s.reason,
                   judge_model=s.judge_model)
        out.append(new)
    return out


def score_table(table: Any, suite: Any = None, judge: Judge | None = None) -> Any:
    """Score a results table (pyarrow.Table, pandas.DataFrame or list of row dicts); returns the same kind.

    `suite` (a vcot.suite.Suite) is optional: it only supplies question texts for the judge prompts.
    """
    questions = {inst.uid: inst.question for inst in suite.instances} if suite is not None else None
    if isinstance(table, list):
        return score_records(table, questions, judge)
    if hasattr(table, "to_pylist"):  # pyarrow.Table
        import pyarrow as pa

        rows = score_records(table.to_pylist(), questions, judge)
        base = table.drop_columns([c for c in SCORE_COLUMNS if c in table.column_names])
        for name, typ in (("extracted", pa.string()), ("tier", pa.string()), ("correct", pa.bool_()),
                          ("score_reason", pa.string()), ("judge_model", pa.string())):
            base = base.append_column(name, pa.array([r[name] for r in rows], type=typ))
        return base
    if hasattr(table, "to_dict"):  # pandas.DataFrame, without importing pandas here
        rows = score_records(table.to_dict("records"), questions, judge)
        scored = table.copy()
        for name in SCORE_COLUMNS:
            scored[name] = [r[name] for r in rows]
        return scored
    raise TypeError(f"cannot score a {type(table).__name__}; pass a pyarrow Table, DataFrame or list of dicts")
