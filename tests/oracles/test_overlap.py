"""The overlap oracle (exact slab integration) agrees with the generator, and reacts to a moved dot."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.overlap import answer, pair_areas
from vcot.tasks import get_task


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_exact_areas_match_the_generators_areas(difficulty: str) -> None:
    task = get_task("overlap", difficulty)
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        # The exact areas match the generator's rounded shapely areas.
        assert [float(a) for a in pair_areas(scene)] == pytest.approx(solution.states, abs=1e-3)


def test_hand_worked_area() -> None:
    # Two unit-aligned squares 2x2 offset by (1, 1): overlap 1; a right triangle inside a square: its area.
    sq = {"vertices": [[0, 0], [2, 0], [2, 2], [0, 2]], "ref": [0, 0]}
    sq2 = {"vertices": [[5, 5], [7, 5], [7, 7], [5, 7]], "ref": [6, 6]}
    tri = {"vertices": [[0, 0], [2, 0], [0, 2]], "ref": [0, 0]}
    scene = {"pairs": [[sq, sq2], [sq, tri], [sq, sq], [tri, sq2]]}
    assert [float(a) for a in pair_areas(scene)] == [1.0, 2.0, 4.0, 1.0]
    assert answer(scene, {}) == "C"


def test_wrong_scene_changes_answer() -> None:
    task = get_task("overlap", "medium")
    scene, solution = task.solved_scene(0, 5)
    bad = copy.deepcopy(scene)
    best = "ABCD".index(solution.answer)
    # Slide the winning pair's second dot far away: the pair no longer overlaps, another pair wins.
    bad["pairs"][best][1]["ref"] = [bad["pairs"][best][1]["ref"][0] + 50, bad["pairs"][best][1]["ref"][1]]
    assert pair_areas(bad)[best] == 0
    assert answer(bad, task.params()) != solution.answer
