from __future__ import annotations

import collections

import numpy as np
import pytest

from vcot.draw import drawn_labels
from vcot.tasks import get_task
from vcot.tasks.answer_leaks import answer_statements
from vcot.tasks.base import ParameterError
from vcot.tasks.common.cube_stacks import (
    Camera,
    bucket_bounds,
    connected,
    dims,
    visibility,
    visibility_problems,
)
from vcot.tasks.eg.cubes_missing import GHOST_NEW, GHOST_OLD, box_missing, layer_text, render_layer

ISO = Camera(45, 35.26439)


def _scene(heights):
    return {
        "heights": heights,
        "camera": {"azimuth": 45, "elevation": 30},
        "palette": "green",
        "min_visible": 0.5,
        "answer_bin": [0, 100],
    }


def _sample(task, seed: int, index: int):
    return task.solved_scene(index, seed)[0]


@pytest.mark.parametrize(
    "heights, box, expected",
    [
        ([[2, 1], [1, 0]], [2, 2, 2], 4),  # 2*2*2 = 8 box, 4 cubes -> 4 missing
        ([[1, 1, 1], [2, 2, 1], [3, 2, 1]], [3, 3, 3], 13),  # 27 - 14
        ([[0, 1], [1, 3]], [2, 2, 3], 7),  # 12 - 5
        ([[2, 2, 2]], [3, 1, 2], 0),  # already a box
    ],
)
def test_hand_worked(heights, box, expected):
    sol = get_task("cubes_missing").solve(_scene(heights))
    assert sol.answer == str(expected)
    assert sol.details["box"] == box
    assert sum(map(sum, sol.states[0])) == expected  # per-column ghosts add up to the answer


def test_hidden_tops_rejected():
    # Same visibility rule as cubes_count: a walled-in column top or a hidden empty floor square is rejected.
    assert visibility([[3, 3], [1, 3]], ISO)[(0, 1)] < 1e-6
    assert visibility_problems([[3, 3], [1, 3]], ISO, 0.5)
    assert any("floor of empty cell (0, 1)" in p for p in visibility_problems([[3, 3], [0, 3]], ISO, 0.5))


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty):
    task = get_task("cubes_missing", difficulty)
    cfg = task.config
    n = {"easy": 200, "medium": 150, "hard": 80}[difficulty]
    for i in range(n):
        scene = _sample(task, 2, i)
        h = scene["heights"]
        w, d = dims(h)
        sol = task.solve(scene)
        answer = int(sol.answer)
        top = max(map(max, h))
        assert answer == w * d * top - sum(map(sum, h)) == box_missing(h) >= 0
        assert all(
            v == top - c for row, mrow in zip(h, sol.states[0], strict=True) for c, v in zip(row, mrow, strict=True)
        )
        assert any(h[0]) and any(h[-1]) and any(r[0] for r in h) and any(r[-1] for r in h)
        assert connected(h)
        lo, hi = scene["answer_bin"]
        assert cfg.answer_min <= lo <= answer <= hi <= cfg.answer_max
        cam = Camera(scene["camera"]["azimuth"], scene["camera"]["elevation"])
        assert visibility_problems(h, cam, scene["min_visible"]) == []


def test_answer_balance():
    task = get_task("cubes_missing", "medium")
    cfg = task.config
    answers = [int(task.solve(_sample(task, 3, i)).answer) for i in range(100)]
    counts = collections.Counter(answers)
    assert counts.most_common(1)[0][1] <= 12, counts
    bounds = [bucket_bounds(cfg.answer_min, cfg.answer_max, cfg.buckets, k) for k in range(cfg.buckets)]
    bins = collections.Counter(next(k for k, (lo, hi) in enumerate(bounds) if lo <= a <= hi) for a in answers)
    assert sorted(bins.values()) == [25, 25, 25, 25]


def _layer_rows(text: str) -> list[list[str]]:
    """The layer grid a step text gives ("back row: cube, ghost; ...; front row: ..."), front row first."""
    rows = []
    for part in text.split("(columns left to right) — ", 1)[1].rstrip(".").split("; "):
        rows.append(part.partition(": ")[2].split(", "))
    return rows[::-1]


def test_steps_fill_the_box_layer_by_layer_and_leave_the_count_to_the_reader():
    task = get_task("cubes_missing", "easy")
    for i in range(8):
        sample = task.make(i, 0)
        inst = sample.instance
        heights = inst.meta["scene"]["heights"]
        w, d, h = inst.meta["solution"]["details"]["box"]
        lowest = min(map(min, heights))
        # One step per layer above the lowest column, bottom to top; each text names its layer and marks every
        # square of it as a ghost (the column is lower) or a cube of the structure.
        assert len(inst.steps) == h - lowest
        ghosts = 0
        for layer, step in zip(range(lowest + 1, h + 1), inst.steps, strict=True):
            assert f"{w} wide x {d} deep x {h} tall" in step.text and f"Layer {layer} of {h} " in step.text
            rows = _layer_rows(step.text)
            assert rows == [["ghost" if c < layer else "cube" for c in row] for row in heights]
            ghosts += sum(row.count("ghost") for row in rows)
        assert ghosts == int(inst.answer)  # the layers' ghosts are exactly the cubes to add
        # The corrupted steps complete the box around a structure with one column misread: the same floor, a box
        # as tall as the misread structure's tallest column, other ghosts.
        bad = inst.corrupted_steps
        assert bad and all(f"{w} wide x {d} deep x " in s.text for s in bad)
        assert [s.text for s in bad] != [s.text for s in inst.steps] and " read as " in inst.meta["corruption"]
        for step in [*inst.steps, *bad]:
            assert "=" not in step.text and "add" not in step.text and answer_statements(step.text, inst) == []
            # The pictures write the box size, the layer and the legend; no count.
            labels = drawn_labels(sample.images[step.image])
            assert labels[0].startswith(f"Box {w} x {d} x ") and labels[0].endswith(" filled in"), labels
            assert labels[2:] == ("FRONT", "ghost cube", "cube of the structure"), labels
            assert not any(answer_statements(label, inst) for label in labels)


def test_layer_text_grammar():
    # Layer 1 full: "Layer 1 is ... holds"; layers 1-2 full: "Layers 1 and 2 are ... hold"; paler ghosts only
    # once a lower layer holds some; layer 1's ghosts stand on the empty floor squares.
    one = layer_text([[1, 2], [1, 3]], 3, 2)
    assert "Layer 1 is filled by the structure alone and holds no ghost cubes." in one
    assert "drawn paler" not in one and "whose column is lower than 2" in one
    assert "drawn paler" in layer_text([[1, 2], [1, 3]], 3, 3)
    two = layer_text([[2, 2], [2, 3]], 3, 3)
    assert "Layers 1 and 2 are filled by the structure alone and hold no ghost cubes." in two
    three = layer_text([[3, 3], [3, 4]], 4, 4)
    assert "Layers 1 to 3 are filled by the structure alone and hold no ghost cubes." in three
    first = layer_text([[0, 2], [1, 3]], 3, 1)
    assert "filled by the structure alone" not in first and "ghost cube on every empty floor square." in first


def _pixels_of(img, colour) -> int:
    return int(np.all(np.asarray(img) == np.array(colour, dtype=np.uint8), axis=-1).sum())


def test_new_layer_drawn_in_ghost_colours():
    # [[1, 2], [2, 2]] lacks one cube, at the front-left on layer 2: that layer's picture shows one new ghost
    # (its top face in the new-ghost colour, about a unit square at ~100 px a unit); the lower layers' paler
    # ghost colour does not appear, and a full box has no ghost at all.
    cam = Camera(45, 30)
    img = render_layer([[1, 2], [2, 2]], cam, "blue", 2, 2)
    assert _pixels_of(img, GHOST_NEW[0]) > 2000
    assert _pixels_of(img, GHOST_OLD[0]) == 0
    # Layer 2 of an L whose front-left column is empty: layer 1's ghost is drawn paler under the new one.
    img = render_layer([[0, 2], [2, 2]], cam, "blue", 2, 2)
    assert _pixels_of(img, GHOST_NEW[0]) > 2000 and _pixels_of(img, GHOST_OLD[1]) > 500
    full = render_layer([[2, 2], [2, 2]], cam, "blue", 2, 2)
    assert _pixels_of(full, GHOST_NEW[0]) == 0 and _pixels_of(full, GHOST_OLD[0]) == 0


def test_answer_space_is_the_balanced_range():
    # Easy: answer_min..answer_max = 2..11 (3 x 3 x 3 box less its tallest column would allow 24): 10 values.
    task = get_task("cubes_missing", "easy")
    space = task.answer_space(task.make(0, 0).instance)
    assert space.size == 10
    assert space.contains("2") and space.contains("11") and not space.contains("1") and not space.contains("12")
    assert get_task("cubes_missing", "medium").answer_space(None).size == 24  # 5..28
    assert get_task("cubes_missing", "hard").answer_space(None).size == 36  # 12..47
    # Clipped to the sizes: a 2 x 2 box 2 tall keeps its tallest column, so at most 8 - 2 = 6 can be missing.
    tiny = get_task(
        "cubes_missing", "easy", max_width=2, max_depth=2, max_height=2, answer_min=0, answer_max=9, buckets=2
    )
    assert tiny.answer_space(None).size == 7
    with pytest.raises(ParameterError, match="answer bin 2 of 4"):
        get_task("cubes_missing", "easy", max_width=2, max_depth=2, max_height=2, answer_min=0, answer_max=50)
