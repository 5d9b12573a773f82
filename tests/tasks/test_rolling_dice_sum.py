"""rolling_dice_sum: contract, hand-worked bottom sums, solver invariants against an independent rotation-matrix
model, rejections and answer balance."""

from __future__ import annotations

import collections
import itertools
import re

import pytest

from die_rotation_model import bottoms, full_faces
from vcot.tasks import get_task
from vcot.tasks.base import Reject
from vcot.tasks.common.dice_paths import reachable_bottom_sums
from vcot.tasks.common.die import ORIENTATIONS, STEP, Die, move_direction
from vcot.tasks.ct.rolling_dice_sum import SUM_BINS

NAME = "rolling_dice_sum"


def test_hand_worked_reference_die():
    task = get_task(NAME)
    # Start T1 S2 E3 (B6 N5 W4); the start bottom 6 is not counted.
    # East: T4 E1 B3 W6 -> 3. South: T5 S4 B2 N3 -> 2. East: T6 E5 B1 W2 -> 1. Sum 3 + 2 + 1 = 6.
    scene = {
        "rows": 3,
        "cols": 3,
        "path": [[0, 0], [0, 1], [1, 1], [1, 2]],
        "start_die": {"top": 1, "south": 2, "east": 3},
    }
    sol = task.solve(scene)
    assert sol.answer == "6" and sol.details["bottoms"] == [3, 2, 1]


def test_hand_worked_north_west():
    task = get_task(NAME)
    # Start T3 B4 N6 S1 E2 W5. North: T1 N3 B6 S4 -> 6. North: T4 N1 B3 S6 -> 3.
    # West: T2 W4 B5 E3 -> 5. West: T3 W2 B4 E5 -> 4. Sum 6 + 3 + 5 + 4 = 18.
    scene = {
        "rows": 3,
        "cols": 3,
        "path": [[2, 2], [1, 2], [0, 2], [0, 1], [0, 0]],
        "start_die": {"top": 3, "south": 1, "east": 2},
    }
    assert task.solve(scene).answer == "18"


def test_hand_worked_straight_line():
    task = get_task(NAME)
    # Start T6 S5 E3 (B1 N2 W4; the reference die rolled north twice — T6 S5 E4 would be left-handed).
    # Four rolls south turn it about the east-west axis; the bottom takes the old south face each time:
    # 5 (T2 S6 N1), then 6 (T1 S2 N5), then 2 (T5 S1 N6), then 1. Sum 5 + 6 + 2 + 1 = 14.
    scene = {
        "rows": 5,
        "cols": 1,
        "path": [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]],
        "start_die": {"top": 6, "south": 5, "east": 3},
    }
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


def test_steps_give_each_bottom_face_but_no_sum():
    task = get_task(NAME)
    for index in range(6):
        inst = task.make(index, 0).instance
        for steps, key in ((inst.steps, "bottoms"), (inst.corrupted_steps, None)):
            found = [int(m) for st in steps for m in re.findall(r"and bottom (\d)\.", st.text)]
            assert len(found) == len(steps)
            if key:
                assert found == inst.meta["solution"]["details"]["bottoms"]
            for st in steps:
                assert not re.search(r"\bsum|total|ends here", st.text, re.I), st.text
                assert not re.search(rf"(?<!\d){inst.answer}(?!\d)", st.text)


def test_answer_space_easy_hand_worked():
    # Easy: 3 or 4 rolls. A roll never brings back the bottom face of the roll before it (that face now
    # faces the way the die came from, and the path never turns back), so any three consecutive bottoms differ:
    # 3 rolls give at least 1 + 2 + 3 = 6, and 4 rolls at most 6 + 5 + 4 + 6 = 21; every sum between occurs.
    task = get_task(NAME, difficulty="easy")
    space = task.answer_space(task.make(0, 0).instance)
    assert space.size == 16
    assert all(space.contains(str(v)) for v in (6, 7, 13, 20, 21))
    assert not any(space.contains(str(v)) for v in (3, 5, 22, 24))
    # Medium: self-avoidance on a 5x5 board removes the tight loops the extreme sums of 5..7 rolls need.
    medium = get_task(NAME, difficulty="medium")
    assert medium.answer_space(medium.make(0, 0).instance).size == 33 - 11 + 1


def _saw_shapes(moves: int):
    """Direction words of the self-avoiding walks with this many moves, by brute force."""
    for word in itertools.product(STEP, repeat=moves):
        cells = [(0, 0)]
        for d in word:
            cells.append((cells[-1][0] + STEP[d][0], cells[-1][1] + STEP[d][1]))
        if len(set(cells)) == len(cells):
            yield word, cells


@pytest.mark.parametrize("rows,cols,lo,hi", [(3, 3, 2, 4), (2, 4, 3, 4), (1, 5, 1, 3)])
def test_reachable_sums_match_brute_force(rows, cols, lo, hi):
    # Independent check of the space's search: every self-avoiding walk that fits the board, every start
    # orientation, bottoms from the rotation-matrix model.
    expected = set()
    for n in range(lo, hi + 1):
        for word, cells in _saw_shapes(n):
            if max(r for r, _ in cells) - min(r for r, _ in cells) >= rows:
                continue
            if max(c for _, c in cells) - min(c for _, c in cells) >= cols:
                continue
            for die in ORIENTATIONS.values():
                expected.add(sum(bottoms(full_faces(die.top, die.south, die.east), list(word))))
    assert reachable_bottom_sums(rows, cols, lo, hi) == expected
