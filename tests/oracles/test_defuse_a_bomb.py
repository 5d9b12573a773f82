"""The defuse_a_bomb oracle (a particle walking the visible half-segments, coasting straight under panels)
agrees with the generator and reacts to a moved detonator and to relabelled wire ends."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.defuse_a_bomb import Untraceable, answer
from vcot.tasks import get_task


def _board(panels):
    # Two wires crossing at column 2.5: A runs 0,0,0,1,1,1; B runs 1,1,1,0,0,0.
    return {
        "width": 5,
        "height": 2,
        "panels": panels,
        "same_color": True,
        "detonator": 1,
        "wires": [
            {"label": "A", "color": "black", "rows": [0, 0, 0, 1, 1, 1]},
            {"label": "B", "color": "black", "rows": [1, 1, 1, 0, 0, 0]},
        ],
        "terminals": [{"number": 1, "row": 0}, {"number": 2, "row": 1}],
    }


def test_hand_worked() -> None:
    open_board = _board([])
    assert answer(open_board, {}) == "B"
    open_board["detonator"] = 2
    assert answer(open_board, {}) == "A"
    # A panel over an X crossing of two diagonals: each continues straight under it.
    covered = {
        "width": 3,
        "height": 4,
        "panels": [{"x0": 0.5, "y0": -0.5, "x1": 2.5, "y1": 3.5}],
        "same_color": True,
        "detonator": 1,
        "wires": [
            {"label": "A", "color": "black", "rows": [0, 1, 2, 3]},
            {"label": "B", "color": "black", "rows": [3, 2, 1, 0]},
        ],
        "terminals": [{"number": 1, "row": 0}, {"number": 2, "row": 3}],
    }
    assert answer(covered, {}) == "B"
    covered["detonator"] = 2
    assert answer(covered, {}) == "A"


def test_bend_under_a_panel_is_untraceable() -> None:
    # Wire A bends under the panel; the straight continuation finds no matching visible piece.
    scene = {
        "width": 6,
        "height": 3,
        "panels": [{"x0": 1.5, "y0": -0.5, "x1": 3.5, "y1": 2.5}],
        "same_color": True,
        "detonator": 1,
        "wires": [{"label": "A", "color": "black", "rows": [0, 0, 1, 1, 1, 1, 1]}],
        "terminals": [{"number": 1, "row": 1}],
    }
    with pytest.raises(Untraceable):
        answer(scene, {})


def test_perturbed_scene_changes_the_answer() -> None:
    task = get_task("defuse_a_bomb", "medium")
    for i in range(10):
        scene, solution = task.solved_scene(i, 5)
        others = [t["number"] for t in scene["terminals"] if t["number"] != scene["detonator"]]
        for number in others:
            wrong = copy.deepcopy(scene)
            wrong["detonator"] = number
            assert answer(wrong, task.params()) != solution.answer
        # Swapping the labels of the answer wire and another wire moves the answer with the wire.
        wrong = copy.deepcopy(scene)
        a = next(w for w in wrong["wires"] if w["label"] == solution.answer)
        b = next(w for w in wrong["wires"] if w["label"] != solution.answer)
        a["label"], b["label"] = b["label"], a["label"]
        assert answer(wrong, task.params()) == a["label"] != solution.answer
