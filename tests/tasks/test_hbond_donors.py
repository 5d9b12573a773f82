"""hbond_donors: hand-worked molecules, solver invariants, balance, pictures and the corrupted donor set."""

from __future__ import annotations

import collections
import random

import pytest

from chem_scenes import scene_from_smiles
from vcot.draw.png import pixel_digest
from vcot.tasks import get_task
from vcot.tasks.base import ParameterError

TASK = get_task("hbond_donors")


# -- hand-worked ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "smiles, donors",
    [
        ("OCCN", 2),  # ethanolamine: the OH and the NH2
        ("CC(=O)OC", 0),  # methyl acetate: two oxygens, neither with H
        ("CC(N)=O", 1),  # acetamide: the NH2 counts once, the C=O not at all
        ("NC(N)=O", 2),  # urea: two NH2
        ("SCCO", 1),  # the SH is not on N or O; the OH counts
        ("c1ccncc1", 0),  # pyridine: the ring N carries no H
        ("C1CCNCC1", 1),  # piperidine: the ring NH
        ("OC(=O)CCN(C)C", 1),  # the acid OH; the tertiary amine has no H
        ("CC#N", 0),  # acetonitrile
        ("Oc1ccccc1", 1),  # phenol
    ],
)
def test_hand_worked_molecules(smiles: str, donors: int) -> None:
    assert TASK.solve(scene_from_smiles(smiles)).answer == str(donors)


def test_hand_states_name_the_atoms() -> None:
    sol = TASK.solve(scene_from_smiles("OCCN(C)C"))
    assert sol.states == [{"polar": [0, 3]}, {"donors": [0]}]


# -- invariants -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_solution_invariants(difficulty: str) -> None:
    task = get_task("hbond_donors", difficulty)
    answers = collections.Counter()
    for i in range(30):
        scene, sol = task.solved_scene(i, 3)
        polar, donors = sol.states[0]["polar"], sol.states[1]["donors"]
        assert polar and set(donors) <= set(polar)
        assert all(scene["atoms"][k]["el"] in ("N", "O") for k in polar)
        assert len(donors) == int(sol.answer)
        answers[sol.answer] += 1
    lo, hi = task.config.answer_min, task.config.answer_max
    assert set(answers) == {str(k) for k in range(lo, hi + 1)}
    assert max(answers.values()) <= 30 / (hi - lo + 1) + 2


def test_pictures_are_deterministic() -> None:
    scene, sol = TASK.solved_scene(1, 1)
    first, again = TASK.render(scene, sol), TASK.render(scene, sol)
    assert pixel_digest(first.image) == pixel_digest(again.image)
    assert [pixel_digest(im) for im, _ in first.steps] == [pixel_digest(im) for im, _ in again.steps]


def test_corruption_changes_one_atom() -> None:
    task = get_task("hbond_donors", "medium")
    for i in range(10):
        scene, sol = task.solved_scene(i, 2)
        bad = task.corrupt(scene, sol, random.Random(i))
        assert bad is not None
        right = sol.states[1]["donors"]
        text = bad.steps[1][1]
        assert text != TASK.render(scene, sol).steps[1][1]
        # One atom more or one fewer than the right donor set, stated in the same words.
        if right or "added" not in bad.description:
            assert text.startswith("Of these, the atoms drawn with a hydrogen") or text.startswith("None of these")


def test_limits_are_enforced() -> None:
    with pytest.raises(ParameterError):
        get_task("hbond_donors", max_rings=9)
