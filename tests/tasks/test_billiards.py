"""billiards: contract, hand-worked tables, path invariants (shapely cross-check), rejections, balance."""

from __future__ import annotations

import collections
import random
import re
from fractions import Fraction

import pytest
from shapely.geometry import LineString, Point

from vcot.engine.chance import answer_space, chance_level
from vcot.tasks import get_task
from vcot.tasks.base import Reject
from vcot.tasks.pbr.billiards import CAPTURE, NEAR_MISS, backtrack, label_pockets, pockets, simulate

TASK = get_task("billiards")
ORDER = "ABCDEF"  # pocket_labels are listed for pockets BL, BM, BR, TR, TM, TL (counter-clockwise from (0,0))


def table(w: int, h: int, start: tuple[int, int], d: tuple[int, int], labels: str = ORDER, budget: int = 6) -> dict:
    return {
        "width": w,
        "height": h,
        "start": list(start),
        "direction": list(d),
        "pocket_labels": list(labels),
        "max_bounces": budget,
        "capture": str(CAPTURE),
        "near_miss": str(NEAR_MISS),
    }


# -- hand-worked ----------------------------------------------------------------------------------------


def test_hand_square_centre_to_corner():
    # 4x4 table, ball at the centre (2,2) heading (1,1): the diagonal runs straight into the corner (4,4)
    # with no bounce. Side pockets (2,0), (2,4) stay sqrt(2) = 1.41 away (closest point (3,3)). Pocket TR = "D".
    sol = TASK.solve(table(4, 4, (2, 2), (1, 1)))
    assert sol.answer == "D"
    assert sol.details["walls"] == []
    assert sol.details["points"][-1] == ["4", "4"]


def test_hand_two_bounces_into_corner():
    # 6x4 table, start (1,2), direction (1,2).
    # Segment 1: top y=4 at t=(4-2)/2=1 -> (2,4) (the right wall only at t=5). Bounce on top: (1,-2).
    #   Closest approach to the side pocket (3,4) is the end point, distance 1 > 0.75.
    # Segment 2: bottom y=0 at t=4/2=2 -> (4,0) (right wall at t=4). Side pockets (3,4) and (3,0) are
    #   |cross|/sqrt(5) = 2/2.236 = 0.89 from the line. Bounce on bottom: (1,2).
    # Segment 3: top at t=2 and right at t=(6-4)/1=2 together: the corner (6,4) itself, pocket TR.
    # Clockwise labels with A at BR: BL=C, BM=B, BR=A, TR=F, TM=E, TL=D -> answer F.
    labels = label_pockets(answer_index=2, answer_letter=0, clockwise=True)
    assert labels == list("CBAFED")
    sol = TASK.solve(table(6, 4, (1, 2), (1, 2), labels="".join(labels)))
    assert sol.details["walls"] == ["top", "bottom"]
    assert sol.details["points"] == [["1", "2"], ["2", "4"], ["4", "0"], ["6", "4"]]
    assert sol.answer == "F"


def test_hand_side_pocket():
    # 8x4 table, start (6,1), direction (2,1).
    # Segment 1: right wall x=8 at t=1 -> (8,2) (top at t=3). Corner pockets (8,0), (8,4) are 2 away.
    # Segment 2: direction (-2,1); top y=4 at t=2 -> (4,4): exactly the top side pocket (TM).
    #   The corner (8,4) is 1.79 from this segment (closest point (7.2,2.4)). Answer TM = "E".
    sol = TASK.solve(table(8, 4, (6, 1), (2, 1)))
    assert sol.details["walls"] == ["right"]
    assert sol.details["directions"] == [[2, 1], [-2, 1]]
    assert sol.answer == "E"


def test_hand_three_bounces():
    # 6x4 table, start (2,2), direction (-1,-2).
    # (2,2) -> bottom at t=1: (1,0); direction (-1,2).
    # (1,0) -> left at t=1: (0,2); direction (1,2). (top would be t=2.)
    # (0,2) -> top at t=1: (1,4); direction (1,-2).
    # (1,4) -> bottom at t=2: (3,0) = bottom side pocket BM = "B". Near corner (0,0): the segment (1,0)-(0,2)
    # passes 2/sqrt(5) = 0.89 from it; (0,4) is 0.89 from segment (0,2)-(1,4). Three bounces.
    sol = TASK.solve(table(6, 4, (2, 2), (-1, -2)))
    assert sol.details["walls"] == ["bottom", "left", "top"]
    assert sol.details["points"][-1] == ["3", "0"]
    assert sol.answer == "B"


# -- rejections -----------------------------------------------------------------------------------------


def test_reject_near_miss():
    # 8x4, start (2,1), direction (1,1): the segment to (5,4) passes (4.5,3.5), 0.707 from the side pocket (4,4):
    # inside the near-miss margin 0.75 but outside the capture radius 0.4.
    with pytest.raises(Reject, match="near a pocket"):
        simulate(8, 4, (2, 1), (1, 1), 6)


def test_reject_grazing_capture():
    # 6x4, start (1,2), direction (-1,-3): the segment ends at (1/3, 0), 1/3 from the corner (0,0): within the
    # capture radius 0.4 but above the graze limit 0.2 -- whether it drops is a matter of pixels.
    with pytest.raises(Reject, match="grazes"):
        simulate(6, 4, (1, 2), (-1, -3), 6)


def test_reject_bounce_budget():
    # A horizontal shot never meets a pocket (all pockets lie on y = 0 or y = H).
    with pytest.raises(Reject, match="budget"):
        simulate(8, 4, (1, 2), (1, 0), 6)
    # The three-bounce path above is rejected with a budget of two.
    with pytest.raises(Reject, match="budget"):
        simulate(6, 4, (2, 2), (-1, -2), 2)


# -- invariants -----------------------------------------------------------------------------------------


def _scenes(difficulty: str, n: int):
    task = get_task("billiards", difficulty=difficulty)
    for s in range(n):
        yield task, task.solved_scene(s, 0)[0]


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_path_invariants(difficulty):
    for task, sc in _scenes(difficulty, 300):
        sol = task.solve(sc)
        w, h = sc["width"], sc["height"]
        pts = [(Fraction(x), Fraction(y)) for x, y in sol.details["points"]]
        dirs = [tuple(d) for d in sol.details["directions"]]
        walls = sol.details["walls"]
        assert pts[0] == tuple(sc["start"]) and dirs[0] == tuple(sc["direction"])
        assert task.config.min_bounces <= len(walls) <= task.config.max_bounces
        assert len(pts) == len(walls) + 2 and len(dirs) == len(walls) + 1
        for k, (a, b) in enumerate(zip(pts[:-1], pts[1:], strict=True)):
            d = dirs[k]
            seg = (b[0] - a[0], b[1] - a[1])
            # Consecutive segments connect and each runs along its direction.
            assert seg[0] * d[1] - seg[1] * d[0] == 0 and seg[0] * d[0] + seg[1] * d[1] > 0
            assert all(0 <= c <= lim for c, lim in zip(b, (w, h), strict=True))
        for k, wall in enumerate(walls):
            x, y = pts[k + 1]
            on = {"left": x == 0, "right": x == w, "bottom": y == 0, "top": y == h}
            assert on[wall], "bounce not on its cushion"
            assert sum(on.values()) == 1, "bounce at a corner"
            (dx, dy), (ex, ey) = dirs[k], dirs[k + 1]
            if wall in ("left", "right"):
                assert (ex, ey) == (-dx, dy)  # normal component flips, tangential kept
            else:
                assert (ex, ey) == (dx, -dy)
        centres = pockets(w, h)
        answer_centre = dict(zip(sc["pocket_labels"], centres, strict=True))[sol.answer]
        end = Point(float(pts[-1][0]), float(pts[-1][1]))
        assert end.distance(Point(answer_centre)) <= float(CAPTURE) + 1e-9
        for k in range(len(pts) - 1):
            line = LineString([(float(x), float(y)) for x, y in pts[k : k + 2]])
            for c in centres:
                if k == len(pts) - 2 and c == answer_centre:
                    continue
                assert line.distance(Point(c)) >= float(NEAR_MISS) - 1e-9, "path passes near another pocket"


def test_answer_balance():
    letters, places = collections.Counter(), collections.Counter()
    for _, sc in _scenes("medium", 120):
        sol = TASK.solve(sc)
        letters[sol.answer] += 1
        places[pockets(sc["width"], sc["height"]).index(tuple(sol.details["pocket_centre"]))] += 1
    assert letters == {letter: 20 for letter in ORDER}
    assert places == {k: 20 for k in range(6)}, "physical pockets not balanced"


def test_backtrack_reaches_the_pocket():
    rng = random.Random(1)
    hits = 0
    for _ in range(300):
        w, h = 2 * rng.randint(3, 7), rng.randint(4, 6)
        target = rng.randrange(6)
        pocket = pockets(w, h)[target]
        a, b = rng.choice([(1, 1), (1, 2), (2, 1), (2, 3), (3, 1)])
        ex = a if pocket[0] == 0 else -a if pocket[0] == w else a * rng.choice((1, -1))
        ey = b if pocket[1] == 0 else -b
        k = rng.randint(0, 4)
        try:
            start, d = backtrack(w, h, pocket, (ex, ey), k, rng)
        except Reject:
            continue
        assert all(isinstance(c, int) for c in start) and 0 < start[0] < w and 0 < start[1] < h
        path = simulate(w, h, start, d, 10, strict=False)
        # Without the fragility checks the forward path may meet a pocket earlier (another one, or the same one
        # on a periodic path); otherwise it ends in the traced pocket after exactly k bounces.
        assert len(path.walls) <= k
        if len(path.walls) == k:
            assert path.pocket == pocket
            hits += 1
    assert hits > 100


def test_labels_run_around_the_table():
    for idx in range(6):
        for letter in range(6):
            for cw in (True, False):
                labels = label_pockets(idx, letter, cw)
                assert labels[idx] == ORDER[letter] and sorted(labels) == list(ORDER)
                step = -1 if cw else 1
                assert all(ORDER.index(labels[(i + 1) % 6]) == (ORDER.index(labels[i]) + step) % 6 for i in range(6))


def test_corruption_ends_elsewhere():
    for index in range(6):
        inst = TASK.make(index, 7).instance
        desc = inst.meta["corruption"]
        wrong = desc.split("ends in pocket ")[1].split(" ")[0]
        assert wrong != inst.answer and f"instead of {inst.answer}" in desc
        # The corrupted path ends in the wrong pocket, named by its position and never by its letter.
        scene = inst.meta["scene"]
        wrong_at = dict(zip(scene["pocket_labels"], pockets(scene["width"], scene["height"]), strict=True))[wrong]
        last = inst.corrupted_steps[-1].text
        assert f"reaches the pocket at ({wrong_at[0]}, {wrong_at[1]})" in last
        assert not re.search(rf"(?<![A-Za-z]){wrong}(?![A-Za-z])", last)
        # The arrow is misread: the corrupted path leaves the start along the misread direction, not the drawn one.
        misread = desc.split("initial direction read as ")[1].split(" instead")[0]
        assert inst.corrupted_steps[0].text.startswith(f"Segment 1: from the start moving {misread},")
        assert misread != "({}, {})".format(*scene["direction"])


def test_steps_describe_the_path_without_naming_the_pocket():
    for index in range(6):
        inst = TASK.make(index, 3).instance
        details = inst.meta["solution"]["details"]
        centre = details["pocket_centre"]
        # One step per segment; the last one reaches the pocket by its coordinates, with the bounce count.
        assert len(inst.steps) == len(details["walls"]) + 1
        bounces = len(details["walls"])
        assert f"reaches the pocket at ({centre[0]}, {centre[1]}) after {bounces} bounce" in inst.steps[-1].text
        for step in inst.steps:
            assert "Answer" not in step.text
            assert not re.search(rf"(?<![A-Za-z]){inst.answer}(?![A-Za-z])", step.text)


def test_answer_space_is_the_six_pocket_letters():
    # Every preset asks for one of the six drawn pockets: the space is A-F whatever the gold, chance 1/6.
    for difficulty in ("easy", "medium", "hard"):
        inst = get_task("billiards", difficulty=difficulty).make(0, 0, with_corruption=False).instance
        space = answer_space(inst)
        assert space.size == 6 and chance_level(inst) == pytest.approx(1 / 6)
        assert all(space.contains(x) for x in "ABCDEF") and not space.contains("G")


def test_direction_arrow_stays_on_the_table():
    for _, sc in _scenes("hard", 200):
        (x, y), (dx, dy) = sc["start"], sc["direction"]
        assert 0 < x + dx < sc["width"] and 0 < y + dy < sc["height"]
