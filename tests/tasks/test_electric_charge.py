"""electric_charge: contract, hand-worked configurations, symmetry/scaling invariants, rejections, balance."""

from __future__ import annotations

import cmath
import collections
import math
import random
import re

import pytest

from vcot.draw import drawn_labels
from vcot.engine.chance import answer_space, chance_level
from vcot.tasks import get_task
from vcot.tasks.base import Reject
from vcot.tasks.pbr.electric_charge import DIRECTIONS, SYMMETRIES, check_scene, transform

TASK = get_task("electric_charge")
MIRROR_EW = {
    "east": "west",
    "west": "east",
    "northeast": "northwest",
    "northwest": "northeast",
    "southeast": "southwest",
    "southwest": "southeast",
    "north": "north",
    "south": "south",
}


def scene(grid: int, target: tuple[tuple[int, int], int], *sources: tuple[tuple[int, int], int]) -> dict:
    return {
        "grid": grid,
        "target": {"pos": list(target[0]), "q": target[1]},
        "sources": [{"pos": list(p), "q": q} for p, q in sources],
    }


# -- hand-worked ----------------------------------------------------------------------------------------


def test_hand_single_repulsion_east():
    # T = +1 at (2,2), +1 at (0,2): like charges repel; T is pushed away from (0,2), i.e. towards +x.
    # F = 1*1*(2,0)/2^3 = (0.25, 0): angle 0 deg -> east.
    s = scene(5, ((2, 2), 1), ((0, 2), 1))
    check_scene(s, 10, 0.15)
    sol = TASK.solve(s)
    assert sol.answer == "east"
    assert sol.details["net"] == pytest.approx([0.25, 0.0])


def test_hand_single_attraction_north():
    # T = +1 at (2,2), -2 at (2,4): unlike charges attract, so T is pulled up towards (2,4).
    # F = (1*-2)*(0,-2)/2^3 = (0, 0.5): angle 90 deg -> north.
    s = scene(5, ((2, 2), 1), ((2, 4), -2))
    sol = TASK.solve(s)
    assert sol.answer == "north"
    assert sol.details["net"] == pytest.approx([0.0, 0.5])


def test_hand_two_attractions_northeast():
    # T = -1 at (0,0). +1 at (1,0) pulls east with 1/1^2 = 1; +4 at (0,2) pulls north with 4/2^2 = 1.
    # Net (1, 1): 45 deg -> northeast, 22.5 deg from both neighbouring boundaries.
    s = scene(5, ((0, 0), -1), ((1, 0), 1), ((0, 2), 4))
    check_scene(s, 10, 0.15)
    sol = TASK.solve(s)
    assert sol.answer == "northeast"
    assert sol.details["net"] == pytest.approx([1.0, 1.0])
    assert sol.details["boundary_distance_deg"] == pytest.approx(22.5)


def test_hand_diagonal_plus_attraction():
    # T = +1 at (1,1). +2 at (0,0): repulsion along (1,1), |F| = 2/2 = 1 -> (0.7071, 0.7071).
    # -1 at (3,1): attraction towards +x, |F| = 1/4 -> (0.25, 0).
    # Net (0.9571, 0.7071): atan2 = 36.46 deg -> northeast (13.96 deg from the 22.5 boundary).
    s = scene(5, ((1, 1), 1), ((0, 0), 2), ((3, 1), -1))
    check_scene(s, 10, 0.15)
    sol = TASK.solve(s)
    assert sol.answer == "northeast"
    assert sol.details["angle_deg"] == pytest.approx(36.46, abs=0.01)


def test_hand_northwest_three_charges():
    # T = +2 at (2,2). +1 at (3,2) repels towards -x: 2/1 = 2 -> (-2, 0).
    # -1 at (2,0) attracts towards -y: 2/4 = 0.5 -> (0, -0.5). -3 at (2,4) attracts towards +y: 6/4 -> (0, 1.5).
    # Net (-2, 1.0): atan2(1, -2) = 153.43 deg -> northwest (135 +- 22.5 covers 112.5..157.5; 4.07 deg from
    # the boundary at 157.5), so check_scene rejects it; the solver still names the nearest sector.
    s = scene(5, ((2, 2), 2), ((3, 2), 1), ((2, 0), -1), ((2, 4), -3))
    sol = TASK.solve(s)
    assert sol.answer == "northwest"
    assert sol.details["angle_deg"] == pytest.approx(153.43, abs=0.01)
    with pytest.raises(Reject, match="boundary"):
        check_scene(s, 10, 0.15)


# -- rejections -----------------------------------------------------------------------------------------


def test_reject_near_sector_boundary():
    # T = -1 at (0,0), +1 at (1,0) pulls (1, 0), +1 at (0,2) pulls (0, 0.25): angle 14.04 deg, only 8.46 deg
    # from the east/northeast boundary at 22.5 deg.
    s = scene(5, ((0, 0), -1), ((1, 0), 1), ((0, 2), 1))
    with pytest.raises(Reject, match="boundary"):
        check_scene(s, 10, 0.15)


def test_reject_cancelling_forces():
    # Equal charges on either side of T cancel exactly: net 0 < 15% of each component.
    s = scene(5, ((2, 2), 1), ((1, 2), 1), ((3, 2), 1))
    with pytest.raises(Reject, match="small"):
        check_scene(s, 10, 0.15)
    # +1 at (1,2) and +1 at (4,2) give 1 - 1/4 = 0.75 against the largest 1: accepted (due east).
    # +1 at (1,2) against +4 at (4,2): 1 - 4/4 = 0, exact cancellation: rejected.
    check_scene(scene(5, ((2, 2), 1), ((1, 2), 1), ((4, 2), 1)), 10, 0.15)
    with pytest.raises(Reject):
        check_scene(scene(5, ((2, 2), 1), ((1, 2), 1), ((4, 2), 4)), 10, 0.15)


def test_reject_coinciding_charges():
    s = scene(5, ((2, 2), 1), ((2, 2), 1), ((0, 0), 1))
    with pytest.raises(Reject, match="same grid point"):
        check_scene(s, 10, 0.15)


# -- invariants -----------------------------------------------------------------------------------------


def _scenes(difficulty: str, n: int):
    task = get_task("electric_charge", difficulty=difficulty)
    for s in range(n):
        yield task, task.solved_scene(s, 0)[0]


def _independent_direction(sc: dict) -> tuple[str, float]:
    """Complex-number recomputation; the nearest of eight unit directions by largest dot product."""
    t = complex(*sc["target"]["pos"])
    net = sum(
        sc["target"]["q"] * s["q"] * (t - complex(*s["pos"])) / abs(t - complex(*s["pos"])) ** 3 for s in sc["sources"]
    )
    best = max(range(8), key=lambda k: (net * cmath.exp(-1j * math.pi / 4 * k)).real)
    return DIRECTIONS[best], math.degrees(cmath.phase(net)) % 360


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty):
    for task, sc in _scenes(difficulty, 300):
        sol = task.solve(sc)
        ref, ang = _independent_direction(sc)
        assert sol.answer == ref
        off = (ang - 22.5) % 45
        assert min(off, 45 - off) >= 10.0, "answer angle too close to a sector boundary"
        # Mirror across the vertical axis: east and west swap.
        assert task.solve(transform(sc, (-1, 0, 0, 1))).answer == MIRROR_EW[sol.answer]
        # Rotating the grid by 90 deg counter-clockwise turns the answer two sectors on.
        assert task.solve(transform(sc, SYMMETRIES[1])).answer == DIRECTIONS[(DIRECTIONS.index(sol.answer) + 2) % 8]
        # Scaling every magnitude (and flipping every sign) leaves the direction unchanged.
        for k in (2, 3, -1):
            scaled = {
                **sc,
                "sources": [{**s, "q": s["q"] * k} for s in sc["sources"]],
                "target": {**sc["target"], "q": sc["target"]["q"] * (1 if k > 0 else -1)},
            }
            assert task.solve(scaled).answer == sol.answer
        spots = [tuple(sc["target"]["pos"])] + [tuple(s["pos"]) for s in sc["sources"]]
        assert len(set(spots)) == len(spots)
        assert all(0 <= c < sc["grid"] for p in spots for c in p)


def test_answer_balance():
    counts = collections.Counter(TASK.solve(sc).answer for _, sc in _scenes("medium", 96))
    assert counts == {d: 12 for d in DIRECTIONS}


def test_corruption_misreads_one_sign():
    for index in range(6):
        inst = TASK.make(index, 5).instance
        desc = inst.meta["corruption"]
        assert " read as " in desc and f"instead of {inst.answer}" in desc  # one source's sign misread
        wrong = desc.split("net points ")[1].split(" instead")[0]
        assert wrong != inst.answer and wrong in DIRECTIONS
        # The corrupted resultant is a vector in the wrong sector, stated by its components only.
        assert _sector_of(_net_in(inst.corrupted_steps[-1].text)) == wrong
        assert _sector_of(_net_in(inst.steps[-1].text)) == inst.answer
        # Exactly one force line changes between the true and the corrupted step 1.
        true_parts = inst.steps[0].text.split("; ")
        bad_parts = inst.corrupted_steps[0].text.split("; ")
        assert sum(a != b for a, b in zip(true_parts, bad_parts, strict=True)) == 1


def _net_in(text: str) -> tuple[float, float]:
    m = re.search(r"\(Fx, Fy\) = \(([-+]?[\d.]+), ([-+]?[\d.]+)\)\.$", text)
    assert m, text
    return float(m.group(1)), float(m.group(2))


def _sector_of(v: tuple[float, float]) -> str:
    return DIRECTIONS[round(math.degrees(math.atan2(v[1], v[0])) / 45) % 8]


# Every way of writing a direction: the compass words and the picture words the grader also reads.
DIRECTION_WORD = re.compile(
    r"(?<![\w-])(north|south|east|west|(north|south)-?(east|west)|up|down|left|right|"
    r"upward|downward|upper|lower)(?![\w-])",
    re.I,
)


@pytest.mark.parametrize("difficulty", ["easy", "hard"])
def test_steps_draw_the_resultant_but_never_write_its_direction(difficulty):
    # final_state_shows relaxes the shared leak rule for direction words; this test keeps them out entirely.
    task = get_task("electric_charge", difficulty=difficulty)
    for index in range(8):
        sample = task.make(index, 2)
        inst = sample.instance
        scene_labels = set(drawn_labels(sample.images[inst.image]))
        for step in [*inst.steps, *inst.corrupted_steps]:
            assert not DIRECTION_WORD.search(step.text), step.text
            labels = drawn_labels(sample.images[step.image])
            assert not [lab for lab in labels if DIRECTION_WORD.search(lab)]
            # The new labels are the force numbers, the diagram's axes and the table that repeats the text.
            new = [lab for lab in labels if lab not in scene_labels]
            assert "net" in new or step is inst.steps[0] or step is inst.corrupted_steps[0]
        # Picture and text carry the same numbers: every force line of the text is a row of the table.
        rows = drawn_labels(sample.images[inst.steps[0].image])
        forces = inst.steps[0].text.split("axes: ")[1].rstrip(".").split("; ")
        assert len(forces) == len(inst.meta["scene"]["sources"]) and all(f in rows for f in forces)
        net = inst.meta["solution"]["details"]["net"]
        assert _net_in(inst.steps[1].text) == pytest.approx(net, abs=5e-4)
        assert f"net: (Fx, Fy) = {inst.steps[1].text.rsplit('= ', 1)[1].rstrip('.')}" in drawn_labels(
            sample.images[inst.steps[1].image]
        )


def test_answer_space_is_the_eight_offered_words():
    # The question offers eight one-word directions at every preset: chance 1/8, and the baseline answers
    # in the question's own spelling ("northeast", not "north-east").
    for difficulty in ("easy", "medium", "hard"):
        inst = get_task("electric_charge", difficulty=difficulty).make(0, 0, with_corruption=False).instance
        space = answer_space(inst)
        assert space.size == 8 and chance_level(inst) == pytest.approx(1 / 8)
        assert all(space.contains(d) for d in DIRECTIONS) and space.contains("North-East")
        assert not space.contains("up") and not space.contains("north-north-east")
        rng = random.Random(1)
        assert {space.sample(rng) for _ in range(200)} == set(DIRECTIONS)
