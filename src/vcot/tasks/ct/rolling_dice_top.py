"""rolling_dice_top: a die rolls along a drawn path on a grid board; which number is on top at the end.

The board, paths, pictures and sampling are shared with rolling_dice_sum (`common/dice_paths.py`); the die
model and the roll rule live in `common/die.py`.
"""

from __future__ import annotations

from typing import Any

from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, integers
from vcot.tasks.base import Solution
from vcot.tasks.common.dice_paths import SinglePathTask, solve_single


@register
class RollingDiceTop(SinglePathTask):
    name = "rolling_dice_top"
    version = "3"
    description = "A die rolls along a drawn grid path; which number is on top at the end?"
    ask = "What number is on the top face of the die when it reaches the end of the path? Answer with a single integer."
    balance_bins = 6  # each top face equally often
    # The last step draws the die on its end cell, top face up; its text describes that state like any other.
    final_state_shows = "the top face of the die after the last roll (on the end cell and in the panel)"

    def balance_bin(self, answer: int) -> int:
        return answer - 1

    def solve(self, scene: dict[str, Any]) -> Solution:
        states = solve_single(scene)
        return Solution(
            answer=self.answer_of_states(states), states=states, details={"moves": [s["move"] for s in states[1:]]}
        )

    def answer_of_states(self, states: list[dict[str, Any]]) -> str:
        return str(states[-1]["die"]["top"])

    def answer_space(self, instance: Instance) -> AnswerSpace:
        # Any face can end on top after one roll or more, whatever the board.
        return integers(1, 6, "the integers 1 to 6: the faces of a die")
