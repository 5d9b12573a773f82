"""ball_bins: hand-worked drops (free fall, one ramp worked out by hand), mirror and shift invariance, balance,
jitter, corruption."""

from __future__ import annotations

import collections
import math
import random

import pytest

from vcot.tasks import get_task
from vcot.tasks.physsim._engine import RAMP_RADIUS, simulate_ball
from vcot.tasks.physsim.ball_bins import _mirrored, ramp_sequence

TASK = get_task("ball_bins", "medium")


def box(ball_x: float, ball_y: float, *ramps: tuple[tuple[float, float], tuple[float, float]], bins: int = 4) -> dict:
    return {
        "width": 16.0,
        "height": 12.0,
        "bins": bins,
        "divider_h": 0.8,
        "ramp_r": RAMP_RADIUS,
        "ball": {"x": ball_x, "y": ball_y, "r": 0.25},
        "ramps": [{"label": "ABCDE"[i], "a": list(a), "b": list(b)} for i, (a, b) in enumerate(ramps)],
    }


def test_hand_free_fall_lands_under_the_start():
    # No ramp: the ball drops straight down; x = 5 lies in the second 4-unit-wide bin.
    s = box(5.0, 10.0)
    assert TASK.solve(s).answer == "2"
    assert TASK.solve(s).details["landing_x"] == pytest.approx(5.0, abs=1e-6)


def test_hand_one_ramp_by_energy_and_projectile():
    # A 30-degree ramp from (4, 7) down to the right; the ball starts 1 unit above the ramp's surface point at
    # x = 5 and falls h (its centre drops to the thickened ramp). On landing only the speed along the ramp is
    # kept: v0 = sqrt(2 g h) sin 30. Sliding to the lower end (length L further) gives v1 = sqrt(v0^2 + 2 g L
    # sin 30). It flies off along the ramp, (v1 cos 30, -v1 sin 30), and falls to the rim at y = 0.8 + 0.25.
    g, th = 10.0, math.radians(30)
    a = (4.0, 7.0)
    length = 4.0
    b = (a[0] + length * math.cos(th), a[1] - length * math.sin(th))
    reach = 0.25 + RAMP_RADIUS
    x0 = 5.0
    surface_y = a[1] - (x0 - a[0]) * math.tan(th)
    start_y = surface_y + reach / math.cos(th) + 1.0
    h = 1.0
    v0 = math.sqrt(2 * g * h) * math.sin(th)
    # The centre slides on the ramp's line lifted by `reach` along the normal (sin 30, cos 30): the landing
    # point lies (x0 - a_x - reach sin 30) / cos 30 along it, the rest of the length is still to slide.
    rest = length - (x0 - a[0] - reach * math.sin(th)) / math.cos(th)
    v1 = math.sqrt(v0 * v0 + 2 * g * rest * math.sin(th))
    ex, ey = b[0] + reach * math.sin(th), b[1] + reach * math.cos(th)  # centre at the end, lifted by reach
    vx, vy = v1 * math.cos(th), -v1 * math.sin(th)
    rim = 0.8 + 0.25
    t = (vy + math.sqrt(vy * vy + 2 * g * (ey - rim))) / g
    expected = ex + vx * t
    s = box(x0, start_y, (a, b))
    sol = TASK.solve(s)
    assert sol.details["landing_x"] == pytest.approx(expected, abs=0.1)
    assert sol.answer == str(int(expected // 4) + 1)
    assert [st.get("ramp") for st in sol.states[:-1]] == ["A"]


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_mirror_and_shift_keep_the_path(difficulty):
    task = get_task("ball_bins", difficulty)
    for i in range(3):
        scene, sol = task.solved_scene(i, 11)
        k = scene["bins"]
        mirrored = task.solve(_mirrored(scene))
        assert mirrored.answer == str(k + 1 - int(sol.answer))
        moved = {
            **scene,
            "width": 100.0,
            "ball": {**scene["ball"], "x": scene["ball"]["x"] + 30},
            "ramps": [
                {**r, "a": [r["a"][0] + 30, r["a"][1]], "b": [r["b"][0] + 30, r["b"][1]]} for r in scene["ramps"]
            ],
        }
        assert simulate_ball(moved).landing_x - 30 == pytest.approx(sol.details["landing_x"], abs=0.05)


def test_answers_are_balanced():
    counts = collections.Counter(TASK.solved_scene(i, 3)[1].answer for i in range(8))
    assert counts == {str(b): 2 for b in range(1, 5)}


def test_accepted_scenes_survive_fresh_jitter():
    rng = random.Random(8)
    for i in range(3):
        scene, sol = TASK.solved_scene(i, 2)
        base = simulate_ball(scene)
        for _ in range(3):
            run = simulate_ball(scene, dx=rng.uniform(-0.04, 0.04), dy=rng.uniform(-0.04, 0.04))
            assert ramp_sequence(run) == ramp_sequence(base)
            assert TASK.solve(scene).answer == str(int(run.landing_x // (16 / scene["bins"])) + 1)


def test_scene_holds_no_answer_and_runs_are_deterministic():
    scene, sol = TASK.solved_scene(1, 9)
    assert "landing_x" not in str(scene) and "bin" not in scene
    assert simulate_ball(scene).trace == simulate_ball(scene).trace


def test_corruption_lands_elsewhere_in_the_same_words():
    sample = TASK.make(1, 4)
    inst = sample.instance
    assert f"instead of {inst.answer}" in inst.meta["corruption"]
    assert inst.corrupted_steps[-1].text.split(" and drops")[0].startswith("The ball")
    assert inst.corrupted_steps[-1].text.endswith(".") and "bin" in inst.corrupted_steps[-1].text
    assert inst.corrupted_steps[-1].text != inst.steps[-1].text
