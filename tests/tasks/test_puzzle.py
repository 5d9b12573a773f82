"""puzzle: contract, hand-worked scenes, uniqueness invariants, rejection of ambiguous holes and pieces."""

from __future__ import annotations

import collections
import random
import re

import pytest

from generator_contract import check_generator_contract
from vcot.draw import drawn_labels
from vcot.engine.chance import answer_space
from vcot.tasks import get_task
from vcot.tasks.aslp.puzzle import check_determined, check_distractors, rule_grid
from vcot.tasks.base import Reject


def _scene(rule, grid, hole, candidates, levels=6):
    return {"rows": len(grid), "cols": len(grid[0]), "shade_levels": levels, "rule": rule, "grid": grid,
            "hole": list(hole), "candidates": candidates, "candidate_kinds": ["?"] * 4,
            "options": ["A", "B", "C", "D"], "min_cells": 2, "min_pixel_frac": 0.04}


def _sample(task, seed, index):
    return task.solved_scene(index, seed)


def test_contract():
    check_generator_contract("puzzle", n=20)


TILE = [[["circle", "red"], ["square", "blue"]], [["plus", "green"], ["ring", "red"]]]
MOTIF = {"family": "motif", "p": 2, "q": 2, "tile": TILE}
MOTIF_GRID = [[[*TILE[i % 2][j % 2], 0] for j in range(6)] for i in range(6)]


def test_hand_worked_motif():
    # 2x2 tile repeated; the hole covers rows 2-3, columns 2-3 (0-based), i.e. exactly one tile:
    # [[circle red, square blue], [plus green, ring red]] -> candidate C.
    truth = [[["circle", "red", 0], ["square", "blue", 0]], [["plus", "green", 0], ["ring", "red", 0]]]
    rot180 = [[["ring", "red", 0], ["plus", "green", 0]], [["square", "blue", 0], ["circle", "red", 0]]]
    mirrored = [[["square", "blue", 0], ["circle", "red", 0]], [["ring", "red", 0], ["plus", "green", 0]]]
    swapped = [[["circle", "blue", 0], ["square", "red", 0]], [["plus", "green", 0], ["ring", "blue", 0]]]
    assert rule_grid(MOTIF, 6, 6) == MOTIF_GRID
    scene = _scene(MOTIF, MOTIF_GRID, (2, 2, 2), [rot180, mirrored, truth, swapped])
    assert get_task("puzzle").solve(scene).answer == "C"


def test_hand_worked_gradient():
    # Shapes alternate circle/square by row, all blue, shade level = column index (0 full .. 5 palest).
    # Hole rows 1-2, columns 3-4: [[square 3, square 4], [circle 3, circle 4]] -> candidate A.
    rule = {"family": "gradient", "a": 2, "shapes": ["circle", "square"], "color": "blue", "reverse": False}
    grid = [[[["circle", "square"][i % 2], "blue", j] for j in range(6)] for i in range(6)]
    assert rule_grid(rule, 6, 6) == grid
    truth = [[["square", "blue", 3], ["square", "blue", 4]], [["circle", "blue", 3], ["circle", "blue", 4]]]
    darker = [[["square", "blue", 1], ["square", "blue", 2]], [["circle", "blue", 1], ["circle", "blue", 2]]]
    flipped = [[["circle", "blue", 3], ["circle", "blue", 4]], [["square", "blue", 3], ["square", "blue", 4]]]
    rot180 = [[["circle", "blue", 4], ["circle", "blue", 3]], [["square", "blue", 4], ["square", "blue", 3]]]
    scene = _scene(rule, grid, (1, 3, 2), [truth, darker, flipped, rot180])
    assert get_task("puzzle").solve(scene).answer == "A"


def test_hand_worked_stripes():
    # shape = [diamond, plus, circle][(i + j) % 3], colour = [orange, purple][(i - j) % 2].
    # Hole rows 3-4, columns 0-1: (3,0) diamond purple, (3,1) plus orange, (4,0) plus orange,
    # (4,1) circle purple -> candidate D.
    rule = {"family": "stripes", "m": 3, "m2": 2, "shapes": ["diamond", "plus", "circle"],
            "colors": ["orange", "purple"], "shape_dir": 1}
    grid = [[[["diamond", "plus", "circle"][(i + j) % 3], ["orange", "purple"][(i - j) % 2], 0]
             for j in range(6)] for i in range(6)]
    assert rule_grid(rule, 6, 6) == grid
    truth = [[["diamond", "purple", 0], ["plus", "orange", 0]], [["plus", "orange", 0], ["circle", "purple", 0]]]
    swapped = [[["diamond", "orange", 0], ["plus", "purple", 0]], [["plus", "purple", 0], ["circle", "orange", 0]]]
    shifted = [[["plus", "orange", 0], ["circle", "purple", 0]], [["circle", "purple", 0], ["diamond", "orange", 0]]]
    rot90 = [[["plus", "orange", 0], ["circle", "purple", 0]], [["diamond", "purple", 0], ["plus", "orange", 0]]]
    scene = _scene(rule, grid, (3, 0, 2), [swapped, shifted, rot90, truth], levels=6)
    assert get_task("puzzle").solve(scene).answer == "D"


def test_unstructured_picture_rejected():
    rng = random.Random(0)
    grid = [[[rng.choice(["circle", "square", "plus", "ring"]), rng.choice(["red", "blue", "green"]), 0]
             for _ in range(6)] for _ in range(6)]
    with pytest.raises(Reject):
        check_determined(grid, (2, 2, 2))
    check_determined(MOTIF_GRID, (2, 2, 2))


def test_rotation_symmetric_hole_rejected():
    # A checkerboard of two symbols: the half-turned piece is identical to the right piece, so it cannot be
    # offered as a distractor.
    truth = [[["circle", "red", 0], ["square", "blue", 0]], [["square", "blue", 0], ["circle", "red", 0]]]
    rot180 = [[row[1], row[0]] for row in truth[::-1]]
    assert rot180 == truth
    other = [[["ring", "green", 0], ["ring", "green", 0]], [["ring", "green", 0], ["ring", "green", 0]]]
    with pytest.raises(Reject):
        check_distractors(truth, [other, rot180], 1, 2, 0.04)


def test_near_identical_distractor_rejected():
    truth = MOTIF_GRID[0][:2], MOTIF_GRID[1][:2]
    truth = [list(r) for r in truth]
    one_cell = [row[:] for row in truth]
    one_cell[0] = [["ring", "red", 0], one_cell[0][1]]  # a single cell changed
    with pytest.raises(Reject):
        check_distractors(truth, [one_cell], 1, 2, 0.04)
    two_equal = [[["ring", "green", 0]] * 2] * 2
    with pytest.raises(Reject):
        check_distractors(truth, [two_equal, two_equal], 1, 2, 0.04)


def test_two_right_pieces_rejected():
    truth = [[["circle", "red", 0], ["square", "blue", 0]], [["plus", "green", 0], ["ring", "red", 0]]]
    swapped = [[["circle", "blue", 0], ["square", "red", 0]], [["plus", "green", 0], ["ring", "blue", 0]]]
    rot180 = [[["ring", "red", 0], ["plus", "green", 0]], [["square", "blue", 0], ["circle", "red", 0]]]
    scene = _scene(MOTIF, MOTIF_GRID, (2, 2, 2), [truth, swapped, truth, rot180])
    with pytest.raises(Reject):
        get_task("puzzle").solve(scene)


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty):
    task = get_task("puzzle", difficulty=difficulty)
    for s in range(100):
        scene, sol = _sample(task, 13, s)
        r0, c0, k = scene["hole"]
        assert k == task.config.hole
        assert scene["grid"] == rule_grid(scene["rule"], scene["rows"], scene["cols"])
        truth = [row[c0:c0 + k] for row in scene["grid"][r0:r0 + k]]
        right = "ABCD".index(sol.answer)
        assert scene["candidates"][right] == truth
        assert scene["candidate_kinds"][right] == "right"
        others = [c for i, c in enumerate(scene["candidates"]) if i != right]
        assert all(o != truth for o in others)
        assert len({repr(o) for o in others}) == 3
        check_determined(scene["grid"], (r0, c0, k))


def test_answer_balance():
    task = get_task("puzzle")
    counts = collections.Counter(_sample(task, 2, i)[1].answer for i in range(100))
    assert counts == {"A": 25, "B": 25, "C": 25, "D": 25}


def _described_piece(text: str) -> list[list[list]]:
    """The gap cells a step text lists ("gap row 1: red circle (shade 2), ...; gap row 2: ...")."""
    rows = re.findall(r"gap row \d+: ([^;]+?)(?:;|\.$)", text)
    out = []
    for row in rows:
        cells = []
        for cell in row.split(", "):
            m = re.fullmatch(r"(\w+) (\w+)(?: \(shade (\d+)\))?", cell)
            assert m, cell
            cells.append([m.group(2), m.group(1), int(m.group(3) or 0)])
        out.append(cells)
    return out


def test_step_describes_the_filled_gap_without_naming_a_piece():
    task = get_task("puzzle", difficulty="medium")
    families = set()
    for index in range(10):
        sample = task.make(index, 6)
        inst, scene = sample.instance, sample.instance.meta["scene"]
        families.add(scene["rule"]["family"])
        right = scene["candidates"]["ABCD".index(inst.answer)]
        assert _described_piece(inst.steps[0].text) == right
        assert _described_piece(inst.corrupted_steps[0].text) in [c for c in scene["candidates"] if c != right]
        for step in (inst.steps[0], inst.corrupted_steps[0]):
            assert not re.search(r"(?<![A-Za-z])[A-D](?![A-Za-z])", step.text), step.text
            assert "piece" not in step.text and "answer" not in step.text
            labels = drawn_labels(sample.images[step.image])
            assert labels[0] == "Gap filled"
            # The rule the text states is written under the picture.
            assert " ".join(labels[1:]) in step.text
    assert families == {"motif", "stripes", "gradient"}


def test_answer_space_is_the_four_piece_letters():
    # Four candidate pieces A-D at every preset: the base default space, size 4.
    for difficulty in ("easy", "hard"):
        inst = get_task("puzzle", difficulty=difficulty).make(2, 1).instance
        space = answer_space(inst)
        assert space.size == 4
        assert all(space.contains(x) for x in "ABCD") and not space.contains("E")
        assert {space.sample(random.Random(k)) for k in range(100)} == set("ABCD")
