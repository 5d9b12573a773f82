"""motion_graph: hand-worked areas, invariants of the pieces, balance, corruption and parameter checks."""

from __future__ import annotations

import collections
import random
import re
from fractions import Fraction

import pytest

from vcot.tasks import get_task
from vcot.tasks.base import ParameterError
from vcot.tasks.sciqa.motion_graph import pieces, velocity_at

TASK = get_task("motion_graph")


def graph(times: list[int], vels: list[int], start: int, end: int, quantity: str = "displacement") -> dict:
    return {"times": times, "velocities": vels, "start": start, "end": end, "quantity": quantity}


# -- hand-worked ----------------------------------------------------------------------------------------


def test_hand_triangle_then_rectangle():
    # 0 -> 4 m/s over 2 s: triangle 1/2 * 2 * 4 = 4 m; then 4 m/s held for 2 s: 8 m. Together 12 m.
    sol = TASK.solve(graph([0, 2, 4], [0, 4, 4], 0, 4))
    assert sol.answer == "12"
    assert [Fraction(p["area"]) for p in sol.details["pieces"]] == [4, 8]


def test_hand_back_and_forth_displacement_and_distance():
    # v goes 2, -2, 2 at t = 0, 2, 4: it crosses zero at 1 s and 3 s, cutting four triangles of area 1
    # (base 1 s, height 2 m/s): +1, -1, -1, +1. Displacement 0 m, distance 4 m.
    g = graph([0, 2, 4], [2, -2, 2], 0, 4)
    assert TASK.solve(g).answer == "0"
    assert [p["area"] for p in pieces(g)] == [1, -1, -1, 1]
    assert TASK.solve({**g, "quantity": "distance"}).answer == "4"


def test_hand_interval_between_corners_of_the_grid():
    # One straight piece 0 -> 8 m/s over 4 s: v(1) = 2, v(3) = 6, so from 1 s to 3 s the trapezoid has area
    # (2 + 6) / 2 * 2 = 8 m.
    g = graph([0, 4], [0, 8], 1, 3)
    assert velocity_at([0, 4], [0, 8], Fraction(1)) == 2
    assert TASK.solve(g).answer == "8"


def test_hand_fractional_crossing():
    # 3 -> -1 m/s over 2 s crosses zero at t = 3/2 s: triangles +3/2*3/2... exactly 9/4 above, -1/4 below.
    ps = pieces(graph([0, 2], [3, -1], 0, 2))
    assert [p["t1"] for p in ps][0] == Fraction(3, 2)
    assert [p["area"] for p in ps] == [Fraction(9, 4), Fraction(-1, 4)]


# -- invariants over generated scenes -------------------------------------------------------------------


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_pieces_tile_the_interval_and_respect_the_sign(difficulty: str):
    task = get_task("motion_graph", difficulty)
    for i in range(25):
        scene, sol = task.solved_scene(i, 3)
        ps = pieces(scene)
        # The pieces cover [start, end] in order, each on one side of the axis; a gap is only where the
        # object stands still (v = 0 all along it).
        edges = [Fraction(scene["start"])] + [t for p in ps for t in (p["t0"], p["t1"])] + [Fraction(scene["end"])]
        for t0, t1 in zip(edges[::2], edges[1::2], strict=True):
            assert t0 <= t1
            if t0 < t1:
                assert velocity_at(scene["times"], scene["velocities"], (t0 + t1) / 2) == 0
        for p in ps:
            assert p["v0"] * p["v1"] >= 0 and (p["area"] > 0) == (p["v0"] + p["v1"] > 0)
        disp = sum((p["area"] for p in ps), Fraction(0))
        dist = sum((abs(p["area"]) for p in ps), Fraction(0))
        assert dist >= abs(disp)
        assert int(sol.answer) == (disp if scene["quantity"] == "displacement" else dist)
        cfg = task.config
        assert cfg.answer_min <= int(sol.answer) <= cfg.answer_max
        # The scene holds no area, total or answer.
        assert set(scene) == {"times", "velocities", "start", "end", "quantity"}


def test_answers_are_balanced():
    task = get_task("motion_graph", "medium")
    counts = collections.Counter(task.solved_scene(i, 0)[1].answer for i in range(50))
    assert max(counts.values()) <= 3


def test_corruption_changes_the_value_in_the_same_words():
    task = get_task("motion_graph", "hard")
    for i in range(6):
        scene, sol = task.solved_scene(i, 2)
        bad = task.corrupt(scene, sol, random.Random(i))
        assert bad is not None
        assert bad.description.split("becomes ")[1].split(" m")[0].replace("−", "-") != sol.answer
        right = task.render(scene, sol).steps
        assert [t.split(":")[0] for _, t in bad.steps] == [t.split(":")[0] for _, t in right]
        assert [t for _, t in bad.steps] != [t for _, t in right]


def test_distance_questions_run_backwards_somewhere():
    task = get_task("motion_graph", "hard")
    for i in range(30):
        scene, _ = task.solved_scene(i, 4)
        if scene["quantity"] == "distance":
            assert any(p["area"] < 0 for p in pieces(scene))


def test_bad_parameters_are_refused():
    with pytest.raises(ParameterError):
        get_task("motion_graph", "medium", max_velocity=20)
    with pytest.raises(ParameterError):
        get_task("motion_graph", "medium", interval="sometimes")
    with pytest.raises(ValueError):
        get_task("motion_graph", "medium", max_segments=8, max_duration=4)


# -- step texts keep the rules, in the right and the corrupted trajectory ---------------------------------------


def _num(text: str) -> Fraction:
    return Fraction(text.replace("−", "-").lstrip("+"))


def check_rule(scene: dict, texts: list[str]) -> Fraction:
    """Parse both step texts with the steps' templates and check the geometry they state: each piece's area is
    its shape's area, with the sign of its side of the axis (or positive for a distance); pieces follow each
    other in time; a piece's side at a read-off time is the velocity read there. Returns the pieces' sum."""
    reads = {_num(t): _num(v) for t, v in re.findall(r"at (\S+) s the velocity reads (\S+) m/s", texts[0])}
    assert min(reads) == scene["start"] and max(reads) == scene["end"]
    rows = re.findall(r"([A-Z]): (\S+) s to (\S+) s, (above|below) the axis, ([^;]+?), gives (\S+) m", texts[1])
    assert rows, texts[1]
    total, last_end = Fraction(0), None
    for _, t0, t1, side, shape, amount in rows:
        t0, t1, area = _num(t0), _num(t1), _num(amount)
        assert t0 < t1 and (last_end is None or last_end <= t0)
        last_end = t1
        if m := re.fullmatch(r"rectangle (\S+) m/s by (\S+) s", shape):
            v0 = v1 = _num(m.group(1))
            width = _num(m.group(2))
        elif m := re.fullmatch(r"triangle, height (\S+) m/s, base (\S+) s", shape):
            v0, v1, width = _num(m.group(1)), Fraction(0), _num(m.group(2))
        else:
            m = re.fullmatch(r"trapezoid, sides (\S+) and (\S+) m/s, width (\S+) s", shape)
            assert m, shape
            v0, v1, width = _num(m.group(1)), _num(m.group(2)), _num(m.group(3))
        assert width == t1 - t0
        signed = (v0 + v1) / 2 * width
        assert (signed > 0) == (side == "above")
        assert area == (signed if scene["quantity"] == "displacement" else abs(signed))
        for t in (t0, t1):
            if t in reads:
                assert reads[t] in (v0, v1, 0), "a side at a read-off time is the velocity read there"
        total += area
    return total


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_both_trajectories_keep_the_rules(difficulty: str):
    task = get_task("motion_graph", difficulty)
    for i in range(8):
        scene, sol = task.solved_scene(i, 5)
        right = [t for _, t in task.render(scene, sol).steps]
        assert str(check_rule(scene, right)) == sol.answer
        bad = task.corrupt(scene, sol, random.Random(i))
        assert bad is not None
        assert check_rule(scene, [t for _, t in bad.steps]) != Fraction(sol.answer)
