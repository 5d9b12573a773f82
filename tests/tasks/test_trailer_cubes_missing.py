from __future__ import annotations

import collections
import itertools

import pytest

from cube_step_text import rows_in
from vcot.draw import drawn_labels
from vcot.tasks import get_task
from vcot.tasks.answer_leaks import answer_statements
from vcot.tasks.base import Reject
from vcot.tasks.common.cube_stacks import bucket_bounds, max_solid, views_consistent, views_of


def _scene(top, front, side, side_name="right"):
    return {"top": top, "front": front, "side": side, "side_name": side_name, "answer_bin": [0, 100]}


def _sample(task, seed: int, index: int):
    return task.solved_scene(index, seed)[0]


@pytest.mark.parametrize(
    "top, front, side, expected",
    [
        # Structure [[2, 1], [1, 0]] (front row first): views top [[1,1],[1,0]], F = [2, 1], S = [2, 1].
        # Maximal solid: front row min(2,2)=2, min(1,2)=1; back-left min(2,1)=1 -> 4 cubes; block 2x2x2 = 8 -> 4.
        ([[1, 1], [1, 0]], [2, 1], [2, 1], 4),
        # Full 2x2 top, F = [3, 1], S = [1, 3]: maximal solid 1, 1 / 3, 1 = 6; block 2*2*3 = 12 -> 6.
        ([[1, 1], [1, 1]], [3, 1], [1, 3], 6),
        # 3x3 example of the count test: maximal solid 13 cubes, block 3*3*3 = 27 -> 14.
        ([[1, 1, 1], [1, 1, 1], [0, 1, 1]], [1, 2, 3], [3, 2, 1], 14),
    ],
)
def test_hand_worked(top, front, side, expected):
    sol = get_task("trailer_cubes_missing").solve(_scene(top, front, side, "left"))
    assert sol.answer == str(expected)
    w, d, h = sol.details["block"]
    assert (w, d, h) == (len(front), len(side), max(front))
    assert sol.details["cubes"] + expected == w * d * h


def test_inconsistent_views_rejected():
    with pytest.raises(Reject):
        get_task("trailer_cubes_missing").solve(_scene([[1, 0], [0, 1]], [2, 1], [1, 2]))


def test_answer_is_minimum_over_consistent_structures():
    # Brute force on 2x3 grids: among all structures with the views, the maximal one needs the fewest cubes
    # to fill the block, and the block size only depends on the views.
    w, d, hmax = 3, 2, 3
    best: dict = {}
    for flat in itertools.product(range(hmax + 1), repeat=w * d):
        h = [list(flat[y * w : (y + 1) * w]) for y in range(d)]
        top, front, side = views_of(h)
        if not all(front) or not all(side):
            continue  # the block must span the whole grid
        key = (tuple(map(tuple, top)), tuple(front), tuple(side))
        need = w * d * max(front) - sum(flat)
        best[key] = min(best.get(key, need), need)
    task = get_task("trailer_cubes_missing")
    for key, need in best.items():
        top, front, side = [list(r) for r in key[0]], list(key[1]), list(key[2])
        assert views_consistent(top, front, side)
        assert task.solve(_scene(top, front, side)).answer == str(need)
        assert sum(map(sum, max_solid(top, front, side))) == w * d * max(front) - need


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty):
    task = get_task("trailer_cubes_missing", difficulty)
    cfg = task.config
    for i in range(200):
        scene = _sample(task, 6, i)
        top, front, side = scene["top"], scene["front"], scene["side"]
        sol = task.solve(scene)
        assert views_of(sol.details["max_solid"]) == (top, front, side)
        answer = int(sol.answer)
        w, d, h = len(front), len(side), max(front)
        assert max(side) == h
        assert 0 <= answer == w * d * h - sum(map(sum, sol.details["max_solid"]))
        lo, hi = scene["answer_bin"]
        assert cfg.answer_min <= lo <= answer <= hi <= cfg.answer_max


def test_answer_balance():
    task = get_task("trailer_cubes_missing", "medium")
    cfg = task.config
    answers = [int(task.solve(_sample(task, 7, i)).answer) for i in range(100)]
    counts = collections.Counter(answers)
    assert counts.most_common(1)[0][1] <= 12, counts
    bounds = [bucket_bounds(cfg.answer_min, cfg.answer_max, cfg.buckets, k) for k in range(cfg.buckets)]
    bins = collections.Counter(next(k for k, (lo, hi) in enumerate(bounds) if lo <= a <= hi) for a in answers)
    assert sorted(bins.values()) == [25, 25, 25, 25]


def test_steps_show_the_block_and_leave_the_count_to_the_reader():
    task = get_task("trailer_cubes_missing", "easy")
    for i in range(6):
        sample = task.make(i, 0)
        inst = sample.instance
        w, d, h = inst.meta["solution"]["details"]["block"]
        good, bad = inst.steps[0].text, inst.corrupted_steps[0].text
        solid = rows_in(good, "maximal heights")
        assert solid == inst.meta["solution"]["details"]["max_solid"]
        assert f"{w} wide x {d} deep x {h} tall" in good
        assert w * d * h - sum(map(sum, solid)) == int(inst.answer)
        # One column too tall leaves fewer cubes to add.
        assert w * d * h - sum(map(sum, rows_in(bad, "maximal heights"))) < int(inst.answer)
        for step in (inst.steps[0], inst.corrupted_steps[0]):
            assert "=" not in step.text and "add" not in step.text and answer_statements(step.text, inst) == []
            # Heights and view notes are pips: no drawn label is a bare number.
            labels = drawn_labels(sample.images[step.image])
            assert not any(label.strip().isdigit() for label in labels), labels
            assert f"Block {w} x {d} x {h} with ghost cubes" in labels


def test_answer_space_is_the_balanced_range():
    task = get_task("trailer_cubes_missing", "easy")
    space = task.answer_space(task.make(0, 0).instance)
    assert space.size == 12  # 2..13
    assert space.contains("2") and space.contains("13") and not space.contains("1") and not space.contains("14")
    assert get_task("trailer_cubes_missing", "medium").answer_space(None).size == 28  # 5..32
    assert get_task("trailer_cubes_missing", "hard").answer_space(None).size == 48  # 12..59
