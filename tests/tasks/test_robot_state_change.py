"""robot_state_change: hand-worked before/after pairs, exactly one option fits, balance of letters, the Bullet
replay of the true program, the corrupted trajectory."""

from __future__ import annotations

import collections
import random

import pytest

from vcot.tasks import get_task
from vcot.tasks.base import Reject
from vcot.tasks.robot import _sim
from vcot.tasks.robot._world import as_blocks

TASK = get_task("robot_state_change", "easy")


def test_hand_put_on() -> None:
    # red A1 -> onto blue at C3. Option B says so; A pushes red (to B1), C puts blue on red, D puts red left of blue.
    s = {
        "size": [4, 4],
        "before": {"red": [0, 0, 0], "blue": [2, 2, 0], "green": [3, 0, 0]},
        "after": {"red": [2, 2, 1], "blue": [2, 2, 0], "green": [3, 0, 0]},
        "options": [
            [{"op": "push", "block": "red", "dir": "right"}],
            [{"op": "put_on", "block": "red", "onto": "blue"}],
            [{"op": "put_on", "block": "blue", "onto": "red"}],
            [{"op": "put_beside", "block": "red", "onto": "blue", "dir": "left"}],
        ],
    }
    sol = TASK.solve(s)
    assert sol.answer == "B"
    assert sol.states == [s["after"]]


def test_hand_two_fitting_options_are_rejected() -> None:
    # Pushing red right and putting red left of blue both end with red at B1.
    s = {
        "size": [4, 4],
        "before": {"red": [0, 0, 0], "blue": [2, 0, 0]},
        "after": {"red": [1, 0, 0], "blue": [2, 0, 0]},
        "options": [
            [{"op": "push", "block": "red", "dir": "right"}],
            [{"op": "put_beside", "block": "red", "onto": "blue", "dir": "left"}],
            [{"op": "put_on", "block": "red", "onto": "blue"}],
            [{"op": "push", "block": "blue", "dir": "away"}],
        ],
    }
    with pytest.raises(Reject):
        TASK.solve(s)


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants_and_balance(difficulty: str) -> None:
    task = get_task("robot_state_change", difficulty)
    letters = collections.Counter()
    for i in range(8):
        sc, sol = task.solved_scene(i, 2)
        letters[sol.answer] += 1
        assert len(set(task.options(sc))) == 4
        assert as_blocks(sc["after"]) != as_blocks(sc["before"])
        # No cell name in the options: only the panels tell them apart.
        assert not any(ch.isdigit() for o in task.options(sc) for ch in o)
    assert set(letters.values()) == {2}, letters  # ctx.balanced: each letter twice per 8 indices


def test_true_program_holds_under_fresh_jitter() -> None:
    task = get_task("robot_state_change", "hard")
    for i in range(3):
        sc, sol = task.solved_scene(i, 6)
        prog = sc["options"]["ABCD".index(sol.answer)]
        got = _sim.replay(as_blocks(sc["before"]), prog, tuple(sc["size"]), random.Random(f"fresh:{i}"))
        assert got[-1] == as_blocks(sc["after"])


def test_corruption_follows_a_distractor() -> None:
    task = get_task("robot_state_change", "medium")
    inst = task.make(1, 4).instance
    assert inst.corrupted_steps and inst.meta["corruption"].startswith("option ")
    assert inst.meta["corruption"] != f"option {inst.answer} taken for what happened"
    assert inst.corrupted_steps[0].text != inst.steps[0].text
