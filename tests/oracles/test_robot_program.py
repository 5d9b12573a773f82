"""The robot_program oracle (stacks of names per cell) agrees with the generator and reacts to a changed program."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles._robot import Impossible
from vcot.oracles.robot_program import answer
from vcot.tasks import get_task


def test_hand_worked() -> None:
    scene = {
        "size": [4, 4],
        "blocks": {"red": [0, 0, 0], "blue": [2, 0, 0]},
        "asked": "red",
        "program": [
            {"op": "push", "block": "blue", "dir": "away"},
            {"op": "put_beside", "block": "red", "onto": "blue", "dir": "left"},
        ],
    }
    assert answer(scene, {}) == "b2"
    scene["program"][1]["dir"] = "right"
    assert answer(scene, {}) == "d2"
    scene["program"][0]["dir"] = "towards"  # off the table
    with pytest.raises(Impossible):
        answer(scene, {})


@pytest.mark.parametrize("difficulty", ["easy", "hard"])
def test_agrees_and_changes_with_the_program(difficulty: str) -> None:
    task = get_task("robot_program", difficulty)
    for i in range(6):
        scene, solution = task.solved_scene(i, 8)
        assert answer(scene, task.params()) == solution.answer
        assert "answer" not in scene
        # Dropping the last action touching the asked block changes its end cell, or makes the program impossible.
        last = max(k for k, a in enumerate(scene["program"]) if a["block"] == scene["asked"])
        other = copy.deepcopy(scene)
        del other["program"][last]
        try:
            changed = answer(other, {}) != solution.answer
        except Impossible:
            changed = True
        assert changed or last < len(scene["program"]) - 1
