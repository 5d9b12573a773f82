"""The convex_hull oracle (angular-gap test, no hull polygon) agrees with the generator and reacts to a
counted point moved out of the region and to a hull point moved."""

from __future__ import annotations

import copy

from vcot.oracles.convex_hull import answer, strictly_inside_hull
from vcot.tasks import get_task


def test_hand_worked() -> None:
    square = [(0, 0), (4, 0), (4, 4), (0, 4), (2, 1)]
    assert strictly_inside_hull((2, 2), square)
    assert strictly_inside_hull((2, 1), [(0, 0), (4, 0), (4, 4), (0, 4)])
    assert not strictly_inside_hull((2, 0), square)  # on an edge
    assert not strictly_inside_hull((4, 4), [(0, 0), (4, 0), (0, 4)])
    assert not strictly_inside_hull((5, 2), square)
    assert not strictly_inside_hull((1, 1), [(0, 0), (2, 2), (3, 3)])  # degenerate: a segment
    scene = {
        "form": "overlap",
        "count_colour": "red",
        "hull_colours": ["blue", "green"],
        "sets": [
            {"colour": "blue", "points": [[0, 0], [4, 0], [4, 4], [0, 4]]},
            {"colour": "green", "points": [[2, 2], [6, 2], [6, 6], [2, 6]]},
            {"colour": "red", "points": [[3, 3], [1, 1], [5, 5], [7, 7]]},
        ],
    }
    assert answer(scene, {}) == "1"  # only (3, 3) lies in both hulls
    scene["form"], scene["hull_colours"] = "hull", ["blue"]
    assert answer(scene, {}) == "2"


def test_perturbed_scene_changes_the_answer() -> None:
    task = get_task("convex_hull", "medium")
    moved = grown = 0
    for i in range(10):
        scene, solution = task.solved_scene(i, 5)
        true = int(solution.answer)
        counted = next(s for s in scene["sets"] if s["colour"] == scene["count_colour"])
        # Moving a counted point off the lattice (outside every hull) lowers the count when it was inside.
        for k in range(len(counted["points"])):
            wrong = copy.deepcopy(scene)
            next(s for s in wrong["sets"] if s["colour"] == scene["count_colour"])["points"][k] = [-1, -1]
            got = int(answer(wrong, task.params()))
            assert got in (true, true - 1)
            moved += got == true - 1
        assert moved or true == 0
        # Pulling the hull colours' points far out engulfs every counted point.
        wrong = copy.deepcopy(scene)
        big = [[-100, -100], [100, -100], [100, 100], [-100, 100]]
        for s in wrong["sets"]:
            if s["colour"] in scene["hull_colours"]:
                s["points"] = s["points"] + big
        got = int(answer(wrong, task.params()))
        assert got == len(counted["points"])
        grown += got != true
    assert moved >= 5 and grown >= 5
