"""The motion_graph oracle (positions from the equations of motion, turning points by solving v = 0) agrees with
the generator and reacts to a changed graph."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.motion_graph import answer, position, turning_points
from vcot.tasks import get_task


def test_hand_worked():
    # v: 0 -> 4 over 2 s (a = 2 m/s²), then 4 constant: x(2) = 2²·2/2 = 4, x(4) = 4 + 8 = 12.
    scene = {"times": [0, 2, 4], "velocities": [0, 4, 4], "start": 0, "end": 4, "quantity": "displacement"}
    assert position([0, 2, 4], [0, 4, 4], 2) == 4
    assert answer(scene, {}) == "12"
    # v: 2 -> -2 -> 2: turns at 1 s and 3 s, x = 0, 1, 0, -1, 0 at 0..4 s: displacement 0, distance 4.
    back = {"times": [0, 2, 4], "velocities": [2, -2, 2], "start": 0, "end": 4, "quantity": "distance"}
    assert turning_points([0, 2, 4], [2, -2, 2], 0, 4) == [1, 3]
    assert answer(back, {}) == "4"
    assert answer({**back, "quantity": "displacement"}, {}) == "0"


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_agrees_and_reacts(difficulty: str):
    task = get_task("motion_graph", difficulty)
    for i in range(20):
        scene, sol = task.solved_scene(i, 7)
        assert answer(scene, task.params()) == sol.answer
        bad = copy.deepcopy(scene)
        k = next(j for j, t in enumerate(bad["times"]) if bad["start"] <= t <= bad["end"])
        bad["velocities"][k] += 1
        changed = task.solve(bad).answer
        assert answer(bad, task.params()) == changed


def test_bad_scene_is_refused():
    with pytest.raises(ValueError):
        answer({"times": [0, 2], "velocities": [1, 1], "start": 1, "end": 5, "quantity": "displacement"}, {})
    with pytest.raises(ValueError):
        answer({"times": [0, 2], "velocities": [1, 1], "start": 0, "end": 2, "quantity": "speed"}, {})
