"""The mirror_pattern oracle (reflection matrices on cell centres) agrees with the generator."""

from __future__ import annotations

import copy

from vcot.oracles.mirror_pattern import AXES, answer, image, improper_symmetries, matches
from vcot.tasks import get_task


def test_hand_worked_reflections() -> None:
    g = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert image(g, AXES["vertical"]) == [[3, 2, 1], [6, 5, 4], [9, 8, 7]]
    assert image(g, AXES["horizontal"]) == [[7, 8, 9], [4, 5, 6], [1, 2, 3]]
    assert image(g, AXES["diagonal"]) == [[1, 4, 7], [2, 5, 8], [3, 6, 9]]  # top-left to bottom-right
    assert image(g, AXES["antidiagonal"]) == [[9, 6, 3], [8, 5, 2], [7, 4, 1]]
    assert sorted(improper_symmetries()) == sorted(AXES.values())
    scene = {
        "mode": "axis",
        "axis": "antidiagonal",
        "pattern": g,
        "candidates": [
            image(g, AXES["diagonal"]),
            [[7, 4, 1], [8, 5, 2], [9, 6, 3]],
            image(g, AXES["antidiagonal"]),
            image(g, AXES["vertical"]),
        ],
    }
    assert answer(scene, {}) == "C"


def test_wrong_scene_changes_answer() -> None:
    task = get_task("mirror_pattern", "medium")
    moved = 0
    for i in range(20):
        scene, solution = task.solved_scene(i, 5)
        k = "ABCD".index(solution.answer)
        # Recolour one pattern cell: the stored right candidate is no longer its reflection.
        bad = copy.deepcopy(scene)
        bad["pattern"][0][0] = (bad["pattern"][0][0] + 1) % len(bad["colors"])
        assert not matches(bad)[k], i
        # State another axis: when a distractor is the reflection across it, that distractor becomes the answer.
        for axis in AXES:
            if axis == scene["axis"]:
                continue
            bad = dict(scene, axis=axis)
            assert not matches(bad)[k], (i, axis)
            if any(matches(bad)):
                assert answer(bad, task.params()) != solution.answer
                moved += 1
    assert moved >= 5
