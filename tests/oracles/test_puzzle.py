"""The puzzle oracle (translation symmetries of the visible cells) agrees with the generator."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.puzzle import answer, violations
from vcot.tasks import get_task


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_oracle_agrees_with_generator(difficulty: str) -> None:
    task = get_task("puzzle", difficulty)
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        assert answer(scene, task.params()) == solution.answer, (difficulty, i)
        assert violations(scene)["ABCD".index(solution.answer)] == 0, (difficulty, i)


def test_hidden_content_is_never_read() -> None:
    # Scrambling the hole cells of the stored grid, the rule and the candidate kinds changes nothing.
    task = get_task("puzzle", "medium")
    for i in range(10):
        scene, solution = task.solved_scene(i, 5)
        bad = copy.deepcopy(scene)
        r0, c0, k = bad["hole"]
        for r in range(r0, r0 + k):
            for c in range(c0, c0 + k):
                bad["grid"][r][c] = ["?", "?", -1]
        bad["rule"] = None
        bad["candidate_kinds"] = ["right"] * 4
        assert answer(bad, task.params()) == solution.answer


def test_hand_worked_checkerboard() -> None:
    # A 6 x 6 checkerboard of red circles and blue squares with a 2 x 2 hole at (2, 2).
    cell = [["circle", "red", 0], ["square", "blue", 0]]
    grid = [[cell[(i + j) % 2] for j in range(6)] for i in range(6)]
    right = [[cell[0], cell[1]], [cell[1], cell[0]]]
    swapped = [[cell[1], cell[0]], [cell[0], cell[1]]]
    plain = [[cell[0], cell[0]], [cell[0], cell[0]]]
    recol = [[["circle", "blue", 0], cell[1]], [cell[1], ["circle", "blue", 0]]]
    scene = {"rows": 6, "cols": 6, "grid": grid, "hole": [2, 2, 2], "candidates": [swapped, plain, right, recol]}
    v = violations(scene)
    assert v[2] == 0 and min(v[0], v[1], v[3]) > 0
    assert answer(scene, {}) == "C"


def test_wrong_scene_changes_answer() -> None:
    # Swap two colours of the right piece throughout the visible picture: the right piece now breaks the
    # pattern, and when a "recoloured" distractor carries exactly that swap, it becomes the answer.
    task = get_task("puzzle", "easy")
    moved = 0
    for i in range(20):
        scene, solution = task.solved_scene(i, 5)
        k = "ABCD".index(solution.answer)
        colours = sorted({c[1] for row in scene["candidates"][k] for c in row})
        if len(colours) < 2:
            continue
        swap = {colours[0]: colours[1], colours[1]: colours[0]}
        bad = copy.deepcopy(scene)
        bad["grid"] = [[[c[0], swap.get(c[1], c[1]), c[2]] for c in row] for row in bad["grid"]]
        assert violations(bad)[k] > 0, i
        swapped_right = [[[c[0], swap.get(c[1], c[1]), c[2]] for c in row] for row in scene["candidates"][k]]
        if swapped_right in scene["candidates"]:
            assert answer(bad, task.params()) == "ABCD"[scene["candidates"].index(swapped_right)] != solution.answer
            moved += 1
        else:
            with pytest.raises(ValueError):
                answer(bad, task.params())
    assert moved >= 3
