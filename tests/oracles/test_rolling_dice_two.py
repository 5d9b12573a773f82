"""The rolling_dice_two oracle (3-D rotation matrices per path) agrees with the generator and reacts to a
changed roll on the winning path."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.rolling_dice_two import answer
from vcot.tasks import get_task

NEIGHBOURS = ((-1, 0), (1, 0), (0, 1), (0, -1))


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_scene_never_stores_the_winner(difficulty: str) -> None:
    task = get_task("rolling_dice_two", difficulty)
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        assert "winner" not in scene


def test_hand_worked() -> None:
    # Reference die (1 top, 2 south, 3 east). Red: east, east -> bottoms 3, 1 = 4. Black: south, south ->
    # bottoms 2, 1 = 3.
    scene = {
        "rows": 3,
        "cols": 3,
        "start_die": {"top": 1, "south": 2, "east": 3},
        "paths": {"red": [[0, 0], [0, 1], [0, 2]], "black": [[0, 0], [1, 0], [2, 0]]},
    }
    assert answer(scene, {}) == "red, 4"
    # Black: east then south -> bottoms 3, 2 = 5.
    scene["paths"]["black"] = [[0, 0], [0, 1], [1, 1]]
    assert answer(scene, {}) == "black, 5"


def test_wrong_scene_changes_answer() -> None:
    """Rerouting the last roll of a path that reaches the highest sum changes that sum, hence the answer."""
    task = get_task("rolling_dice_two", "medium")
    for i in range(12):  # covers red, black and same outcomes
        scene, solution = task.solved_scene(i, 5)
        winner = solution.answer.split(",")[0]
        colour = "red" if winner == "same" else winner
        path = scene["paths"][colour]
        prev, last = path[-2], path[-1]
        for dr, dc in NEIGHBOURS:
            cell = [prev[0] + dr, prev[1] + dc]
            if cell == last:
                continue
            bad = copy.deepcopy(scene)
            bad["paths"][colour][-1] = cell
            assert answer(bad, task.params()) != solution.answer, (i, colour, cell)
