"""block_tower: hand-worked towers (statics and the simulated run agree), mirror invariance, balance, jitter."""

from __future__ import annotations

import collections
import random

import pytest

from vcot.tasks import get_task
from vcot.tasks.physsim._engine import simulate_tower
from vcot.tasks.physsim.block_tower import local_overhang_count, outcome, statics

TASK = get_task("block_tower", "easy")


def tower(*placed: tuple[float, float, float]) -> dict:
    """Blocks as (centre x, width, height), bottom first."""
    return {"blocks": [{"label": "ABCDEFGHI"[i], "x": x, "w": w, "h": h} for i, (x, w, h) in enumerate(placed)]}


def test_hand_centred_tower_stands():
    # Three blocks centred over each other: every group's centre of mass is the face's middle.
    s = tower((0, 2, 1), (0, 1.6, 1), (0, 1.2, 1))
    assert statics(s["blocks"]) == pytest.approx([0.8, 0.6])
    assert TASK.solve(s).answer == "3"


def test_hand_single_overhang_falls():
    # B (width 2) centred at 1.5 on A (width 2, edges -1..1): the face is 0.5..1, B's centre 0.5 beyond it.
    s = tower((0, 2, 1), (1.5, 2, 1))
    assert statics(s["blocks"]) == pytest.approx([-0.5])
    sol = TASK.solve(s)
    assert sol.answer == "1"
    assert sol.details["fallen"] == ["B"] and sol.details["side"] == "right"


def test_hand_counterweight_topples_what_looks_safe():
    # B at 0.8 and C at 1.8 each have their own centre over the block below (0.8 < 1, 1.8 < 0.8 + 1), but the
    # group B+C (equal areas) has its centre at 1.3, beyond A's right edge at 1: B and C tip off together.
    s = tower((0, 2, 1), (0.8, 2, 1), (1.8, 2, 1))
    assert local_overhang_count(s["blocks"]) == 3
    assert statics(s["blocks"])[0] == pytest.approx(-0.3)
    sol = TASK.solve(s)
    assert sol.answer == "1"
    assert sol.details["fallen"] == ["B", "C"]


def test_hand_counterweight_holds_when_weighed():
    # A wide, heavy B (area 3) centred at 0.5 with a small C (area 0.5) overhanging at 1.6: the group's
    # centre (3*0.5 + 0.5*1.6) / 3.5 = 0.657 lies inside A's top (..1), and C's own centre 1.6 lies over B.
    s = tower((0, 2, 1), (0.5, 3, 1), (1.6, 1, 0.5))
    assert statics(s["blocks"])[0] == pytest.approx(1 - (3 * 0.5 + 0.5 * 1.6) / 3.5)
    assert TASK.solve(s).answer == "3"


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_mirror_image_gives_the_same_count(difficulty):
    task = get_task("block_tower", difficulty)
    for i in range(4):
        scene, sol = task.solved_scene(i, 11)
        mirrored = {"blocks": [{**b, "x": -b["x"]} for b in scene["blocks"]]}
        other = task.solve(mirrored)
        assert other.answer == sol.answer
        assert other.details["side"] == {"left": "right", "right": "left", "": ""}[sol.details["side"]]


def test_answers_are_balanced_and_in_range():
    task = get_task("block_tower", "medium")
    counts = collections.Counter(task.solved_scene(i, 3)[1].answer for i in range(10))
    assert counts == {str(k): 2 for k in range(1, 6)}


def test_accepted_scenes_survive_fresh_jitter():
    """Re-run accepted scenes with jitter the generator never drew: the same blocks fall."""
    task = get_task("block_tower", "hard")
    rng = random.Random(5)
    for i in range(4):
        scene, sol = task.solved_scene(i, 2)
        blocks = scene["blocks"]
        fell = outcome(simulate_tower(blocks))
        for _ in range(3):
            shifts = [rng.uniform(-0.03, 0.03) for _ in blocks]
            assert outcome(simulate_tower(blocks, shifts=shifts)) == fell


def test_scene_holds_no_answer_and_runs_are_deterministic():
    scene, sol = TASK.solved_scene(0, 9)
    assert set(scene) == {"blocks"}
    assert simulate_tower(scene["blocks"]).poses == simulate_tower(scene["blocks"]).poses


def test_corruption_states_another_count_in_the_same_words():
    task = get_task("block_tower", "medium")
    sample = task.make(2, 4)
    note = sample.instance.meta["corruption"]
    assert f"instead of {sample.instance.answer}" in note
    right = [s.text.split(":")[0] for s in sample.instance.steps]
    wrong = [s.text.split(":")[0] for s in sample.instance.corrupted_steps]
    assert len(right) == len(wrong) == 3
    assert all(t.startswith("t = ") for t in right + wrong)
