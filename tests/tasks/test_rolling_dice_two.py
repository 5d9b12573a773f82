"""rolling_dice_two: contract, hand-worked path pairs, invariants against an independent rotation-matrix model,
rejections and red/black/same balance."""

from __future__ import annotations

import collections
import random
import re

import pytest

from die_rotation_model import bottoms, full_faces
from vcot.tasks import get_task
from vcot.tasks.base import Reject
from vcot.tasks.common.die import move_direction
from vcot.tasks.ct.rolling_dice_two import validate_pair

NAME = "rolling_dice_two"


def matrix_bottom_sum(start: dict[str, int], path: list[list[int]]) -> int:
    moves = [move_direction(a, b) for a, b in zip(path[:-1], path[1:], strict=True)]
    return sum(bottoms(full_faces(start["top"], start["south"], start["east"]), moves))


REF = {"top": 1, "south": 2, "east": 3}


def test_hand_worked_black_wins():
    task = get_task(NAME)
    # Start T1 B6 N5 S2 E3 W4 on (1,1).
    # Red: east -> T4 E1 B3 W6 (3); south -> T5 S4 B2 N3 (2). Red sum 5.
    # Black: north -> T2 N1 B5 S6 (5); west -> T3 W2 B4 E5 (4). Black sum 9 -> "black, 9".
    scene = {
        "rows": 3,
        "cols": 3,
        "start_die": REF,
        "paths": {"red": [[1, 1], [1, 2], [2, 2]], "black": [[1, 1], [0, 1], [0, 0]]},
    }
    assert task.solve(scene).answer == "black, 9"


def test_hand_worked_red_wins():
    task = get_task(NAME)
    # Same die. Red: north -> T2 N1 B5 S6 (5); east -> T4 E2 B3 W5 (3). Red sum 8.
    # Black: west -> T3 W1 B4 E6 (4); south -> T5 S3 B2 N4 (2). Black sum 6 -> "red, 8".
    scene = {
        "rows": 4,
        "cols": 3,
        "start_die": REF,
        "paths": {"red": [[2, 1], [1, 1], [1, 2]], "black": [[2, 1], [2, 0], [3, 0]]},
    }
    assert task.solve(scene).answer == "red, 8"


def test_hand_worked_same():
    task = get_task(NAME)
    # Red east then north: T4 E1 B3 W6 (3), then T2 N4 B5 S3 (5): 8.
    # Black north then east: T2 N1 B5 S6 (5), then T4 E2 B3 W5 (3): 8. Equal -> "same, 8".
    scene = {
        "rows": 3,
        "cols": 3,
        "start_die": REF,
        "paths": {"red": [[1, 1], [1, 2], [0, 2]], "black": [[1, 1], [0, 1], [0, 2]]},
    }
    sol = task.solve(scene)
    assert sol.answer == "same, 8" and sol.details["sums"] == {"red": 8, "black": 8}


def test_solver_invariants_many_seeds():
    task = get_task(NAME, difficulty="hard")
    checked = 0
    for s in range(400):
        scene = task.solved_scene(s, 0)[0]
        sol = task.solve(scene)
        sums = {c: matrix_bottom_sum(scene["start_die"], scene["paths"][c]) for c in ("red", "black")}
        assert sol.details["sums"] == sums
        winner, best = sol.answer.split(", ")
        assert int(best) == max(sums.values())
        if winner == "same":
            assert sums["red"] == sums["black"]
        else:
            other = "black" if winner == "red" else "red"
            assert sums[winner] > sums[other]
        red, black = scene["paths"]["red"], scene["paths"]["black"]
        assert red[0] == black[0] and len(red) == len(black) and red != black
        checked += 1
    assert checked >= 60


def test_bad_pairs_rejected():
    with pytest.raises(Reject):
        validate_pair([[0, 0], [0, 1]], [[0, 0], [0, 1]])  # identical paths: nothing to compare
    with pytest.raises(Reject):
        validate_pair([[0, 0], [0, 1]], [[1, 0], [1, 1]])  # different starts: not "the same die"
    with pytest.raises(Reject):
        validate_pair([[0, 0], [0, 1]], [[0, 0], [1, 0], [1, 1]])  # unequal lengths
    task = get_task(NAME)
    with pytest.raises(Reject):  # a self-crossing black path
        task.solve(
            {
                "rows": 3,
                "cols": 3,
                "start_die": REF,
                "paths": {
                    "red": [[0, 0], [0, 1], [0, 2], [1, 2], [1, 1]],
                    "black": [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]],
                },
            }
        )


def test_answer_balance():
    task = get_task(NAME)
    winners = []
    for index in range(99):
        winners.append(task.solved_scene(index, 0)[1].answer.split(", ")[0])
    assert collections.Counter(winners) == {"red": 33, "black": 33, "same": 33}


def test_steps_give_both_bottoms_but_no_sum_or_winner():
    task = get_task(NAME)
    for index in range(6):
        inst = task.make(index, 0).instance
        states = inst.meta["solution"]["states"][0]
        for k, st in enumerate(inst.steps, start=1):
            bottoms_k = [int(b) for b in re.findall(r"and bottom (\d)\.", st.text)]
            assert bottoms_k == [states["red"][k]["die"]["bottom"], states["black"][k]["die"]["bottom"]]
        winner, best = inst.answer.split(", ")
        for st in inst.steps + inst.corrupted_steps:
            assert not re.search(r"\bsums?\b|total|final|higher|equal", st.text, re.I), st.text
            assert not re.search(rf"(?<!\d){best}(?!\d)", st.text)


def test_answer_space_easy_hand_worked():
    # Easy paths have 3 or 4 moves: sums 6..21 (16 values, see test_rolling_dice_sum), times the three words
    # the question offers.
    task = get_task(NAME, difficulty="easy")
    space = task.answer_space(task.make(0, 0).instance)
    assert space.size == 3 * 16
    assert all(space.contains(a) for a in ("red, 6", "black, 21", "same, 12", "Red, 9"))
    assert not any(space.contains(a) for a in ("red, 5", "black, 22", "blue, 10", "red", "12", "red, 9, 3"))
    assert space.contains(space.sample(random.Random(0)))
