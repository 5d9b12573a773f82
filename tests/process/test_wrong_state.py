"""Kind `wrong_state` of the labelled trajectories (vcot.process.labelled, issue 46): the input read right, one
rule applied wrongly at step k (`Task.slip`), carried on by the rules.

Checked per slipping task: the labels are exact (correct up to k, incorrect at k with the type, after_error
after), the steps before k are the true ones pixel for pixel, step k departs from the true step, the conclusion
is the slip's answer (graded wrong, a possible value), the same seed gives the same trajectory, and the slip is
not the task's misreading. Plausibility with the tasks' own rule checkers (tests/tasks/test_corruption_rules*.py):
step k breaks no rule in its own words (a standard die on the path's next cell, a whole-minute clock face, the
program's action named), every step after k follows from the one before by the rules, and the only rule the
whole trajectory breaks is the turn into step k, which is the error itself.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from vcot.draw.png import pixel_digest
from vcot.process.labelled import labelled
from vcot.rl import reward
from vcot.rl.problems import configured_task

SEED = 11
SLIPPING = ("rolling_dice_top", "rolling_dice_sum", "rolling_dice_two", "mirror_clock", "robot_program")
TRIES = 4


def _load(name: str) -> ModuleType:
    """A rule-checker module of tests/tasks, under a name of its own (pytest imports it as a test module too)."""
    key = f"_slip_rules_{name}"
    if key not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "tasks" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(key, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


def _found(task: str) -> list:
    out = [x for i in range(TRIES) if (x := labelled(task, SEED, i, "wrong_state")) is not None]
    assert out, f"{task}: no wrong_state trajectory in the first {TRIES} problems"
    return out


@pytest.mark.parametrize("task", SLIPPING)
def test_wrong_state_is_labelled_exactly(task: str) -> None:
    for x in _found(task):
        sample = configured_task(task).make(x.index, SEED)
        inst = sample.instance
        true = [(pixel_digest(sample.images[s.image]), s.text) for s in inst.steps]
        body = [(pixel_digest(s.image), s.text) for s in x.steps[:-1]]
        k = x.first_error
        assert x.labels == ["correct"] * (k - 1) + ["incorrect"] + ["after_error"] * (len(x.steps) - k)
        assert [s.error for s in x.steps] == [None] * (k - 1) + ["wrong_state"] + [None] * (len(x.steps) - k)
        assert len(body) == len(true) and body[: k - 1] == true[: k - 1]
        assert body[k - 1] != true[k - 1] and body[k - 1][1] != true[k - 1][1]  # a stated state, not a picture
        assert x.steps[-1].text == f"So the answer is {x.concluded}." and x.concluded != inst.answer
        row = {"answer": inst.answer, "answer_type": inst.answer_type, "options": inst.options}
        assert reward(f"<answer>{x.concluded}</answer>", row) == 0.0
        from vcot.engine.chance import answer_space

        assert answer_space(inst).contains(x.concluded)
        # Not the misreading: the corrupted trajectory is another one.
        wrong = [(pixel_digest(sample.images[s.image]), s.text) for s in inst.corrupted_steps]
        assert body != wrong
        again = labelled(task, SEED, x.index, "wrong_state")
        assert again.record() == x.record()


def test_tasks_without_a_slip_carry_no_wrong_state() -> None:
    assert all(labelled("gear_rotation", SEED, i, "wrong_state") is None for i in range(2))


# -- plausibility: the tasks' rule checkers ---------------------------------------------------------------


def _scene(task: str, index: int) -> dict:
    """The scene the labelled trajectory was made from (accepted as `vcot generate` accepts it)."""
    return configured_task(task)._accept(index, SEED, check_corruption=True)[0]


def _texts(x) -> list[str]:
    return [s.text for s in x.steps[:-1]]


def _dice_rolls(rules: ModuleType, texts: list[str], colour: str | None) -> list[re.Match[str]]:
    """Each step's roll of one path, as the single-path checker reads it."""
    if colour is None:
        return [re.fullmatch(rf"Roll \d+ of \d+: {rules._ROLL}", t) for t in texts]
    out = []
    for t in texts:
        part = re.search(rf"{colour.capitalize()} path: (the die rolls .*? and shows .*?\.)", t).group(1)
        out.append(re.fullmatch(rules._ROLL, part))
    return out


@pytest.mark.parametrize("task", ["rolling_dice_top", "rolling_dice_sum", "rolling_dice_two"])
def test_a_dice_slip_breaks_only_the_turn_into_it(task: str) -> None:
    rules = _load("test_corruption_rules")
    for x in _found(task):
        scene = _scene(task, x.index)
        k = x.first_error
        paths = {None: scene["path"]} if "path" in scene else dict(scene["paths"])
        broken = []
        for colour, path in paths.items():
            rolls = _dice_rolls(rules, _texts(x), colour)
            assert all(rolls), x.uid
            # From step k on, every state is a standard die on the path and each later roll turns it by the rule;
            # steps 1 .. k-1 are the true ones.
            rules._check_rolls(path[k - 1 :], rolls[k - 1 :])
            if k > 1:
                rules._check_rolls(path[:k], rolls[: k - 1])
            try:
                rules._check_rolls(path, rolls)
            except AssertionError as exc:
                broken.append((colour, str(exc)))
        if k == 1:
            # The state before roll 1 is the start die, shown only in the picture: no text states it.
            assert broken == [], (x.uid, broken)
        else:
            [(_, message)] = broken  # exactly one path slipped
            assert f"roll {k} " in message and "turns the faces of the state before it" in message, message


def test_a_clock_slip_states_whole_minute_faces() -> None:
    rules = _load("test_corruption_rules")
    for x in _found("mirror_clock"):
        scene = _scene("mirror_clock", x.index)
        texts = _texts(x)
        for t in texts:  # every face a whole-minute face, its hour hand where its minute hand puts it
            rules._clock(re.search(rules._FACE, t))
        if x.first_error == 1:
            # The slip is in un-mirroring, which only the picture can check: the texts pass, the shift included.
            rules.check_mirror_clock(scene, texts)
        else:
            with pytest.raises(AssertionError):
                rules.check_mirror_clock(scene, texts)


def test_a_robot_slip_names_the_action_and_follows_the_rules_after_it() -> None:
    sim = _load("test_corruption_rules_sim")
    for x in _found("robot_program"):
        scene = _scene("robot_program", x.index)
        k, texts = x.first_error, _texts(x)
        start = sim._true_start(scene)
        # Steps before k follow the rules from the true start; the whole trajectory does not (the slip).
        sim.check_robot_program_from({**scene, "program": scene["program"][: k - 1]}, texts[: k - 1], start)
        with pytest.raises(AssertionError, match=f"action {k} puts"):
            sim.check_robot_program_from(scene, texts, start)
        # Step k in its own words: the template, the program's action k and the block it moves, on the table.
        m = re.fullmatch(sim._PROGRAM_STEP, texts[k - 1])
        assert m and m.group(2) == sim._action_text(scene["program"][k - 1]) and m.group(11) is None
        # After k, the rules from the table step k states.
        table = sim._stated_tables(scene, texts[:k], start)[-1]
        later = [re.sub(r"^After action \d+", f"After action {j}", s) for j, s in enumerate(texts[k:], start=1)]
        sim.check_robot_program_from({**scene, "program": scene["program"][k:]}, later, table)
