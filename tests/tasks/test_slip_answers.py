"""The answer a slipped trajectory leads to (`Task.slip`, kind `wrong_state` of vcot.process.labelled; issue 46),
for the five tasks with slips: rolling_dice_top, rolling_dice_sum, rolling_dice_two, mirror_clock and
robot_program.

A slip reads the input right and applies one rule wrongly; `Corruption.scene` is a scene from which the task's
independent oracle (`vcot.oracles`, which shares no solving code with the generator) re-derives the slipped
answer: the dice rolled along a path whose slipped move goes the way the faces were turned, the mirror showing
the slipped real face or a shift that lands where turning back does, the robot's table right after the slipped
action with the later actions. A wrong `answer` fails the comparison. Hand-worked examples pin one slip of each
task down to its numbers, and generated suites of these tasks keep the content hashes they had before `slip`
existed (a slip never decides which scene is accepted).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from vcot.cli import app
from vcot.oracles import get_oracle
from vcot.seeding import derive_seed
from vcot.tasks import get_task
from vcot.tasks.base import Task
from vcot.tasks.pbr.mirror_clock import scene_for

SEED = 5
PER_DIFFICULTY = 8
DIFFICULTIES = ("easy", "medium", "hard")
SLIPPING = ("rolling_dice_top", "rolling_dice_sum", "rolling_dice_two", "mirror_clock", "robot_program")
# Share of accepted scenes with a slip, per task (measured at SEED over the three difficulties: the dice 100 %,
# mirror_clock about 90 %, robot_program about 70 %: only pushes and 'put beside' slip, and the slipped cell must
# be free and every later action still possible).
MIN_SHARE = {
    "rolling_dice_top": 0.9,
    "rolling_dice_sum": 0.9,
    "rolling_dice_two": 0.9,
    "mirror_clock": 0.7,
    "robot_program": 0.5,
}


def _slip(task: Task, scene: dict[str, Any], solution: Any, index: int) -> Any:
    return task.slip(scene, solution, random.Random(derive_seed("test.slip", task.name, index)))


def test_exactly_these_tasks_slip() -> None:
    from task_pieces import builtin_task_names

    slipping = {n for n in builtin_task_names() if type(get_task(n)).slip is not Task.slip}
    assert slipping == set(SLIPPING)


@pytest.mark.parametrize("name", SLIPPING)
def test_slip_answer_is_oracle_checked(name: str) -> None:
    oracle = get_oracle(name)
    got = total = 0
    for difficulty in DIFFICULTIES:
        task = get_task(name, difficulty)
        params = task.params()
        for index in range(PER_DIFFICULTY):
            scene, solution, _, _ = task._accept(index, SEED, check_corruption=True)
            total += 1
            slip = _slip(task, scene, solution, index)
            if slip is None:
                continue
            got += 1
            where = (name, difficulty, index, slip.description)
            assert "drawn=False" in repr(slip), where  # deciding the slip draws nothing
            assert slip.answer is not None and slip.answer != solution.answer, where
            space = task.answer_space(task.assemble(index, SEED, scene, solution, steps=False).instance)
            assert space.contains(slip.answer), where
            assert oracle(slip.scene, params) == slip.answer, where
            assert oracle(scene, params) == solution.answer, where  # the slip's scene is a copy
            again = _slip(task, scene, solution, index)
            assert (again.description, again.answer, again.scene) == (slip.description, slip.answer, slip.scene)
    assert got >= MIN_SHARE[name] * total, (name, got, total)


# -- hand-worked examples --------------------------------------------------------------------------------


def _all_slips(task: Task, scene: dict[str, Any], tries: int = 40) -> dict[str, Any]:
    """description -> slip, over many RNG seeds (each seed picks one slip)."""
    solution = task.solve(scene)
    out = {}
    for s in range(tries):
        slip = task.slip(scene, solution, random.Random(s))
        if slip is not None:
            out[slip.description] = slip
    return out


def test_rolling_dice_top_by_hand() -> None:
    # One roll east from a die with top 1, south 2, east 3 (so north 5, west 4, bottom 6). Rolled east, the west
    # face comes up: top 4, east 1. Turned as a roll north would turn it, the south face comes up (top 2, south 6);
    # as south, the north face (top 5, south 1); as west, the east face (top 3, east 6).
    task = get_task("rolling_dice_top", "easy")
    scene = {"rows": 3, "cols": 3, "path": [[0, 0], [0, 1]], "start_die": {"top": 1, "south": 2, "east": 3}}
    assert task.solve(scene).answer == "4"
    slips = _all_slips(task, scene)
    want = {"north": (2, 6, 3, 5), "south": (5, 1, 3, 2), "west": (3, 2, 6, 4)}
    assert {re.search(r"as a roll (\w+) would", d).group(1) for d in slips} == set(want)
    for description, slip in slips.items():
        top, south, east, bottom = want[re.search(r"as a roll (\w+) would", description).group(1)]
        assert slip.answer == str(top)
        [(_, text)] = slip.steps
        assert text == (
            f"Roll 1 of 1: the die rolls east from (row 1, column 1) to (row 1, column 2). It now shows "
            f"top {top}, south {south}, east {east} and bottom {bottom}."
        )


def test_rolling_dice_sum_by_hand() -> None:
    # Two rolls, east then south, from top 1, south 2, east 3. True: east gives bottom 3 (top 4, south 2, east 1),
    # then south gives bottom 2 (the south face goes down): 3 + 2 = 5. Slipping roll 1 as west: bottom 4 (top 3,
    # south 2, east 6), then south: bottom 2, sum 6. Slipping roll 2 as north: the north face goes down; after
    # the true first roll north is 5: 3 + 5 = 8.
    task = get_task("rolling_dice_sum", "easy")
    scene = {"rows": 3, "cols": 3, "path": [[0, 0], [0, 1], [1, 1]], "start_die": {"top": 1, "south": 2, "east": 3}}
    assert task.solve(scene).answer == "5"
    slips = _all_slips(task, scene, tries=80)
    assert (
        slips["roll 1 (east) turns the die as a roll west would; the later rolls follow the rule from there"].answer
        == "6"
    )
    assert (
        slips["roll 2 (south) turns the die as a roll north would; the later rolls follow the rule from there"].answer
        == "8"
    )


def test_rolling_dice_two_by_hand() -> None:
    # From top 1, south 2, east 3: red rolls east twice (bottoms 3, then 1, the first top: 4); black rolls south
    # twice (bottoms 2, then 1: 3). Red wins with 4. After black's first roll south its north face is 6 (the old
    # bottom); slipping its second roll as north puts that face down: 2 + 6 = 8, so black wins with 8.
    task = get_task("rolling_dice_two", "easy")
    scene = {
        "rows": 3,
        "cols": 3,
        "paths": {"red": [[0, 0], [0, 1], [0, 2]], "black": [[0, 0], [1, 0], [2, 0]]},
        "start_die": {"top": 1, "south": 2, "east": 3},
    }
    assert task.solve(scene).answer == "red, 4"
    slips = _all_slips(task, scene, tries=120)
    key = "black path: roll 2 (south) turns the die as a roll north would; its later rolls follow the rule from there"
    assert slips[key].answer == "black, 8"
    assert get_oracle("rolling_dice_two")(slips[key].scene, task.params()) == "black, 8"


def test_mirror_clock_by_hand() -> None:
    # Real time 3:20: hour hand at 100 degrees, minute hand at 120. The mirror shows them at 260 and 240. Leaving
    # the hour hand as the mirror shows it (between 8 and 9) and un-mirroring the minute hand gives 8:20, whose
    # hour hand is at 250. With a 2-hour shift: 10:20; the shift turned back instead: 1:20.
    task = get_task("mirror_clock", "medium")
    read = scene_for((3, 20), None, True)
    assert task.solve(read).answer == "3:20"
    [slip] = _all_slips(task, read).values()
    assert slip.answer == "8:20"
    [(_, text)] = slip.steps
    assert text == (
        "Flipping the mirror image left to right gives the real face: the minute hand points 120 degrees "
        "clockwise from 12 and the hour hand 250 degrees clockwise from 12."
    )
    shifted = scene_for((5, 20), {"hours": 2, "minutes": 0}, True)
    slips = _all_slips(task, shifted)
    assert {d: s.answer for d, s in slips.items()} == {
        "hour hand left as the mirror shows it, the minute hand un-mirrored": "10:20",
        "the shift turned back instead of forward": "1:20",
    }
    back = slips["the shift turned back instead of forward"]
    assert [t for _, t in back.steps][0] == [t for _, t in task.render(shifted, task.solve(shifted)).steps][0]


def test_robot_program_by_hand() -> None:
    # Red in c3 is pushed right (to d3); blue is put beside red on the far side (d4). Pushing red left instead
    # puts it in b3 and blue then in b4; putting blue on the near side instead puts it in d2; putting blue beside
    # the cell red stood in before the push (c3, the push forgotten) puts it in c4.
    task = get_task("robot_program", "medium")
    scene = {
        "size": [5, 5],
        "blocks": {"red": [2, 2, 0], "blue": [0, 0, 0]},
        "asked": "blue",
        "program": [
            {"op": "push", "block": "red", "dir": "right"},
            {"op": "put_beside", "block": "blue", "onto": "red", "dir": "away"},
        ],
    }
    assert task.solve(scene).answer == "d4"
    slips = _all_slips(task, scene)
    assert {d: s.answer for d, s in slips.items()} == {
        "action 1 carried out left instead of right; the later actions follow the rules from there": "b4",
        "action 2 carried out towards instead of away; the later actions follow the rules from there": "d2",
        "action 2 puts the blue block beside the cell the red block stood in before action 1 moved it; the later "
        "actions follow the rules from there": "c4",
    }
    first = slips["action 1 carried out left instead of right; the later actions follow the rules from there"]
    # The step names the program's action, as a right step does, and states where the slip put the block.
    assert [t for _, t in first.steps][0] == (
        "After action 1 (push the red block one cell to the right): the red "
        "block is on the table in cell b3; the other blocks have not moved."
    )
    for slip in slips.values():
        assert get_oracle("robot_program")(slip.scene, task.params()) == slip.answer


# -- existing instances do not move ----------------------------------------------------------------------

# `vcot generate --difficulty easy --n 3 --seed 7` of each task, computed before `slip` existed.
HASHES = {
    "rolling_dice_top": "sha256:644c1c1e0fc1398f1f371ccf664a4395769075a6571b6b7d866cae4d3aade500",
    "rolling_dice_sum": "sha256:a5cad5296d6716367f84e5e62cfc2e2a166640a1560300db74a7bc08888d888a",
    "rolling_dice_two": "sha256:d74efcd6a253d42047e8f1a6507c3ce47094581d27ebfd45eb4c54d31b9b8d1a",
    "mirror_clock": "sha256:3cca018e28ae6db8477f2cca8da68c4449abe4abfc2f37c8a017a007246069e9",
    "robot_program": "sha256:291f93c4001f82877b30472de06d854955a407f7a7b7963996b6d004b57dce0a",
}


@pytest.mark.parametrize("name", SLIPPING)
def test_slipping_tasks_keep_their_suite_hashes(name: str, tmp_path) -> None:
    out = tmp_path / name
    res = CliRunner().invoke(
        app,
        [
            "generate",
            "--task",
            name,
            "--difficulty",
            "easy",
            "--n",
            "3",
            "--seed",
            "7",
            "--out",
            str(out),
            "--no-progress",
        ],
    )
    assert res.exit_code == 0, res.output
    assert json.loads((out / "manifest.json").read_text())["content_hash"] == HASHES[name]
