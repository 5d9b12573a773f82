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


def place_correct_option(correct: T, distractors: Sequence[T], slot: int, matches: Callable[[T], bool],
                         what: str = "match") -> list[T]:
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
