"""The paper_airplane oracle (point-set folding + rasterised candidates) agrees with the generator."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.paper_airplane import RES, answer, folded_points, ious
from vcot.tasks import get_task


def test_hand_worked_folds() -> None:
    # Fold the right half of a 4 x 4 sheet onto the left: a 2 x 4 rectangle.
    pts = folded_points(4, [{"line": [1, 0, 2], "moving": 1}])
    assert pts == {(i, j) for i in range(2 * RES) for j in range(4 * RES)}
    # Then the upper half down: a 2 x 2 square in the lower-left quarter.
    pts = folded_points(4, [{"line": [1, 0, 2], "moving": 1}, {"line": [0, 1, 2], "moving": 1}])
    assert pts == {(i, j) for i in range(2 * RES) for j in range(2 * RES)}
    # A diagonal fold of the flat sheet: the lower-right triangle onto the upper-left one (crease points stay).
    pts = folded_points(4, [{"line": [1, -1, 0], "moving": 1}])
    assert pts == {(i, j) for i in range(4 * RES) for j in range(4 * RES) if j >= i}
    scene = {
        "size": 4,
        "folds": [{"line": [1, 0, 2], "moving": 1}, {"line": [0, 1, 2], "moving": 1}],
        "candidates": [
            [[0, 0], [2, 0], [2, 2], [0, 2]],
            [[2, 0], [4, 0], [4, 2], [2, 2]],
            [[0, 2], [2, 2], [2, 4], [0, 4]],
            [[0, 0], [4, 0], [4, 4], [0, 4]],
        ],
    }
    assert ious(scene) == [1.0, 0.0, 0.0, 0.25]
    assert answer(scene, {}) == "A"


def test_wrong_scene_changes_answer() -> None:
    task = get_task("paper_airplane", "medium")
    changed = 0
    for i in range(10):
        scene, solution = task.solved_scene(i, 5)
        k = "ABCD".index(solution.answer)
        bad = copy.deepcopy(scene)
        bad["folds"][-1]["moving"] *= -1  # the last fold made with the other side moving
        scores = ious(bad)
        assert scores[k] < 0.99, i  # the stored correct outline no longer matches
        with pytest.raises(ValueError):  # distractors come from earlier folds: none matches this paper
            answer(bad, task.params())
        # The folds with a slip the generator names (an earlier fold made the other way, left out, or swapped with
        # the next): the oracle now picks the option made from that slip.
        kinds = solution.details["candidate_kinds"]
        for kind in kinds:
            if kind == "correct":
                continue
            family, where = kind.split()
            j = int(where.split("-")[0]) - 1
            slipped = copy.deepcopy(scene)
            if family == "direction":
                slipped["folds"][j]["moving"] *= -1
            elif family == "skip":
                del slipped["folds"][j]
            elif family == "order":
                slipped["folds"][j], slipped["folds"][j + 1] = slipped["folds"][j + 1], slipped["folds"][j]
            else:
                continue  # a shifted line (the shift is not recorded)
            got = answer(slipped, task.params())
            assert got != solution.answer and kinds["ABCD".index(got)] == kind
            changed += 1
    assert changed >= 5
