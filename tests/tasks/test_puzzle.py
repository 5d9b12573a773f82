"""puzzle: contract, hand-worked scenes, uniqueness invariants, rejection of ambiguous holes and pieces."""

from __future__ import annotations

import collections
import random
import re
from types import SimpleNamespace

import numpy as np
import pytest

from vcot.analysis.shortcuts.puzzle import HEURISTICS
from vcot.draw import drawn_labels
from vcot.draw.marks import contrast_colour
from vcot.engine.chance import answer_space
from vcot.tasks import get_task
from vcot.tasks.aslp.puzzle import (
    CELL_COLOURS,
    COLOUR_MARKS,
    GRADIENT_COLOURS,
    _mirror,
    _rot,
    _shade,
    check_determined,
    check_distractors,
    fit_rule,
    hide_hole,
    predicted_fill,
    rule_grid,
)
from vcot.tasks.base import ParameterError, Reject


def _scene(grid, hole, candidates, levels=6):
    """A scene as the generator stores it: the hole's cells are hidden, no rule, no labels."""
    return {
        "rows": len(grid),
        "cols": len(grid[0]),
        "shade_levels": levels,
        "grid": hide_hole(grid, hole),
        "hole": list(hole),
        "candidates": candidates,
        "options": ["A", "B", "C", "D"],
        "min_cells": 2,
        "min_pixel_frac": 0.04,
    }


def _sample(task, seed, index):
    return task.solved_scene(index, seed)


TILE = [[["circle", "red"], ["square", "blue"]], [["plus", "yellow"], ["ring", "red"]]]
MOTIF = {"family": "motif", "p": 2, "q": 2, "tile": TILE}
MOTIF_GRID = [[[*TILE[i % 2][j % 2], 0] for j in range(6)] for i in range(6)]


def test_hand_worked_motif():
    # 2x2 tile repeated; the hole covers rows 2-3, columns 2-3 (0-based), i.e. exactly one tile:
    # [[circle red, square blue], [plus yellow, ring red]] -> candidate C.
    truth = [[["circle", "red", 0], ["square", "blue", 0]], [["plus", "yellow", 0], ["ring", "red", 0]]]
    rot180 = [[["ring", "red", 0], ["plus", "yellow", 0]], [["square", "blue", 0], ["circle", "red", 0]]]
    mirrored = [[["square", "blue", 0], ["circle", "red", 0]], [["ring", "red", 0], ["plus", "yellow", 0]]]
    swapped = [[["circle", "blue", 0], ["square", "red", 0]], [["plus", "yellow", 0], ["ring", "blue", 0]]]
    assert rule_grid(MOTIF, 6, 6) == MOTIF_GRID
    scene = _scene(MOTIF_GRID, (2, 2, 2), [rot180, mirrored, truth, swapped])
    assert all(scene["grid"][i][j] is None for i in (2, 3) for j in (2, 3))
    sol = get_task("puzzle").solve(scene)
    assert sol.answer == "C" and sol.states[0] == truth
    assert sol.details["fitted_rule"] == MOTIF  # fitted from the visible cells alone
    # In a 2 x 2 motif the half-turned tile is the window one row and one column on, the mirrored tile the
    # window one column on: both are pieces of the pattern at another phase.
    assert sol.details["candidate_kinds"] == ["shifted", "shifted", "right", "recoloured copy of a piece"]


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
    scene = _scene(grid, (1, 3, 2), [truth, darker, flipped, rot180])
    sol = get_task("puzzle").solve(scene)
    assert sol.answer == "A" and sol.details["fitted_rule"] == rule
    # Two levels darker is the window two columns to the left; the flipped piece is the window one row down.
    assert sol.details["candidate_kinds"][:3] == ["right", "shifted", "shifted"]


def test_hand_worked_stripes():
    # shape = [diamond, plus, circle][(i + j) % 3], colour = [yellow, black][(i - j) % 2].
    # Hole rows 3-4, columns 0-1: (3,0) diamond black, (3,1) plus yellow, (4,0) plus yellow,
    # (4,1) circle black -> candidate D.
    rule = {
        "family": "stripes",
        "m": 3,
        "m2": 2,
        "shapes": ["diamond", "plus", "circle"],
        "colors": ["yellow", "black"],
        "shape_dir": 1,
    }
    grid = [
        [[["diamond", "plus", "circle"][(i + j) % 3], ["yellow", "black"][(i - j) % 2], 0] for j in range(6)]
        for i in range(6)
    ]
    assert rule_grid(rule, 6, 6) == grid
    truth = [[["diamond", "black", 0], ["plus", "yellow", 0]], [["plus", "yellow", 0], ["circle", "black", 0]]]
    swapped = [[["diamond", "yellow", 0], ["plus", "black", 0]], [["plus", "black", 0], ["circle", "yellow", 0]]]
    shifted = [[["plus", "yellow", 0], ["circle", "black", 0]], [["circle", "black", 0], ["diamond", "yellow", 0]]]
    rot90 = [[["plus", "yellow", 0], ["circle", "black", 0]], [["diamond", "black", 0], ["plus", "yellow", 0]]]
    scene = _scene(grid, (3, 0, 2), [swapped, shifted, rot90, truth], levels=6)
    sol = get_task("puzzle").solve(scene)
    assert sol.answer == "D" and sol.details["fitted_rule"] == rule
    assert (
        sol.details["candidate_kinds"][1] == "shifted"
        and sol.details["candidate_kinds"][2] == "rotated copy of the right piece"
    )


def test_unstructured_picture_rejected():
    rng = random.Random(0)
    grid = [
        [[rng.choice(["circle", "square", "plus", "ring"]), rng.choice(["red", "blue", "green"]), 0] for _ in range(6)]
        for _ in range(6)
    ]
    with pytest.raises(Reject):
        check_determined(grid, (2, 2, 2))
    check_determined(MOTIF_GRID, (2, 2, 2))


def test_rotation_symmetric_hole_rejected():
    # A checkerboard of two symbols: the half-turned piece is identical to the right piece, so it cannot be
    # offered as a distractor.
    truth = [[["circle", "red", 0], ["square", "blue", 0]], [["square", "blue", 0], ["circle", "red", 0]]]
    rot180 = [[row[1], row[0]] for row in truth[::-1]]
    assert rot180 == truth
    other = [[["ring", "yellow", 0], ["ring", "yellow", 0]], [["ring", "yellow", 0], ["ring", "yellow", 0]]]
    with pytest.raises(Reject):
        check_distractors(truth, [other, rot180], 1, 2, 0.04)


def test_near_identical_distractor_rejected():
    truth = MOTIF_GRID[0][:2], MOTIF_GRID[1][:2]
    truth = [list(r) for r in truth]
    one_cell = [row[:] for row in truth]
    one_cell[0] = [["ring", "red", 0], one_cell[0][1]]  # a single cell changed
    with pytest.raises(Reject):
        check_distractors(truth, [one_cell], 1, 2, 0.04)
    two_equal = [[["ring", "yellow", 0]] * 2] * 2
    with pytest.raises(Reject):
        check_distractors(truth, [two_equal, two_equal], 1, 2, 0.04)


def test_two_right_pieces_rejected():
    truth = [[["circle", "red", 0], ["square", "blue", 0]], [["plus", "yellow", 0], ["ring", "red", 0]]]
    swapped = [[["circle", "blue", 0], ["square", "red", 0]], [["plus", "yellow", 0], ["ring", "blue", 0]]]
    rot180 = [[["ring", "red", 0], ["plus", "yellow", 0]], [["square", "blue", 0], ["circle", "red", 0]]]
    scene = _scene(MOTIF_GRID, (2, 2, 2), [truth, swapped, truth, rot180])
    with pytest.raises(Reject):
        get_task("puzzle").solve(scene)


def test_scene_with_the_hole_content_rejected():
    # The scene must not carry the answer: a scene whose grid shows the hole's cells is refused.
    truth = [[["circle", "red", 0], ["square", "blue", 0]], [["plus", "yellow", 0], ["ring", "red", 0]]]
    rot180 = [[["ring", "red", 0], ["plus", "yellow", 0]], [["square", "blue", 0], ["circle", "red", 0]]]
    mirrored = [[["square", "blue", 0], ["circle", "red", 0]], [["ring", "red", 0], ["plus", "yellow", 0]]]
    swapped = [[["circle", "blue", 0], ["square", "red", 0]], [["plus", "yellow", 0], ["ring", "blue", 0]]]
    scene = dict(_scene(MOTIF_GRID, (2, 2, 2), [rot180, mirrored, truth, swapped]), grid=MOTIF_GRID)
    with pytest.raises(Reject):
        get_task("puzzle").solve(scene)


def test_fill_predicted_from_visible_cells_only():
    hidden = hide_hole(MOTIF_GRID, (2, 2, 2))
    assert predicted_fill(hidden, (2, 2, 2)) == [row[2:4] for row in MOTIF_GRID[2:4]]
    assert fit_rule(hidden, 6, 6) == MOTIF
    # Scrambling what the hidden cells would be changes nothing: they are never read.
    garbage = [row[:] for row in hidden]
    garbage[2][2] = ["cross", "black", 5]
    assert predicted_fill(garbage, (2, 2, 2)) == predicted_fill(hidden, (2, 2, 2))


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty):
    task = get_task("puzzle", difficulty=difficulty)
    kinds_seen: collections.Counter = collections.Counter()
    for s in range(60):
        scene, sol = _sample(task, 13, s)
        r0, c0, k = scene["hole"]
        assert k == task.config.hole
        # The scene is the problem as shown: no rule, no labels, the hole's cells hidden.
        assert "rule" not in scene and "candidate_kinds" not in scene
        assert all(scene["grid"][i][j] is None for i in range(r0, r0 + k) for j in range(c0, c0 + k))
        full = rule_grid(sol.details["fitted_rule"], scene["rows"], scene["cols"])
        assert hide_hole(full, (r0, c0, k)) == scene["grid"]
        truth = [row[c0 : c0 + k] for row in full[r0 : r0 + k]]
        assert sol.states[0] == truth
        right = "ABCD".index(sol.answer)
        assert scene["candidates"][right] == truth
        kinds = sol.details["candidate_kinds"]
        assert kinds[right] == "right" and kinds.count("right") == 1
        assert kinds.count("shifted") >= 2  # at least two windows of the pattern at other phases
        kinds_seen.update(kd.split(" copy")[0] for kd in kinds)
        others = [c for i, c in enumerate(scene["candidates"]) if i != right]
        assert all(o != truth for o in others)
        assert len({repr(o) for o in others}) == 3
        check_determined(full, (r0, c0, k))
        colours = {cell[1] for row in full for cell in row} | {
            cell[1] for c in scene["candidates"] for row in c for cell in row
        }
        assert colours <= set(CELL_COLOURS)
    assert {"shifted", "rotated", "mirrored", "recoloured"} <= set(kinds_seen), kinds_seen


def _relation(a, b):
    """What piece a is to piece b for a reader comparing just the two: turned, mirrored, or the same shapes
    in other colours or shades."""
    out = set()
    if any(a == _rot(b, t) for t in (1, 2, 3)):
        out.add("turned")
    if a in (_mirror(b, True), _mirror(b, False)):
        out.add("mirrored")
    if a != b and [[c[0] for c in row] for row in a] == [[c[0] for c in row] for row in b]:
        out.add("recoloured")
    return frozenset(out)


def test_candidates_alone_do_not_single_out_the_answer():
    # Turned, mirrored and recoloured copies are made from a piece drawn among the right one and the windows,
    # so a candidate with relations unlike any other's is the answer no more often than a distractor is.
    task = get_task("puzzle", difficulty="medium")
    answer_unique = distractor_unique = 0.0
    n = 80
    for s in range(n):
        scene, sol = _sample(task, 17, s)
        cands, right = scene["candidates"], "ABCD".index(sol.answer)
        prof = [collections.Counter(_relation(cands[i], cands[j]) for j in range(4) if j != i) for i in range(4)]
        unique = [any(prof[i].elements()) and all(prof[i] != prof[j] for j in range(4) if j != i) for i in range(4)]
        answer_unique += unique[right]
        distractor_unique += sum(unique[i] for i in range(4) if i != right) / 3
    assert answer_unique <= distractor_unique + 0.15 * n, (answer_unique, distractor_unique)


def test_shortcut_heuristics_are_at_chance():
    # The audit's heuristics on a quick sample: none beats a guess by 20 points (with the old turned, mirrored
    # and shifted-by-one copies of the right piece, "neighbour pairs seen in the picture" named it in half).
    for difficulty in ("easy", "hard"):
        task = get_task("puzzle", difficulty=difficulty)
        solved = [_sample(task, 19, s) for s in range(40)]
        for name, rule in HEURISTICS:
            guesses = [rule(SimpleNamespace(meta={"scene": sc})) for sc, _ in solved]
            right = sum(g == sol.answer for g, (_, sol) in zip(guesses, solved, strict=True))
            unknown = guesses.count(None)
            assert (right + unknown / 4) / len(solved) <= 0.45, (difficulty, name, right, unknown)


def test_every_colour_has_its_own_mark_drawn_on_its_shapes():
    # Colour is never the only cue: each colour has a mark of its own, named in the question, drawn at the
    # centre of every shape of that colour in black or white, whichever stands out from what lies under it.
    assert set(COLOUR_MARKS) == set(CELL_COLOURS) and set(GRADIENT_COLOURS) <= set(CELL_COLOURS)
    assert len(set(COLOUR_MARKS.values())) == len(COLOUR_MARKS)
    checked = collections.Counter()
    for difficulty in ("easy", "medium"):
        task = get_task("puzzle", difficulty=difficulty)
        for index in range(3):
            sample = task.make(index, 3)
            scene, question = sample.instance.meta["scene"], sample.instance.question
            img = np.asarray(sample.images[sample.instance.image]).astype(int)
            cell = min(64.0, 440.0 / max(scene["rows"], scene["cols"]))
            x0 = (800 - scene["cols"] * cell) / 2
            for i, row in enumerate(scene["grid"]):
                for j, content in enumerate(row):
                    if content is None:
                        continue
                    shape, colour, level = content
                    assert f"{colour} shapes show" in question
                    under = (246, 246, 246) if shape == "ring" else _shade(colour, level, scene["shade_levels"])
                    mark = np.array((0, 0, 0) if contrast_colour(under) == "black" else (255, 255, 255))
                    cx, cy = int(x0 + (j + 0.5) * cell), int(16 + (i + 0.5) * cell)
                    r = int(cell * 0.1)
                    centre = img[cy - r : cy + r + 1, cx - r : cx + r + 1].reshape(-1, 3)
                    near = np.abs(centre - mark).max(axis=1) < 40
                    # Some of the centre is the mark, some is what it is drawn on.
                    assert 0.05 < near.mean() < 0.9, (difficulty, index, i, j, content, near.mean())
                    checked[COLOUR_MARKS[colour]] += 1
    assert len(checked) >= 3, checked


def test_limits():
    task = get_task(
        "puzzle",
        difficulty="hard",
        rows=12,
        cols=12,
        hole=4,
        max_period=4,
        min_cells=8,
        min_pixel_frac=0.15,
        altered_prob=1.0,
    )
    assert task.make(0, 1).instance.answer in "ABCD"
    for bad in (
        {"rows": 13},
        {"hole": 1},
        {"hole": 6},
        {"max_period": 5},
        {"min_pixel_frac": 0.3},
        {"min_cells": 3},
        {"families": ["waves"]},
        {"altered_prob": 1.5},
        {"max_period": 2},
    ):
        with pytest.raises(ParameterError):
            get_task("puzzle", difficulty="medium", **bad)


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
        families.add(inst.meta["solution"]["details"]["family"])
        right = scene["candidates"]["ABCD".index(inst.answer)]
        assert _described_piece(inst.steps[0].text) == right
        # The corrupted step fills the gap by a misread period (its text states that rule), never as the truth.
        assert _described_piece(inst.corrupted_steps[0].text) != right
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
