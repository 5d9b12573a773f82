"""The localizer oracle (cell-first backtracking tiling) agrees with the generator and follows a moved circle."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.localizer import answer, circle_sets
from vcot.tasks import get_task


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_the_tiling_is_unique(difficulty: str) -> None:
    task = get_task("localizer", difficulty)
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        assert len(circle_sets(scene)) == 1, (difficulty, i)  # the tiling is unique, as the question says


def test_hand_worked_tiling() -> None:
    # A 3 x 2 rectangle from an L-tromino (circle on its corner) and an I-tromino, translation only.
    scene = {
        "rule": "translate",
        "width": 3,
        "height": 2,
        "target": [[1, 1], [1, 2], [2, 1], [2, 2], [3, 1], [3, 2]],
        "pieces": [
            {"cells": [[0, 0], [1, 0], [2, 0]], "circles": []},
            {"cells": [[0, 0], [0, 1], [1, 1]], "circles": [[0, 0]]},
        ],
    }
    assert circle_sets(scene) == []  # the remaining three cells are not in a line
    # Two straight trominoes, the second circled on its right end: either may lie below, so two tilings
    # with different circle cells, and the oracle refuses the ambiguous scene.
    scene["pieces"][1] = {"cells": [[0, 0], [1, 0], [2, 0]], "circles": [[2, 0]]}
    assert set(circle_sets(scene)) == {frozenset({(3, 1)}), frozenset({(3, 2)})}
    with pytest.raises(ValueError):
        answer(scene, {})


def test_wrong_scene_changes_answer() -> None:
    task = get_task("localizer", "medium")
    changed = 0
    for i in range(10):
        scene, solution = task.solved_scene(i, 5)
        bad = copy.deepcopy(scene)
        piece = next(p for p in bad["pieces"] if p["circles"])
        # Move one circle to another cell of the same piece: the tiling is unchanged, the circle moves.
        free = [c for c in piece["cells"] if c not in piece["circles"]]
        piece["circles"][0] = free[0]
        try:
            got = answer(bad, task.params())
        except ValueError:
            continue  # the moved circle made the piece's symmetric placements distinguishable
        assert got != solution.answer
        changed += 1
    assert changed >= 5
