"""The hbond_donors oracle (hydrogens by valence arithmetic) on hand-worked molecules, and its reaction to a
donor oxygen turned into sulfur and to an extra bond on a donor."""

from __future__ import annotations

import copy

import pytest

from chem_scenes import scene_from_smiles
from vcot.oracles.hbond_donors import answer, hydrogens
from vcot.tasks import get_task


def test_hand_worked() -> None:
    assert answer(scene_from_smiles("OCCN"), {}) == "2"
    assert answer(scene_from_smiles("CC(=O)OC"), {}) == "0"
    assert answer(scene_from_smiles("NC(N)=O"), {}) == "2"
    assert answer(scene_from_smiles("SCCO"), {}) == "1"
    assert hydrogens(scene_from_smiles("CN")) == {1: 2}
    assert hydrogens(scene_from_smiles("c1ccncc1")) == {3: 0}


def test_impossible_valence_is_an_error() -> None:
    scene = scene_from_smiles("CO")
    scene["bonds"][0][2] = 3
    with pytest.raises(ValueError, match="valence"):
        answer(scene, {})


def test_a_donor_turned_to_sulfur_is_no_longer_counted() -> None:
    task = get_task("hbond_donors", "medium")
    checked = 0
    for i in range(12):
        scene, sol = task.solved_scene(i, 4)
        for k in sol.states[1]["donors"]:
            changed = copy.deepcopy(scene)
            changed["atoms"][k]["el"] = "S"
            assert int(answer(changed, task.params())) == int(sol.answer) - 1
            checked += 1
    assert checked > 5
