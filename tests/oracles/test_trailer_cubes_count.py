"""The trailer_cubes_count oracle (space carving, checked by re-projection) agrees with the generator, reacts
to a changed silhouette or top cell and refuses inconsistent views."""

from __future__ import annotations

import copy
import itertools

import pytest

from vcot.oracles.trailer_cubes_count import Inconsistent, answer, carve
from vcot.tasks import get_task


def _scene(top, front, side, side_name="right"):
    return {"top": top, "front": front, "side": side, "side_name": side_name, "answer_bin": [0, 100]}


def test_hand_worked() -> None:
    assert answer(_scene([[1, 1], [1, 1]], [2, 1], [2, 1]), {}) == "5"  # 2 1 / 1 1
    assert answer(_scene([[1, 1], [1, 1]], [2, 2], [2, 1]), {}) == "6"
    assert answer(_scene([[1, 0], [0, 1]], [3, 1], [3, 1], "left"), {}) == "4"
    with pytest.raises(Inconsistent):
        answer(_scene([[1, 0], [0, 1]], [3, 1], [1, 3]), {})  # nothing 3 tall can stand


def test_carving_is_the_brute_force_maximum() -> None:
    # Every 2 x 2 structure with columns up to 3: the carved count is the largest one with the same views.
    best: dict = {}
    for hs in itertools.product(range(4), repeat=4):
        hts = [list(hs[:2]), list(hs[2:])]
        views = (
            tuple(tuple(int(h > 0) for h in r) for r in hts),
            tuple(max(hts[0][x], hts[1][x]) for x in range(2)),
            tuple(max(r) for r in hts),
        )
        if min(views[1] + views[2]) == 0:
            continue
        best[views] = max(best.get(views, 0), sum(hs))
    for (top, front, side), n in best.items():
        assert answer(_scene([list(r) for r in top], list(front), list(side)), {}) == str(n)


def test_perturbed_scene_changes_the_answer() -> None:
    task = get_task("trailer_cubes_count", "medium")
    changed = 0
    for i in range(8):
        scene, solution = task.solved_scene(i, 5)
        for key in ("front", "side"):
            for k in range(len(scene[key])):
                for dv in (1, -1):
                    wrong = copy.deepcopy(scene)
                    wrong[key][k] += dv
                    try:
                        got = answer(wrong, task.params())
                    except Inconsistent:
                        continue
                    assert got != solution.answer
                    changed += 1
        for y, row in enumerate(scene["top"]):
            for x, v in enumerate(row):
                wrong = copy.deepcopy(scene)
                wrong["top"][y][x] = 1 - v
                try:
                    got = answer(wrong, task.params())
                except Inconsistent:
                    continue
                assert got != solution.answer
                changed += 1
    assert changed >= 20
    solid, w, d, h = carve(scene)
    assert len(solid) == int(solution.answer) and h == max(scene["front"])
