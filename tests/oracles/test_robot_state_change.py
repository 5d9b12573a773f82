"""The robot_state_change oracle (stacks of names per cell, every option replayed) agrees with the generator and
fails loudly when no option or two options fit."""

from __future__ import annotations

import pytest

from vcot.oracles.robot_state_change import answer
from vcot.tasks import get_task


def test_hand_worked() -> None:
    s = {
        "size": [4, 4],
        "before": {"red": [0, 0, 0], "blue": [2, 2, 0]},
        "after": {"red": [2, 2, 1], "blue": [2, 2, 0]},
        "options": [
            [{"op": "push", "block": "red", "dir": "right"}],
            [{"op": "put_beside", "block": "red", "onto": "blue", "dir": "left"}],
            [{"op": "put_on", "block": "red", "onto": "blue"}],
            [{"op": "put_on", "block": "blue", "onto": "red"}],
        ],
    }
    assert answer(s, {}) == "C"
    s["options"][2] = [{"op": "push", "block": "blue", "dir": "left"}]
    with pytest.raises(ValueError):
        answer(s, {})


@pytest.mark.parametrize("difficulty", ["easy", "hard"])
def test_agrees(difficulty: str) -> None:
    task = get_task("robot_state_change", difficulty)
    for i in range(6):
        scene, solution = task.solved_scene(i, 8)
        assert answer(scene, task.params()) == solution.answer
