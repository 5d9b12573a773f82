"""Why one response got its verdict: the library side of `vcot score-text` (docs/scoring.md, "Debugging one
response")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vcot.schema import AnswerType
from vcot.scoring.extract import extract_detail
from vcot.scoring.grade import format_value, parse_answer
from vcot.scoring.judge import Judge
from vcot.scoring.score import score_fields


@dataclass(frozen=True, slots=True)
class Explanation:
    extracted: str | None  # the answer span, as cleaned for grading
    tier: str  # "tag" | "regex" | "judge" | "none"
    verdict: str  # see vcot.scoring.score.VERDICTS
    correct: bool
    reason: str  # human-readable: how the span was found, which rule decided, what was rejected
    rule: str  # the extraction rule that found the span (or why none was found)
    value: str | None = None  # the value the answer commits to, as the grader reads it
    gold_value: str | None = None
    judge_model: str | None = None

    def __str__(self) -> str:
        lines = [
            f"verdict:   {self.verdict} ({'counted right' if self.correct else 'counted wrong'})",
            f"extracted: {self.extracted!r} (tier {self.tier}: {self.rule})",
        ]
        if self.value is not None or self.gold_value is not None:
            lines.append(f"reads as:  {self.value if self.value is not None else '—'}   gold: {self.gold_value}")
        lines.append(f"reason:    {self.reason}")
        return "\n".join(lines)


def explain(
    response: str,
    gold: str,
    answer_type: AnswerType | str,
    options: Sequence[str] | None = None,
    truncated: bool = False,
    judge: Judge | None = None,
    question: str = "",
) -> Explanation:
    """Score one response as score_fields does, and say why: the span, the rule that found it, the value the
    answer commits to and the rule that decided. Without a judge, an ambiguous or undecidable answer is shown
    as such (counted wrong); with one, the judge's verdict is reported."""
    found = extract_detail(response, truncated)
    s = score_fields(response, gold, answer_type, options, question, judge, truncated=truncated)
    value = gold_value = None
    if found.text is not None:
        try:
            p = parse_answer(found.text, answer_type, options, gold)
            g = parse_answer(gold, answer_type, options, gold)
        except (ValueError, ZeroDivisionError):
            p = g = None
        if p is not None and p.ok:
            value = format_value(p.value, answer_type)
        if g is not None and g.ok:
            gold_value = format_value(g.value, answer_type)
    if found.text is None:
        reason = s.reason if s.reason != found.rule else found.rule
    else:
        reason = f"found by {found.rule}; {s.reason}"
    return Explanation(s.extracted, s.tier, s.verdict, s.correct, reason, found.rule, value, gold_value, s.judge_model)
