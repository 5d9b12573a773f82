"""rolling_dice_top: contract, hand-worked paths, die invariants (incl. an independent rotation-matrix model),
rejections and answer balance."""

from __future__ import annotations

import collections
import random

import pytest

from die_rotation_model import NORMALS, apply, roll_matrix
from vcot.draw import drawn_labels
from vcot.tasks import get_task
from vcot.tasks.base import GenContext, Reject
from vcot.tasks.common.dice_paths import validate_path
from vcot.tasks.common.die import DIRECTIONS, OPPOSITE, ORIENTATIONS, REFERENCE, Die, die_from, roll_path

NAME = "rolling_dice_top"


def matrix_roll_path(die: Die, moves: list[str]) -> Die:
    normal_of = {die.face(f): NORMALS[f] for f in NORMALS}
    for d in moves:
        mat = roll_matrix(d)
        normal_of = {num: apply(mat, n) for num, n in normal_of.items()}
    face_of = {n: f for f, n in NORMALS.items()}
    return Die(**{face_of[n]: num for num, n in normal_of.items()})


def _scene(ctx_seed: int, task, index: int = 0) -> dict:
    return task.sample_scene(GenContext(random.Random(ctx_seed), task.name, 0, index))


def _accepted_scenes(task, n: int, base: int = 0) -> list[dict]:
    """Accepted scenes for indices 0..n-1, drawn as Task.make draws them."""
    return [task.solved_scene(index, base)[0] for index in range(n)]


# -- hand-worked ------------------------------------------------------------------------------------------


def test_hand_worked_reference_die():
    task = get_task(NAME)
    # Start T1 S2 E3 (so B6 N5 W4). East: T4 E1 B3 W6. South: T5 S4 B2 N3. East: T6 E5 B1 W2 -> top 6.
    scene = {
        "rows": 3,
        "cols": 3,
        "path": [[0, 0], [0, 1], [1, 1], [1, 2]],
        "start_die": {"top": 1, "south": 2, "east": 3},
    }
    assert task.solve(scene).answer == "6"


def test_hand_worked_north_west():
    task = get_task(NAME)
    # T3 S1 E2 is the reference die rolled west (T3 W1 B4 E6 N5 S2) then turned a quarter about the vertical
    # (W->S, S->E, E->N, N->W): T3 B4 N6 S1 E2 W5.
    # North: T1 N3 B6 S4. North: T4 N1 B3 S6. West: T2 W4 B5 E3. West: T3 W2 B4 E5 -> top 3.
    scene = {
        "rows": 3,
        "cols": 3,
        "path": [[2, 2], [1, 2], [0, 2], [0, 1], [0, 0]],
        "start_die": {"top": 3, "south": 1, "east": 2},
    }
    assert task.solve(scene).answer == "3"
    assert die_from(3, 1) == Die(top=3, bottom=4, north=6, south=1, east=2, west=5)


def test_hand_worked_single_roll_each_way():
    task = get_task(NAME)
    # From T1 S2 E3 one roll: north brings the south face (2) up, south brings north (5), east brings west (4),
    # west brings east (3).
    for cell, top in (([0, 1], "2"), ([2, 1], "5"), ([1, 2], "4"), ([1, 0], "3")):
        scene = {"rows": 3, "cols": 3, "path": [[1, 1], cell], "start_die": {"top": 1, "south": 2, "east": 3}}
        assert task.solve(scene).answer == top


# -- invariants -------------------------------------------------------------------------------------------


def test_reference_is_right_handed():
    # 1 on top, 2 facing south (front) -> 3 faces east (right); 24 orientations, all with opposite sums 7.
    assert REFERENCE.east == 3 and die_from(1, 2).east == 3
    assert len(ORIENTATIONS) == 24
    for die in ORIENTATIONS.values():
        for f, g in OPPOSITE.items():
            assert die.face(f) + die.face(g) == 7


def test_roll_group_laws():
    back = {"north": "south", "south": "north", "east": "west", "west": "east"}
    for die in ORIENTATIONS.values():
        for d in DIRECTIONS:
            r = die.roll(d)
            assert r.roll(back[d]) == die
            assert r.roll(d).roll(d).roll(d) == die
            assert r != die
            # Faces on the rotation axis stay; the other four cycle top -> d -> bottom -> back -> top.
            axis = [f for f in ("north", "east") if f not in (d, back[d])][0]
            assert r.face(axis) == die.face(axis) and r.face(OPPOSITE[axis]) == die.face(OPPOSITE[axis])
            assert (r.face(d), r.bottom, r.face(back[d]), r.top) == (
                die.top,
                die.face(d),
                die.bottom,
                die.face(back[d]),
            )
            assert r in ORIENTATIONS.values()


def test_solver_invariants_many_seeds():
    task = get_task(NAME, difficulty="hard")
    checked = 0
    for s in range(400):
        try:
            scene = _scene(s, task)
        except Reject:
            continue
        sol = task.solve(scene)
        path = scene["path"]
        assert len({tuple(c) for c in path}) == len(path)
        for r, c in path:
            assert 0 <= r < scene["rows"] and 0 <= c < scene["cols"]
        states = [Die(**st["die"]) for st in sol.states]
        for die in states:
            assert die.top + die.bottom == die.north + die.south == die.east + die.west == 7
        moves = sol.details["moves"]
        for a, b, d in zip(states[:-1], states[1:], moves, strict=True):
            assert a.roll(d) == b
        start = states[0]
        assert matrix_roll_path(start, moves) == states[-1]
        assert sol.answer == str(matrix_roll_path(start, moves).top)
        checked += 1
    assert checked >= 40


def test_matrix_model_agrees_on_random_moves():
    rng = random.Random(7)
    for _ in range(300):
        die = rng.choice(list(ORIENTATIONS.values()))
        moves = [rng.choice(DIRECTIONS) for _ in range(rng.randint(1, 12))]
        ours = die
        for d in moves:
            ours = ours.roll(d)
        assert ours == matrix_roll_path(die, moves)


def test_steps_describe_each_state_and_state_no_conclusion():
    task = get_task(NAME)
    sample = task.make(3, 0)
    inst = sample.instance
    states = inst.meta["solution"]["states"]
    assert len(inst.steps) == len(states) - 1
    for k, step in enumerate(inst.steps, start=1):
        d = states[k]["die"]
        assert f"Roll {k} of {len(inst.steps)}: the die rolls {states[k]['move']}" in step.text
        assert f"top {d['top']}, south {d['south']}, east {d['east']} and bottom {d['bottom']}." in step.text
        # The text names the bottom face, so the picture draws it; the input picture shows three faces only.
        assert "bottom" in drawn_labels(sample.images[step.image])
    assert "bottom" not in drawn_labels(sample.images[inst.image])
    for step in inst.steps + inst.corrupted_steps:
        assert "ends here" not in step.text and "number on top is" not in step.text
    assert task.final_state_shows  # the last state's top face is the answer, drawn and named as a state


def test_answer_space_is_the_six_faces():
    inst = get_task(NAME, difficulty="easy").make(0, 0).instance
    for difficulty in ("easy", "medium", "hard"):
        space = get_task(NAME, difficulty=difficulty).answer_space(inst)
        assert space.size == 6
        assert all(space.contains(str(v)) for v in range(1, 7))
        assert not space.contains("0") and not space.contains("7")


def test_corruption_changes_the_trajectory():
    task = get_task(NAME)
    sample = task.make(3, 0)
    good = [s.text for s in sample.instance.steps]
    bad = [s.text for s in sample.instance.corrupted_steps]
    assert len(good) == len(bad) and good != bad


# -- rejections -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        [[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]],  # revisits the start: the drawn loop is ambiguous
        [[0, 0], [0, 1], [0, 2], [0, 3]],  # leaves a 3x3 board
        [[0, 0], [1, 1]],  # diagonal jump
        [[0, 0]],  # no move
    ],
)
def test_bad_paths_rejected(path):
    with pytest.raises(Reject):
        validate_path(3, 3, path)


def test_left_handed_start_rejected():
    task = get_task(NAME)
    scene = {"rows": 3, "cols": 3, "path": [[0, 0], [0, 1]], "start_die": {"top": 1, "south": 2, "east": 4}}
    with pytest.raises(Reject):
        task.solve(scene)
    assert roll_path(REFERENCE, [[0, 0], [0, 1]])[-1].top == 4


# -- balance ----------------------------------------------------------------------------------------------


def test_answer_balance():
    task = get_task(NAME)
    counts = collections.Counter(task.solve(s).answer for s in _accepted_scenes(task, 120))
    assert set(counts) == {str(v) for v in range(1, 7)}
    assert max(counts.values()) == min(counts.values()) == 20
