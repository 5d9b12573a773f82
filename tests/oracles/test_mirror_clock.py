"""The mirror_clock oracle (brute force over 720 times, compared by mirrored hand vectors) agrees with the
generator and reacts to moved hands."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.mirror_clock import answer
from vcot.tasks import get_task


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_scene_never_stores_the_real_time(difficulty: str) -> None:
    task = get_task("mirror_clock", difficulty)
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        assert "real_time" not in scene


def test_hand_worked() -> None:
    # The real 3:00 shows hour hand at 9 in the mirror (270 deg), minute hand at 12.
    scene = {"shown_hour_angle": 270, "shown_minute_angle": 0, "numerals": True, "form": "read", "shift": None}
    assert answer(scene, {}) == "3:00"
    # Real 2:10: hour at 65 deg, minute at 60 -> shown 295 and 300; 1 h 55 min later: 4:05.
    scene = {
        "shown_hour_angle": 295,
        "shown_minute_angle": 300,
        "numerals": False,
        "form": "shift",
        "shift": {"hours": 1, "minutes": 55},
    }
    assert answer(scene, {}) == "4:05"


def test_wrong_scene_changes_answer() -> None:
    """Shown hands moved to the mirror image of the real time one hour later: the answer moves by an hour."""
    task = get_task("mirror_clock", "medium")
    for i in range(12):
        scene, solution = task.solved_scene(i, 5)
        bad = copy.deepcopy(scene)
        bad["shown_hour_angle"] = (scene["shown_hour_angle"] - 30) % 360  # mirror turns the hand back
        h, m = solution.answer.split(":")
        assert answer(bad, task.params()) == f"{int(h) % 12 + 1}:{m}", i
