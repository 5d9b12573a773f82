"""convex_hull: contract, hand-worked scenes, solver invariants (shapely cross-check), rejections, balance."""

from __future__ import annotations

import collections
import random
import re

import pytest
from shapely.geometry import Point, Polygon

from generator_contract import check_generator_contract
from vcot.tasks import get_task
from vcot.tasks.base import Reject
from vcot.tasks.eg.convex_hull import (
    MARKERS,
    area2,
    check_scene,
    convex_hull,
    cross,
    points_of,
    scene_scale,
)

TASK = get_task("convex_hull")


def make_scene(grid: int, count: str, hulls: list[str], sets: dict[str, list[tuple[int, int]]]) -> dict:
    return {
        "grid": grid, "scale_px": scene_scale(grid), "margin_px": 8, "min_region_area": 2,
        "form": "overlap" if len(hulls) == 2 else "hull", "count_colour": count, "hull_colours": hulls,
        "sets": [{"colour": c, "marker": MARKERS[c], "points": [list(p) for p in pts]} for c, pts in sets.items()],
    }


def test_contract():
    check_generator_contract("convex_hull", n=20)


# -- hand-worked ----------------------------------------------------------------------------------------

def test_hand_square_hull():
    # Blue square with corners (0,0),(6,0),(6,6),(0,6) plus an interior blue point (3,3) that is not a vertex.
    # Red (2,2) and (4,4) are strictly inside (0 < x, y < 6); (8,8) and (7,1) have x > 6, outside. Answer 2.
    scene = make_scene(10, "red", ["blue"], {
        "blue": [(0, 0), (6, 0), (6, 6), (0, 6), (3, 3)],
        "red": [(2, 2), (4, 4), (8, 8), (7, 1)],
    })
    check_scene(scene)
    sol = TASK.solve(scene)
    assert sol.answer == "2"
    assert sol.details["hulls"]["blue"] == [[0, 0], [6, 0], [6, 6], [0, 6]]


def test_hand_triangle_hull():
    # Blue triangle (0,0),(8,0),(0,8): inside means x > 0, y > 0, x + y < 8.
    # Red (1,1): 2 < 8 in; (2,5): 7 < 8 in; (5,5): 10 > 8 out; (7,3): 10 > 8 out; (9,1) x > 8 out. Answer 2.
    # Green points take no part. The hypotenuse is 1/sqrt(2) = 0.71 units from (2,5) -> far above the margin.
    scene = make_scene(10, "red", ["blue"], {
        "blue": [(0, 0), (8, 0), (0, 8), (2, 2)],
        "red": [(1, 1), (2, 5), (5, 5), (7, 3), (9, 1)],
        "green": [(3, 3), (9, 9)],
    })
    check_scene(scene)
    assert TASK.solve(scene).answer == "2"


def test_hand_overlap_of_two_squares():
    # Blue square [0,6]^2 and green square [4,10]^2 overlap in the square [4,6]^2.
    # Red (5,5) is inside both; (2,2) only in blue; (8,8) only in green; (12,1) in neither. Answer 1.
    scene = make_scene(12, "red", ["blue", "green"], {
        "blue": [(0, 0), (6, 0), (6, 6), (0, 6)],
        "green": [(4, 4), (10, 4), (10, 10), (4, 10)],
        "red": [(5, 5), (2, 2), (8, 8), (12, 1)],
    })
    check_scene(scene)
    sol = TASK.solve(scene)
    assert sol.answer == "1"
    assert sorted(tuple(v) for v in sol.details["region"]) == [("4", "4"), ("4", "6"), ("6", "4"), ("6", "6")]


def test_hand_overlap_with_fractional_vertices():
    # Blue triangle (0,0),(12,0),(0,7): inside means x > 0, y > 0 and 7x + 12y < 84.
    # Green square [4,10]x[1,6]. The hypotenuse cuts x = 4 at y = 56/12 = 14/3 and x = 10 at y = 14/12 = 7/6,
    # so the overlap has vertices (4,1), (10,1), (10,7/6), (4,14/3).
    # Red (5,2): 35+24 = 59 < 84 in. (8,2): 56+24 = 80 < 84 in (4/sqrt(193) = 0.29 units = 16 px from the
    # hypotenuse). (5,3): 35+36 = 71 in. (6,4): 42+48 = 90 > 84 out. (2,2): x < 4 out. (11,3): x > 10 out.
    # Answer 3.
    scene = make_scene(12, "red", ["blue", "green"], {
        "blue": [(0, 0), (12, 0), (0, 7)],
        "green": [(4, 1), (10, 1), (10, 6), (4, 6)],
        "red": [(5, 2), (8, 2), (5, 3), (6, 4), (2, 2), (11, 3)],
    })
    check_scene(scene)
    sol = TASK.solve(scene)
    assert sol.answer == "3"
    assert sorted(tuple(v) for v in sol.details["region"]) == [("10", "1"), ("10", "7/6"), ("4", "1"),
                                                               ("4", "14/3")]


# -- rejections -----------------------------------------------------------------------------------------

def test_reject_point_near_edge():
    # Edge (0,0)-(10,1); red (9,1) is inside but only 1/sqrt(101) = 0.0995 units = 6.6 px (scale 66) from it.
    scene = make_scene(10, "red", ["blue"], {"blue": [(0, 0), (10, 1), (0, 10)], "red": [(9, 1), (2, 2)]})
    with pytest.raises(Reject, match="margin"):
        check_scene(scene)


def test_reject_point_on_edge():
    scene = make_scene(10, "red", ["blue"], {"blue": [(0, 0), (8, 0), (8, 8), (0, 8)], "red": [(4, 8), (2, 2)]})
    with pytest.raises(Reject):
        check_scene(scene)


def test_reject_collinear_hull_point():
    scene = make_scene(10, "red", ["blue"], {"blue": [(0, 0), (4, 0), (8, 0), (8, 8), (0, 8)],
                                             "red": [(3, 3)]})
    with pytest.raises(Reject, match="collinear"):
        check_scene(scene)


def test_reject_nearly_straight_vertex():
    # (5,1) lies 1/sqrt(85) = 0.108 units = 7.2 px from the line (0,0)-(9,2): a vertex nobody can see.
    scene = make_scene(10, "red", ["blue"], {"blue": [(0, 0), (5, 1), (9, 2), (9, 9), (0, 9)], "red": [(4, 5)]})
    with pytest.raises(Reject, match="nearly collinear"):
        check_scene(scene)


def test_reject_degenerate_hull_and_shared_points():
    flat = make_scene(10, "red", ["blue"], {"blue": [(0, 0), (1, 1), (2, 2)], "red": [(5, 5)]})
    with pytest.raises(Reject, match="degenerate"):
        check_scene(flat)
    shared = make_scene(10, "red", ["blue"], {"blue": [(0, 0), (6, 0), (0, 6)], "red": [(6, 0), (1, 1)]})
    with pytest.raises(Reject, match="same lattice point"):
        check_scene(shared)


def test_reject_disjoint_overlap():
    scene = make_scene(12, "red", ["blue", "green"], {
        "blue": [(0, 0), (4, 0), (0, 4)], "green": [(8, 8), (12, 8), (8, 12)], "red": [(6, 6)]})
    with pytest.raises(Reject, match="region"):
        check_scene(scene)


# -- invariants -----------------------------------------------------------------------------------------

def _scenes(difficulty: str, n: int):
    task = get_task("convex_hull", difficulty=difficulty)
    for s in range(n):
        yield task, task.solved_scene(s, 0)[0]


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty):
    forms = collections.Counter()
    for task, scene in _scenes(difficulty, 200):
        sol = task.solve(scene)
        forms[scene["form"]] += 1
        polys = []
        for colour in scene["hull_colours"]:
            pts = points_of(scene, colour)
            hull = [tuple(v) for v in sol.details["hulls"][colour]]
            assert hull == convex_hull(pts)
            assert all(v in pts for v in hull), "hull vertex not a point of its set"
            n = len(hull)
            assert n >= 3 and area2(hull) > 0, "hull not counter-clockwise / degenerate"
            assert all(cross(hull[i - 1], hull[i], hull[(i + 1) % n]) > 0 for i in range(n)), "not strictly convex"
            assert all(cross(hull[i], hull[(i + 1) % n], p) >= 0 for p in pts for i in range(n)), "point outside"
            polys.append(Polygon(hull))
        region = polys[0] if len(polys) == 1 else polys[0].intersection(polys[1])
        counted = points_of(scene, scene["count_colour"])
        brute = sum(region.contains(Point(p)) for p in counted)
        assert int(sol.answer) == brute
        margin = scene["margin_px"] / scene["scale_px"]
        assert all(region.boundary.distance(Point(p)) >= margin - 1e-9 for p in counted)
        lo, hi = task.config.min_answer, task.config.max_answer
        assert lo <= int(sol.answer) <= hi
    if difficulty != "easy":
        assert forms["overlap"] > 10 and forms["hull"] > 10


def test_answer_balance():
    task = get_task("convex_hull", difficulty="medium")
    lo, hi = task.config.min_answer, task.config.max_answer
    k = hi - lo + 1
    counts = collections.Counter()
    for index in range(14 * k):
        counts[task.solved_scene(index, 0)[1].answer] += 1
    assert counts == {str(v): 14 for v in range(lo, hi + 1)}


def _ringed(text: str) -> list[tuple[int, int]]:
    """The lattice points a count step lists as ringed (none when it says no point is ringed)."""
    if " point is ringed: none " in text:
        return []
    listed = text.split("ringed in black: ")[1]
    return [tuple(map(int, p.split(", "))) for p in re.findall(r"\((-?\d+, -?\d+)\)", listed)]


def test_steps_list_the_ringed_points_without_their_count():
    for index in range(6):
        inst = TASK.make(index, 3).instance
        step2 = inst.steps[-1].text
        inside = [tuple(p) for p in inst.meta["solution"]["details"]["inside_points"]]
        assert _ringed(step2) == inside
        assert "Answer" not in step2 and " of the " not in step2, step2


def test_corruption_changes_count():
    for index in range(6):
        sample = TASK.make(index, 3)
        inst = sample.instance
        assert inst.corrupted_steps, "no corrupted trajectory"
        desc = inst.meta["corruption"]
        wrong = int(desc.split("count ")[1].split(" instead")[0])
        assert wrong != int(inst.answer)
        assert len(_ringed(inst.corrupted_steps[-1].text)) == wrong


def test_answer_space_is_the_configured_count_range():
    # Hard: min_answer..max_answer = 1..8, eight counts; 0 is never generated at hard, 9 is above the range.
    task = get_task("convex_hull", difficulty="hard")
    inst = task.make(0, 5).instance
    space = task.answer_space(inst)
    assert space.size == 8
    assert all(space.contains(str(v)) for v in range(1, 9))
    assert not space.contains("0") and not space.contains("9") and not space.contains("three")
    # Easy: 0..4, five counts, whatever the instance's own answer.
    easy = get_task("convex_hull", difficulty="easy")
    assert easy.answer_space(easy.make(0, 5).instance).size == 5
    samples = {space.sample(random.Random(k)) for k in range(200)}
    assert samples == {str(v) for v in range(1, 9)}
