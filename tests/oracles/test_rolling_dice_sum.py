"""The rolling_dice_sum oracle (3-D rotation matrices) agrees with the generator and reacts to a changed roll."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.rolling_dice_sum import answer
from vcot.tasks import get_task

NEIGHBOURS = ((-1, 0), (1, 0), (0, 1), (0, -1))


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_scene_never_stores_the_sum(difficulty: str) -> None:
    task = get_task("rolling_dice_sum", difficulty)
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        assert "sum" not in scene


def test_hand_worked() -> None:
    # Reference die 1 top, 2 south, 3 east (6 bottom). Roll east: bottom 3; roll east again: bottom 1 (the old
    # top went east, then down); roll south: bottom is the south face, still 2.
    scene = {
        "rows": 3,
        "cols": 3,
        "path": [[0, 0], [0, 1], [0, 2], [1, 2]],
        "start_die": {"top": 1, "south": 2, "east": 3},
    }
    assert answer(scene, {}) == str(3 + 1 + 2)


def test_wrong_scene_changes_answer() -> None:
    """Sending the last roll another way puts another face at the bottom, so the sum changes."""
    task = get_task("rolling_dice_sum", "medium")
    for i in range(10):
        scene, solution = task.solved_scene(i, 5)
        prev, last = scene["path"][-2], scene["path"][-1]
        for dr, dc in NEIGHBOURS:
            cell = [prev[0] + dr, prev[1] + dc]
            if cell == last:
                continue
            bad = copy.deepcopy(scene)
            bad["path"][-1] = cell
            assert answer(bad, task.params()) != solution.answer, (i, cell)
