"""The answer a corrupted trajectory implies (`Corruption.answer`, `Corruption.scene`; issue 46) for the 3D scene,
simulation and robot tasks: compositional_3d, object_attributes, block_tower, ball_bins, robot_program and
robot_state_change.

For each task and preset, on generated instances (the corruption `_accept` builds, as `make` does):

- the answer, when given, is a valid answer of the instance (a family's answer for the 3D tasks, a block count
  or bin number for the physics tasks, a grid cell, an option letter);
- where the corruption sets the scene it read (a flipped relation, a misread description or part, a misread
  start, the After panel a wrong option reaches), the task's independent oracle re-derives that answer from it;
- where it sets none, the answer is checked another way: the simulations' last step text names it (the bin the
  ball drops into, the blocks still standing), and a 3D wrong mark's answer follows from what its description
  says was marked (a swap keeps a count, a vehicle left out lowers it, one boxed though none qualifies makes it
  one; the object boxed instead answers a query);
- at least 80 % of corruptions give an answer (every one does today);
- building the corruption again from the same RNG gives the same description and answer (nothing random), and
  the trajectory still draws.

The 3D tasks' rarer corruptions (a relation flipped, a reference misread) are also forced on medium scenes,
since `corrupt` seldom picks them. Hard 3D scenes take a second or more each to accept, so fewer are drawn.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from PIL import Image

from vcot.oracles import get_oracle
from vcot.schema import option_letters
from vcot.seeding import derive_seed
from vcot.tasks import get_task
from vcot.tasks.base import Corruption, Solution, Task
from vcot.tasks.robot._world import cell_name
from vcot.tasks.scene3d._scene import labels, layout

TASKS = ("compositional_3d", "object_attributes", "block_tower", "ball_bins", "robot_program", "robot_state_change")
SCENE3D = ("compositional_3d", "object_attributes")
SEED = 0
# Instances per preset; hard 3D scenes cost most to accept (the test stays under 30 s).
COUNTS = {("compositional_3d", "hard"): 8, ("object_attributes", "hard"): 8}
DRAWN = 2  # corrupted trajectories drawn per preset (the pictures cost more than the answers)


def _instances(task: Task, n: int) -> list[tuple[dict[str, Any], Solution, Corruption, int]]:
    out = []
    for i in range(n):
        scene, solution, corruption, _ = task._accept(i, SEED, check_corruption=True)
        assert corruption is not None
        out.append((scene, solution, corruption, i))
    return out


def _valid(task: Task, scene: dict[str, Any], answer: str) -> bool:
    """Whether `answer` is one of the instance's possible answers."""
    name = task.name
    if name in SCENE3D:
        return answer in task.answers_of(scene["program"]["family"], task.config.max_count)  # type: ignore[attr-defined]
    if name == "block_tower":
        return answer.isdigit() and 1 <= int(answer) <= len(scene["blocks"])
    if name == "ball_bins":
        return answer.isdigit() and 1 <= int(answer) <= scene["bins"]
    if name == "robot_program":
        cols, rows = scene["size"]
        return answer in {cell_name(c, r) for c in range(cols) for r in range(rows)}
    return answer in option_letters(len(scene["options"]))


def _mark_answer(scene: dict[str, Any], solution: Solution, description: str) -> str | None:
    """What a 3D wrong mark's description implies for the answer, where that alone decides it (None where not)."""
    prog, objs = scene["program"], scene["objects"]
    fam = prog["family"]
    names = labels(scene, layout(scene))
    if fam in ("count", "exist", "count_part_match"):
        gold = len(solution.states[-1]["kept"])  # the true set (or match) the mark was made in
        if "left out though it qualifies" in description:
            c = gold - 1
        elif "though no" in description:
            c = 1
        elif "instead of" in description:
            c = gold
        else:
            return None
        if fam == "exist":
            return "yes" if c > 0 else "no"
        return str(c)
    m = re.search(r": ([A-N]) boxed instead of [A-N]$", description)
    if m is None:
        return None
    k = names.index(m.group(1))
    if fam.startswith("query_") and "attr" in prog:
        return str(objs[k][prog["attr"]])
    if fam == "query_type":
        return str(objs[k]["type"])
    if fam == "query_part_colour":
        return str(objs[k][prog["part"]])
    return None


def _last_text_answer(task: Task, scene: dict[str, Any], steps: list[tuple[Image.Image, str]]) -> str:
    """The answer the last step text of a physics trajectory states."""
    text = steps[-1][1]
    if task.name == "ball_bins":
        m = re.search(r"into bin (\d+)\.$", text)
        assert m, text
        return m.group(1)
    if "every block stands where it was placed" in text:
        return str(len(scene["blocks"]))
    m = re.search(r"\); (.*) stands? where", text)
    assert m, text
    return "0" if m.group(1).startswith("none") else str(len(re.findall(r"\b[A-I]\b", m.group(1))))


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
@pytest.mark.parametrize("name", TASKS)
def test_corruption_answers(name: str, difficulty: str) -> None:
    task = get_task(name, difficulty)
    oracle = get_oracle(name)
    items = _instances(task, COUNTS.get((name, difficulty), 20))
    answered = 0
    for k, (scene, solution, corruption, index) in enumerate(items):
        where = f"{name}/{difficulty}/{index}: {corruption.description}"
        # Deterministic: the same RNG gives the same trajectory and the same answer.
        again = task.corrupt(scene, solution, random.Random(derive_seed(task.instance_seed(SEED, index), "corrupt")))
        assert again is not None and again.description == corruption.description, where
        assert again.answer == corruption.answer and again.scene == corruption.scene, where
        if corruption.answer is None:
            continue
        answered += 1
        assert _valid(task, scene, corruption.answer), (where, corruption.answer)
        if corruption.scene is not None:
            assert oracle(corruption.scene, task.params()) == corruption.answer, where
        elif name in SCENE3D:
            implied = _mark_answer(scene, solution, corruption.description)
            if implied is not None:
                assert corruption.answer == implied, where
        if k < DRAWN or (corruption.scene is None and name in ("block_tower", "ball_bins") and k < 6):
            steps = corruption.steps
            assert steps and all(isinstance(img, Image.Image) and text for img, text in steps), where
            if name in ("block_tower", "ball_bins"):
                assert _last_text_answer(task, scene, steps) == corruption.answer, where
            elif name == "robot_program":
                assert len(steps) == len(scene["program"]), where
            elif name == "robot_state_change":
                assert len(steps) == 1 + len(scene["options"][0]), where
    assert answered >= 0.8 * len(items), f"{name}/{difficulty}: {answered} of {len(items)} corruptions answered"
    # The misread scenes must not all be trivial: the robot tasks set one for nearly every corruption.
    if name in ("robot_program", "robot_state_change"):
        assert sum(c.scene is not None for _, _, c, _ in items) >= 0.8 * len(items)


@pytest.mark.parametrize("name", SCENE3D)
def test_forced_3d_corruptions(name: str) -> None:
    """A relation flipped and a reference misread, forced on medium scenes: the program the trajectory carries
    out is its scene, and the oracle re-derives the answer from it; the wrong mark's answer agrees with its
    description."""
    task = get_task(name, "medium")
    oracle = get_oracle(name)
    seen = {"flip": 0, "misread": 0}
    for i in range(8):
        scene, solution, _, _ = task._accept(i, SEED + 1, check_corruption=False)
        lay = layout(scene)
        names = labels(scene, lay)
        flip = task.flipped_relation(scene, lay, solution.states, names, random.Random(i), always=True)  # type: ignore[attr-defined]
        misread = task.misread_reference(scene, lay, solution.states, names, random.Random(i))  # type: ignore[attr-defined]
        for way, c in (("flip", flip), ("misread", misread)):
            if c is None:
                continue
            seen[way] += 1
            assert c.answer is not None and c.scene is not None, (i, c.description)
            assert oracle(c.scene, task.params()) == c.answer, (i, c.description)
        mark = task._wrong_mark(scene, solution.states, names, random.Random(i))  # type: ignore[attr-defined]
        if mark is not None:
            assert mark.answer is not None and mark.scene is None, (i, mark.description)
            implied = _mark_answer(scene, solution, mark.description)
            assert implied is None or implied == mark.answer, (i, mark.description)
    assert seen["flip"] and seen["misread"], seen
