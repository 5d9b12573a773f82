"""overlap: contract, hand-worked scenes, solver invariants, rejection of close calls, letter balance."""

from __future__ import annotations

import collections
import random
import re

import pytest
from shapely.geometry import Polygon

from vcot.draw import drawn_labels
from vcot.engine.chance import answer_space
from vcot.tasks import get_task
from vcot.tasks.base import Reject
from vcot.tasks.eg.overlap import check_margin, pair_overlap


def _shape(vertices, ref):
    return {"vertices": [list(v) for v in vertices], "ref": list(ref)}


def _rect(x, y, w, h, ref=None):
    v = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
    return _shape(v, ref if ref is not None else (x, y))


def _scene(pairs):
    return {"pairs": pairs, "grid": [12, 6], "min_margin": 0.1, "options": ["A", "B", "C", "D"]}


def _sample(task, seed, index):
    return task.solved_scene(index, seed)


def test_hand_worked_squares_win():
    # A: two 2x2 squares, dots at their lower-left corners -> they coincide: area 4.
    # B: 3x1 bar and 1x3 bar, dots at lower-left corners -> common 1x1 square: area 1.
    # C: right triangle (legs 2) and 2x2 square, both dots at the right angle / corner -> triangle: area 2.
    # D: 2x2 square (dot lower-left) and 2x2 square with its dot at its upper-right corner -> the second
    #    lies in [-2,0]x[-2,0], touching the first only at the origin: area 0.
    # Largest is A (4 > 1.1 * 2).
    scene = _scene(
        [
            [_rect(0, 0, 2, 2), _rect(4, 0, 2, 2)],
            [_rect(0, 0, 3, 1), _rect(5, 0, 1, 3)],
            [_shape([(0, 0), (2, 0), (0, 2)], (0, 0)), _rect(4, 0, 2, 2)],
            [_rect(0, 0, 2, 2), _rect(4, 2, 2, 2, ref=(6, 4))],
        ]
    )
    sol = get_task("overlap").solve(scene)
    assert sol.answer == "A"
    assert sol.states == [4.0, 1.0, 2.0, 0.0]


def test_hand_worked_triangle_and_l_shape():
    # A: 4x1 bar vs 1x4 bar (both lower-left dots) -> 1.
    # B: L-shape (0,0),(3,0),(3,1),(1,1),(1,3),(0,3) (area 5) vs 3x3 square, dots at lower-left -> the L lies
    #    inside the square: area 5.
    # C: 2x2 square vs 2x2 square shifted by the dot choice (dot at its lower-right corner (2,0) relative)
    #    -> second covers [-2,0]x[0,2]: area 0 with the first... only an edge in common: 0.
    # D: right triangle (0,0),(4,0),(0,4) (area 8) with dot at (0,0) vs 2x2 square dot lower-left -> the
    #    square [0,2]^2 lies under the hypotenuse x+y<=4: area 4.
    # Largest is B (5 >= 1.1 * 4 = 4.4).
    scene = _scene(
        [
            [_rect(0, 0, 4, 1), _rect(6, 0, 1, 4)],
            [_shape([(0, 0), (3, 0), (3, 1), (1, 1), (1, 3), (0, 3)], (0, 0)), _rect(5, 0, 3, 3)],
            [_rect(0, 0, 2, 2), _rect(4, 0, 2, 2, ref=(6, 0))],
            [_shape([(0, 0), (4, 0), (0, 4)], (0, 0)), _rect(6, 1, 2, 2)],
        ]
    )
    sol = get_task("overlap").solve(scene)
    assert sol.states == [1.0, 5.0, 0.0, 4.0]
    assert sol.answer == "B"


def test_hand_worked_dot_on_upper_vertex():
    # A: 2x2 square (dot at upper-right (2,2)) vs 2x2 square (dot at upper-right (6,2)): coincide -> 4.
    # B: 3x3 square with dot at top-left (0,3) -> occupies [0,3]x[-3,0]; 3x3 square with dot at lower-left
    #    -> [0,3]x[0,3]; they share only an edge: 0.
    # C: triangle (0,0),(4,0),(4,2) with dot at (4,2) -> occupies x in [-4,0], y in [-2,0] (area 4);
    #    2x2 square with dot at its upper-right corner -> [-2,0]x[-2,0]. The triangle's hypotenuse runs
    #    from (-4,-2) to (0,0): y >= x/2. Inside the square the part with y >= x/2 is the square minus the
    #    triangle (-2,-1),(0,0),(-2,0)... region below line: x in [-2,0], y from -2 to x/2 -> area
    #    integral of (x/2 + 2) dx over [-2,0] = 3. So C = 3.
    # D: 1x1 vs 1x1 with lower-left dots -> 1.
    # Largest is A (4 >= 3.3).
    scene = _scene(
        [
            [_rect(0, 0, 2, 2, ref=(2, 2)), _rect(4, 0, 2, 2, ref=(6, 2))],
            [_rect(0, 0, 3, 3, ref=(0, 3)), _rect(5, 0, 3, 3)],
            [_shape([(0, 0), (4, 0), (4, 2)], (4, 2)), _rect(7, 0, 2, 2, ref=(9, 2))],
            [_rect(0, 0, 1, 1), _rect(3, 0, 1, 1)],
        ]
    )
    sol = get_task("overlap").solve(scene)
    assert sol.states == [4.0, 0.0, 3.0, 1.0]
    assert sol.answer == "A"


def test_close_call_rejected():
    # 4x4 vs 4x4 -> 16; 5x3 vs 5x3 -> 15: 16 < 1.1 * 15, so the scene is too close to call.
    scene = _scene(
        [
            [_rect(0, 0, 4, 4), _rect(6, 0, 4, 4)],
            [_rect(0, 0, 5, 3), _rect(6, 0, 5, 3)],
            [_rect(0, 0, 1, 1), _rect(3, 0, 1, 1)],
            [_rect(0, 0, 2, 1), _rect(3, 0, 2, 1)],
        ]
    )
    with pytest.raises(Reject):
        get_task("overlap").solve(scene)
    with pytest.raises(Reject):
        check_margin([16.0, 15.0, 1.0, 2.0], 0.1)
    with pytest.raises(Reject):
        check_margin([0.0, 0.0, 0.0, 0.0], 0.1)
    with pytest.raises(Reject):  # only one overlapping pair where three are required
        check_margin([5.0, 0.0, 0.0, 0.0], 0.1, min_overlapping=3)
    check_margin([16.0, 14.0, 1.0, 2.0], 0.1)


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty):
    task = get_task("overlap", difficulty=difficulty)
    for s in range(120):
        scene, sol = _sample(task, 7, s)
        areas = sol.states
        best = "ABCD".index(sol.answer)
        assert all(areas[best] >= 1.1 * a for i, a in enumerate(areas) if i != best)
        assert sum(a > 0 for a in areas) >= task.config.min_overlapping
        for pair in scene["pairs"]:
            polys = [Polygon(s_["vertices"]) for s_ in pair]
            # Both shapes are valid, inside the drawn grid and apart from each other as drawn.
            assert all(p.is_valid and p.area > 0 for p in polys)
            assert polys[0].distance(polys[1]) >= 1
            for s_ in pair:
                assert all(0 <= x <= 12 and 0 <= y <= 6 for x, y in s_["vertices"])
                assert s_["ref"] in s_["vertices"]
        # The solver's area is the aligned intersection, recomputed here independently.
        for pair, a in zip(scene["pairs"], areas, strict=True):
            moved = [Polygon([(x - s_["ref"][0], y - s_["ref"][1]) for x, y in s_["vertices"]]) for s_ in pair]
            assert abs(moved[0].intersection(moved[1]).area - a) < 1e-3
            assert pair_overlap(pair) == a


def test_answer_balance():
    task = get_task("overlap")
    counts = collections.Counter(_sample(task, 3, i)[1].answer for i in range(100))
    assert counts == {"A": 25, "B": 25, "C": 25, "D": 25}


def test_step_lists_the_panel_areas_without_naming_a_pair():
    task = get_task("overlap")
    for index in range(8):
        sample = task.make(index, 2)
        inst = sample.instance
        areas = inst.meta["solution"]["states"]
        for steps in (inst.steps, inst.corrupted_steps):
            text = steps[0].text
            # No option letter at all: one of them would be the answer.
            assert not re.search(r"(?<![A-Za-z])[A-D](?![A-Za-z])", text), text
            assert "largest" not in text
        listed = re.findall(r"(top-left|top-right|bottom-left|bottom-right) (\d+(?:\.\d+)?)", inst.steps[0].text)
        assert [p for p, _ in listed] == ["top-left", "top-right", "bottom-left", "bottom-right"]
        assert [float(a) for _, a in listed] == pytest.approx(areas, abs=1e-3)
        # The step picture writes each area on its panel and no conclusion.
        labels = drawn_labels(sample.images[inst.steps[0].image])
        assert sum(label.startswith("overlap = ") for label in labels) == 4
        assert not any("largest" in label or "answer" in label.lower() for label in labels)


def test_answer_space_is_the_four_pair_letters():
    # The question offers pairs A-D at every preset: four answers, chance 1/4.
    for difficulty in ("easy", "hard"):
        inst = get_task("overlap", difficulty=difficulty).make(0, 1).instance
        space = answer_space(inst)
        assert space.size == 4
        assert all(space.contains(x) for x in "ABCD") and not space.contains("E")
        assert {space.sample(random.Random(k)) for k in range(100)} == set("ABCD")
