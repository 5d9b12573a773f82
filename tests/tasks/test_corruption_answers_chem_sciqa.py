"""The answer a corrupted trajectory implies (`Corruption.answer`, `Corruption.scene`; issue 46) for the chemistry
and Science QA tasks: hbond_donors, longest_carbon_chain, food_web and motion_graph.

Per task and difficulty, over the first N instances of one seed, each corruption's answer is checked against a
second derivation that shares nothing with the task's `corrupt`:

- food_web and motion_graph corrupt by misreading the scene (one arrow, one corner's velocity), so they give the
  misread scene; the task's independent oracle re-answers it and must agree with `answer`, and the misread scene
  must differ from the true one by exactly that one arrow or corner.
- hbond_donors (one atom's hydrogen misjudged) and longest_carbon_chain (a branch followed instead of the longest
  chain) give no scene: the scene stores atoms and bonds only, and neither error is a different molecule. Their
  answers are checked from the description against the oracle's own helpers: the donor count of the true
  molecule (oracle) one less for an overlooked donor (which the oracle says carries a hydrogen) or one more for a
  bare N or O taken for one (which it says carries none); the number of atoms of the described chain, a path of
  bonded carbons (oracle's adjacency) shorter than the oracle's longest.

At least 80 % of the corruptions must give an answer, except motion_graph: a misread corner changes a piece's
area by half its width, so over an odd width the misread total is a half-integer (about half the corruptions in
easy and medium, three quarters in hard), which is no whole number and so no answer in the task's format. Which
corner is misread was decided before this issue and fixes the trajectory's pictures, so those stay None; here
every None must be such a fraction (the oracle on the misread scene says so).

Computing the answer must leave the trajectory alone: `corrupt` called again with the same RNG seed gives the
same description, answer and scene, and the steps are drawn only when read (the lead's suite-hash check
compares the pictures and texts with those made before).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from vcot.oracles import food_web as food_web_oracle
from vcot.oracles import get_oracle
from vcot.oracles import hbond_donors as hbond_oracle
from vcot.oracles import longest_carbon_chain as chain_oracle
from vcot.seeding import derive_seed
from vcot.tasks import get_task
from vcot.tasks.base import Corruption, Solution, Task

SEED = 46
N = 20
TASKS = ("hbond_donors", "longest_carbon_chain", "food_web", "motion_graph")
DIFFICULTIES = ("easy", "medium", "hard")
MIN_SHARE = 0.8
# Tasks whose corruption cannot reach MIN_SHARE, and why (the module docstring has the details).
SHARE_EXEMPT = {"motion_graph": "a misread corner often makes the total a half-integer, no whole-number answer"}
# Tasks whose corruption is a misread scene, which the oracle re-answers.
WITH_SCENE = {"food_web", "motion_graph"}
DRAWN = 2  # instances per task and difficulty whose corrupted steps are drawn
INTEGER = re.compile(r"-?(0|[1-9]\d*)")


def _corrupt_again(task: Task, index: int, scene: dict[str, Any], solution: Solution) -> Corruption | None:
    """`corrupt` with the RNG `_accept` gives it for this instance."""
    rng = random.Random(derive_seed(task.instance_seed(SEED, index), "corrupt"))
    return task.corrupt(scene, solution, rng)


def _check_hbond(scene: dict[str, Any], c: Corruption) -> None:
    hydrogens = hbond_oracle.hydrogens(scene)
    true = int(hbond_oracle.answer(scene, {}))
    missed = re.fullmatch(r"the donor atom (\d+) overlooked", c.description)
    added = re.fullmatch(r"atom (\d+), which carries no hydrogen, taken for a donor", c.description)
    assert missed or added, c.description
    if missed:
        assert hydrogens[int(missed.group(1)) - 1] > 0, "an overlooked donor carries a hydrogen"
        assert c.answer == str(true - 1)
    else:
        assert hydrogens[int(added.group(1)) - 1] == 0, "an atom taken for a donor carries none"
        assert c.answer == str(true + 1)


def _check_chain(scene: dict[str, Any], c: Corruption) -> None:
    m = re.fullmatch(r"a shorter chain taken for the longest: atoms (\d+(?: - \d+)+)", c.description)
    assert m, c.description
    chain = [int(w) - 1 for w in m.group(1).split(" - ")]
    adj = chain_oracle.carbon_neighbours(scene)
    assert len(set(chain)) == len(chain) and all(k in adj for k in chain), "distinct carbons"
    assert all(b in adj[a] for a, b in zip(chain, chain[1:], strict=False)), "each bonded to the next"
    assert c.answer == str(len(chain))
    assert len(chain) < int(chain_oracle.answer(scene, {}))


def _check_food_web(scene: dict[str, Any], c: Corruption) -> None:
    assert c.scene is not None
    assert {k: v for k, v in c.scene.items() if k != "eats"} == {k: v for k, v in scene.items() if k != "eats"}
    true, read = {tuple(e) for e in scene["eats"]}, {tuple(e) for e in c.scene["eats"]}
    assert len(true ^ read) == 1, "exactly one arrow misread"
    assert food_web_oracle.answer(scene, {}) != c.answer


def _check_motion_graph(scene: dict[str, Any], c: Corruption) -> None:
    assert c.scene is not None
    assert {k: v for k, v in c.scene.items() if k != "velocities"} == {
        k: v for k, v in scene.items() if k != "velocities"
    }
    diffs = [w - v for v, w in zip(scene["velocities"], c.scene["velocities"], strict=True) if w != v]
    assert diffs in ([1], [-1]), "one corner misread by one grid line"


CHECKS = {
    "hbond_donors": _check_hbond,
    "longest_carbon_chain": _check_chain,
    "food_web": _check_food_web,
    "motion_graph": _check_motion_graph,
}


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize("name", TASKS)
def test_corruption_answers(name: str, difficulty: str) -> None:
    task = get_task(name, difficulty)
    oracle = get_oracle(name)
    answered = 0
    for index in range(N):
        scene, solution, c, _ = task._accept(index, SEED, check_corruption=True)
        assert c is not None
        assert callable(c._steps), "the answer is computed without drawing the steps"
        CHECKS[name](scene, c)
        assert (c.scene is not None) == (name in WITH_SCENE)
        if c.scene is not None:
            # The independent re-solver on the misread scene gives the implied value.
            implied = oracle(c.scene, task.params())
            if c.answer is None:
                assert not INTEGER.fullmatch(implied), (
                    f"instance {index}: answer None but the misread scene gives the whole number {implied}"
                )
            else:
                assert c.answer == implied, f"instance {index}: {c.description}"
        if c.answer is not None:
            answered += 1
            assert INTEGER.fullmatch(c.answer), f"not an integer answer: {c.answer!r}"
            assert c.answer != solution.answer, "a corrupted trajectory ends elsewhere than the true one"
        again = _corrupt_again(task, index, scene, solution)
        assert again is not None
        assert (again.description, again.answer, again.scene) == (c.description, c.answer, c.scene)
        if index < DRAWN:
            steps = c.steps
            assert len(steps) == len(again.steps) >= 2
            assert [t for _, t in steps] == [t for _, t in again.steps]
            assert all(img.size[0] > 0 and img.size[1] > 0 for img, _ in steps)
    if name not in SHARE_EXEMPT:
        assert answered >= MIN_SHARE * N, f"{name} {difficulty}: only {answered} of {N} corruptions answered"
    else:
        assert answered > 0, f"{name} {difficulty}: no corruption answered ({SHARE_EXEMPT[name]})"
