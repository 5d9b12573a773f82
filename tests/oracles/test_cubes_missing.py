"""The cubes_missing oracle (ray-cast picture read back, empty box voxels counted) agrees with the generator
and reacts to a changed column."""

from __future__ import annotations

import copy

from vcot.oracles.cubes_count import Unreadable
from vcot.oracles.cubes_missing import answer
from vcot.tasks import get_task


def test_hand_worked() -> None:
    cam = {"azimuth": 45, "elevation": 30}
    assert answer({"heights": [[1, 1, 1], [2, 2, 1], [3, 2, 1]], "camera": cam}, {}) == "13"  # 27 - 14
    assert answer({"heights": [[2, 1], [1, 0]], "camera": cam}, {}) == "4"  # 8 - 4
    assert answer({"heights": [[3]], "camera": cam}, {}) == "0"


def test_perturbed_scene_changes_the_answer() -> None:
    task = get_task("cubes_missing", "medium")
    changed = 0
    for i in range(3):
        scene, solution = task.solved_scene(i, 5)
        heights = scene["heights"]
        w, d, top = len(heights[0]), len(heights), max(max(r) for r in heights)
        for y, row in enumerate(heights):
            for x, h in enumerate(row):
                wrong = copy.deepcopy(scene)
                wrong["heights"][y][x] = h + 1
                try:
                    got = int(answer(wrong, task.params()))
                except Unreadable:
                    continue
                # Below the top one cube fewer is missing; raising the tallest column adds a whole layer.
                expected = int(solution.answer) - 1 if h < top else int(solution.answer) + w * d - 1
                assert got == expected, (i, x, y)
                changed += 1
    assert changed >= 15
