"""robot_program: hand-worked programs, the rules' refusals, the Bullet replay (plain, jittered, and one that
must fail), the shortcut the sampler rules out, balance, and the corrupted trajectory."""

from __future__ import annotations

import collections
import random
import re

import pytest

from vcot.tasks import get_task
from vcot.tasks.base import Reject
from vcot.tasks.robot import _sim
from vcot.tasks.robot._world import Illegal, apply, as_blocks
from vcot.tasks.robot.robot_program import last_move_on_start, own_moves_only

TASK = get_task("robot_program", "easy")


def scene(blocks: dict, program: list, asked: str, size=(4, 4)) -> dict:
    return {"size": list(size), "blocks": blocks, "program": program, "asked": asked}


def test_hand_push_then_put_beside() -> None:
    # red at a1, blue at c1. Push blue away from the robot: c2. Put red to the left of blue: b2.
    s = scene(
        {"red": [0, 0, 0], "blue": [2, 0, 0]},
        [
            {"op": "push", "block": "blue", "dir": "away"},
            {"op": "put_beside", "block": "red", "onto": "blue", "dir": "left"},
        ],
        "red",
    )
    sol = TASK.solve(s)
    assert sol.answer == "b2"
    assert sol.states[0]["blue"] == [2, 1, 0] and sol.states[1]["red"] == [1, 1, 0]
    # Read against the starting picture (blue still at c1), red would be at b1: the shortcut is wrong here.
    assert own_moves_only(as_blocks(s["blocks"]), s["program"], "red") == "b1"
    assert last_move_on_start(as_blocks(s["blocks"]), s["program"], "red") == "b1"


def test_hand_stacking_follows_the_block_below() -> None:
    # green at D4 is put on blue at A1 (level 1); then blue... cannot move (covered), so push orange instead,
    # and put cyan on green: cyan ends at A1, level 2.
    s = scene(
        {"green": [3, 3, 0], "blue": [0, 0, 0], "cyan": [2, 2, 0]},
        [{"op": "put_on", "block": "green", "onto": "blue"}, {"op": "put_on", "block": "cyan", "onto": "green"}],
        "cyan",
    )
    sol = TASK.solve(s)
    assert sol.answer == "a1"
    assert sol.states[-1]["cyan"] == [0, 0, 2]


def test_rules_refuse_covered_blocks_and_taken_cells() -> None:
    state = {"red": (0, 0, 0), "blue": (0, 0, 1), "green": (1, 0, 0)}
    with pytest.raises(Illegal):  # red is covered by blue
        apply(state, {"op": "put_on", "block": "red", "onto": "green"}, (4, 4), 2)
    with pytest.raises(Illegal):  # B1 is taken by green
        apply(state, {"op": "push", "block": "green", "dir": "left"}, (4, 4), 2)
    with pytest.raises(Illegal):  # off the table
        apply(state, {"op": "push", "block": "green", "dir": "towards"}, (4, 4), 2)
    with pytest.raises(Illegal):  # blue stands on red: only a block on the table is pushed
        apply(state, {"op": "push", "block": "blue", "dir": "away"}, (4, 4), 2)


def test_bullet_replay_settles_as_planned_and_rejects_a_bad_drop() -> None:
    blocks = {"red": (0, 0, 0), "blue": (2, 1, 0), "green": (3, 3, 0)}
    program = [{"op": "put_on", "block": "red", "onto": "blue"}, {"op": "push", "block": "green", "dir": "left"}]
    _sim.check(blocks, program, (4, 4), seed=1, jitters=3)
    # A jitter of 4 cm (most of a block's width) topples or misplaces blocks: the check must notice.
    with pytest.raises(_sim.Unstable):
        for k in range(6):
            got = _sim.replay(blocks, program, (4, 4), random.Random(k), jitter=0.04, yaw_jitter=0.6)
            assert got[-1] == apply(apply(blocks, program[0]), program[1])


def test_accepted_scenes_hold_under_fresh_jitter() -> None:
    # Jitter seeds other than the ones acceptance used: the settled state after every action is unchanged.
    task = get_task("robot_program", "medium")
    for i in range(4):
        sc, sol = task.solved_scene(i, 11)
        blocks = as_blocks(sc["blocks"])
        for k in range(2):
            got = _sim.replay(blocks, sc["program"], tuple(sc["size"]), random.Random(f"fresh:{i}:{k}"))
            assert [{n: list(v) for n, v in s.items()} for s in got] == sol.states


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty: str) -> None:
    task = get_task("robot_program", difficulty)
    answers = collections.Counter()
    for i in range(12):
        sc, sol = task.solved_scene(i, 3)
        blocks = as_blocks(sc["blocks"])
        start = blocks[sc["asked"]]
        # The asked block moved, and the program's text names no cell.
        assert sol.answer != f"{'abcde'[start[0]]}{start[1] + 1}"
        assert own_moves_only(blocks, sc["program"], sc["asked"]) != sol.answer
        assert last_move_on_start(blocks, sc["program"], sc["asked"]) != sol.answer
        q = task.question(sc)
        assert not re.search(rf"\b{sol.answer}\b", q.lower())
        answers[sol.answer] += 1
    assert max(answers.values()) <= 5, answers


def test_corruption_states_a_wrong_trajectory() -> None:
    task = get_task("robot_program", "medium")
    sample = task.make(0, 4)
    inst = sample.instance
    assert inst.corrupted_steps and len(inst.corrupted_steps) == len(inst.steps)
    assert [c.text for c in inst.corrupted_steps] != [s.text for s in inst.steps]
    assert "read as standing in" in inst.meta["corruption"]


def test_a_scene_with_no_chain_is_rejected() -> None:
    # Rejected scenes raise Reject from sample_scene; count that some are rejected over a few draws.
    from vcot.tasks.base import GenContext

    task = get_task("robot_program", "easy")
    rejected = 0
    for i in range(30):
        try:
            task.sample_scene(GenContext(random.Random(i), task.name, 0, i))
        except Reject:
            rejected += 1
    assert 0 < rejected < 30


def test_a_replay_does_not_depend_on_the_replays_before() -> None:
    # Every replay starts from one saved Bullet state, so the settled poses (to the last bit) are the same
    # whatever ran before: what makes the suite hash the same on 1 and 2 processes.
    blocks = {"red": (0, 0, 0), "blue": (2, 1, 0), "green": (3, 3, 0)}
    program = [{"op": "put_on", "block": "red", "onto": "blue"}, {"op": "push", "block": "green", "dir": "left"}]

    def poses() -> list:
        _sim.replay(blocks, program, (4, 4), random.Random(5))
        return [_sim._pose(_sim.world(), n) for n in sorted(blocks)]

    first = poses()
    _sim.replay(
        {"cyan": (1, 1, 0), "purple": (1, 1, 1), "orange": (0, 3, 0)},
        [{"op": "put_on", "block": "orange", "onto": "purple"}],
        (4, 4),
        random.Random(9),
    )
    assert poses() == first
