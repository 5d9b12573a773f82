from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest

from cube_step_text import rows_in
from vcot.tasks import get_task
from vcot.tasks.answer_leaks import answer_statements
from vcot.tasks.base import Reject
from vcot.tasks.common.cube_stacks import bucket_bounds, max_solid, views_consistent, views_of


def _scene(top, front, side, side_name="right"):
    return {"top": top, "front": front, "side": side, "side_name": side_name, "answer_bin": [0, 100]}


def _sample(task, seed: int, index: int):
    return task.solved_scene(index, seed)[0]


def test_views_of_hand_worked_structure():
    # Rows front to back: front row 2, 1; back row 1, 0.
    top, front, side = views_of([[2, 1], [1, 0]])
    assert top == [[1, 1], [1, 0]]
    assert front == [2, 1]  # column maxima over depth
    assert side == [2, 1]  # row maxima over width, front to back


@pytest.mark.parametrize(
    "top, front, side, expected",
    [
        # Top cells: front row both, back row left. min(F, S): front row min(2,1)=1, min(1,1)=1; back-left min(2,2)=2.
        ([[1, 1], [1, 0]], [2, 1], [1, 2], 4),
        # Full 2x2 top, F = [3, 1], S = [1, 3]: cells 1, 1 / 3, 1 -> 6 (a real structure may have as few as 4).
        ([[1, 1], [1, 1]], [3, 1], [1, 3], 6),
        # 3x3: F = [1, 2, 3], S = [3, 2, 1] (front to back); top misses the back-left corner.
        # front row 1, 2, 3; middle 1, 2, 2; back 0, 1, 1 -> 6 + 5 + 2 = 13.
        ([[1, 1, 1], [1, 1, 1], [0, 1, 1]], [1, 2, 3], [3, 2, 1], 13),
    ],
)
def test_hand_worked(top, front, side, expected):
    task = get_task("trailer_cubes_count")
    sol = task.solve(_scene(top, front, side))
    assert sol.answer == str(expected)
    assert views_of(sol.details["max_solid"]) == (top, front, side)


def test_inconsistent_views_rejected():
    # Diagonal top with F = [2, 1], S = [1, 2]: the only cell of column 0 lies in row 0 whose side height is 1,
    # so nothing can be 2 tall in column 0 -- no structure has these views.
    scene = _scene([[1, 0], [0, 1]], [2, 1], [1, 2])
    assert not views_consistent(scene["top"], scene["front"], scene["side"])
    with pytest.raises(Reject):
        get_task("trailer_cubes_count").solve(scene)
    # Silhouettes of different heights can never both be right.
    assert not views_consistent([[1]], [2], [3])


def _all_views_maxima(w: int, d: int, hmax: int) -> dict:
    """Brute force: every height map on a w x d grid with heights 0..hmax, grouped by its three views."""
    maps = np.array(list(itertools.product(range(hmax + 1), repeat=w * d)), dtype=np.int64).reshape(-1, d, w)
    top = (maps > 0).reshape(len(maps), -1)
    front, side = maps.max(axis=1), maps.max(axis=2)
    base = hmax + 1
    key = top @ (1 << np.arange(w * d))
    for arr in (front, side):
        key = key * base ** arr.shape[1] + arr @ (base ** np.arange(arr.shape[1]))
    uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    best = np.zeros(len(uniq), dtype=np.int64)
    np.maximum.at(best, inverse.ravel(), maps.sum(axis=(1, 2)))
    return {tuple(map(tuple, maps[i])): int(b) for i, b in zip(first, best, strict=True)}


@pytest.mark.parametrize("w, d, hmax", [(2, 2, 3), (3, 2, 3), (2, 3, 3), (3, 3, 3)])
def test_min_rule_is_the_brute_force_maximum(w, d, hmax):
    groups = _all_views_maxima(w, d, hmax)
    for rep, best in groups.items():
        top, front, side = views_of([list(r) for r in rep])
        solid = max_solid(top, front, side)
        assert views_consistent(top, front, side)
        assert views_of(solid) == (top, front, side)
        assert sum(map(sum, solid)) == best, (rep, solid, best)


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty):
    task = get_task("trailer_cubes_count", difficulty)
    cfg = task.config
    for i in range(200):
        scene = _sample(task, 4, i)
        top, front, side = scene["top"], scene["front"], scene["side"]
        assert views_consistent(top, front, side)
        solid = task.solve(scene).details["max_solid"]
        assert views_of(solid) == (top, front, side)
        answer = int(task.solve(scene).answer)
        cells = sum(map(sum, top))
        assert cells <= answer <= cells * max(front)
        assert cfg.min_width <= len(front) <= cfg.max_width and cfg.min_depth <= len(side) <= cfg.max_depth
        assert max(front) <= cfg.max_height and min(front + side) >= 1
        lo, hi = scene["answer_bin"]
        assert cfg.answer_min <= lo <= answer <= hi <= cfg.answer_max
        assert scene["side_name"] in ("left", "right")
        unequal = sum(1 for y, row in enumerate(top) for x, t in enumerate(row) if t and front[x] != side[y])
        assert unequal >= cfg.min_unequal_cells


def test_answer_balance():
    task = get_task("trailer_cubes_count", "medium")
    cfg = task.config
    answers = [int(task.solve(_sample(task, 5, i)).answer) for i in range(100)]
    counts = collections.Counter(answers)
    assert counts.most_common(1)[0][1] <= 12, counts
    bounds = [bucket_bounds(cfg.answer_min, cfg.answer_max, cfg.buckets, k) for k in range(cfg.buckets)]
    bins = collections.Counter(next(k for k, (lo, hi) in enumerate(bounds) if lo <= a <= hi) for a in answers)
    assert sorted(bins.values()) == [25, 25, 25, 25]


def test_steps_show_heights_and_leave_the_sum_to_the_reader():
    task = get_task("trailer_cubes_count", "medium")
    for i in range(6):
        inst = task.make(i, 0).instance
        good, bad = inst.steps[0].text, inst.corrupted_steps[0].text
        solid = inst.meta["solution"]["details"]["max_solid"]
        assert rows_in(good, "maximal heights") == solid
        assert sum(map(sum, solid)) == int(inst.answer)
        wrong = rows_in(bad, "maximal heights")
        assert sum(map(sum, wrong)) > int(inst.answer)  # the lower silhouette at a cell read as tall as the other
        assert " read as " in inst.meta["corruption"]
        for text in (good, bad):
            assert "=" not in text and "total" not in text.lower() and "sum" not in text.lower()
            assert answer_statements(text, inst) == []


def test_answer_space_is_the_balanced_range():
    task = get_task("trailer_cubes_count", "easy")
    space = task.answer_space(task.make(0, 0).instance)
    assert space.size == 12  # 5..16
    assert space.contains("5") and space.contains("16") and not space.contains("4") and not space.contains("17")
    assert get_task("trailer_cubes_count", "medium").answer_space(None).size == 28  # 8..35
    assert get_task("trailer_cubes_count", "hard").answer_space(None).size == 46  # 15..60
