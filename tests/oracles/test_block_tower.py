"""The block_tower oracle (torques about the contact faces' edges, exact fractions) agrees with the simulated
generator and reacts to a moved block."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.block_tower import answer
from vcot.tasks import get_task


def test_hand_worked() -> None:
    blocks = [
        {"label": "A", "x": 0, "w": 2, "h": 1},
        {"label": "B", "x": 0.8, "w": 2, "h": 1},
        {"label": "C", "x": 1.8, "w": 2, "h": 1},
    ]
    # B+C's centre of mass is at 1.3, beyond A's right edge (1): everything above A tips.
    assert answer({"blocks": blocks}, {}) == "1"
    blocks[2]["x"] = 0.8
    assert answer({"blocks": blocks}, {}) == "3"


def test_block_off_its_support_is_an_error() -> None:
    with pytest.raises(ValueError):
        answer({"blocks": [{"x": 0, "w": 1, "h": 1}, {"x": 2, "w": 1, "h": 1}]}, {})


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_agrees_with_the_simulation(difficulty: str) -> None:
    task = get_task("block_tower", difficulty)
    for i in range(6):
        scene, sol = task.solved_scene(i, 21)
        assert answer(scene, {}) == sol.answer


def test_moving_the_top_block_far_out_topples_it() -> None:
    task = get_task("block_tower", "medium")
    for i in range(5):
        scene, sol = task.solved_scene(i, 5)
        if sol.answer != "5":
            continue
        bad = copy.deepcopy(scene)
        below, top = bad["blocks"][-2], bad["blocks"][-1]
        top["x"] = below["x"] + below["w"] / 2 + top["w"] / 2 - 0.05
        assert answer(bad, {}) != "5"
