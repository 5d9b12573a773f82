"""The longest_carbon_chain oracle (its own backtracking search) on hand-worked graphs and molecules, and its
reaction to a chain carbon replaced by an oxygen."""

from __future__ import annotations

import copy

from chem_scenes import scene_from_smiles
from vcot.oracles.longest_carbon_chain import answer, carbon_neighbours, longest_path_atoms
from vcot.tasks import get_task


def test_hand_worked_graphs() -> None:
    assert longest_path_atoms({}) == 0
    assert longest_path_atoms({0: []}) == 1
    star = {0: [1, 2, 3], 1: [0], 2: [0], 3: [0]}
    assert longest_path_atoms(star) == 3
    # A square with a tail: round the square (4 atoms) then the tail (1 more).
    square = {0: [1, 3, 4], 1: [0, 2], 2: [1, 3], 3: [2, 0], 4: [0]}
    assert longest_path_atoms(square) == 5


def test_hand_worked_molecules() -> None:
    assert answer(scene_from_smiles("CCC(C)CCC"), {}) == "6"
    assert answer(scene_from_smiles("CCCOCCCC"), {}) == "4"
    assert answer(scene_from_smiles("CCCc1ccccc1"), {}) == "9"
    assert carbon_neighbours(scene_from_smiles("COC")) == {0: [], 2: []}


def test_an_oxygen_in_the_chain_shortens_it() -> None:
    task = get_task("longest_carbon_chain", "medium")
    for i in range(8):
        scene, sol = task.solved_scene(i, 4)
        chain = sol.states[1]["chain"]
        mid = chain[len(chain) // 2]
        cut = copy.deepcopy(scene)
        cut["atoms"][mid]["el"] = "O"
        assert int(answer(cut, task.params())) < int(sol.answer)
        assert answer(scene, task.params()) == sol.answer
