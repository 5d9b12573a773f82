"""paper_airplane: hand-worked folds and sequences, rejection of non-folds and look-alike candidates,
invariants on many seeds, answer balance."""

from __future__ import annotations

import collections
import re

import pytest
from shapely.geometry import Polygon

from generator_contract import check_generator_contract
from vcot.draw import drawn_labels
from vcot.tasks import Reject, get_task
from vcot.tasks.ct.paper_airplane import GRID, MARGIN_IOU, fold, iou, polygon_coords, run_folds, sheet


def same(p: Polygon, coords) -> bool:
    return p.symmetric_difference(Polygon(coords)).area < 1e-9


def test_contract():
    check_generator_contract("paper_airplane", n=20)


def test_unit_square_vertical_midline_gives_half():
    square = Polygon([(0, 0), (1, 0), (1, 1), (0, 1)])
    result, stay, flap = fold(square, (1, 0, 0.5), -1)  # the left half moves onto the right half
    assert same(result, [(0.5, 0), (1, 0), (1, 1), (0.5, 1)])
    assert result.area == pytest.approx(0.5)


def test_unit_square_diagonal_gives_triangle():
    square = Polygon([(0, 0), (1, 0), (1, 1), (0, 1)])
    result, _, _ = fold(square, (1, -1, 0), 1)  # the lower-right half (x - y > 0) moves
    assert same(result, [(0, 0), (1, 1), (0, 1)])


def test_bigger_flap_sticks_out():
    # Folding the larger part over: x = 3 with the right part (width 5) moving lands on x in [-2, 3].
    result, _, _ = fold(sheet(8), (1, 0, 3), 1)
    assert same(result, [(-2, 0), (3, 0), (3, 8), (-2, 8)])


def test_line_missing_the_paper_is_rejected():
    with pytest.raises(Reject):
        fold(sheet(8), (1, 0, 10), 1)  # beyond the sheet
    with pytest.raises(Reject):
        fold(sheet(8), (1, 0, 8), -1)  # along an edge: nothing on the other side
    with pytest.raises(Reject):
        fold(sheet(8), (1, 1, -1), -1)  # diagonal past the corner


def test_hand_sequence_two_halvings():
    # Fold x = 4 moving the left half -> [4,8]x[0,8]; then y = 4 moving the upper half -> [4,8]x[0,4].
    task = get_task("paper_airplane")
    scene = {"size": 8, "folds": [{"line": [1, 0, 4], "moving": -1}, {"line": [0, 1, 4], "moving": 1}],
             "candidates": [[[4, 0], [8, 0], [8, 4], [4, 4]], [[0, 0], [4, 0], [4, 4], [0, 4]],
                            [[4, 4], [8, 4], [8, 8], [4, 8]], [[4, 0], [8, 0], [8, 8], [4, 8]]],
             "candidate_kinds": ["correct", "mirror", "direction 2", "skip 2"]}
    sol = task.solve(scene)
    assert sol.answer == "A"
    assert sol.states[1] == [[4, 0], [8, 0], [8, 8], [4, 8]]


def test_hand_sequence_diagonal_then_vertical():
    # x + y = 8 with the upper-right moving -> triangle (0,0),(8,0),(0,8). Then x = 4 with the right part
    # moving: the triangle (4,0),(8,0),(4,4) lands on (4,0),(0,0),(4,4), inside what stays, so the outline is
    # the trapezoid (0,0),(4,0),(4,4),(0,8) of area 24.
    task = get_task("paper_airplane")
    scene = {"size": 8, "folds": [{"line": [1, 1, 8], "moving": 1}, {"line": [1, 0, 4], "moving": 1}],
             "candidates": [[[0, 0], [8, 0], [0, 8]], [[4, 0], [8, 0], [8, 8], [4, 4]],
                            [[0, 0], [4, 0], [4, 4], [0, 8]], [[0, 0], [4, 4], [4, 8], [0, 8]]],
             "candidate_kinds": ["skip 2", "mirror", "correct", "direction 1"]}
    sol = task.solve(scene)
    assert sol.answer == "C"
    assert run_folds(8, scene["folds"])[-1].area == pytest.approx(24)


def test_hand_sequence_three_folds_to_triangle():
    # y = 6 upper part down -> [0,8]x[0,6]; x = 2 left part over -> [2,8]x[0,6]; x - y = 2 with the
    # lower-right triangle (2,0),(8,0),(8,6) moving: it reflects exactly onto (2,0),(2,6),(8,6).
    task = get_task("paper_airplane")
    scene = {"size": 8, "folds": [{"line": [0, 1, 6], "moving": 1}, {"line": [1, 0, 2], "moving": -1},
                                  {"line": [1, -1, 2], "moving": 1}],
             "candidates": [[[2, 0], [8, 0], [8, 6], [2, 6]], [[2, 0], [8, 0], [8, 6]],
                            [[6, 0], [6, 6], [0, 6]], [[2, 0], [8, 6], [2, 6]]],
             "candidate_kinds": ["skip 3", "direction 3", "mirror", "correct"]}
    assert task.solve(scene).answer == "D"


def test_lookalike_candidates_rejected():
    task = get_task("paper_airplane")
    folds = [{"line": [1, 0, 4], "moving": -1}, {"line": [0, 1, 4], "moving": 1}]
    twice = {"size": 8, "folds": folds, "candidate_kinds": ["correct"] * 4,
             "candidates": [[[4, 0], [8, 0], [8, 4], [4, 4]], [[4, 0], [8, 0], [8, 4], [4, 4]],
                            [[0, 0], [4, 0], [4, 4], [0, 4]], [[4, 0], [8, 0], [8, 8], [4, 8]]]}
    with pytest.raises(Reject):
        task.solve(twice)
    # A distractor only slightly off the answer (IoU 16/17 > 0.9) is too alike.
    close = dict(twice, candidates=[[[4, 0], [8, 0], [8, 4], [4, 4]], [[4, 0], [8, 0], [8, 4.25], [4, 4.25]],
                                    [[0, 0], [4, 0], [4, 4], [0, 4]], [[4, 0], [8, 0], [8, 8], [4, 8]]])
    with pytest.raises(Reject):
        task.solve(close)


def _sample(task, index: int, seed: int = 0):
    return task.solved_scene(index, seed)[0]


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants_on_many_seeds(difficulty):
    task = get_task("paper_airplane", difficulty=difficulty)
    for i in range(100):
        scene = _sample(task, i, seed=13)
        assert len(scene["folds"]) == task.config.n_folds
        states = run_folds(scene["size"], scene["folds"])
        for before, after in zip(states, states[1:], strict=False):
            assert after.area < before.area  # a fold never adds paper
            x0, y0, x1, y1 = after.bounds
            assert 0 <= x0 and 0 <= y0 and x1 <= scene["size"] and y1 <= scene["size"]
        sol = task.solve(scene)
        k = "ABCD".index(sol.answer)
        assert scene["candidate_kinds"][k] == "correct"
        assert polygon_coords(states[-1]) == scene["candidates"][k]
        polys = [Polygon(c) for c in scene["candidates"]]
        for a in range(4):
            for b in range(a + 1, 4):
                assert iou(polys[a], polys[b]) <= MARGIN_IOU
        for coords in scene["candidates"]:
            assert all((v / GRID).is_integer() for pt in coords for v in pt)


def test_steps_list_each_outline_and_never_the_letter():
    task = get_task("paper_airplane", difficulty="hard")
    for index in range(8):
        sample = task.make(index, 0)
        inst = sample.instance
        states = inst.meta["solution"]["states"]
        assert len(inst.steps) == len(states) - 1
        for k, step in enumerate(inst.steps, start=1):
            listed = ", ".join(f"({x:g}, {y:g})" for x, y in states[k])
            assert step.text.endswith(f"The outline of the folded paper is now the polygon {listed}.")
            assert "area" not in step.text  # not drawn, so not stated
            # The grid numbers the text's coordinates rely on are drawn in the step picture.
            assert {"0", "4", "8"} <= set(drawn_labels(sample.images[step.image]))
        for step in inst.steps + inst.corrupted_steps:
            assert not re.search(r"(?<![A-Za-z])[ABCD](?![A-Za-z])|candidate|answer", step.text), step.text


def test_answer_space_is_the_four_letters():
    task = get_task("paper_airplane", difficulty="easy")
    inst = task.make(0, 0).instance
    space = task.answer_space(inst)
    assert space.size == 4 and inst.options == ["A", "B", "C", "D"]
    assert all(space.contains(x) for x in ("A", "b", "D")) and not space.contains("E")


def test_answer_balance():
    task = get_task("paper_airplane")
    counts = collections.Counter()
    for i in range(100):
        counts[task.solve(_sample(task, i, seed=2)).answer] += 1
    assert counts == {"A": 25, "B": 25, "C": 25, "D": 25}
