"""The cubes_count oracle (ray-cast picture read back, voxels counted) agrees with the generator, reacts to a
changed column and refuses a picture that hides a column."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.cubes_count import Unreadable, answer, read_structure
from vcot.tasks import get_task

ISO = {"azimuth": 45, "elevation": 35.26439}


def test_hand_worked() -> None:
    cam = {"azimuth": 45, "elevation": 30}
    assert answer({"heights": [[1, 1, 1], [2, 2, 1], [3, 2, 1]], "camera": cam}, {}) == "14"
    assert answer({"heights": [[2, 1], [1, 0]], "camera": cam}, {}) == "4"
    assert read_structure({"heights": [[3], [1]], "camera": ISO}) == [[3], [1]]


@pytest.mark.parametrize("heights", [[[3, 3], [1, 3]], [[3, 3], [0, 3]], [[0, 2], [1, 0]]])
def test_hidden_cell_is_unreadable(heights) -> None:
    with pytest.raises(Unreadable):
        answer({"heights": heights, "camera": ISO}, {})


def test_perturbed_scene_changes_the_answer() -> None:
    task = get_task("cubes_count", "medium")
    changed = 0
    for i in range(3):
        scene, solution = task.solved_scene(i, 5)
        for y, row in enumerate(scene["heights"]):
            for x, h in enumerate(row):
                for dh in (1, -1):
                    wrong = copy.deepcopy(scene)
                    wrong["heights"][y][x] = h + dh
                    if h + dh < 0:
                        continue
                    try:
                        got = int(answer(wrong, task.params()))
                    except Unreadable:
                        continue
                    assert got == int(solution.answer) + dh
                    changed += 1
    assert changed >= 15
