"""The rolling_dice_top oracle (3-D rotation matrices) agrees with the generator and reacts to a changed roll."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.rolling_dice_top import answer
from vcot.tasks import get_task

NEIGHBOURS = ((-1, 0), (1, 0), (0, 1), (0, -1))


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_scene_never_stores_the_top_face(difficulty: str) -> None:
    task = get_task("rolling_dice_top", difficulty)
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        assert "top" not in scene


def test_hand_worked() -> None:
    # Reference die 1 top, 2 south, 3 east. Roll east: the west face (4) comes up; then north: the south
    # face (now still 2) comes up.
    scene = {"rows": 3, "cols": 3, "path": [[1, 0], [1, 1]], "start_die": {"top": 1, "south": 2, "east": 3}}
    assert answer(scene, {}) == "4"
    scene["path"] = [[1, 0], [1, 1], [0, 1]]
    assert answer(scene, {}) == "2"
    # Four rolls the same way bring the die back.
    scene["path"] = [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]
    assert answer(scene, {}) == "1"


def test_wrong_scene_changes_answer() -> None:
    """Sending the last roll another way always brings another face up (the face opposite the roll)."""
    task = get_task("rolling_dice_top", "medium")
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
