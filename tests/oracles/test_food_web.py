"""The food_web oracle (breadth-first search from the remaining plants) agrees with the generator and reacts
to a changed web."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.food_web import answer
from vcot.tasks import get_task


def test_hand_worked():
    # grass -> rabbit -> fox; grass, clover -> mouse. Without grass only the mouse is reached (via clover):
    # rabbit and fox are lost.
    species = [
        {"name": n, "level": lvl, "slot": 0}
        for n, lvl in (("grass", 0), ("clover", 0), ("rabbit", 1), ("mouse", 1), ("fox", 2))
    ]
    eats = [["grass", "rabbit"], ["grass", "mouse"], ["clover", "mouse"], ["rabbit", "fox"]]
    assert answer({"species": species, "eats": eats, "removed": "grass"}, {}) == "2"
    assert answer({"species": species, "eats": eats, "removed": "clover"}, {}) == "0"
    assert answer({"species": species, "eats": eats, "removed": "rabbit"}, {}) == "1"


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_agrees_and_reacts(difficulty: str):
    task = get_task("food_web", difficulty)
    for i in range(20):
        scene, sol = task.solved_scene(i, 7)
        assert answer(scene, task.params()) == sol.answer
        # Cutting one arrow out of the removed species can only save animals; both methods agree on how many.
        bad = copy.deepcopy(scene)
        bad["eats"] = [e for e in bad["eats"] if e[0] != bad["removed"]][:] + [
            e for e in bad["eats"] if e[0] == bad["removed"]
        ][1:]
        assert answer(bad, {}) == task.solve(bad).answer
        assert int(answer(bad, {})) <= int(sol.answer)


def test_bad_scene_is_refused():
    with pytest.raises(ValueError):
        answer({"species": [{"name": "a", "level": 0, "slot": 0}], "eats": [], "removed": "b"}, {})
