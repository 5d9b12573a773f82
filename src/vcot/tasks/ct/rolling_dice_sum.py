"""rolling_dice_sum: a die rolls along a drawn path on a grid board; the sum of its bottom faces after each roll.

The board, paths, pictures and sampling are shared with rolling_dice_top (`common/dice_paths.py`); the die
model and the roll rule live in `common/die.py`.
"""

from __future__ import annotations

from typing import Any

from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace
from vcot.tasks.base import Solution
from vcot.tasks.common.dice_paths import (
    SinglePathTask,
    bottom_sum,
    bottom_sum_space,
    solve_single,
)

# Sum answers: the residue mod SUM_BINS is balanced over a suite (the natural spread keeps any single value
# below ~12%, balancing the residue also removes parity priors).
SUM_BINS = 4


@register
class RollingDiceSum(SinglePathTask):
    name = "rolling_dice_sum"
    version = "3"
    description = "A die rolls along a drawn grid path; the sum of its bottom faces after each roll."
    ask = (
        "After each roll, note the number on the bottom face (the face touching the board); the bottom face at "
        "the start, before the first roll, is not counted. What is the sum of these bottom numbers over all "
        "rolls? Answer with a single integer."
    )
    balance_bins = SUM_BINS

    def balance_bin(self, answer: int) -> int:
        return answer % SUM_BINS

    def solve(self, scene: dict[str, Any]) -> Solution:
        states = solve_single(scene)
        return Solution(
            answer=self.answer_of_states(states),
            states=states,
            details={"moves": [s["move"] for s in states[1:]], "bottoms": [s["die"]["bottom"] for s in states[1:]]},
        )

    def answer_of_states(self, states: list[dict[str, Any]]) -> str:
        return str(bottom_sum(states))

    def answer_space(self, instance: Instance) -> AnswerSpace:
        return bottom_sum_space(self.config)
