"""The ball_bins oracle (closed-form flights and slides, event by event) agrees with the simulated generator
and reacts to a moved ramp."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.ball_bins import answer, landing
from vcot.tasks import get_task


def test_hand_free_fall() -> None:
    scene = {
        "width": 16.0,
        "bins": 4,
        "divider_h": 0.8,
        "ramp_r": 0.06,
        "ball": {"x": 13.0, "y": 9.0, "r": 0.25},
        "ramps": [],
    }
    assert landing(scene) == pytest.approx(13.0)
    assert answer(scene, {}) == "4"


def test_hand_level_drop_off_a_ramp_end() -> None:
    # A 45-degree ramp whose lower end is at x = 3: the ball slides off it moving right, so it lands right of 3.
    scene = {
        "width": 16.0,
        "bins": 4,
        "divider_h": 0.8,
        "ramp_r": 0.06,
        "ball": {"x": 1.5, "y": 8.0, "r": 0.25},
        "ramps": [{"label": "A", "a": [1.0, 6.0], "b": [3.0, 4.0]}],
    }
    assert landing(scene) > 3.0
    assert answer(scene, {}) in {"1", "2"}


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_agrees_with_the_simulation(difficulty: str) -> None:
    task = get_task("ball_bins", difficulty)
    for i in range(5):
        scene, sol = task.solved_scene(i, 21)
        assert answer(scene, {}) == sol.answer


def test_removing_every_ramp_drops_the_ball_straight() -> None:
    task = get_task("ball_bins", "medium")
    scene, _ = task.solved_scene(0, 5)
    bad = copy.deepcopy(scene)
    bad["ramps"] = []
    assert landing(bad) == pytest.approx(scene["ball"]["x"])
