"""The 3D tasks' corrupted trajectories are as plausible as the true ones (issue 29): the same number of steps,
every reference that a relation is taken from boxes exactly one object, and each step's text agrees with the
step before it (the objects a filter looks among are the ones the relation before it kept)."""

from __future__ import annotations

import re

import pytest

from vcot.tasks import get_task
from vcot.tasks.scene3d._scene import labels, layout

_BOXED = re.compile(r"boxed ([A-Z](?:, [A-Z])*(?: and [A-Z])?)[;,]")
_KEPT = re.compile(r"stay in colour \(([^)]*)\)")
_AMONG = re.compile(r" among ([A-Z](?:, [A-Z])*(?: and [A-Z])?):")


def _letters(text: str) -> list[str]:
    return re.findall(r"[A-Z]", text)


def _check_trajectory(texts: list[str]) -> None:
    for before, after in zip(texts, texts[1:], strict=False):
        kept, among = _KEPT.search(before), _AMONG.search(after)
        if kept and among:
            assert kept.group(1) == among.group(1), (before, after)
        if after.startswith("Objects ") and _KEPT.search(after):  # a relation from the object boxed before
            boxed = _BOXED.search(before)
            assert boxed and len(_letters(boxed.group(1))) == 1, (before, after)


@pytest.mark.parametrize("name", ["object_attributes", "compositional_3d"])
@pytest.mark.parametrize("difficulty", ["medium", "hard"])
def test_corrupted_trajectories_are_as_plausible_as_true_ones(name: str, difficulty: str) -> None:
    task = get_task(name, difficulty)
    kinds = set()
    for index in range(12):
        inst = task.make(index, 3).instance
        right, wrong = [s.text for s in inst.steps], [s.text for s in inst.corrupted_steps]
        assert len(wrong) == len(right), (inst.uid, inst.meta["corruption"])
        assert wrong != right
        _check_trajectory(right)
        _check_trajectory(wrong)
        kinds.add(inst.meta["corruption"].split(" ")[0])
    assert "a" in kinds  # wrong marks happen; flips are checked below, where one is forced


@pytest.mark.parametrize("name", ["object_attributes", "compositional_3d"])
def test_a_flipped_relation_is_carried_through_to_a_different_answer(name: str) -> None:
    import random

    task = get_task(name, "hard")
    flips = 0
    for index in range(12):
        sample = task.make(index, 3, with_corruption=False)
        scene = sample.instance.meta["scene"]
        solution = task.solve(scene)
        lay = layout(scene)
        corruption = task.flipped_relation(
            scene, lay, solution.states, labels(scene, lay), random.Random(index), always=True
        )
        if corruption is None:
            continue
        flips += 1
        texts = [text for _, text in corruption.steps]
        assert len(texts) == len(sample.instance.steps)
        assert corruption.description.startswith("relation ")
        _check_trajectory(texts)
    assert flips >= 1
