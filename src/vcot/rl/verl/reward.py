"""verl's custom reward function `compute_score` (`reward.custom_reward_function`): vcot's grader through
`vcot.rl.reward_details`, in the dict form verl stacks over a batch."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

_SCORE_KEYS = ("score", "acc", "pred", "format_ok", "draw_calls")


def _draw_calls(value: Any) -> float:
    """The rollout's drawing-call count as a float verl can stack: 0.0 for anything that is not a finite,
    non-negative number (an int too large for a float, NaN, a bool, a string)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    try:
        count = float(value)
    except OverflowError:  # an int beyond 1.8e308
        return 0.0
    return count if math.isfinite(count) and count >= 0 else 0.0


def compute_score(
    data_source: str, solution_str: str, ground_truth: str, extra_info: Mapping[str, Any] | None = None, **kwargs: Any
) -> dict[str, Any]:
    """verl's custom reward function (`reward.custom_reward_function`): vcot's grader on the decoded
    response. Returns verl's dict form — `score` (the reward), `acc` (1.0 when correct: verl's validation
    metrics use it), `pred` (the extracted answer: verl's majority vote uses it), `format_ok`, `draw_calls` —
    with the same keys whatever the input, since verl stacks every key over the batch. Never raises."""
    info = extra_info if isinstance(extra_info, Mapping) else {}
    out: dict[str, Any] = {"score": 0.0, "acc": 0.0, "pred": "", "format_ok": 0.0, "draw_calls": 0.0}
    try:
        out["draw_calls"] = _draw_calls(info.get("vcot_draw_calls"))
    except Exception:  # an odd Mapping's get; the count stays 0
        pass
    try:
        from vcot.rl import reward_details

        options = info.get("options")
        row = {
            "answer": "" if ground_truth is None else str(ground_truth),
            "answer_type": str(info.get("answer_type") or ""),
            "options": [str(o) for o in options] if isinstance(options, list | tuple) and options else None,
            "question": str(info.get("question") or ""),
            "task": info.get("task"),
            "uid": info.get("uid"),
        }
        details = reward_details(solution_str if isinstance(solution_str, str) else "", row)
        out.update(
            score=float(details.reward),
            acc=float(bool(details.correct)),
            pred="" if details.extracted is None else str(details.extracted),
            format_ok=float(bool(details.format_ok)),
        )
    except Exception:  # a reward must never stop training; garbage scores 0
        pass
    return out
