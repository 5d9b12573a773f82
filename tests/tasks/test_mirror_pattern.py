"""mirror_pattern: contract, hand-worked scenes, uniqueness invariants, rejection of symmetric patterns."""

from __future__ import annotations

import collections
import re

import numpy as np
import pytest

from generator_contract import check_generator_contract
from vcot.draw import drawn_labels
from vcot.engine.chance import answer_space
from vcot.tasks import get_task
from vcot.tasks.base import Reject
from vcot.tasks.eg.mirror_pattern import (
    REFLECTIONS,
    ROTATIONS,
    TRANSFORMS,
    check_asymmetric,
    check_candidates,
)

# 0 = white, 1 = red. No symmetry of the square maps P to itself.
P = [[1, 1, 0, 0],
     [1, 0, 0, 0],
     [1, 0, 1, 0],
     [0, 0, 0, 0]]
# Worked by hand:
P_VERTICAL = [[0, 0, 1, 1],  # mirror line vertical: each row reversed
              [0, 0, 0, 1],
              [0, 1, 0, 1],
              [0, 0, 0, 0]]
P_HORIZONTAL = [[0, 0, 0, 0],  # mirror line horizontal: row order reversed
                [1, 0, 1, 0],
                [1, 0, 0, 0],
                [1, 1, 0, 0]]
P_DIAGONAL = [[1, 1, 1, 0],  # top-left to bottom-right mirror: transpose
              [1, 0, 0, 0],
              [0, 0, 1, 0],
              [0, 0, 0, 0]]
P_ROT90 = [[0, 0, 0, 0],  # quarter turn counter-clockwise: row k = column 3-k read downwards
           [0, 0, 1, 0],
           [1, 0, 0, 0],
           [1, 1, 1, 0]]
P_ROT180 = [[0, 0, 0, 0],
            [0, 1, 0, 1],
            [0, 0, 0, 1],
            [0, 0, 1, 1]]


def _scene(mode, axis, candidates):
    return {"size": 4, "colors": ["white", "red"], "pattern": P, "mode": mode, "axis": axis,
            "candidates": candidates, "candidate_kinds": ["?"] * 4, "options": ["A", "B", "C", "D"]}


def _sample(task, seed, index):
    return task.solved_scene(index, seed)


def test_contract():
    check_generator_contract("mirror_pattern", n=20)


def test_hand_transforms_match_module():
    a = np.array(P)
    assert TRANSFORMS["vertical"](a).tolist() == P_VERTICAL
    assert TRANSFORMS["horizontal"](a).tolist() == P_HORIZONTAL
    assert TRANSFORMS["diagonal"](a).tolist() == P_DIAGONAL
    assert TRANSFORMS["rot90"](a).tolist() == P_ROT90
    assert TRANSFORMS["rot180"](a).tolist() == P_ROT180
    check_asymmetric(a)


def test_hand_worked_vertical_axis():
    # Only B is P with left and right swapped; A, C are rotations, D is the horizontal-axis mirror.
    scene = _scene("axis", "vertical", [P_ROT90, P_VERTICAL, P_ROT180, P_HORIZONTAL])
    sol = get_task("mirror_pattern").solve(scene)
    assert sol.answer == "B" and sol.details["axis"] == "vertical"


def test_hand_worked_any_reflection():
    # Any single reflection (possibly then rotated) is allowed: D is the transpose (diagonal mirror);
    # A and B are pure rotations; C is the horizontal mirror with its top-left cell recoloured.
    near = [row[:] for row in P_HORIZONTAL]
    near[0][0] = 1
    scene = _scene("any", None, [P_ROT180, P_ROT90, near, P_DIAGONAL])
    sol = get_task("mirror_pattern").solve(scene)
    assert sol.answer == "D" and sol.details["axis"] == "diagonal"


def test_hand_worked_horizontal_axis():
    # Horizontal mirror line stated: B. A (vertical) and D (diagonal) are reflections across other axes.
    scene = _scene("axis", "horizontal", [P_VERTICAL, P_HORIZONTAL, P_ROT90, P_DIAGONAL])
    assert get_task("mirror_pattern").solve(scene).answer == "B"


def test_symmetric_pattern_rejected():
    symmetric = np.array([[1, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 0], [0, 1, 1, 0]])  # mirror-symmetric
    with pytest.raises(Reject):
        check_asymmetric(symmetric)
    half_turn = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])  # symmetric on diagonals
    with pytest.raises(Reject):
        check_asymmetric(half_turn)


def test_ambiguous_candidates_rejected():
    a = np.array(P)
    # Two allowed reflections among the candidates when any reflection counts.
    cands = [np.array(c) for c in (P_VERTICAL, P_HORIZONTAL, P_ROT90, P_ROT180)]
    with pytest.raises(Reject):
        check_candidates(a, cands, REFLECTIONS)
    # No allowed reflection at all.
    with pytest.raises(Reject):
        check_candidates(a, [np.array(c) for c in (P_ROT90, P_ROT180, P_DIAGONAL, P_HORIZONTAL)], ("vertical",))
    # Duplicate distractors.
    with pytest.raises(Reject):
        check_candidates(a, [np.array(c) for c in (P_VERTICAL, P_ROT90, P_ROT90, P_ROT180)], ("vertical",))
    with pytest.raises(Reject):
        get_task("mirror_pattern").solve(_scene("any", None, [P_VERTICAL, P_DIAGONAL, P_ROT90, P_ROT180]))


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty):
    task = get_task("mirror_pattern", difficulty=difficulty)
    for s in range(200):
        scene, sol = _sample(task, 11, s)
        pattern = np.array(scene["pattern"])
        cands = [np.array(c) for c in scene["candidates"]]
        allowed = REFLECTIONS if scene["mode"] == "any" else (scene["axis"],)
        variants = [TRANSFORMS[t](pattern) for t in allowed]
        right = "ABCD".index(sol.answer)
        assert any(np.array_equal(cands[right], v) for v in variants)
        for i, c in enumerate(cands):
            if i != right:
                assert not any(np.array_equal(c, v) for v in variants)
            for j in range(i):
                assert not np.array_equal(c, cands[j])
        assert all(not np.array_equal(TRANSFORMS[t](pattern), pattern) for t in TRANSFORMS if t != "identity")
        assert len(set(pattern.flatten().tolist())) == task.config.n_colors
        # Rotation distractors really are rotations and are far from the answer.
        for kind, c in zip(scene["candidate_kinds"], cands, strict=True):
            if kind in ROTATIONS:
                assert np.array_equal(c, TRANSFORMS[kind](pattern))
                assert int(np.sum(c != cands[right])) >= task.config.min_diff


def test_answer_balance():
    task = get_task("mirror_pattern")
    counts = collections.Counter(_sample(task, 5, i)[1].answer for i in range(100))
    assert counts == {"A": 25, "B": 25, "C": 25, "D": 25}


def _described_grid(text: str, colors: list[str]) -> list[list[int]]:
    """The grid a step text describes row by row ("row 1: white, red; row 2: ...")."""
    rows = re.findall(r"row \d+: ([a-z, ]+)", text)
    return [[colors.index(c) for c in row.split(", ")] for row in rows]


def test_step_describes_the_reflection_without_naming_a_candidate():
    task = get_task("mirror_pattern", difficulty="hard")
    for index in range(6):
        sample = task.make(index, 4)
        inst, scene = sample.instance, sample.instance.meta["scene"]
        right = scene["candidates"]["ABCD".index(inst.answer)]
        # The right step describes exactly the right candidate's grid, the corrupted one a different grid.
        assert _described_grid(inst.steps[0].text, scene["colors"]) == right
        assert _described_grid(inst.corrupted_steps[0].text, scene["colors"]) != right
        for step in (inst.steps[0], inst.corrupted_steps[0]):
            assert not re.search(r"(?<![A-Za-z])[A-D](?![A-Za-z])", step.text), step.text
            assert "candidate" not in step.text and "match" not in step.text
            labels = drawn_labels(sample.images[step.image])
            assert "Reflected pattern" in labels
            assert not any("candidate" in label for label in labels)


def test_answer_space_is_the_four_candidate_letters():
    # Four candidates A-D at every preset: the base default space, size 4.
    for difficulty in ("easy", "hard"):
        inst = get_task("mirror_pattern", difficulty=difficulty).make(1, 2).instance
        space = answer_space(inst)
        assert space.size == 4
        assert all(space.contains(x) for x in "ABCD") and not space.contains("E") and not space.contains("1")
