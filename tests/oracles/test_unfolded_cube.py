"""The unfolded_cube oracle (3D hinge folding + octahedral group) agrees with the generator."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.unfolded_cube import answer, consistent, fold
from vcot.tasks import get_task


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_both_question_forms_occur(difficulty: str) -> None:
    task = get_task("unfolded_cube", difficulty)
    forms = set()
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        forms.add(scene["form"])
    assert forms == {"net", "view"}


def test_cross_net_by_hand() -> None:
    # A cross: centre (1, 1), arms up/down/left/right, tail (1, 3) under the bottom arm.
    cells = [(1, 0), (0, 1), (1, 1), (2, 1), (1, 2), (1, 3)]
    net = [{"col": c, "row": r, "glyph": f"g{c}{r}", "color": "red", "rot": 0} for c, r in cells]
    cube = fold(net)
    where = {g: n for n, (g, _, _) in cube.items()}
    # The first cell (top arm) faces the viewer; the column below it rolls back: bottom, back, top.
    assert where["g10"] == (0, 0, 1)
    assert where["g11"] == (0, -1, 0)
    assert where["g12"] == (0, 0, -1)
    assert where["g13"] == (0, 1, 0)
    # Opposite pairs of a cross: left/right arms.
    assert tuple(-v for v in where["g01"]) == where["g21"]
    # An upright glyph on the top arm points up the screen: after folding it still points +y on that face.
    assert cube[(0, 0, 1)][2] == (0, 1, 0)
    # The tail's upright glyph points (on screen) at the bottom arm, which is now the back face.
    assert cube[(0, 1, 0)][2] == (0, 0, -1)


def test_wrong_scene_changes_answer() -> None:
    task = get_task("unfolded_cube", "medium")
    checked = 0
    for i in range(12):
        scene, solution = task.solved_scene(i, 5)
        bad = copy.deepcopy(scene)
        k = "ABCD".index(solution.answer)
        # Turn one glyph of the correct net (net form) or of the correct view (view form) by a quarter turn.
        if scene["form"] == "net":
            for cell in bad["nets"][k]:  # every face, so that a face seen in the views changes
                cell["rot"] = (cell["rot"] + 1) % 4
        else:
            face = bad["candidate_views"][k]["top"]
            face["up"] = [face["up"][2], 0, -face["up"][0]]  # a quarter turn about the top normal
        assert not consistent(bad)[k], (i, scene["form"])
        with pytest.raises(ValueError):
            answer(bad, task.params())
        checked += 1
    assert checked == 12
