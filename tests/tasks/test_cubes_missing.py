from __future__ import annotations

import collections

import pytest

from cube_step_text import rows_in
from generator_contract import check_generator_contract
from vcot.draw import drawn_labels
from vcot.tasks import get_task
from vcot.tasks.answer_leaks import answer_statements
from vcot.tasks.common.cube_stacks import (
    Camera,
    bucket_bounds,
    connected,
    dims,
    visibility,
    visibility_problems,
)
from vcot.tasks.eg.cubes_missing import box_missing

ISO = Camera(45, 35.26439)


def _scene(heights):
    return {"heights": heights, "camera": {"azimuth": 45, "elevation": 30}, "palette": "green",
            "min_visible": 0.5, "answer_bin": [0, 100]}


def _sample(task, seed: int, index: int):
    return task.solved_scene(index, seed)[0]


def test_contract():
    check_generator_contract("cubes_missing", n=20)


@pytest.mark.parametrize("heights, box, expected", [
    ([[2, 1], [1, 0]], [2, 2, 2], 4),                    # 2*2*2 = 8 box, 4 cubes -> 4 missing
    ([[1, 1, 1], [2, 2, 1], [3, 2, 1]], [3, 3, 3], 13),  # 27 - 14
    ([[0, 1], [1, 3]], [2, 2, 3], 7),                    # 12 - 5
    ([[2, 2, 2]], [3, 1, 2], 0),                         # already a box
])
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
        assert all(v == top - c for row, mrow in zip(h, sol.states[0], strict=True)
                   for c, v in zip(row, mrow, strict=True))
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


def test_steps_show_the_ghosts_and_leave_the_count_to_the_reader():
    task = get_task("cubes_missing", "easy")
    for i in range(6):
        sample = task.make(i, 0)
        inst = sample.instance
        w, d, h = inst.meta["solution"]["details"]["box"]
        good, bad = inst.steps[0].text, inst.corrupted_steps[0].text
        assert f"{w} wide x {d} deep x {h} tall" in good
        assert rows_in(good, "ghost cubes per column") == inst.meta["solution"]["states"][0]
        assert sum(map(sum, rows_in(good, "ghost cubes per column"))) == int(inst.answer)
        # The corrupted box is one level too tall: one more ghost in every column.
        assert f"{w} wide x {d} deep x {h + 1} tall" in bad
        assert sum(map(sum, rows_in(bad, "ghost cubes per column"))) == int(inst.answer) + w * d
        for step in (inst.steps[0], inst.corrupted_steps[0]):
            assert "=" not in step.text and "add" not in step.text and answer_statements(step.text, inst) == []
            # The per-column grid shows its counts as pips: the pictures write no number but the box size.
            labels = drawn_labels(sample.images[step.image])
            assert labels[1:] == ("Ghost cubes per column", "FRONT"), labels
            assert labels[0].startswith(f"Box {w} x {d} x ")


def test_answer_space_is_the_balanced_range():
    # Easy: answer_min..answer_max = 2..11 (3 x 3 x 3 box less its tallest column would allow 24): 10 values.
    task = get_task("cubes_missing", "easy")
    space = task.answer_space(task.make(0, 0).instance)
    assert space.size == 10
    assert space.contains("2") and space.contains("11") and not space.contains("1") and not space.contains("12")
    assert get_task("cubes_missing", "medium").answer_space(None).size == 24   # 5..28
    assert get_task("cubes_missing", "hard").answer_space(None).size == 36     # 12..47
    # Clipped to the sizes: a 2 x 2 box 2 tall keeps its tallest column, so at most 8 - 2 = 6 can be missing.
    tiny = get_task("cubes_missing", "easy", max_width=2, max_depth=2, max_height=2, answer_min=0, answer_max=50)
    assert tiny.answer_space(None).size == 7

