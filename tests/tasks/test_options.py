"""tasks/common/options.py: the answer placed among distractors, and the rank a cue reads."""

from __future__ import annotations

import pytest

from vcot.tasks.base import Reject
from vcot.tasks.common.options import cue_rank_holds, only_match, place_correct_option


@pytest.mark.parametrize(
    "values, target, expected",
    [
        ([5, 1, 2, 3], 0, True),  # unique largest
        ([5, 5, 2, 3], 0, False),  # tied largest: a max-picking cue may or may not pick it
        ([1, 4, 2, 3], 1, True),  # unique smallest
        ([1, 1, 2, 3], 1, False),
        ([2, 1, 3, 3], 2, True),  # neither largest nor smallest
        ([3, 1, 3, 2], 2, False),  # ties at the top count as the top
        ([2.0, 2.0 + 1e-12, 1.0, 0.5], 0, False),  # float sums within 1e-9 are tied
        ([2.0, 1.9, 1.0, 0.5], 0, True),
    ],
)
def test_cue_rank_holds(values, target, expected):
    assert cue_rank_holds(values, target) is expected


def test_cue_rank_holds_reads_the_answer_index():
    assert cue_rank_holds([1, 2, 9, 3], 0, answer=2) and not cue_rank_holds([1, 2, 9, 3], 0, answer=1)


def test_place_correct_option_inserts_at_the_slot_and_rejects_two_right_options():
    assert place_correct_option("R", ["a", "b", "c"], 2, lambda c: c == "R") == ["a", "b", "R", "c"]
    with pytest.raises(Reject):
        place_correct_option("R", ["a", "R", "c"], 0, lambda c: c == "R")
    assert only_match(["x", "R"], lambda c: c == "R") == 1
