"""The trailer_cubes_missing oracle (space carving, then the empty voxels of the block) agrees with the
generator and reacts to a changed silhouette or top cell."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.trailer_cubes_count import Inconsistent
from vcot.oracles.trailer_cubes_missing import answer
from vcot.tasks import get_task


def _scene(top, front, side, side_name="right"):
    return {"top": top, "front": front, "side": side, "side_name": side_name, "answer_bin": [0, 100]}


def test_hand_worked() -> None:
    assert answer(_scene([[1, 1], [1, 1]], [2, 1], [2, 1]), {}) == "3"  # block 2x2x2 = 8, structure 5
    assert answer(_scene([[1, 0], [0, 1]], [3, 1], [3, 1]), {}) == "8"  # block 12, structure 4
    with pytest.raises(Inconsistent):
        answer(_scene([[1, 0], [0, 1]], [3, 1], [1, 3]), {})


def test_perturbed_scene_changes_the_answer() -> None:
    task = get_task("trailer_cubes_missing", "medium")
    changed = 0
    for i in range(8):
        scene, solution = task.solved_scene(i, 5)
        for y, row in enumerate(scene["top"]):
            for x, v in enumerate(row):
                wrong = copy.deepcopy(scene)
                wrong["top"][y][x] = 1 - v
                try:
                    got = answer(wrong, task.params())
                except Inconsistent:
                    continue
                assert got != solution.answer
                changed += 1
        for k in range(len(scene["front"])):
            wrong = copy.deepcopy(scene)
            wrong["front"][k] -= 1
            try:
                got = answer(wrong, task.params())
            except Inconsistent:
                continue
            assert got != solution.answer
            changed += 1
    assert changed >= 10
