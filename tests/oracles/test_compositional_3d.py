"""The compositional_3d oracle (relations read from the re-rendered picture's outlines and floor points, its own
program runner) agrees with the generator and reacts to a recoloured part."""

from __future__ import annotations

import copy

from vcot.oracles.compositional_3d import answer
from vcot.tasks import get_task


def test_recolouring_the_asked_part_changes_the_answer() -> None:
    task = get_task("compositional_3d", "medium")
    for i in range(60):
        scene, solution = task.solved_scene(i, 2)
        prog = scene["program"]
        named = {a for step in prog.get("a", []) + prog.get("b", []) for a in step["filter"]}
        if prog["family"] == "same_part_colour" and prog["part_a"] not in named:
            break
    else:
        raise AssertionError("no same_part_colour question whose references leave part_a unnamed")
    (ka, part_a), (kb, part_b) = solution.states[-1]["parts"]
    assert answer(scene, {}) == solution.answer
    for want in ("yes", "no"):
        changed = copy.deepcopy(scene)
        other = scene["objects"][kb][part_b]
        changed["objects"][ka][part_a] = (
            other
            if want == "yes"
            else next(c for c in ("red", "blue", "green", "orange", "purple", "cyan") if c != other)
        )
        assert answer(changed, {}) == want
