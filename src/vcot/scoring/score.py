"""One response -> one Score; one results table -> the same table with extracted, tier, correct, verdict,
score_reason. The verdict values are listed in docs/scoring.md ("Verdicts")."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vcot.schema import AnswerType, Instance
from vcot.scoring.extract import JUDGE, NONE, extract_detail
from vcot.scoring.grade import AMBIGUOUS, CORRECT, NO_ANSWER, UNDECIDABLE, WRONG, grade_detail
from vcot.scoring.judge import Judge

TRUNCATED = "truncated"
ERROR = "error"
VERDICTS = (CORRECT, WRONG, AMBIGUOUS, UNDECIDABLE, NO_ANSWER, TRUNCATED, ERROR)

SCORE_COLUMNS = ("extracted", "tier", "correct", "verdict", "score_reason", "judge_model")

# finish_reason values meaning "stopped at the token limit": OpenAI-compatible "length", Anthropic "max_tokens"
# (and "model_context_window_exceeded"), Google "MAX_TOKENS", OpenAI Responses "max_output_tokens", and
# Inspect AI's stop_reason "max_tokens" / "model_length" (the exporter in vcot.export.inspect_ai).
_TRUNCATION_REASONS = frozenset(
    {"length", "max_tokens", "max_output_tokens", "model_context_window_exceeded", "model_length"}
)


def is_truncated(finish_reason: Any) -> bool:
    """Whether a provider's finish_reason says the response was cut off at its token limit."""
    if finish_reason is None:
        return False
    reason = str(finish_reason).strip().lower()
    return reason.rsplit(".", 1)[-1] in _TRUNCATION_REASONS  # "FinishReason.MAX_TOKENS" from an SDK's str()


@dataclass(frozen=True, slots=True)
class Score:
    extracted: str | None
    tier: str  # "tag" | "regex" | "judge" | "none"
    correct: bool
    reason: str
    judge_model: str | None = None  # set when a judge gave the verdict, so results name their judge
    verdict: str = ""  # one of VERDICTS; `correct` is True exactly when it is "correct"


def score_fields(
    response: str | None,
    gold: str,
    answer_type: AnswerType | str,
    options: Sequence[str] | None = None,
    question: str = "",
    judge: Judge | None = None,
    *,
    truncated: bool = False,
) -> Score:
    """score_response without building an Instance (tables hold plain columns). `truncated`: the provider
    stopped the response at its token limit (see is_truncated); it is then graded only from a complete
    <answer> tag, and is "truncated" (wrong) without one."""
    if response is None or not str(response).strip():
        return Score(None, NONE, False, "empty response", verdict=NO_ANSWER)
    found = extract_detail(response, truncated)
    text, tier = found.text, found.tier
    if text is None:
        if truncated:
            return Score(None, NONE, False, found.rule, verdict=TRUNCATED)
        if judge is None:
            return Score(None, NONE, False, "no answer found", verdict=NO_ANSWER)
        v = judge.judge_answer(question, gold, response)
        return Score(
            None, JUDGE, v.correct, f"answer judge {v.model}: {v.raw}", v.model, CORRECT if v.correct else WRONG
        )
    verdict = grade_detail(text, gold, answer_type, options)
    if verdict.correct is not None:
        return Score(text, tier, verdict.correct, verdict.reason, verdict=verdict.status)
    if judge is None:
        return Score(text, tier, False, f"{verdict.reason}; no judge configured", verdict=verdict.status)
    v = judge.judge_equivalence(question, gold, text)
    return Score(
        text,
        JUDGE,
        v.correct,
        f"equivalence judge {v.model}: {v.raw} ({verdict.reason})",
        v.model,
        CORRECT if v.correct else WRONG,
    )


def score_response(
    response: str | None, instance: Instance, judge: Judge | None = None, *, truncated: bool = False
) -> Score:
    """Tiers 1-2 (tags, phrasings), type-aware grading, and the judge only when the rules cannot decide."""
    return score_fields(
        response, instance.answer, instance.answer_type, instance.options, instance.question, judge, truncated=truncated
    )


def parse_options(value: Any) -> list[str] | None:
    """Options as stored in a results row (JSON text, a list, or null)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else None
    return list(value) if value else None


def row_truncated(row: dict[str, Any]) -> bool:
    """A results row's truncation: a boolean `truncated` column when present, else its `finish_reason`."""
    flag = row.get("truncated")
    if isinstance(flag, bool) or type(flag).__name__ == "bool_":  # a pandas NaN is no answer either way
        return bool(flag)
    return is_truncated(row.get("finish_reason"))


def score_records(
    rows: list[dict[str, Any]], questions: dict[str, str] | None = None, judge: Judge | None = None
) -> list[dict[str, Any]]:
    """Adds the score columns to each row (new dicts); rows with an engine error are wrong, not judged."""
    questions = questions or {}
    out = []
    for row in rows:
        new = dict(row)
        err = row.get("error")
        if err:
            s = Score(None, NONE, False, f"error: {str(err)[:200]}", verdict=ERROR)
        else:
            s = score_fields(
                row.get("response"),
                str(row["gold"]),
                row["answer_type"],
                parse_options(row.get("options")),
                questions.get(row.get("uid", ""), ""),
                judge,
                truncated=row_truncated(row),
            )
        new.update(
            extracted=s.extracted,
            tier=s.tier,
            correct=s.correct,
            verdict=s.verdict,
            score_reason=s.reason,
            judge_model=s.judge_model,
        )
        out.append(new)
    return out


def missing_to_none(value: Any) -> Any:
    """A pandas cell as a plain value, missing as None. pandas marks a missing cell with NaN, pd.NA or NaT,
    in text columns too (its default string dtype from pandas 3, and every Arrow->pandas conversion), and all
    of them are truthy: an empty `error` column would mark every row as failed."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if hasattr(value, "tolist"):  # numpy scalars; list cells (options) come back as numpy arrays
        value = value.tolist()
    if isinstance(value, float) and value != value:
        return None
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    return value


def score_table(table: Any, suite: Any = None, judge: Judge | None = None) -> Any:
    """Score a results table (pyarrow.Table, pandas.DataFrame or list of row dicts); returns the same kind.

    `suite` (a vcot.suite.Suite) is optional: it only supplies question texts for the judge prompts. A
    `finish_reason` column (results.parquet has one) marks truncated responses.
    """
    questions = {inst.uid: inst.question for inst in suite.instances} if suite is not None else None
    if isinstance(table, list):
        return score_records(table, questions, judge)
    if hasattr(table, "to_pylist"):  # pyarrow.Table
        import pyarrow as pa

        rows = score_records(table.to_pylist(), questions, judge)
        base = table.drop_columns([c for c in SCORE_COLUMNS if c in table.column_names])
        for name, typ in (
            ("extracted", pa.string()),
            ("tier", pa.string()),
            ("correct", pa.bool_()),
            ("verdict", pa.string()),
            ("score_reason", pa.string()),
            ("judge_model", pa.string()),
        ):
            base = base.append_column(name, pa.array([r[name] for r in rows], type=typ))
        return base
    if hasattr(table, "to_dict"):  # pandas.DataFrame, without importing pandas here
        records = [{k: missing_to_none(v) for k, v in r.items()} for r in table.to_dict("records")]
        rows = score_records(records, questions, judge)
        scored = table.copy()
        for name in SCORE_COLUMNS:
            scored[name] = [r[name] for r in rows]
        return scored
    raise TypeError(f"cannot score a {type(table).__name__}; pass a pyarrow Table, DataFrame or list of dicts")
