"""mirror_pattern: contract, hand-worked scenes, uniqueness invariants, rejection of symmetric patterns."""

from __future__ import annotations

import collections
import re
from types import SimpleNamespace

import numpy as np
import pytest

from vcot.analysis.shortcuts.mirror_pattern import HEURISTICS
from vcot.draw import drawn_labels
from vcot.draw.colors import rgb
from vcot.engine.chance import answer_space
from vcot.tasks import get_task
from vcot.tasks.base import ParameterError, Reject
from vcot.tasks.eg.mirror_pattern import (
    CELL_COLOURS,
    CELL_MARKS,
    REFLECTIONS,
    TRANSFORMS,
    apply_switch,
    check_asymmetric,
    check_candidates,
    check_overlap_cue,
    switches,
)

# 0 = white, 1 = red. No symmetry of the square maps P to itself.
P = [[1, 1, 0, 0], [1, 0, 0, 0], [1, 0, 1, 0], [0, 0, 0, 0]]
# Worked by hand:
P_VERTICAL = [
    [0, 0, 1, 1],  # mirror line vertical: each row reversed
    [0, 0, 0, 1],
    [0, 1, 0, 1],
    [0, 0, 0, 0],
]
P_HORIZONTAL = [
    [0, 0, 0, 0],  # mirror line horizontal: row order reversed
    [1, 0, 1, 0],
    [1, 0, 0, 0],
    [1, 1, 0, 0],
]
P_DIAGONAL = [
    [1, 1, 1, 0],  # top-left to bottom-right mirror: transpose
    [1, 0, 0, 0],
    [0, 0, 1, 0],
    [0, 0, 0, 0],
]
P_ROT90 = [
    [0, 0, 0, 0],  # quarter turn counter-clockwise: row k = column 3-k read downwards
    [0, 0, 1, 0],
    [1, 0, 0, 0],
    [1, 1, 1, 0],
]
P_ROT180 = [[0, 0, 0, 0], [0, 1, 0, 1], [0, 0, 0, 1], [0, 0, 1, 1]]


def _scene(mode, axis, candidates):
    return {
        "size": 4,
        "colors": ["white", "red"],
        "pattern": P,
        "mode": mode,
        "axis": axis,
        "candidates": candidates,
        "options": ["A", "B", "C", "D"],
    }


def _sample(task, seed, index):
    return task.solved_scene(index, seed)


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
    for s in range(100):
        scene, sol = _sample(task, 11, s)
        assert "candidate_kinds" not in scene  # how candidates were made is the solver's, not the problem's
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
                assert int(np.sum(c != cands[j])) >= task.config.min_diff
            # Every candidate has the pattern's colour counts: counting cells tells nothing.
            assert sorted(c.flatten().tolist()) == sorted(pattern.flatten().tolist())
        assert all(not np.array_equal(TRANSFORMS[t](pattern), pattern) for t in TRANSFORMS if t != "identity")
        assert len(set(pattern.flatten().tolist())) == task.config.n_colors
        assert set(scene["colors"]) <= set(CELL_COLOURS) and scene["colors"][0] == "white"
        # The solver's labels: the answer is named by its reflection, exact symmetries of the pattern among the
        # distractors are never the identity or an allowed reflection.
        kinds = sol.details["candidate_kinds"]
        assert kinds[right] == sol.details["axis"]
        for i, kind in enumerate(kinds):
            if i != right and kind in TRANSFORMS:
                assert kind != "identity" and kind not in allowed
                assert np.array_equal(cands[i], TRANSFORMS[kind](pattern))


def _relations(cands: list[np.ndarray], i: int) -> collections.Counter:
    """What candidate i is to each other candidate, seen from the candidates alone: mirror image or rotation of
    it (or neither), and the cell difference as drawn when it is a near-miss's few cells."""
    out: collections.Counter = collections.Counter()
    for j, d in enumerate(cands):
        if j != i:
            hands = {
                "mirror" if t in REFLECTIONS else "turn"
                for t, f in TRANSFORMS.items()
                if np.array_equal(cands[i], f(d))
            }
            cells = int(np.sum(cands[i] != d))
            out[(frozenset(hands), cells if cells <= 4 else None)] += 1
    return out


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_candidates_alone_do_not_single_out_the_answer(difficulty):
    # Every relation the answer has to the other candidates (mirror image of one, rotation of one, a few cells
    # from one), some distractor has too, so no rule over the candidates alone can tell them apart.
    task = get_task("mirror_pattern", difficulty=difficulty)
    layouts = collections.Counter()
    for s in range(40):
        scene, sol = _sample(task, 21, s)
        cands = [np.array(c) for c in scene["candidates"]]
        right = "ABCD".index(sol.answer)
        mine = _relations(cands, right)
        assert any(_relations(cands, i) == mine for i in range(4) if i != right), (difficulty, s)
        layouts[sum(k[0] != frozenset() for k in mine.elements())] += 1
    # Both layouts occur: the answer has an exact mirror-or-turn partner (pairs) or none (square).
    assert layouts[1] > 5 and layouts[0] > 5, layouts


def test_a_candidates_only_rule_is_at_chance():
    # The audit's heuristics on a quick sample: none beats a guess by 20 points (the old distractors, built
    # around the answer, let "mirror of another candidate, rotation of none" name it in 200 of 200 hard ones).
    for difficulty in ("easy", "medium", "hard"):
        task = get_task("mirror_pattern", difficulty=difficulty)
        solved = [_sample(task, 31, s) for s in range(40)]
        for name, rule in HEURISTICS:
            right = sum((rule(SimpleNamespace(meta={"scene": sc})) or "?") == sol.answer for sc, sol in solved)
            unknown = sum(rule(SimpleNamespace(meta={"scene": sc})) is None for sc, _ in solved)
            assert (right + unknown / 4) / len(solved) <= 0.45, (difficulty, name, right, unknown)


def test_the_rule_catches_the_old_shortcut():
    # The heuristic works when the shortcut is there: the answer among three rotations of the pattern.
    from vcot.analysis.shortcuts.mirror_pattern import mirror_of_another_rotation_of_none

    a = np.array(P)
    scene = _scene("any", None, [TRANSFORMS[t](a).tolist() for t in ("rot90", "rot180", "diagonal", "rot270")])
    assert mirror_of_another_rotation_of_none(SimpleNamespace(meta={"scene": scene})) == "C"


def test_switches_keep_line_counts():
    a = np.array(P)
    found = switches(a)
    assert (0, 0, 2, 1) not in found and (0, 1, 2, 2) in found  # P[0][1], P[0][2], P[2][1], P[2][2] = 1 0 / 0 1
    for sw in found:
        q = apply_switch(a, sw)
        assert int(np.sum(q != a)) == 4
        assert sorted(map(sorted, q.tolist())) == sorted(map(sorted, a.tolist()))
        assert sorted(map(sorted, q.T.tolist())) == sorted(map(sorted, a.T.tolist()))
        assert np.array_equal(apply_switch(q, sw), a)


def test_overlap_cue_is_balanced():
    # Cells shared with P as drawn, counted by hand: vertical 6, P itself 16, rot90 8, rot180 6, horizontal 10,
    # the complement of P 0. The target says where the answer (index 0) must stand.
    a = np.array(P)
    g = {t: TRANSFORMS[t](a) for t in ("vertical", "rot90", "rot180", "horizontal")}
    assert [int(np.sum(x == a)) for x in (*g.values(), a, 1 - a)] == [6, 8, 6, 10, 16, 0]

    def accepted(cands):
        ok = set()
        for target in range(4):
            try:
                check_overlap_cue(a, cands, 0, target)
                ok.add(target)
            except Reject:
                pass
        return ok

    assert accepted([g["vertical"], a, g["rot90"], g["horizontal"]]) == {1}  # the only one sharing the fewest
    assert accepted([g["vertical"], a, g["rot90"], 1 - a]) == {2, 3}  # neither most nor fewest
    assert accepted([g["vertical"], g["rot180"], g["rot90"], a]) == set()  # tied for the fewest
    assert accepted([g["horizontal"], g["vertical"], g["rot90"], 1 - a]) == {0}  # the only one sharing the most


def test_every_colour_has_its_own_mark_drawn_in_its_cells():
    # Colour is never the only cue: each cell colour has a mark of its own, and a cell of that colour shows
    # the mark (pixels of the mark's colour at the cell's centre); white cells stay plain.
    assert set(CELL_MARKS) == set(CELL_COLOURS)
    assert len(set(CELL_MARKS.values())) == len(CELL_MARKS)
    task = get_task("mirror_pattern", difficulty="medium", n_colors=5)
    sample = task.make(0, 8)
    scene = sample.instance.meta["scene"]
    assert sorted(scene["colors"]) == sorted(CELL_COLOURS)
    for name in scene["colors"]:
        assert name in sample.instance.question
    img = np.asarray(sample.images[sample.instance.image]).astype(int)
    n, cell = scene["size"], 216 / scene["size"]
    x0, y0 = (800 - 216) / 2, 40
    seen = set()
    for r, row in enumerate(scene["pattern"]):
        for k, v in enumerate(row):
            name = scene["colors"][v]
            cy, cx = int(y0 + (r + 0.5) * cell), int(x0 + (k + 0.5) * cell)
            patch = img[cy - int(cell * 0.3) : cy + int(cell * 0.3), cx - int(cell * 0.3) : cx + int(cell * 0.3)]
            fill_px = np.all(np.abs(patch - np.array(rgb(name))) < 30, axis=2).mean()
            if CELL_MARKS[name] == "blank":
                assert fill_px > 0.95, (r, k, name)
            else:
                assert 0.3 < fill_px < 0.95, (r, k, name, fill_px)  # the mark covers part of the cell's centre
            seen.add(name)
    assert seen == set(scene["colors"]) and n == 5


def test_limits():
    task = get_task("mirror_pattern", difficulty="hard", size=8, n_colors=5)
    assert task.make(0, 1).instance.answer in "ABCD"
    for bad in (
        {"size": 3},
        {"size": 9},
        {"n_colors": 6},
        {"mode": "some"},
        {"layouts": ["ring"]},
        {"min_diff": 5},
        {"axes": ["up"]},
    ):
        with pytest.raises(ParameterError):
            get_task("mirror_pattern", difficulty="easy", **bad)


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
