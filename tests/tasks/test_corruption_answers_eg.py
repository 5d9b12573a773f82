"""The answer a corrupted trajectory implies (`Corruption.answer`, `Corruption.scene`; issue 46) for the EG tasks
mirror_pattern, cubes_missing, localizer, convex_hull, overlap and cubes_count, and the two three-view tasks
trailer_cubes_count and trailer_cubes_missing, whose `corrupt` is shared in `tasks/common/three_views.py`.

Per task and difficulty, over the first N instances of one seed:

- every corruption but mirror_pattern's is a misread scene (a column height, a silhouette column or row, a circle's
  cell, a hull vertex, a black dot), so it gives that scene, and the task's independent oracle re-answers it and
  must agree with `answer` (a wrong answer, or a scene that is not the one the answer was derived from, fails);
  the answer is in the task's format and differs from the gold answer (each corruption is chosen to change it);
- cubes_count and cubes_missing: the oracle reads the heights back from a ray-cast picture, and a misread column
  (one cube taller) often hides a neighbour's top in that picture, so the oracle cannot read it (`Unreadable`,
  about a third of the misread scenes). There the oracle's own voxel counting is applied to the stored misread
  heights instead (its picture reading replaced by the heights); at least a third must go through the picture.
- mirror_pattern never reaches the 80 % share, and gives no answer in any preset: its steps end on a grid that no
  candidate equals. In "axis" mode the pattern is misread in a cell and reflected across the named line; only a
  misreading whose reflection is a candidate would name one, and the distractor layouts keep every candidate's
  reflection at least a switch (4 cells) from the pattern, so the fallback (one random cell) is always taken. In
  "any" mode the pattern is reflected across another line, which equals no candidate either (turned, it would be
  the right one). Which trajectory is drawn was fixed before this issue, so these stay None; here each None is
  checked against the grid the step text spells out, and the misread case that does name a candidate is built by
  hand (`test_mirror_pattern_named_candidate`).

Computing the answer must leave the trajectory alone: `corrupt` called again with the same RNG seed gives the
same description, answer and scene, the steps are drawn only when read, and a few are drawn (the lead's
suite-hash check compares the pictures and texts with those made before).
"""

from __future__ import annotations

import random
import re
from typing import Any
from unittest import mock

import numpy as np
import pytest

from vcot.oracles import cubes_count as cubes_count_oracle
from vcot.oracles import cubes_missing as cubes_missing_oracle
from vcot.oracles import get_oracle
from vcot.schema import option_letters
from vcot.seeding import derive_seed
from vcot.tasks import get_task
from vcot.tasks.base import Corruption, Solution, Task
from vcot.tasks.eg.localizer import circle_sets
from vcot.tasks.eg.mirror_pattern import ROTATIONS, TRANSFORMS

SEED = 46
N = 20
TASKS = (
    "mirror_pattern",
    "cubes_missing",
    "localizer",
    "convex_hull",
    "overlap",
    "cubes_count",
    "trailer_cubes_count",
    "trailer_cubes_missing",
)
DIFFICULTIES = ("easy", "medium", "hard")
MIN_SHARE = 0.8
# Tasks whose corruption cannot reach MIN_SHARE, and why (the module docstring has the details).
SHARE_EXEMPT = {"mirror_pattern": "the corrupted step ends on a grid no candidate equals"}
# Tasks whose oracle reads the structure from a ray-cast picture, which a misread column may leave unreadable.
PICTURE_ORACLES = {"cubes_count": cubes_count_oracle, "cubes_missing": cubes_missing_oracle}
MIN_READ = 1 / 3
CHOICE = {"mirror_pattern", "overlap"}
DRAWN = 2  # instances per task and difficulty whose corrupted steps are drawn
INTEGER = re.compile(r"0|[1-9]\d*")


def _corrupt_again(task: Task, index: int, scene: dict[str, Any], solution: Solution) -> Corruption | None:
    """`corrupt` with the RNG `_accept` gives it for this instance."""
    rng = random.Random(derive_seed(task.instance_seed(SEED, index), "corrupt"))
    return task.corrupt(scene, solution, rng)


def _oracle_answer(name: str, task: Task, scene: dict[str, Any]) -> tuple[str, bool]:
    """The oracle's answer for a (misread) scene, and whether it came through the oracle's picture reading."""
    try:
        return get_oracle(name)(scene, task.params()), True
    except Exception as exc:
        module = PICTURE_ORACLES.get(name)
        if module is None or type(exc).__name__ != "Unreadable":
            raise
    # The picture hides a column top: count the stored heights with the oracle's own voxel counting.
    with mock.patch.object(module, "read_structure", lambda s: [list(r) for r in s["heights"]]):
        return get_oracle(name)(scene, task.params()), False


def _check_format(name: str, task: Task, scene: dict[str, Any], answer: str) -> None:
    if name in CHOICE:
        assert answer in option_letters(len(scene["candidates" if name == "mirror_pattern" else "pairs"]))
    elif name == "localizer":
        assert circle_sets(task.config).contains(answer), answer
    else:
        assert INTEGER.fullmatch(answer), answer


def _drawn_grid(scene: dict[str, Any], text: str) -> np.ndarray:
    """The reflected grid a mirror_pattern step text spells out, as colour indices."""
    rows = re.findall(r"row \d+: ([a-z, ]+?)(?:;|\.$)", text)
    grid = [[scene["colors"].index(w) for w in row.split(", ")] for row in rows]
    assert len(grid) == scene["size"] and all(len(r) == scene["size"] for r in grid), text
    return np.array(grid)


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize("name", TASKS)
def test_corruption_answers(name: str, difficulty: str) -> None:
    task = get_task(name, difficulty)
    answered = read = 0
    for index in range(N):
        scene, solution, c, _ = task._accept(index, SEED, check_corruption=True)
        assert c is not None
        assert "drawn=False" in repr(c), "the answer must be computed without drawing the steps"
        again = _corrupt_again(task, index, scene, solution)
        assert again is not None
        assert (again.description, again.answer, again.scene) == (c.description, c.answer, c.scene)
        if name == "mirror_pattern":
            # No candidate equals the drawn grid (module docstring); turned, in "any" mode, it is the answer.
            assert c.answer is None
            grid = _drawn_grid(scene, c.steps[0][1])
            candidates = [np.array(g) for g in scene["candidates"]]
            assert not any(np.array_equal(grid, g) for g in candidates)
            if scene["mode"] == "any":
                gold = candidates[option_letters(4).index(solution.answer)]
                assert any(np.array_equal(TRANSFORMS[t](grid), gold) for t in ROTATIONS)
            continue
        assert c.answer is not None and c.scene is not None
        answered += 1
        _check_format(name, task, scene, c.answer)
        assert c.answer != solution.answer, "the corruption is chosen to change the answer"
        assert c.scene != scene and set(c.scene) == set(scene), "a misread scene, shaped like the true one"
        oracle, through_picture = _oracle_answer(name, task, c.scene)
        assert oracle == c.answer, (index, c.description)
        read += through_picture
        if index < DRAWN:
            steps = c.steps
            assert steps and all(img.size[0] > 0 and text for img, text in steps)
    if name in SHARE_EXEMPT:
        return
    assert answered >= MIN_SHARE * N, f"{name} {difficulty}: only {answered} of {N} corruptions give an answer"
    if name in PICTURE_ORACLES:
        assert read >= MIN_READ * answered, f"{name} {difficulty}: the oracle read only {read} misread pictures"


def test_mirror_pattern_named_candidate() -> None:
    """A misread cell whose reflection is a candidate names that candidate, as the oracle on the misread pattern
    does: one distractor replaced by the reflection of the pattern with one cell misread."""
    task = get_task("mirror_pattern", "medium")
    scene, solution = task.solved_scene(0, SEED)
    assert scene["mode"] == "axis"
    letters = option_letters(4)
    gold = letters.index(solution.answer)
    j = (gold + 1) % 4
    misread = np.array(scene["pattern"])
    misread[0, 0] = (misread[0, 0] + 1) % len(scene["colors"])
    crafted = {**scene, "candidates": [list(c) for c in scene["candidates"]]}
    crafted["candidates"][j] = TRANSFORMS[solution.details["axis"]](misread).tolist()
    c = task.corrupt(crafted, solution, random.Random(0))
    assert c.answer == letters[j] != solution.answer
    assert c.scene is not None and c.scene["pattern"] == misread.tolist()
    assert get_oracle("mirror_pattern")(c.scene, task.params()) == c.answer
