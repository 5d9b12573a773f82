"""The billiards oracle (unfolded table, straight ray through mirrored pocket images) agrees with the
generator and reacts to a turned-round table."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.billiards import answer, pocket_reached
from vcot.tasks import get_task


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_scene_never_stores_the_pocket(difficulty: str) -> None:
    task = get_task("billiards", difficulty)
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        assert "pocket" not in scene


def _table(start: list[int], d: list[int]) -> dict:
    return {
        "width": 8,
        "height": 4,
        "start": start,
        "direction": d,
        "pocket_labels": list("ABCDEF"),
        "max_bounces": 4,
        "capture": "2/5",
        "near_miss": "3/4",
    }


def test_hand_worked() -> None:
    # 8 x 4 table: pocket images are the points (4k, 4l). From (2, 2) moving (1, 1): straight into the
    # top-middle pocket (4, 4) = E; from (3, 1) moving (1, -1): bottom-middle (4, 0) = B; from (5, 1) moving
    # (1, 1): top-right corner (8, 4) = D.
    assert answer(_table([2, 2], [1, 1]), {}) == "E"
    assert answer(_table([3, 1], [1, -1]), {}) == "B"
    assert answer(_table([5, 1], [1, 1]), {}) == "D"
    # From (1, 2) moving (1, 2): the top cushion at (2, 4), then down to the bottom-middle pocket (4, 0); the
    # unfolded ray meets the image (4, 8), which folds back to (4, 0) = B.
    assert pocket_reached(_table([1, 2], [1, 2])) == (4, 0)
    assert answer(_table([1, 2], [1, 2]), {}) == "B"
    # The ray x - y = 3 passes at least 0.7 from every image (4k, 4l): no pocket.
    with pytest.raises(ValueError):
        pocket_reached(_table([6, 3], [1, 1]))


def test_wrong_scene_changes_answer() -> None:
    """Turning the start and direction by a half turn about the table centre (labels kept) sends the ball
    into the opposite pocket, which carries another letter."""
    task = get_task("billiards", "medium")
    for i in range(12):
        scene, solution = task.solved_scene(i, 5)
        bad = copy.deepcopy(scene)
        w, h = scene["width"], scene["height"]
        bad["start"] = [w - scene["start"][0], h - scene["start"][1]]
        bad["direction"] = [-scene["direction"][0], -scene["direction"][1]]
        got = answer(bad, task.params())
        assert got != solution.answer, i
        px, py = pocket_reached(scene)
        assert pocket_reached(bad) == (w - px, h - py)
