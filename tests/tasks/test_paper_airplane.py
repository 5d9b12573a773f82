"""paper_airplane: hand-worked folds and sequences, rejection of non-folds and look-alike candidates,
invariants on many seeds, answer balance."""

from __future__ import annotations

import collections
import re

import pytest
from shapely.geometry import Polygon

from vcot.draw import drawn_labels
from vcot.tasks import Reject, get_task
from vcot.tasks.ct.paper_airplane import GRID, MARGIN_IOU, fold, iou, polygon_coords, run_folds, sheet


def same(p: Polygon, coords) -> bool:
    return p.symmetric_difference(Polygon(coords)).area < 1e-9


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
    scene = {
        "size": 8,
        "folds": [{"line": [1, 0, 4], "moving": -1}, {"line": [0, 1, 4], "moving": 1}],
        "candidates": [
            [[4, 0], [8, 0], [8, 4], [4, 4]],
            [[0, 0], [4, 0], [4, 4], [0, 4]],
            [[4, 4], [8, 4], [8, 8], [4, 8]],
            [[4, 0], [8, 0], [8, 8], [4, 8]],
        ],
    }
    sol = task.solve(scene)
    assert sol.answer == "A"
    assert sol.states[1] == [[4, 0], [8, 0], [8, 8], [4, 8]]


def test_hand_sequence_diagonal_then_vertical():
    # x + y = 8 with the upper-right moving -> triangle (0,0),(8,0),(0,8). Then x = 4 with the right part
    # moving: the triangle (4,0),(8,0),(4,4) lands on (4,0),(0,0),(4,4), inside what stays, so the outline is
    # the trapezoid (0,0),(4,0),(4,4),(0,8) of area 24.
    task = get_task("paper_airplane")
    scene = {
        "size": 8,
        "folds": [{"line": [1, 1, 8], "moving": 1}, {"line": [1, 0, 4], "moving": 1}],
        "candidates": [
            [[0, 0], [8, 0], [0, 8]],
            [[4, 0], [8, 0], [8, 8], [4, 4]],
            [[0, 0], [4, 0], [4, 4], [0, 8]],
            [[0, 0], [4, 4], [4, 8], [0, 8]],
        ],
    }
    sol = task.solve(scene)
    assert sol.answer == "C"
    assert run_folds(8, scene["folds"])[-1].area == pytest.approx(24)


def test_hand_sequence_three_folds_to_triangle():
    # y = 6 upper part down -> [0,8]x[0,6]; x = 2 left part over -> [2,8]x[0,6]; x - y = 2 with the
    # lower-right triangle (2,0),(8,0),(8,6) moving: it reflects exactly onto (2,0),(2,6),(8,6).
    task = get_task("paper_airplane")
    scene = {
        "size": 8,
        "folds": [
            {"line": [0, 1, 6], "moving": 1},
            {"line": [1, 0, 2], "moving": -1},
            {"line": [1, -1, 2], "moving": 1},
        ],
        "candidates": [
            [[2, 0], [8, 0], [8, 6], [2, 6]],
            [[2, 0], [8, 0], [8, 6]],
            [[6, 0], [6, 6], [0, 6]],
            [[2, 0], [8, 6], [2, 6]],
        ],
    }
    assert task.solve(scene).answer == "D"


def test_lookalike_candidates_rejected():
    task = get_task("paper_airplane")
    folds = [{"line": [1, 0, 4], "moving": -1}, {"line": [0, 1, 4], "moving": 1}]
    twice = {
        "size": 8,
        "folds": folds,
        "candidates": [
            [[4, 0], [8, 0], [8, 4], [4, 4]],
            [[4, 0], [8, 0], [8, 4], [4, 4]],
            [[0, 0], [4, 0], [4, 4], [0, 4]],
            [[4, 0], [8, 0], [8, 8], [4, 8]],
        ],
    }
    with pytest.raises(Reject):
        task.solve(twice)
    # A distractor only slightly off the answer (IoU 16/17 > 0.9) is too alike.
    close = dict(
        twice,
        candidates=[
            [[4, 0], [8, 0], [8, 4], [4, 4]],
            [[4, 0], [8, 0], [8, 4.25], [4, 4.25]],
            [[0, 0], [4, 0], [4, 4], [0, 4]],
            [[4, 0], [8, 0], [8, 8], [4, 8]],
        ],
    )
    with pytest.raises(Reject):
        task.solve(close)


def _sample(task, index: int, seed: int = 0):
    return task.solved_scene(index, seed)[0]


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants_on_many_seeds(difficulty):
    task = get_task("paper_airplane", difficulty=difficulty)
    for i in range(40):
        scene = _sample(task, i, seed=13)
        assert len(scene["folds"]) == task.config.n_folds
        states = run_folds(scene["size"], scene["folds"])
        for before, after in zip(states, states[1:], strict=False):
            assert after.area < before.area  # a fold never adds paper
            x0, y0, x1, y1 = after.bounds
            assert 0 <= x0 and 0 <= y0 and x1 <= scene["size"] and y1 <= scene["size"]
        sol = task.solve(scene)
        k = "ABCD".index(sol.answer)
        # The scene poses the problem only; where each option comes from is the solver's account.
        assert "candidate_kinds" not in scene
        kinds = sol.details["candidate_kinds"]
        assert kinds[k] == "correct" and kinds.count("correct") == 1
        # Every distractor is a slip in a fold before the last (the last fold is shared by all options).
        for kind in kinds[:k] + kinds[k + 1 :]:
            family, where = kind.split()
            assert family in {"direction", "skip", "order", "position"}, kind
            assert int(where.split("-")[-1]) < len(scene["folds"]), kind
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
    for i in range(40):
        counts[task.solve(_sample(task, i, seed=2)).answer] += 1
    assert counts == {"A": 10, "B": 10, "C": 10, "D": 10}


# -- layout of the fold marks: checked with shapely on the pixel geometry the layout returns ------------------


def _check_marks_apart(marks, canvas) -> None:
    from shapely.geometry import LineString, Point

    from vcot.tasks.ct.paper_airplane import ARROW_HALF, LABEL_R

    w, h = canvas
    shafts = [LineString(m.arrow) for m in marks]
    lines = [LineString(m.line) for m in marks]
    circles = [Point(m.label).buffer(LABEL_R) for m in marks]
    for i, m in enumerate(marks):
        x, y = m.label
        assert LABEL_R <= x <= w - LABEL_R and LABEL_R <= y <= h - LABEL_R, f"number {m.number} is clipped"
        # The arrow crosses its own line: its two ends lie on opposite sides.
        (ax, ay), (bx, by) = m.line
        side = [(bx - ax) * (py - ay) - (by - ay) * (px - ax) for px, py in m.arrow]
        assert side[0] * side[1] < 0, f"arrow {m.number} does not cross its line"
        for j in range(len(marks)):
            if i == j:
                continue
            assert shafts[i].buffer(ARROW_HALF).disjoint(shafts[j].buffer(ARROW_HALF)), (i, j, "arrows overlap")
            assert shafts[i].distance(lines[j]) > ARROW_HALF, (i, j, "arrow on another fold's line")
            assert circles[i].disjoint(circles[j]), (i, j, "number circles overlap")
            assert circles[i].distance(lines[j]) > 0, (i, j, "number circle on another fold's line")
        for j in range(len(marks)):
            assert circles[i].disjoint(shafts[j].buffer(ARROW_HALF)), (i, j, "number circle on an arrow")


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_fold_marks_are_laid_out_apart(difficulty):
    from vcot.tasks.ct.paper_airplane import INPUT_CANVAS, STEP_CANVAS, input_layout, step_layouts

    task = get_task("paper_airplane", difficulty=difficulty)
    for i in range(15):
        scene = _sample(task, i, seed=21)
        marks = input_layout(scene)
        assert marks is not None and [m.number for m in marks] == list(range(1, len(scene["folds"]) + 1))
        _check_marks_apart(marks, INPUT_CANVAS)
        for k, step in enumerate(step_layouts(scene["size"], scene["folds"])):
            assert step is not None and step[0].number == k + 1
            _check_marks_apart(step, STEP_CANVAS)


def test_parallel_folds_get_arrows_at_distinct_places():
    # Three vertical folds one unit apart, each moving the right part: a fixed arrow at the middle of each line
    # would put the three shafts on one horizontal line, overlapping each other and the neighbouring lines.
    from vcot.tasks.ct.paper_airplane import INPUT_CANVAS, input_layout

    scene = {
        "size": 8,
        "folds": [{"line": [1, 0, 5], "moving": 1}, {"line": [1, 0, 4], "moving": 1}, {"line": [1, 0, 3], "moving": 1}],
        "candidates": [],
    }
    marks = input_layout(scene)
    assert marks is not None
    _check_marks_apart(marks, INPUT_CANVAS)
    heights = [m.arrow[0][1] for m in marks]
    assert heights[0] != heights[1] and heights[1] != heights[2]  # neighbouring lines: arrows at other heights
    for m in marks:  # horizontal arrows pointing left (the right part moves)
        assert m.arrow[0][1] == m.arrow[1][1] and m.arrow[0][0] > m.arrow[1][0]


def test_answer_is_the_most_alike_or_smallest_outline_only_as_often_as_a_guess():
    # Likeness = summed IoU with the other three outlines, computed here from the scene alone. Over each block of
    # four indices the answer is the unique most alike once, the unique least alike once and, where the scene
    # space is large (medium: diagonals), at each area rank once; it never shares its area with another option.
    task = get_task("paper_airplane", difficulty="medium")
    most = least = 0
    smaller = collections.Counter()
    for i in range(8):
        scene, sol = task.solved_scene(i, 4)
        polys = [Polygon(c) for c in scene["candidates"]]
        like = [sum(iou(p, q) for q in polys if q is not p) for p in polys]
        k = "ABCD".index(sol.answer)
        most += like[k] == max(like) and like.count(max(like)) == 1
        least += like[k] == min(like) and like.count(min(like)) == 1
        assert not (like[k] == max(like) and like.count(max(like)) > 1)  # never tied for the top either
        areas = [p.area for p in polys]
        assert all(abs(a - areas[k]) > 1e-9 for j, a in enumerate(areas) if j != k)
        smaller[sum(a < areas[k] for a in areas)] += 1
    assert (most, least) == (2, 2)
    assert smaller == {0: 2, 1: 2, 2: 2, 3: 2}
