"""The electric_charge oracle (complex superposition in 50-digit decimals, nearest-direction vote) agrees with
the generator and reacts to a changed charge."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.electric_charge import answer
from vcot.tasks import get_task

OPPOSITE = {"east": "west", "northeast": "southwest", "north": "south", "northwest": "southeast"}
OPPOSITE.update({v: k for k, v in OPPOSITE.items()})


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_scene_never_stores_the_net_force(difficulty: str) -> None:
    task = get_task("electric_charge", difficulty)
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        assert "net" not in scene


def test_hand_worked() -> None:
    # A +1 source west of a +1 target pushes it east; an extra -1 source north of T pulls it north, equally
    # strong at the same distance: northeast.
    scene = {"grid": 5, "target": {"pos": [2, 2], "q": 1}, "sources": [{"pos": [0, 2], "q": 1}]}
    assert answer(scene, {}) == "east"
    scene["sources"].append({"pos": [2, 4], "q": -1})
    assert answer(scene, {}) == "northeast"


def test_wrong_scene_changes_answer() -> None:
    """Flipping the target's sign reverses every force; moving a source changes the sum."""
    task = get_task("electric_charge", "medium")
    for i in range(16):
        scene, solution = task.solved_scene(i, 5)
        bad = copy.deepcopy(scene)
        bad["target"]["q"] = -bad["target"]["q"]
        assert answer(bad, task.params()) == OPPOSITE[solution.answer], i
