"""localizer: contract, hand-worked scenes, solver invariants, ambiguity rejection, answer balance."""

from __future__ import annotations

import collections
import random
import re
import types

import pytest

from vcot.analysis.shortcuts.localizer import HEURISTICS
from vcot.tasks import get_task
from vcot.tasks.base import ParameterError, Reject
from vcot.tasks.common.polyomino import RULE_TRANSFORMS, congruent, normalize, tilings, transform
from vcot.tasks.eg.localizer import (
    circles_answer,
    shallow_answers,
    unique_tiling,
)

NAME = "localizer"


def scene(rule: str, w: int, h: int, target: list[tuple[int, int]], pieces: list[tuple[list, list]]) -> dict:
    return {
        "rule": rule,
        "width": w,
        "height": h,
        "target": [list(c) for c in sorted(target)],
        "pieces": [
            {
                "number": i + 1,
                "color": ["red", "blue", "green"][i],
                "cells": [list(c) for c in cells],
                "circles": [list(c) for c in circles],
            }
            for i, (cells, circles) in enumerate(pieces)
        ],
    }


SQUARE = [(x, y) for x in range(1, 4) for y in range(1, 4)]
P5 = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1)]  # bottom row of 3, two cells on top at the left
J4 = [(2, 0), (0, 1), (1, 1), (2, 1)]  # top row of 3, one cell below at the right
L5_TARGET = [(1, 1), (2, 1), (3, 1), (4, 1), (1, 2)]  # a row of four with one cell on top at the left
STEP_TARGET = [(1, 1), (2, 1), (3, 1), (4, 1), (1, 2), (2, 2)]


def test_hand_translate_square() -> None:
    # P5 must lie at offset (1, 1) (at (1, 2) it would cut off the top-right cell); the rest, (3, 2) and the
    # top row, is exactly J4 at offset (1, 2). P5's circle (2, 0) -> (3, 1); J4's circle (0, 1) -> (1, 3).
    s = scene("translate", 3, 3, SQUARE, [(P5, [(2, 0)]), (J4, [(0, 1)])])
    assert get_task(NAME).solve(s).answer == "(1, 3), (3, 1)"


def test_shallow_answers_by_hand() -> None:
    # The square above read without tiling: every circle at its drawn cell from the grid's corner gives P5's
    # (2, 0) -> (3, 1) and J4's (0, 1) -> (1, 2); each piece alone at its lowest-leftmost fit lands at offset
    # (1, 1) too (J4 fits there on its own), so both cues say "(1, 2), (3, 1)", and the answer differs.
    s = scene("translate", 3, 3, SQUARE, [(P5, [(2, 0)]), (J4, [(0, 1)])])
    assert shallow_answers(s) == {"(1, 2), (3, 1)"}
    assert get_task(NAME).solve(s).answer not in shallow_answers(s)
    # With the circle on P5 only, P5 lies where it is drawn and the cue is right: the generator rejects such
    # scenes.
    s2 = scene("translate", 3, 3, SQUARE, [(P5, [(2, 0)]), (J4, [])])
    assert get_task(NAME).solve(s2).answer == "(3, 1)" and "(3, 1)" in shallow_answers(s2)
    inst = types.SimpleNamespace(meta={"scene": s2})
    assert {name: fn(inst) for name, fn in HEURISTICS} == {
        "circles as drawn, from the grid's corner": "(3, 1)",
        "each circled piece unturned at its first fit": "(3, 1)",
        "most-circled piece unturned at its first fit": "(3, 1)",
    }


def test_parameter_limits() -> None:
    for difficulty in ("easy", "medium", "hard"):
        get_task(NAME, difficulty=difficulty)
    with pytest.raises(ParameterError, match="rule"):
        get_task(NAME, rule="shear")
    with pytest.raises(ParameterError, match="max_cells"):
        get_task(NAME, max_cells=100000)
    # Four pairwise different pieces of 3+ cells need 3 + 3 + 4 + 4 = 14 cells, 18 with flips (slack 4).
    with pytest.raises(ParameterError, match="max_cells >= 18"):
        get_task(NAME, difficulty="hard", max_cells=17)
    with pytest.raises(ParameterError, match="max_circles"):
        get_task(NAME, difficulty="easy", max_circles=4)  # 3 pieces, one circle each
    with pytest.raises(ParameterError, match="room to spare"):
        get_task(NAME, max_w=4, max_h=4, min_cells=16, max_cells=16)
    with pytest.raises(ParameterError, match="turned twin"):
        get_task(NAME, irregular=False)  # medium turns pieces


def test_texts_agree_in_number() -> None:
    task = get_task(NAME, difficulty="easy")
    for i in range(12):
        inst = task.make(i, 4).instance
        texts = [inst.question, inst.meta["corruption"]] + [st.text for st in inst.steps + inst.corrupted_steps]
        for text in texts:
            assert not re.search(r"\b1 (cells|circles|pieces)\b|\b([02-9]|\d\d+) (cell|circle|piece)\b", text), text


def test_hand_rotate_l5() -> None:
    # Only an L-tromino can cover (1, 2) (a domino there leaves a straight tromino), so it takes (1, 1), (2, 1),
    # (1, 2): its drawn form (corner (1, 1), arms left and down) turned 180 degrees; the circle on the end of
    # the left arm goes to the end of the right arm, (2, 1). The domino, circled on both cells, lies flat on
    # (3, 1), (4, 1).
    s = scene("rotate", 4, 2, L5_TARGET, [([(0, 1), (1, 1), (1, 0)], [(0, 1)]), ([(0, 0), (0, 1)], [(0, 0), (0, 1)])])
    assert get_task(NAME).solve(s).answer == "(2, 1), (3, 1), (4, 1)"


def test_hand_rotate_flip_step() -> None:
    # A straight tromino can only lie in the bottom row; at x = 1..3 it would isolate (4, 1), so it takes
    # (2, 1)-(4, 1) with its middle circle at (3, 1). The L-tromino fills (1, 1), (1, 2), (2, 2); its circled
    # corner is the cell touching both others, (1, 2). Circles on a corner and a middle cell are fixed by
    # every symmetry of their pieces, so flips do not create a second answer.
    s = scene(
        "rotate_flip", 4, 2, STEP_TARGET, [([(0, 0), (1, 0), (1, 1)], [(1, 0)]), ([(0, 0), (0, 1), (0, 2)], [(0, 1)])]
    )
    assert get_task(NAME).solve(s).answer == "(1, 2), (3, 1)"
    # With the circle on the end of the up arm and rotations only, the L must turn 180 degrees: the up arm
    # becomes the down arm, so the circle lands on (1, 1).
    s2 = scene(
        "rotate", 4, 2, STEP_TARGET, [([(0, 0), (1, 0), (1, 1)], [(1, 1)]), ([(0, 0), (0, 1), (0, 2)], [(0, 1)])]
    )
    assert get_task(NAME).solve(s2).answer == "(1, 1), (3, 1)"


def test_rejects_two_tilings_with_different_circles() -> None:
    # Straight tromino, L-tetromino (top row + bottom-left) and a flat domino on a 3 x 3 square, translation
    # only: either the tromino takes row 1 (circles (3, 1) and (2, 2)) or the L takes the lower-left
    # (circles (3, 3) and (2, 1)).
    s = scene(
        "translate",
        3,
        3,
        SQUARE,
        [([(0, 0), (1, 0), (2, 0)], [(2, 0)]), ([(0, 0), (0, 1), (1, 1), (2, 1)], []), ([(0, 0), (1, 0)], [(0, 0)])],
    )
    found = tilings(
        SQUARE,
        [([tuple(c) for c in p["cells"]], [tuple(c) for c in p["circles"]]) for p in s["pieces"]],
        "translate",
        limit=5,
    )
    assert sorted(circles_answer(t) for t in found) == ["(2, 1), (3, 3)", "(2, 2), (3, 1)"]
    with pytest.raises(Reject):
        unique_tiling(s)
    with pytest.raises(Reject):
        get_task(NAME).solve(s)


def test_rejects_symmetric_piece_moving_its_circle() -> None:
    # Same cells each way, but a domino circled on one end can lie either way round: circle at (3, 1) or (4, 1).
    s = scene("rotate", 4, 2, L5_TARGET, [([(0, 1), (1, 1), (1, 0)], [(0, 1)]), ([(0, 0), (0, 1)], [(0, 0)])])
    with pytest.raises(Reject):
        unique_tiling(s)
    # The L-tromino is mirror-symmetric about its diagonal: with flips, a circle on an arm end has two spots.
    s2 = scene(
        "rotate_flip", 4, 2, STEP_TARGET, [([(0, 0), (1, 0), (1, 1)], [(1, 1)]), ([(0, 0), (0, 1), (0, 2)], [(0, 1)])]
    )
    with pytest.raises(Reject):
        unique_tiling(s2)


def test_rejects_symmetric_target_even_with_equal_circles() -> None:
    # Under rotation the whole square tiling turns by 180 degrees into a second tiling (the circles happen to
    # land on the same two cells, but the tiling itself is not unique) -> rejected.
    s = scene("rotate", 3, 3, SQUARE, [(P5, [(2, 0)]), (J4, [(0, 1)])])
    with pytest.raises(Reject):
        unique_tiling(s)


def _scenes(difficulty: str, n: int) -> tuple[object, list[dict]]:
    task = get_task(NAME, difficulty=difficulty)
    return task, [task.solved_scene(s, 7)[0] for s in range(n)]


@pytest.mark.parametrize("difficulty,n", [("easy", 150), ("medium", 150), ("hard", 40)])
def test_solver_invariants(difficulty: str, n: int) -> None:
    task, scenes = _scenes(difficulty, n)
    cfg = task.config
    for s in scenes:
        sol = task.solve(s)
        target = {tuple(c) for c in s["target"]}
        placed = [c for d in sol.states[0] for c in map(tuple, d["cells"])]
        assert len(placed) == len(set(placed)) == len(target) and set(placed) == target
        assert all(1 <= x <= s["width"] and 1 <= y <= s["height"] for x, y in target)
        assert {x for x, _ in target} == set(range(1, s["width"] + 1))
        assert cfg.min_cells <= len(target) <= cfg.max_cells
        for d in sol.states[0]:
            piece = s["pieces"][d["piece"]]
            assert d["k"] in RULE_TRANSFORMS[s["rule"]]
            cells, marks = transform([tuple(c) for c in piece["cells"]], d["k"], [tuple(c) for c in piece["circles"]])
            dx, dy = d["offset"]
            assert sorted((x + dx, y + dy) for x, y in cells) == sorted(map(tuple, d["cells"]))
            assert sorted((x + dx, y + dy) for x, y in marks) == sorted(map(tuple, d["marks"]))
        shapes = [[tuple(c) for c in p["cells"]] for p in s["pieces"]]
        assert all(tuple(map(tuple, p["cells"])) == normalize(p["cells"]) for p in s["pieces"])
        assert not any(congruent(a, b) for i, a in enumerate(shapes) for b in shapes[i + 1 :])
        again = tilings(
            target,
            [(c, [tuple(m) for m in p["circles"]]) for c, p in zip(shapes, s["pieces"], strict=True)],
            s["rule"],
            limit=3,
        )
        assert len(again) == 1 and circles_answer(again[0]) == sol.answer
        coords = [tuple(int(v) for v in part.split(", ")) for part in sol.answer[1:-1].split("), (")]
        assert coords == sorted(coords) and len(set(coords)) == len(coords)
        assert cfg.min_circles <= len(coords) <= cfg.max_circles
        assert sol.answer not in shallow_answers(s)


def test_answer_balance() -> None:
    task, scenes = _scenes("medium", 99)
    # The scenes above use indices 0..98 of one suite seed, so circle counts are exactly balanced.
    counts = collections.Counter(len(task.solve(s).answer.split("), (")) for s in scenes)
    assert counts == {1: 33, 2: 33, 3: 33}
    answers = collections.Counter(task.solve(s).answer for s in scenes)
    # A third of the answers are single cells, spread over the 20 or so cells a compact target usually covers
    # (6 of 99 on one central cell happens, with or without the shallow-answer rejection); none may dominate.
    assert answers.most_common(1)[0][1] <= 8
    cells = collections.Counter(part for s in scenes for part in task.solve(s).answer.split("), ("))
    assert cells.most_common(1)[0][1] <= 0.2 * sum(cells.values())


def test_corruption_changes_the_answer() -> None:
    # The corruption misreads one circle's cell on its piece: the tiling stays the true one (docs/tasks/localizer.md,
    # "Visual CoT and corruption"), the circles move.
    task, scenes = _scenes("medium", 20)
    for k, s in enumerate(scenes):
        sol = task.solve(s)
        corruption = task.corrupt(s, sol, random.Random(k))
        assert corruption is not None
        text = corruption.steps[0][1]
        assert _map(text).keys() == _map(task.render(s, sol).steps[0][1]).keys()
        assert "+" not in text and "_" not in text
        assert "circles lie at" in corruption.description
        assert corruption.description.rsplit("circles lie at ", 1)[1] != sol.answer


MAP_ROW = re.compile(r"y = (\d+): ([^;]+?)(?=;|\.$)")


def _map(text: str) -> dict[tuple[int, int], str]:
    """The step text's grid map: cell (x, y) -> its symbol."""
    return {(x, int(y)): sym for y, row in MAP_ROW.findall(text) for x, sym in enumerate(row.split(), start=1)}


def test_step_maps_the_tiling_without_writing_coordinates() -> None:
    task = get_task(NAME)
    for i in range(8):
        inst = task.make(i, 3).instance
        scene, text = inst.meta["scene"], inst.steps[0].text
        # No cell is written as coordinates, so the circle cells are shown (marked in the map), never listed.
        assert not re.search(r"\(\s*\d+\s*,\s*\d+\s*\)", text)
        grid = _map(text)
        assert len(grid) == scene["width"] * scene["height"]
        target = {tuple(c) for c in scene["target"]}
        owner = {
            tuple(c): scene["pieces"][d["piece"]]["number"]
            for d in inst.meta["solution"]["states"][0]
            for c in d["cells"]
        }
        circles = set(_circles(inst.answer))
        for cell, sym in grid.items():
            if cell not in target:
                assert sym == "."
            else:
                assert sym == f"{owner[cell]}{'*' if cell in circles else ''}", (cell, sym)
        # Every piece's turn is named, in piece order.
        assert [int(n) for n in re.findall(r"piece (\d+) \(", text)] == list(range(1, len(scene["pieces"]) + 1))


def test_corrupted_step_maps_a_full_tiling() -> None:
    task = get_task(NAME)
    for i in range(8):
        inst = task.make(i, 3).instance
        grid = _map(inst.corrupted_steps[0].text)
        # Only a circle is misread: the corrupted map covers the target as the true one does (no gap "_", no
        # overlap "+"), and its circles differ.
        assert grid.keys() == _map(inst.steps[0].text).keys()
        assert not {"_"} & set(grid.values()) and not any("+" in v for v in grid.values())
        assert grid != _map(inst.steps[0].text)
        assert not re.search(r"\(\s*\d+\s*,\s*\d+\s*\)", inst.corrupted_steps[0].text)


def _circles(answer: str) -> list[tuple[int, int]]:
    return [(int(x), int(y)) for x, y in re.findall(r"\((\d+), (\d+)\)", answer)]


def test_answer_space_easy_by_hand() -> None:
    # Easy: rectangles w x h with 8 <= w * h <= 12 inside 4 x 4, so every target fits a 4 x 3 or a 3 x 4
    # grid; 1 or 2 circles. One circle: 16 cells but (4, 4) = 15. Two circles: both inside 4 x 3 or both
    # inside 3 x 4: C(12, 2) + C(12, 2) - C(9, 2) (both inside 3 x 3) = 66 + 66 - 36 = 96. Total 111.
    space = get_task(NAME, difficulty="easy").answer_space(get_task(NAME).make(0, 3).instance)
    assert space.size == 111
    assert space.contains("(4, 3)") and space.contains("(1, 4), (3, 1)") and space.contains("(1, 1), (4, 3)")
    assert not space.contains("(4, 4)")  # outside every rectangle
    assert not space.contains("(1, 4), (4, 1)")  # no rectangle holds both
    assert not space.contains("(1, 1), (1, 1)")  # one cell twice
    assert not space.contains("(1, 1), (1, 2), (1, 3)")  # three circles
    for k in range(50):
        guess = space.sample(random.Random(k))
        cells = _circles(guess)
        assert space.contains(guess) and cells == sorted(cells) and guess == ", ".join(f"({x}, {y})" for x, y in cells)
    # Medium: any 1 to 3 of the 30 cells of the 6 x 5 box; hard: 2 to 4 of them.
    assert get_task(NAME, difficulty="medium").answer_space(None).size == 30 + 435 + 4060
    assert get_task(NAME, difficulty="hard").answer_space(None).size == 435 + 4060 + 27405
