"""The answer options of the multiple-choice tasks: the correct candidate placed among the distractors.

Each task picks the answer's slot itself (usually `ctx.balanced(n)`, so that no letter dominates a suite)
and says what "matching" means for its candidates; the helpers here never touch an RNG, so where a task
calls them does not change its stream of draws.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from vcot.tasks.base import Reject

T = TypeVar("T")


def place_correct_option(
    correct: T, distractors: Sequence[T], slot: int, matches: Callable[[T], bool], what: str = "match"
) -> list[T]:
    """The candidates in option order: the distractors in their given order with `correct` inserted at `slot`.

    Reject unless `correct` is the only candidate that `matches`, so an instance never offers two right
    options (or none). `what` completes the rejection message "<n> candidates ...".
    """
    if not 0 <= slot <= len(distractors):
        raise ValueError(f"slot {slot} is outside 0..{len(distractors)}")
    candidates = list(distractors)
    candidates.insert(slot, correct)
    if only_match(candidates, matches, what) != slot:
        raise Reject(f"the correct option does not {what}")
    return candidates


def only_match(candidates: Sequence[T], matches: Callable[[T], bool], what: str = "match") -> int:
    """Index of the only candidate that `matches` (a solver's check of a stored scene); Reject when none or
    several do."""
    hits = [i for i, c in enumerate(candidates) if matches(c)]
    if len(hits) != 1:
        raise Reject(f"{len(hits)} candidates {what}")
    return hits[0]


def cue_rank_holds(values: Sequence[float], target: int, answer: int = 0) -> bool:
    """Whether the answer's place among `values` is `target`: 0 the unique largest, 1 the unique smallest,
    2 or 3 neither the largest nor the smallest (ties included). A cue that picks the largest (or smallest)
    value then names the answer in exactly the instances with target 0 (or 1), whatever its tie-breaking.
    Values within 1e-9 of each other count as tied (likeness sums of floats)."""
    top, bottom = max(values), min(values)
    v = values[answer]
    is_top = v >= top - 1e-9
    is_bottom = v <= bottom + 1e-9
    if target == 0:
        return is_top and sum(x >= top - 1e-9 for x in values) == 1
    if target == 1:
        return is_bottom and sum(x <= bottom + 1e-9 for x in values) == 1
    return not is_top and not is_bottom
