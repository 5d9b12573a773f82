"""The answer a corrupted trajectory implies (`Corruption.answer`, `Corruption.scene`; issue 46) for the ASLP tasks
multi_piece_puzzle, puzzle, defuse_a_bomb and unfolded_cube, and for the rolling-dice tasks whose corruption is
the shared one of `common/dice_paths.py` (rolling_dice_top, rolling_dice_sum).

Per task and difficulty, over the first N instances of one seed, each corruption's answer is checked against a
second derivation that shares nothing with the task's `corrupt`:

- rolling_dice_top and rolling_dice_sum misread the start die and defuse_a_bomb misreads an open crossing as a
  touch (the two wires trade rows after it), so they give the misread scene; the task's independent oracle
  re-answers it and must agree with `answer`, and the misread scene must differ from the true one only as
  described (the start die; two wires' rows, swapped after one column).
- unfolded_cube takes a wrong option for the answer: `answer` is that option's letter (read from the
  description). It gives the scene as the trajectory reads it (each view as the pose of the chosen net's cube, or
  the misread net) only when that makes the chosen option the one consistent option; the oracle re-answers it.
- multi_piece_puzzle reads a decoy as a true piece's shape; that misread scene has two tiling sets (the true set
  still tiles), so no scene is given. The described misread is rebuilt here, and the oracle's own exact-cover
  search must find the implied set among the sets that tile the target.
- puzzle misreads the pattern's period, not the picture, so no scene is given. Its answer is the candidate that
  holds exactly the misread fill; the fill is read back from the drawn step text, and the answer (or None) must
  be the candidate (or the absence of one) with that content.

At least 80 % of the corruptions must give an answer, except puzzle: a period misread by one fills the gap with
a block that is rarely one of the four candidates (about 3 in 10 in easy and medium, none of 20 in hard, whose
3x3 gap makes a coincidence rarer still). Which period is misread was decided before this issue and fixes the
trajectory's picture, so those stay None; here every None must be a fill no candidate shows.

Computing the answer must leave the trajectory alone: `corrupt` called again with the same RNG seed gives the
same description, answer and scene, and the steps are drawn only when read (the lead's suite-hash check
compares the pictures and texts with those made before).
"""

from __future__ import annotations

import copy
import random
import re
from typing import Any

import pytest

from vcot.oracles import get_oracle
from vcot.oracles import multi_piece_puzzle as multi_piece_oracle
from vcot.seeding import derive_seed
from vcot.tasks import get_task
from vcot.tasks.aslp.puzzle import _cell_words
from vcot.tasks.base import Corruption, Solution, Task

SEED = 46
N = 20
TASKS = ("rolling_dice_top", "rolling_dice_sum", "multi_piece_puzzle", "puzzle", "defuse_a_bomb", "unfolded_cube")
DIFFICULTIES = ("easy", "medium", "hard")
MIN_SHARE = 0.8
# Tasks whose corruption cannot reach MIN_SHARE, and why (the module docstring has the details).
SHARE_EXEMPT = {"puzzle": "a misread period's fill is rarely one of the candidates"}
# Tasks that give the misread scene for every corruption, and the one that gives it when it is unambiguous.
ALWAYS_SCENE = {"rolling_dice_top", "rolling_dice_sum", "defuse_a_bomb"}
SOMETIMES_SCENE = {"unfolded_cube"}
DRAWN = 2  # instances per task and difficulty whose corrupted steps are drawn (puzzle: all, to read the fill)


def _corrupt_again(task: Task, index: int, scene: dict[str, Any], solution: Solution) -> Corruption | None:
    """`corrupt` with the RNG `_accept` gives it for this instance."""
    rng = random.Random(derive_seed(task.instance_seed(SEED, index), "corrupt"))
    return task.corrupt(scene, solution, rng)


def _check_dice(task: Task, scene: dict[str, Any], solution: Solution, c: Corruption) -> None:
    assert c.scene is not None
    assert {k: v for k, v in c.scene.items() if k != "start_die"} == {
        k: v for k, v in scene.items() if k != "start_die"
    }, "only the start die is misread"
    assert c.scene["start_die"] != scene["start_die"]
    assert c.answer is not None and c.answer != solution.answer


def _check_multi_piece(task: Task, scene: dict[str, Any], solution: Solution, c: Corruption) -> None:
    m = re.fullmatch(
        r"decoy ([A-Z]) misread as the shape of piece ([A-Z]) and placed in its stead; placed pieces "
        r"([A-Z](?:, [A-Z])*)",
        c.description,
    )
    assert m, c.description
    decoy, piece = m.group(1), m.group(2)
    index = {p["label"]: i for i, p in enumerate(scene["pieces"])}
    gold = solution.answer.split(", ")
    assert piece in gold and decoy not in gold
    implied = sorted([lab for lab in gold if lab != piece] + [decoy])
    assert c.answer == ", ".join(implied)
    # The oracle's search on the scene as read (the decoy drawn with the piece's cells) finds that set tiling.
    misread = copy.deepcopy(scene)
    misread["pieces"][index[decoy]]["cells"] = copy.deepcopy(scene["pieces"][index[piece]]["cells"])
    assert tuple(index[lab] for lab in implied) in multi_piece_oracle.covering_sets(misread)
    assert c.scene is None


def _check_puzzle(task: Task, scene: dict[str, Any], solution: Solution, c: Corruption) -> None:
    assert c.scene is None
    ((_, text),) = c.steps
    gradient = solution.details["family"] == "gradient"
    shown = [
        n
        for n, cand in enumerate(scene["candidates"])
        if "; ".join(
            f"gap row {i + 1}: " + ", ".join(_cell_words(cell, gradient) for cell in row) for i, row in enumerate(cand)
        )
        + "."
        in text
    ]
    # The fill the step states is the implied candidate's, and a None means no candidate shows that fill.
    assert c.answer == (scene["options"][shown[0]] if shown else None), text
    assert c.answer != solution.answer


def _check_defuse(task: Task, scene: dict[str, Any], solution: Solution, c: Corruption) -> None:
    m = re.fullmatch(
        r"the trace of wire ([A-Z]) takes its crossing with wire ([A-Z]) at \([\d.]+, [\d.]+\) for a "
        r"touch and follows wire \2",
        c.description,
    )
    assert m, c.description
    traced, other = m.group(1), m.group(2)
    assert c.scene is not None
    true = {w["label"]: w for w in scene["wires"]}
    read = {w["label"]: w for w in c.scene["wires"]}
    assert {k: v for k, v in c.scene.items() if k != "wires"} == {k: v for k, v in scene.items() if k != "wires"}
    assert all(read[lab] == w for lab, w in true.items() if lab not in (traced, other)), "two wires misread"
    a, b = true[traced]["rows"], true[other]["rows"]
    ra, rb = read[traced]["rows"], read[other]["rows"]
    x = next(k for k in range(len(a)) if ra[k] != a[k]) - 1
    assert (ra, rb) == (a[: x + 1] + b[x + 1 :], b[: x + 1] + a[x + 1 :]), "the two wires trade rows after the touch"
    assert (a[x], a[x + 1]) == (b[x + 1], b[x]), "the touch is a crossing of the two wires"
    # A crossing taken for a touch changes the answer exactly when one of its two wires leads to the detonator.
    assert (c.answer == solution.answer) == (solution.answer not in (traced, other))


def _check_unfolded(task: Task, scene: dict[str, Any], solution: Solution, c: Corruption) -> None:
    m = re.match(r"(?:net|the net is misread .* so that it folds into view) ([A-D]) \(", c.description)
    assert m, c.description
    assert c.answer == m.group(1) != solution.answer
    if c.scene is not None:
        kept = "nets" if scene["form"] == "net" else "candidate_views"
        assert c.scene[kept] == scene[kept] and c.scene["form"] == scene["form"]


CHECKS = {
    "rolling_dice_top": _check_dice,
    "rolling_dice_sum": _check_dice,
    "multi_piece_puzzle": _check_multi_piece,
    "puzzle": _check_puzzle,
    "defuse_a_bomb": _check_defuse,
    "unfolded_cube": _check_unfolded,
}


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize("name", TASKS)
def test_corruption_answers(name: str, difficulty: str) -> None:
    task = get_task(name, difficulty)
    oracle = get_oracle(name)
    answered = with_scene = 0
    for index in range(N):
        scene, solution, c, _ = task._accept(index, SEED, check_corruption=True)
        assert c is not None
        assert callable(c._steps), "the answer is computed without drawing the steps"
        again = _corrupt_again(task, index, scene, solution)
        assert again is not None
        assert (again.description, again.answer, again.scene) == (c.description, c.answer, c.scene)
        CHECKS[name](task, scene, solution, c)
        if name in ALWAYS_SCENE:
            assert c.scene is not None
        elif name not in SOMETIMES_SCENE:
            assert c.scene is None
        if c.scene is not None:
            with_scene += 1
            # The independent re-solver on the misread scene gives the implied answer.
            assert oracle(c.scene, task.params()) == c.answer, f"instance {index}: {c.description}"
        if c.answer is not None:
            answered += 1
            options = task.options(scene)
            if options is not None:
                assert c.answer in options
            else:
                instance = task.assemble(index, SEED, scene, solution, steps=False).instance
                assert task.answer_space(instance).contains(c.answer), c.answer
        if index < DRAWN:
            steps = c.steps
            assert len(steps) == len(again.steps) >= 1
            assert [t for _, t in steps] == [t for _, t in again.steps]
            assert all(img.size[0] > 0 and img.size[1] > 0 for img, _ in steps)
    if name not in SHARE_EXEMPT:
        assert answered >= MIN_SHARE * N, f"{name} {difficulty}: only {answered} of {N} corruptions answered"
    elif difficulty != "hard":
        assert answered > 0, f"{name} {difficulty}: no corruption answered ({SHARE_EXEMPT[name]})"
    if name in SOMETIMES_SCENE:
        assert with_scene >= N // 4, f"{name} {difficulty}: the misread scene given for {with_scene} of {N}"
