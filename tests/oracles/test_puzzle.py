"""The puzzle oracle (translation symmetries of the visible cells) agrees with the generator."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.puzzle import MIN_SUPPORT, _symmetries, _vectors, answer, violations
from vcot.tasks import get_task


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_the_answer_piece_violates_no_rule(difficulty: str) -> None:
    task = get_task("puzzle", difficulty)
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        assert violations(scene)["ABCD".index(solution.answer)] == 0, (difficulty, i)


def _visible_shapes(scene: dict) -> list[list[str | None]]:
    r0, c0, k = scene["hole"]
    return [
        [None if r0 <= i < r0 + k and c0 <= j < c0 + k else cell[0] for j, cell in enumerate(row)]
        for i, row in enumerate(scene["grid"])
    ]


def test_coincidental_symmetry_is_not_trusted() -> None:
    # A hard motif of two shapes whose visible shape channel also agrees along some vector, a coincidence the
    # true fill breaks (before the lattice check the right piece broke such a vector). The first such
    # instance of seed 0 is found by search, so the test does not hang on one generator version's draws.
    task = get_task("puzzle", "hard")
    for i in range(300):
        scene, solution = task.solved_scene(i, 0)
        shapes = _visible_shapes(scene)
        h, w = len(shapes), len(shapes[0])
        symmetries = _symmetries(shapes, h, w)
        coincidences = [
            v
            for v, (support, agree) in _vectors(shapes, h, w).items()
            if agree and support >= MIN_SUPPORT and v not in symmetries
        ]
        if coincidences:
            break
    else:
        pytest.fail("no hard instance of seed 0 among 300 shows a coincidental symmetry")
    counts = violations(scene)
    assert counts["ABCD".index(solution.answer)] == 0 and sorted(counts)[1] > 0
    assert answer(scene, {}) == solution.answer


def test_hidden_content_is_never_read() -> None:
    # The scene hides the hole (null cells) and holds no rule or labels; filling the hole cells with anything
    # changes nothing.
    task = get_task("puzzle", "medium")
    for i in range(10):
        scene, solution = task.solved_scene(i, 5)
        assert "rule" not in scene and "candidate_kinds" not in scene
        bad = copy.deepcopy(scene)
        r0, c0, k = bad["hole"]
        for r in range(r0, r0 + k):
            for c in range(c0, c0 + k):
                assert bad["grid"][r][c] is None
                bad["grid"][r][c] = ["?", "?", -1]
        assert answer(bad, task.params()) == answer(scene, task.params()) == solution.answer


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
    for i in range(200):
        if moved >= 3:
            break
        scene, solution = task.solved_scene(i, 5)
        k = "ABCD".index(solution.answer)
        colours = sorted({c[1] for row in scene["candidates"][k] for c in row})
        if len(colours) < 2:
            continue
        swap = {colours[0]: colours[1], colours[1]: colours[0]}
        bad = copy.deepcopy(scene)
        bad["grid"] = [[None if c is None else [c[0], swap.get(c[1], c[1]), c[2]] for c in row] for row in bad["grid"]]
        assert violations(bad)[k] > 0, i
        swapped_right = [[[c[0], swap.get(c[1], c[1]), c[2]] for c in row] for row in scene["candidates"][k]]
        if swapped_right in scene["candidates"]:
            assert answer(bad, task.params()) == "ABCD"[scene["candidates"].index(swapped_right)] != solution.answer
            moved += 1
        else:
            with pytest.raises(ValueError):
                answer(bad, task.params())
    assert moved >= 3
