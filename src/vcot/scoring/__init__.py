"""Scoring (SPEC §7): tiered answer extraction, type-aware grading, LLM judges as the last resort."""

from vcot.scoring.extract import extract_answer
from vcot.scoring.grade import Verdict, canonical, grade, grade_detail
from vcot.scoring.judge import Judge, JudgeVerdict, LLMJudge
from vcot.scoring.score import Score, score_fields, score_records, score_response, score_table

__all__ = [
    "Judge", "JudgeVerdict", "LLMJudge", "Score", "Verdict", "canonical", "extract_answer", "grade",
    "grade_detail", "score_fields", "score_records", "score_response", "score_table",
]
