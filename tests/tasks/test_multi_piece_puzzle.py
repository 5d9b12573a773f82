"""multi_piece_puzzle: contract, hand-worked scenes, solver invariants, ambiguity rejection, answer balance."""

from __future__ import annotations

import collections
import itertools
import random
import re
import types

import pytest

from vcot.analysis.shortcuts.multi_piece_puzzle import HEURISTICS, only_area_match
from vcot.tasks import get_task
from vcot.tasks.answer_leaks import answer_statements
from vcot.tasks.aslp.multi_piece_puzzle import area_sets, fits_box, tiling_subsets, unique_subset
from vcot.tasks.base import ParameterError, Reject
from vcot.tasks.common.polyomino import RULE_TRANSFORMS, congruent, transform

NAME = "multi_piece_puzzle"

SQUARE = [(x, y) for x in range(1, 4) for y in range(1, 4)]
L5_TARGET = [(1, 1), (2, 1), (3, 1), (4, 1), (1, 2)]
P5 = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1)]  # bottom row of 3, two cells on top at the left
J4 = [(2, 0), (0, 1), (1, 1), (2, 1)]  # top row of 3, one cell below at the right
L4 = [(0, 0), (0, 1), (1, 1), (2, 1)]  # top row of 3, one cell below at the left (mirror of J4)
I3 = [(0, 0), (1, 0), (2, 0)]
O4 = [(0, 0), (1, 0), (0, 1), (1, 1)]
COLORS = ["red", "blue", "green", "orange", "purple", "cyan"]


def scene(rule: str, k: int, w: int, h: int, target: list, shapes: list[list]) -> dict:
    return {
        "rule": rule,
        "k": k,
        "width": w,
        "height": h,
        "target": [list(c) for c in sorted(target)],
        "pieces": [
            {"label": chr(65 + i), "color": COLORS[i], "cells": [list(c) for c in cells]}
            for i, cells in enumerate(shapes)
        ],
    }


def test_hand_translate_square() -> None:
    # Area 9 needs the pentomino A plus one tetromino (B or C); D (3 cells) cannot reach 9 with anything.
    # A at offset (1, 1) leaves (3, 2) plus the top row = B exactly; A at (1, 2) cuts off the top-right
    # cell. C is B's mirror image, which translation cannot produce. Answer A, B.
    s = scene("translate", 2, 3, 3, SQUARE, [P5, J4, L4, I3])
    assert get_task(NAME).solve(s).answer == "A, B"


def test_hand_rotate_l5() -> None:
    # Area 5 = 3 + 2 only with B (L-tromino) and C (domino); A and D have 4 cells and nothing has 1.
    # B on (1, 1), (2, 1), (1, 2) and C lying flat on (3, 1), (4, 1) tile the target. Answer B, C.
    s = scene(
        "rotate", 2, 4, 2, L5_TARGET, [[(0, 0), (1, 0), (2, 0), (1, 1)], [(0, 0), (1, 0), (0, 1)], [(0, 0), (0, 1)], O4]
    )
    assert get_task(NAME).solve(s).answer == "B, C"


def test_hand_rotate_flip_square() -> None:
    # Area 9 = 5 + 4: C (pentomino) with A (square) or D (L-tetromino). The pentomino fills two full rows (or
    # columns) of the square minus a corner, so the leftover is the third row plus that corner: never a
    # 2 x 2 square, but an L-tetromino when connected. Answer C, D.
    s = scene("rotate_flip", 2, 3, 3, SQUARE, [O4, I3, P5, [(0, 0), (0, 1), (0, 2), (1, 0)]])
    assert get_task(NAME).solve(s).answer == "C, D"


def test_rejects_two_tiling_subsets() -> None:
    # With flips, the mirror image of the A + B tiling is an A + C tiling: two answers.
    s = scene("rotate_flip", 2, 3, 3, SQUARE, [P5, J4, L4, I3])
    assert [combo for combo, _ in tiling_subsets(s, limit=5)] == [(0, 1), (0, 2)]
    with pytest.raises(Reject):
        unique_subset(s)
    # A straight tromino E also works with the domino C (domino upright on (1, 1), (1, 2), E along the row).
    s2 = scene(
        "rotate",
        2,
        4,
        2,
        L5_TARGET,
        [[(0, 0), (1, 0), (2, 0), (1, 1)], [(0, 0), (1, 0), (0, 1)], [(0, 0), (0, 1)], O4, I3],
    )
    with pytest.raises(Reject):
        get_task(NAME).solve(s2)


def test_rejects_when_nothing_tiles() -> None:
    s = scene("translate", 2, 3, 3, SQUARE, [P5, L4, I3, O4])
    with pytest.raises(Reject):
        unique_subset(s)


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
        assert cfg.min_cells <= len(target) <= cfg.max_cells
        placed = [c for d in sol.states[0] for c in map(tuple, d["cells"])]
        assert len(placed) == len(set(placed)) == len(target) and set(placed) == target
        used = sorted(d["piece"] for d in sol.states[0])
        assert len(used) == s["k"] == cfg.k and len(s["pieces"]) == cfg.n_candidates
        assert sol.answer == ", ".join(s["pieces"][i]["label"] for i in used)
        assert sol.answer.split(", ") == sorted(sol.answer.split(", "))
        for d in sol.states[0]:
            assert d["k"] in RULE_TRANSFORMS[s["rule"]]
            cells, _ = transform([tuple(c) for c in s["pieces"][d["piece"]]["cells"]], d["k"])
            dx, dy = d["offset"]
            assert sorted((x + dx, y + dy) for x, y in cells) == sorted(map(tuple, d["cells"]))
        shapes = [[tuple(c) for c in p["cells"]] for p in s["pieces"]]
        assert not any(congruent(a, b) for i, a in enumerate(shapes) for b in shapes[i + 1 :])
        assert len(tiling_subsets(s, limit=3)) == 1
        sizes = [len(c) for c in shapes]
        matching = [
            c for c in itertools.combinations(range(len(shapes)), s["k"]) if sum(sizes[i] for i in c) == len(target)
        ]
        # Counting cells never decides: every decoy has a true piece's size (so swapping it in keeps the area)
        # and fits the target's box, and at least min_area_sets k-sets have the target's area.
        assert area_sets(s) == matching and len(matching) >= max(cfg.min_area_sets, cfg.n_candidates - cfg.k + 1)
        true_sizes = {sizes[i] for i in used}
        box = (s["width"], s["height"])
        assert all(sizes[i] in true_sizes and fits_box(shapes[i], box, s["rule"]) for i in range(len(shapes)))
        assert only_area_match(types.SimpleNamespace(meta={"scene": s}, uid="x")) is None


def test_area_shortcut_heuristics() -> None:
    # Hand scene (target area 9): A (5) + B (4) and A (5) + C (4) have the target's area; D (3) fits nothing.
    s = scene("translate", 2, 3, 3, SQUARE, [P5, J4, L4, I3])
    inst = types.SimpleNamespace(meta={"scene": s}, uid="u")
    guesses = {name: fn(inst) for name, fn in HEURISTICS}
    assert area_sets(s) == [(0, 1), (0, 2)]
    assert guesses["only set with the target's area"] is None  # two sets: area alone does not decide
    assert guesses["guess among sets with the target's area"] in {"A, B", "A, C"}
    assert guesses["largest pieces"] == "A, B"  # 5, then the earlier of the 4s
    # With C gone (an I-tromino instead) only A + B has the area, and the heuristic answers it.
    s2 = scene("translate", 2, 3, 3, SQUARE, [P5, J4, I3, [(0, 0), (1, 0), (1, 1)]])
    assert only_area_match(types.SimpleNamespace(meta={"scene": s2}, uid="u")) == "A, B"
    # A piece longer than the target's box is left out by the fitting variant: a 1 x 4 bar in a 3 x 3 target.
    s3 = scene("rotate", 2, 3, 3, SQUARE, [P5, J4, [(0, 0), (1, 0), (2, 0), (3, 0)]])
    fitting = dict(HEURISTICS)["guess among fitting sets with the target's area"]
    assert fitting(types.SimpleNamespace(meta={"scene": s3}, uid="u")) == "A, B"


def test_parameter_limits() -> None:
    for difficulty in ("easy", "medium", "hard"):
        get_task(NAME, difficulty=difficulty)
    with pytest.raises(ParameterError, match="rule"):
        get_task(NAME, rule="mirror")
    with pytest.raises(ParameterError, match="n_candidates"):
        get_task(NAME, n_candidates=7)  # k = 3: at most 6 candidates
    with pytest.raises(ParameterError, match="min_cells"):
        get_task(NAME, difficulty="hard", min_cells=14)
    with pytest.raises(ParameterError, match="min_area_sets"):
        get_task(NAME, min_area_sets=5)  # 5 candidates, k = 3: 3 sets guaranteed, 4 at most
    with pytest.raises(ParameterError, match="max_cells"):
        get_task(NAME, max_cells=100000)
    # Trominoes and tetrominoes come in 2 + 5 shapes: too few for 6 pairwise different candidates.
    with pytest.raises(ParameterError, match="7 shapes"):
        get_task(NAME, difficulty="hard", min_piece=3, max_piece=4)


def test_answer_balance() -> None:
    task, scenes = _scenes("medium", 100)
    # Indices 0..99 of one suite seed: each of the C(5, 3) = 10 label sets exactly 10 times.
    answers = collections.Counter(task.solve(s).answer for s in scenes)
    assert len(answers) == 10 and set(answers.values()) == {10}
    letters = collections.Counter(x for s in scenes for x in task.solve(s).answer.split(", "))
    assert set(letters.values()) == {60}


PLACED = re.compile(r"piece ([A-Z]) \(")


def test_steps_show_the_placed_pieces_and_state_no_conclusion() -> None:
    task = get_task(NAME)
    for i in range(6):
        inst = task.make(i, 5).instance
        good, bad = inst.steps[0].text, inst.corrupted_steps[0].text
        # The correct step places exactly the answer's pieces and covers the whole target; it never sums
        # them up ("So the pieces are ...").
        assert sorted(PLACED.findall(good)) == inst.answer.split(", ")
        n = len(inst.meta["scene"]["target"])
        assert f"cover {n} of the {n} target cells with {n} piece cells" in good
        assert answer_statements(good, inst, final_state_shows=True) == []
        assert "answer" not in good.lower() and "so the" not in good.lower()
        # The corrupted step places the swapped subset (a decoy misread as the shape it replaces), covers the
        # target exactly as a right step does, and claims nothing either.
        placed = inst.meta["corruption"].rsplit("placed pieces ", 1)[1]
        assert sorted(PLACED.findall(bad)) == placed.split(", ") != inst.answer.split(", ")
        assert f"cover {n} of the {n} target cells with {n} piece cells" in bad
        assert answer_statements(bad, inst, final_state_shows=True) == []


def test_answer_space_is_the_k_subsets_of_the_labels() -> None:
    # Medium: 3 of the 5 labels A..E, C(5, 3) = 10 sets, whatever the instance's gold.
    task = get_task(NAME, difficulty="medium")
    inst = task.make(0, 5).instance
    space = task.answer_space(inst)
    assert space.size == 10
    assert space.contains("A, B, C") and space.contains("C, D, E") and space.contains(inst.answer)
    assert not space.contains("A, B") and not space.contains("A, B, C, D") and not space.contains("A, B, F")
    assert not space.contains("A, A, B")
    guesses = {space.sample(random.Random(k)) for k in range(200)}
    assert len(guesses) == 10 and all(g.split(", ") == sorted(g.split(", ")) for g in guesses)
    assert get_task(NAME, difficulty="easy").answer_space(inst).size == 6  # C(4, 2)
    assert get_task(NAME, difficulty="hard").answer_space(inst).size == 15  # C(6, 4)
