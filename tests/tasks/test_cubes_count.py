from __future__ import annotations

import collections
import random

import numpy as np
import pytest
from PIL import Image, ImageDraw

from cube_step_text import rows_in
from vcot.tasks import get_task
from vcot.tasks.answer_leaks import answer_statements
from vcot.tasks.base import ParameterError
from vcot.tasks.common.cube_stacks import (
    Camera,
    bucket_bounds,
    connected,
    cubes_of,
    dims,
    face_quads,
    visibility,
    visibility_problems,
)

ISO = Camera(45, 35.26439)  # true isometric: (x, y, z) and (x + 1, y - 1, z + 1) project to the same point


def _scene(heights):
    return {
        "heights": heights,
        "camera": {"azimuth": 45, "elevation": 30},
        "palette": "blue",
        "min_visible": 0.5,
        "answer_bin": [0, 100],
    }


def _sample(task, seed: int, index: int):
    return task.solved_scene(index, seed)[0]


@pytest.mark.parametrize(
    "heights, expected",
    [
        ([[2, 1], [1, 0]], 4),  # 2 + 1 + 1 + 0
        ([[1, 1, 1], [2, 2, 1], [3, 2, 1]], 14),  # rows 3 + 5 + 6
        ([[0, 1], [1, 3]], 5),  # 0 + 1 + 1 + 3
        ([[4]], 4),  # a single column
    ],
)
def test_hand_worked(heights, expected):
    task = get_task("cubes_count")
    sol = task.solve(_scene(heights))
    assert sol.answer == str(expected)
    assert sol.details["total"] == expected


def test_hidden_column_top_rejected():
    # The back-left column (x=0, y=1) is 1 tall and walled in by 3-tall columns in front, at the right and
    # diagonally in front: its top is invisible.
    assert visibility([[3, 3], [1, 3]], ISO)[(0, 1)] < 1e-6
    assert any("top of column (0, 1)" in p for p in visibility_problems([[3, 3], [1, 3]], ISO, 0.5))
    # Right behind a single taller column half the top still shows beside it (kept at the 50 % threshold).
    assert abs(visibility([[3], [1]], ISO)[(0, 1)] - 0.5) < 1e-6
    assert visibility_problems([[3], [1]], ISO, 0.5) == []
    assert visibility_problems([[3], [1]], ISO, 0.6)
    # Isometric coincidence: the top of (0, 1) at height 1 projects exactly onto the top of (1, 0) at 2.
    frac = visibility([[0, 2], [1, 0]], ISO)
    assert frac[(0, 1)] < 1e-6
    assert any("top of column (0, 1)" in p for p in visibility_problems([[0, 2], [1, 0]], ISO, 0.5))


def test_hidden_empty_floor_rejected():
    # The empty back-left cell is hidden behind tall columns: a whole column could stand there unseen.
    probs = visibility_problems([[3, 3], [0, 3]], ISO, 0.5)
    assert any("floor of empty cell (0, 1)" in p for p in probs)


def test_clear_staircase_passes():
    assert visibility_problems([[1, 1, 1], [2, 2, 1], [3, 2, 1]], ISO, 0.5) == []


def _id_buffer_fractions(heights, cam, scale=60):
    """Independent per-pixel check: paint faces back to front into an id buffer, count each column's
    visible top pixels against the pixels its top face would have alone."""
    pts = [cam.project(p) for x, y, z in cubes_of(heights) for p in face_quads(x, y, z)["top"]]
    ox, oy = -min(p[0] for p in pts) * scale + 20, -min(p[1] for p in pts) * scale + 20
    size = (int(max(p[0] for p in pts) * scale + ox + 20), int(max(p[1] for p in pts) * scale + oy + 200))
    buf = Image.new("I", size, 0)
    draw = ImageDraw.Draw(buf)
    w, _ = dims(heights)
    ids = {}
    for x, y, z in sorted(cubes_of(heights), key=lambda c: (c[0] - c[1] + c[2], c[2])):
        for face, quad in face_quads(x, y, z).items():
            fid = 1 + len(ids)
            ids[fid] = (x, y, z, face)
            draw.polygon([(cam.project(p)[0] * scale + ox, cam.project(p)[1] * scale + oy) for p in quad], fill=fid)
    hist = np.bincount(np.asarray(buf).ravel(), minlength=len(ids) + 1)
    out = {}
    for fid, (x, y, z, face) in ids.items():
        if face == "top" and z == heights[y][x] - 1:
            alone = Image.new("L", size, 0)
            ImageDraw.Draw(alone).polygon(
                [(cam.project(p)[0] * scale + ox, cam.project(p)[1] * scale + oy) for p in face_quads(x, y, z)["top"]],
                fill=255,
            )
            out[(x, y)] = hist[fid] / max(1, alone.histogram()[255])
    return out


def test_visibility_matches_pixel_buffer():
    task = get_task("cubes_count", "medium")
    for i in range(12):
        scene = _sample(task, 7, i)
        cam = Camera(scene["camera"]["azimuth"], scene["camera"]["elevation"])
        exact = visibility(scene["heights"], cam)
        pixels = _id_buffer_fractions(scene["heights"], cam)
        for cell, frac in pixels.items():
            assert abs(frac - exact[cell]) < 0.08, (scene["heights"], cell, frac, exact[cell])


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty):
    task = get_task("cubes_count", difficulty)
    cfg = task.config
    n = {"easy": 200, "medium": 150, "hard": 80}[difficulty]
    for i in range(n):
        scene = _sample(task, 1, i)
        h = scene["heights"]
        w, d = dims(h)
        answer = int(task.solve(scene).answer)
        assert answer == sum(map(sum, h))
        assert answer >= sum(1 for row in h for v in row if v)  # every top cell holds at least one cube
        assert cfg.min_width <= w <= cfg.max_width and cfg.min_depth <= d <= cfg.max_depth
        # The floor grid is the bounding footprint and the structure is one piece.
        assert any(h[0]) and any(h[-1]) and any(r[0] for r in h) and any(r[-1] for r in h)
        assert connected(h)
        assert max(map(max, h)) <= cfg.max_height
        lo, hi = scene["answer_bin"]
        assert cfg.answer_min <= lo <= answer <= hi <= cfg.answer_max
        cam = Camera(scene["camera"]["azimuth"], scene["camera"]["elevation"])
        assert visibility_problems(h, cam, scene["min_visible"]) == []


def test_answer_balance():
    task = get_task("cubes_count", "medium")
    answers = [int(task.solve(_sample(task, 3, i)).answer) for i in range(100)]
    counts = collections.Counter(answers)
    assert counts.most_common(1)[0][1] <= 12, counts
    cfg = task.config
    bounds = [bucket_bounds(cfg.answer_min, cfg.answer_max, cfg.buckets, k) for k in range(cfg.buckets)]
    bins = collections.Counter(next(k for k, (lo, hi) in enumerate(bounds) if lo <= a <= hi) for a in answers)
    assert sorted(bins.values()) == [25, 25, 25, 25]  # ctx.balanced spreads each block of 4 over the bins


def test_step_shows_heights_and_leaves_the_sum_to_the_reader():
    task = get_task("cubes_count", "easy")
    for i in range(6):
        inst = task.make(i, 0).instance
        good, bad = inst.steps[0].text, inst.corrupted_steps[0].text
        heights = inst.meta["scene"]["heights"]
        assert rows_in(good, "heights") == heights
        assert sum(map(sum, rows_in(good, "heights"))) == int(inst.answer)
        # No total, row sums or equation: the text is the picture's heights only.
        for text in (good, bad):
            assert "=" not in text and "total" not in text.lower() and "sum" not in text.lower()
            assert answer_statements(text, inst) == []
        # The corrupted step misreads one column by one cube.
        wrong = rows_in(bad, "heights")
        diffs = [(a, b) for ra, rb in zip(heights, wrong, strict=True) for a, b in zip(ra, rb, strict=True) if a != b]
        assert len(diffs) == 1 and abs(diffs[0][0] - diffs[0][1]) == 1


def test_answer_space_is_the_balanced_range():
    # Easy: answer_min..answer_max = 4..15 (a 3 x 3 x 3 footprint would allow up to 27): 12 counts.
    task = get_task("cubes_count", "easy")
    space = task.answer_space(task.make(0, 0).instance)
    assert space.size == 12
    assert space.contains("4") and space.contains("15") and not space.contains("3") and not space.contains("16")
    assert all(4 <= int(space.sample(random.Random(k))) <= 15 for k in range(50))
    assert get_task("cubes_count", "medium").answer_space(None).size == 31  # 10..40
    assert get_task("cubes_count", "hard").answer_space(None).size == 46  # 25..70
    # A custom range beyond what the sizes allow is clipped: 2 x 2 x 2 holds at most 8 cubes.
    tiny = get_task(
        "cubes_count", "easy", max_width=2, max_depth=2, max_height=2, answer_min=1, answer_max=10, buckets=2
    )
    assert tiny.answer_space(None).size == 8
    # ... but a range with a bin no structure of those sizes reaches is refused: 13..25 of 1..50 in 4 bins.
    with pytest.raises(ParameterError, match="answer bin 2 of 4"):
        get_task("cubes_count", "easy", max_width=2, max_depth=2, max_height=2, answer_min=1, answer_max=50)


def test_scene_key_is_the_structure():
    # The same heights in another palette or from another camera pose the same count: one key.
    task = get_task("cubes_count")
    a = _scene([[2, 1], [1, 0]])
    b = dict(a, palette="orange", camera={"azimuth": 50, "elevation": 35})
    assert task.scene_key(a) == task.scene_key(b)
    assert task.scene_key(a) != task.scene_key(_scene([[1, 2], [0, 1]]))


@pytest.mark.parametrize("name", ["cubes_count", "cubes_missing"])
def test_limits(name):
    for difficulty in ("easy", "medium", "hard"):
        get_task(name, difficulty)  # every preset lies inside the limits
    get_task(name, "hard", max_height=6)
    for bad in (
        {"max_width": 6},
        {"max_depth": 6},
        {"max_height": 7},
        {"max_height": 0},
        {"min_visible": 0.2},
        {"azimuth_spread": 31},
        {"buckets": 13},
        {"min_depth": 5, "max_depth": 4},
        {"answer_min": 10, "answer_max": 12},
    ):
        with pytest.raises(ParameterError):
            get_task(name, "medium", **bad)


def test_corruption_description_agrees_in_number():
    task = get_task("cubes_count", "easy")
    notes: list[str] = []
    # At least 30 notes, and on until the singular form has been seen (it is rarer than the plural).
    for i in range(300):
        if len(notes) >= 30 and any("read as 1 cube tall" in note for note in notes):
            break
        notes.append(task._accept(i, 0, check_corruption=True)[2].description)  # what make stores in meta
    for note in notes:
        n = int(note.split(" read as ")[1].split(" ")[0])
        assert f"read as {n} {'cube' if n == 1 else 'cubes'} tall" in note, note
    assert any("read as 1 cube tall" in note for note in notes)
