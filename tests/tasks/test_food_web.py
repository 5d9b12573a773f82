"""food_web: hand-worked die-outs, invariants of the rounds, balance and cues, corruption, parameter checks."""

from __future__ import annotations

import collections
import random
import re

import pytest

from vcot.tasks import get_task
from vcot.tasks.base import ParameterError
from vcot.tasks.sciqa.food_web import above, die_out_rounds, sole_food_eaters

TASK = get_task("food_web")


def web(removed: str) -> dict:
    """grass and clover feed rabbit and mouse; the fox eats only the rabbit; the owl eats rabbit and mouse."""
    species = [
        {"name": n, "level": lvl, "slot": k}
        for lvl, row in enumerate((("grass", "clover"), ("rabbit", "mouse"), ("fox", "owl")))
        for k, n in enumerate(row)
    ]
    eats = [
        ["grass", "rabbit"],
        ["grass", "mouse"],
        ["clover", "mouse"],
        ["rabbit", "fox"],
        ["rabbit", "owl"],
        ["mouse", "owl"],
    ]
    return {"species": species, "eats": eats, "removed": removed}


# -- hand-worked ----------------------------------------------------------------------------------------


def test_hand_grass_gone():
    # The rabbit eats only grass: it dies out in round 1; then the fox (only rabbit) in round 2. The mouse
    # keeps the clover and the owl keeps the mouse: 2 species die out.
    sol = TASK.solve(web("grass"))
    assert sol.answer == "2"
    assert sol.details["rounds"] == [["rabbit"], ["fox"]]
    assert sol.details["kept_food"] == ["mouse", "owl"]


def test_hand_clover_gone():
    # Only the mouse eats clover, and it still has grass: nothing dies out.
    sol = TASK.solve(web("clover"))
    assert sol.answer == "0"
    assert sol.details["rounds"] == [] and sol.details["kept_food"] == ["mouse"]


def test_hand_rabbit_gone():
    # The fox loses its only food; the owl keeps the mouse: 1 species.
    assert TASK.solve(web("rabbit")).answer == "1"
    assert sole_food_eaters(web("rabbit")) == 1
    assert above(web("rabbit")) == {"fox", "owl"}


def test_hand_misread_arrow():
    # Overlooking the arrow from the clover to the mouse leaves the mouse only grass: with the rabbit it goes in
    # round 1, and the owl (rabbit and mouse) goes with the fox in round 2: 4 instead of 2.
    misread = web("grass")
    misread["eats"] = [e for e in misread["eats"] if e != ["clover", "mouse"]]
    assert die_out_rounds(misread) == [["mouse", "rabbit"], ["fox", "owl"]]
    bad = TASK.corrupt(web("grass"), TASK.solve(web("grass")), random.Random(0))
    assert bad is not None and "instead of 2" in bad.description


# -- invariants over generated scenes -------------------------------------------------------------------


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_rounds_follow_the_rule(difficulty: str):
    task = get_task("food_web", difficulty)
    for i in range(25):
        scene, sol = task.solved_scene(i, 3)
        prey = collections.defaultdict(set)
        for a, b in scene["eats"]:
            prey[b].add(a)
        dead = {scene["removed"]}
        for names in sol.details["rounds"]:
            for n in names:
                assert prey[n] and prey[n] <= dead, (i, n)  # all its food gone before this round
            dead |= set(names)
        level = {s["name"]: s["level"] for s in scene["species"]}
        for n in level:
            if n not in dead and level[n] > 0:
                assert prey[n] - dead, (i, n)  # every animal left still has food
        assert int(sol.answer) == len(dead) - 1
        assert task.config.answer_min <= int(sol.answer) <= task.config.answer_max
        # Arrows run from a lower row to a higher one; the removed species is eaten by something.
        assert all(level[a] < level[b] for a, b in scene["eats"])
        assert any(a == scene["removed"] for a, _ in scene["eats"])
        assert set(scene) == {"species", "eats", "removed"}


def test_answers_are_balanced_and_cues_rare():
    task = get_task("food_web", "medium")
    solved = [task.solved_scene(i, 0) for i in range(64)]
    counts = collections.Counter(sol.answer for _, sol in solved)
    assert set(counts) == {"1", "2", "3", "4"} and max(counts.values()) == 16
    # Everything above the removed species dies out in at most one instance of eight.
    assert sum(len(above(sc)) == int(sol.answer) for sc, sol in solved) <= 64 // 8 + 1


def test_corruption_changes_the_count_and_keeps_the_words():
    task = get_task("food_web", "hard")
    for i in range(6):
        scene, sol = task.solved_scene(i, 2)
        bad = task.corrupt(scene, sol, random.Random(i))
        assert bad is not None
        right = [t for _, t in task.render(scene, sol).steps]
        wrong = [t for _, t in bad.steps]
        assert wrong != right and wrong[0] == right[0]
        assert all(t.startswith(("The ", "Round ", "No ")) for t in wrong)


def test_bad_parameters_are_refused():
    with pytest.raises(ParameterError):
        get_task("food_web", "medium", max_prey=9)
    with pytest.raises(ValueError):
        get_task("food_web", "medium", levels=2, max_species=16)


# -- step texts keep the rule, in the right and the corrupted trajectory ----------------------------------------


def _split(names: str) -> list[str]:
    return [n for part in names.split(", ") for n in part.split(" and ")]


def check_rule(scene: dict, texts: list[str]) -> int:
    """Parse every step text with the steps' template and check the rule the question states: an animal is
    crossed out only once everything it is said to eat is crossed out, an animal ringed still eats something
    not crossed out. Returns the number crossed out besides the removed species."""
    first = re.fullmatch(
        r"The (.+) is crossed out in red and the arrows leaving it are dashed; it was eaten by "
        r"the (.+)\.",
        texts[0],
    )
    assert first and first.group(1) == scene["removed"], texts[0]
    dead = {first.group(1)}
    for k, text in enumerate(texts[1:-1], start=1):
        m = re.fullmatch(
            r"Round (\d+) of dying out: the (.+?) (?:has|have) no food left and (?:is|are) crossed "
            r"out, the arrows leaving (?:it|them) dashed \((.+), all crossed out\)\.",
            text,
        )
        assert m and int(m.group(1)) == k, text
        names = _split(m.group(2))
        for part in m.group(3).split("; "):
            eater, food = re.fullmatch(r"the (.+?) ate the (.+)", part).groups()
            assert eater in names and set(_split(food)) <= dead, f"food not yet gone: {text}"
        dead |= set(names)
    last = texts[-1]
    if last != "No animal still standing ate a crossed-out species; nothing is ringed.":
        m = re.fullmatch(
            r"No other animal has lost all its food\. Ringed in blue, the animals that lost some food "
            r"but keep some: (.+)\.",
            last,
        )
        assert m, last
        for part in m.group(1).split("; "):
            eater, food = re.fullmatch(r"the (.+?) still eats the (.+)", part).groups()
            assert eater not in dead and not set(_split(food)) & dead, f"food said kept is gone: {last}"
    return len(dead) - 1


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_both_trajectories_keep_the_rule(difficulty: str):
    task = get_task("food_web", difficulty)
    for i in range(8):
        scene, sol = task.solved_scene(i, 5)
        right = [t for _, t in task.render(scene, sol).steps]
        assert str(check_rule(scene, right)) == sol.answer
        bad = task.corrupt(scene, sol, random.Random(i))
        assert bad is not None
        assert str(check_rule(scene, [t for _, t in bad.steps])) != sol.answer
