"""rolling_dice_sum: contract, hand-worked bottom sums, solver invariants against an independent rotation-matrix
model, rejections and answer balance."""

from __future__ import annotations

import collections

import pytest

from die_rotation_model import bottoms, full_faces
from generator_contract import check_generator_contract
from vcot.tasks import get_task
from vcot.tasks.base import Reject
from vcot.tasks.common.die import Die, move_direction
from vcot.tasks.ct.rolling_dice_sum import SUM_BINS

NAME = "rolling_dice_sum"

def test_contract():
    check_generator_contract(NAME, n=20)


def test_hand_worked_reference_die():
    task = get_task(NAME)
    # Start T1 S2 E3 (B6 N5 W4); the start bottom 6 is not counted.
    # East: T4 E1 B3 W6 -> 3. South: T5 S4 B2 N3 -> 2. East: T6 E5 B1 W2 -> 1. Sum 3 + 2 + 1 = 6.
    scene = {"rows": 3, "cols": 3, "path": [[0, 0], [0, 1], [1, 1], [1, 2]],
             "start_die": {"top": 1, "south": 2, "east": 3}}
    sol = task.solve(scene)
    assert sol.answer == "6" and sol.details["bottoms"] == [3, 2, 1]


def test_hand_worked_north_west():
    task = get_task(NAME)
    # Start T3 B4 N6 S1 E2 W5. North: T1 N3 B6 S4 -> 6. North: T4 N1 B3 S6 -> 3.
    # West: T2 W4 B5 E3 -> 5. West: T3 W2 B4 E5 -> 4. Sum 6 + 3 + 5 + 4 = 18.
    scene = {"rows": 3, "cols": 3, "path": [[2, 2], [1, 2], [0, 2], [0, 1], [0, 0]],
             "start_die": {"top": 3, "south": 1, "east": 2}}
    assert task.solve(scene).answer == "18"


def test_hand_worked_straight_line():
    task = get_task(NAME)
    # Start T6 S5 E3 (B1 N2 W4; the reference die rolled north twice — T6 S5 E4 would be left-handed).
    # Four rolls south turn it about the east-west axis; the bottom takes the old south face each time:
    # 5 (T2 S6 N1), then 6 (T1 S2 N5), then 2 (T5 S1 N6), then 1. Sum 5 + 6 + 2 + 1 = 14.
    scene = {"rows": 5, "cols": 1, "path": [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]],
             "start_die": {"top": 6, "south": 5, "east": 3}}
    sol = task.solve(scene)
    assert sol.details["bottoms"] == [5, 6, 2, 1] and sol.answer == "14"
    # After four rolls in one direction the die is back to its start orientation.
    assert sol.states[-1]["die"] == sol.states[0]["die"]


def test_solver_invariants_many_seeds():
    task = get_task(NAME, difficulty="hard")
    checked = 0
    for s in range(400):
        scene = task.solved_scene(s, 0)[0]
        sol = task.solve(scene)
        path = scene["path"]
        moves = [move_direction(a, b) for a, b in zip(path[:-1], path[1:], strict=True)]
        sd = scene["start_die"]
        expected = bottoms(full_faces(sd["top"], sd["south"], sd["east"]), moves)
        assert sol.details["bottoms"] == expected
        assert sol.answer == str(sum(expected))
        assert len(expected) == len(path) - 1  # the starting bottom is not counted
        for st in sol.states:
            d = Die(**st["die"])
            assert d.top + d.bottom == d.north + d.south == d.east + d.west == 7
        checked += 1
    assert checked >= 60


def test_bad_scenes_rejected():
    task = get_task(NAME)
    die = {"top": 1, "south": 2, "east": 3}
    with pytest.raises(Reject):  # self-crossing path
        task.solve({"rows": 3, "cols": 3, "path": [[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]], "start_die": die})
    with pytest.raises(Reject):  # off the board
        task.solve({"rows": 2, "cols": 2, "path": [[1, 1], [1, 2]], "start_die": die})
    with pytest.raises(Reject):  # faces that do not fit a standard die (2 and 5 are opposite)
        task.solve({"rows": 2, "cols": 2, "path": [[0, 0], [0, 1]], "start_die": {"top": 2, "south": 5, "east": 1}})


def test_answer_balance():
    task = get_task(NAME)
    answers = []
    for index in range(120):
        answers.append(int(task.solved_scene(index, 0)[1].answer))
    residues = collections.Counter(a % SUM_BINS for a in answers)
    assert all(v == 120 // SUM_BINS for v in residues.values())
    counts = collections.Counter(answers)
    assert max(counts.values()) <= 0.15 * len(answers)
    assert len(counts) >= 10
