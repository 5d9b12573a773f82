"""Scoring (docs/scoring.md): tiered answer extraction, type-aware and negation-aware grading, LLM judges as
the last resort, and `explain` for debugging one response."""

from vcot.scoring.explain import Explanation, explain
from vcot.scoring.extract import extract_answer, extract_detail
from vcot.scoring.grade import Verdict, canonical, grade, grade_detail
from vcot.scoring.judge import Judge, JudgeVerdict, LLMJudge
from vcot.scoring.score import (
    VERDICTS,
    Score,
    is_truncated,
    score_fields,
    score_records,
    score_response,
    score_table,
)

__all__ = [
    "VERDICTS",
    "Explanation",
    "Judge",
    "JudgeVerdict",
    "LLMJudge",
    "Score",
    "Verdict",
    "canonical",
    "explain",
    "extract_answer",
    "extract_detail",
    "grade",
    "grade_detail",
    "is_truncated",
    "score_fields",
    "score_records",
    "score_response",
    "score_table",
]
