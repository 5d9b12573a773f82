"""convex_hull: contract, hand-worked scenes, solver invariants (shapely cross-check), rejections, balance."""

from __future__ import annotations

import collections
import dataclasses
import random
import re
import types

import numpy as np
import pytest
from scipy.ndimage import distance_transform_edt
from shapely.geometry import Point, Polygon

from vcot.draw.canvas import Canvas
from vcot.tasks import get_task
from vcot.tasks.base import ParameterError, Reject
from vcot.tasks.eg.convex_hull import (
    CANVAS,
    EDGE_WIDTH,
    MARKER_REACH,
    MARKERS,
    MIN_MARGIN_PX,
    PLOT_LO,
    _marker,
    area2,
    bounding_box,
    check_scene,
    convex_hull,
    cross,
    points_of,
    region_of,
    scene_scale,
)

TASK = get_task("convex_hull")


def make_scene(
    grid: int, count: str, hulls: list[str], sets: dict[str, list[tuple[int, int]]], margin: int = MIN_MARGIN_PX
) -> dict:
    return {
        "grid": grid,
        "scale_px": scene_scale(grid),
        "margin_px": margin,
        "min_region_area": 2,
        "form": "overlap" if len(hulls) == 2 else "hull",
        "count_colour": count,
        "hull_colours": hulls,
        "sets": [{"colour": c, "marker": MARKERS[c], "points": [list(p) for p in pts]} for c, pts in sets.items()],
    }


# -- hand-worked ----------------------------------------------------------------------------------------


def test_hand_square_hull():
    # Blue square with corners (0,0),(6,0),(6,6),(0,6) plus an interior blue point (3,3) that is not a vertex.
    # Red (2,2) and (4,4) are strictly inside (0 < x, y < 6); (8,8) and (7,1) have x > 6, outside. Answer 2.
    scene = make_scene(
        10,
        "red",
        ["blue"],
        {
            "blue": [(0, 0), (6, 0), (6, 6), (0, 6), (3, 3)],
            "red": [(2, 2), (4, 4), (8, 8), (7, 1)],
        },
    )
    check_scene(scene)
    sol = TASK.solve(scene)
    assert sol.answer == "2"
    assert sol.details["hulls"]["blue"] == [[0, 0], [6, 0], [6, 6], [0, 6]]


def test_hand_triangle_hull():
    # Blue triangle (0,0),(8,0),(0,8): inside means x > 0, y > 0, x + y < 8.
    # Red (1,1): 2 < 8 in; (2,5): 7 < 8 in; (5,5): 10 > 8 out; (7,3): 10 > 8 out; (9,1) x > 8 out. Answer 2.
    # Green points take no part. The hypotenuse is 1/sqrt(2) = 0.71 units from (2,5) -> far above the margin.
    scene = make_scene(
        10,
        "red",
        ["blue"],
        {
            "blue": [(0, 0), (8, 0), (0, 8), (2, 2)],
            "red": [(1, 1), (2, 5), (5, 5), (7, 3), (9, 1)],
            "green": [(3, 3), (9, 9)],
        },
    )
    check_scene(scene)
    assert TASK.solve(scene).answer == "2"


def test_hand_overlap_of_two_squares():
    # Blue square [0,6]^2 and green square [4,10]^2 overlap in the square [4,6]^2.
    # Red (5,5) is inside both; (2,2) only in blue; (8,8) only in green; (12,1) in neither. Answer 1.
    scene = make_scene(
        12,
        "red",
        ["blue", "green"],
        {
            "blue": [(0, 0), (6, 0), (6, 6), (0, 6)],
            "green": [(4, 4), (10, 4), (10, 10), (4, 10)],
            "red": [(5, 5), (2, 2), (8, 8), (12, 1)],
        },
    )
    check_scene(scene)
    sol = TASK.solve(scene)
    assert sol.answer == "1"
    assert sorted(tuple(v) for v in sol.details["region"]) == [("4", "4"), ("4", "6"), ("6", "4"), ("6", "6")]


def test_hand_overlap_with_fractional_vertices():
    # Blue triangle (0,0),(12,0),(0,7): inside means x > 0, y > 0 and 7x + 12y < 84.
    # Green square [4,10]x[1,6]. The hypotenuse cuts x = 4 at y = 56/12 = 14/3 and x = 10 at y = 14/12 = 7/6,
    # so the overlap has vertices (4,1), (10,1), (10,7/6), (4,14/3).
    # Red (5,2): 35+24 = 59 < 84 in. (7,2): 49+24 = 73 < 84 in (11/sqrt(193) = 0.79 units = 44 px from the
    # hypotenuse). (5,3): 35+36 = 71 in. (6,4): 42+48 = 90 > 84 out (6/sqrt(193) = 0.43 units = 24 px beyond it).
    # (2,2): x < 4 out. (11,3): x > 10 out. Answer 3.
    scene = make_scene(
        12,
        "red",
        ["blue", "green"],
        {
            "blue": [(0, 0), (12, 0), (0, 7)],
            "green": [(4, 1), (10, 1), (10, 6), (4, 6)],
            "red": [(5, 2), (7, 2), (5, 3), (6, 4), (2, 2), (11, 3)],
        },
    )
    check_scene(scene)
    sol = TASK.solve(scene)
    assert sol.answer == "3"
    assert sorted(tuple(v) for v in sol.details["region"]) == [("10", "1"), ("10", "7/6"), ("4", "1"), ("4", "14/3")]


# -- rejections -----------------------------------------------------------------------------------------


def test_reject_point_near_edge():
    # Edge (0,0)-(10,1); red (9,1) is inside but only 1/sqrt(101) = 0.0995 units = 6.6 px (scale 66) from it.
    scene = make_scene(10, "red", ["blue"], {"blue": [(0, 0), (10, 1), (0, 10)], "red": [(9, 1), (2, 2)]})
    with pytest.raises(Reject, match="margin"):
        check_scene(scene)


def test_margin_clears_the_marker():
    # Edge (0,0)-(10,2): red (4,1) is inside, |2*4 - 10*1| / sqrt(104) = 0.196 units = 12.9 px (scale 66) from it.
    # A marker reaches up to 10.6 px and the drawn edge 1.5 px, so at 12.9 px the two nearly touch: the old 8 px
    # margin let it through, the default margin (16 px) rejects it.
    sets = {"blue": [(0, 0), (10, 2), (0, 10)], "red": [(4, 1), (2, 5)]}
    check_scene(make_scene(10, "red", ["blue"], sets, margin=8))
    with pytest.raises(Reject, match="margin"):
        check_scene(make_scene(10, "red", ["blue"], sets))
    assert MIN_MARGIN_PX >= MARKER_REACH + EDGE_WIDTH / 2 + 3
    assert TASK.config.margin_px >= MIN_MARGIN_PX


def _ink(draw) -> np.ndarray:
    """Mask of the pixels a drawing function marks clearly (anti-aliased fringes left out)."""
    c = Canvas(CANVAS, CANVAS)
    draw(c)
    return np.asarray(c.image().convert("L")) < 200


def _pixel_gap(scene: dict) -> float:
    """The smallest distance in pixels between a counted marker's drawn pixels and the drawn boundary of the
    counted region, rasterised with the generator's own marker and edge drawing."""
    hulls = [convex_hull(points_of(scene, c)) for c in scene["hull_colours"]]
    region = region_of(hulls)
    scale = scene["scale_px"]

    def px(p):
        return (PLOT_LO + float(p[0]) * scale, CANVAS - PLOT_LO - float(p[1]) * scale)

    def markers(c: Canvas) -> None:
        for p in points_of(scene, scene["count_colour"]):
            _marker(c, px(p), "black", MARKERS[scene["count_colour"]])

    edge = _ink(lambda c: c.polygon([px(v) for v in region], fill=None, outline="black", width=EDGE_WIDTH))
    to_edge = distance_transform_edt(~edge)  # each pixel's distance to the nearest edge pixel
    return float(to_edge[_ink(markers)].min())


def test_counted_markers_clear_of_the_drawn_boundary():
    # Rendered geometry: the old 8 px margin lets a marker touch the edge (the scene above), the default keeps
    # a visible gap for every counted marker of generated scenes, whatever its shape.
    # Red (6,1) lies |6 - 7| / sqrt(50) = 0.141 units = 9.3 px inside the edge (0,0)-(7,1): the old margin passes
    # it, and its circle (or a blue square in its place) runs into the drawn edge.
    for count, hull in (("red", "blue"), ("blue", "red")):
        touching = make_scene(10, count, [hull], {hull: [(0, 0), (7, 1), (0, 10)], count: [(6, 1), (2, 5)]}, margin=8)
        check_scene(touching)
        assert _pixel_gap(touching) < 1
    gaps = []
    for difficulty in ("easy", "medium", "hard"):
        task = get_task("convex_hull", difficulty=difficulty)
        for index in range(8):
            gaps.append(_pixel_gap(task.solved_scene(index, 11)[0]))
    assert min(gaps) >= 3, gaps


def test_reject_point_on_edge():
    scene = make_scene(10, "red", ["blue"], {"blue": [(0, 0), (8, 0), (8, 8), (0, 8)], "red": [(4, 8), (2, 2)]})
    with pytest.raises(Reject):
        check_scene(scene)


def test_reject_collinear_hull_point():
    scene = make_scene(10, "red", ["blue"], {"blue": [(0, 0), (4, 0), (8, 0), (8, 8), (0, 8)], "red": [(3, 3)]})
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
    scene = make_scene(
        12,
        "red",
        ["blue", "green"],
        {"blue": [(0, 0), (4, 0), (0, 4)], "green": [(8, 8), (12, 8), (8, 12)], "red": [(6, 6)]},
    )
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
    # The form is fixed per index (never redrawn on a rejected attempt), so the realised share is the configured
    # one: exactly, over whole blocks of 100 indices.
    assert abs(forms["overlap"] / 200 - task.config.overlap_prob) <= 0.03, forms


def test_counted_points_say_nothing_about_the_count():
    # How many counted points there are, and how many lie inside the hull colours' bounding box, are drawn
    # independently of the count, so the shortcut cues of analysis/shortcuts/convex_hull have nothing to read.
    task = get_task("convex_hull", difficulty="medium")
    cfg = task.config
    in_box_by_count: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    for index in range(70):
        scene, sol = task.solved_scene(index, 2)
        counted = points_of(scene, scene["count_colour"])
        x0, y0, x1, y1 = bounding_box([points_of(scene, c) for c in scene["hull_colours"]])
        in_box = sum(x0 < x < x1 and y0 < y < y1 for x, y in counted)
        assert cfg.max_answer <= in_box <= cfg.max_answer + cfg.box_extra
        assert cfg.min_far <= len(counted) - in_box <= cfg.max_far
        in_box_by_count[int(sol.answer)][in_box] += 1
    # Every count (10 instances each) meets in-box totals from across the range, not one tied to the count.
    assert all(len(c) >= 2 for c in in_box_by_count.values()), in_box_by_count


def test_shortcut_heuristics_read_the_scene():
    from vcot.analysis.shortcuts.convex_hull import HEURISTICS

    scene = make_scene(
        10,
        "red",
        ["blue"],
        {
            "blue": [(0, 0), (6, 0), (6, 6), (0, 6), (3, 3)],
            "red": [(2, 2), (4, 4), (8, 8), (7, 1), (5, 3)],
        },
    )
    inst = types.SimpleNamespace(
        meta={"scene": scene, "generator": {"params": dataclasses.asdict(TASK.config)}}, uid="x"
    )
    guesses = {name: fn(inst) for name, fn in HEURISTICS}
    # 5 red points, of which 3 lie strictly inside the box 0 < x, y < 6 and 3 in the middle half 2.5..7.5.
    assert guesses["counted points in the hull colours' bounding box"] == "3"
    assert guesses["counted points in the middle half"] == "2"
    assert guesses["half the counted points"] == "2"
    # Medium: typical total 6 + 1.5 + 3 = 10.5, typical count 3, so 7.5 outside: 5 - 7.5 clamps to 0.
    assert guesses["counted points minus typical outside"] == "0"


def test_parameter_limits():
    with pytest.raises(ParameterError, match="grid"):
        get_task("convex_hull", grid=100000)
    with pytest.raises(ParameterError, match="n_colours"):
        get_task("convex_hull", difficulty="easy", overlap_prob=0.5)
    with pytest.raises(ParameterError, match="4 \\* grid - 30"):
        get_task("convex_hull", grid=10, max_answer=8)
    with pytest.raises(ParameterError, match="margin_px"):
        get_task("convex_hull", margin_px=8)
    for difficulty in ("easy", "medium", "hard"):
        get_task("convex_hull", difficulty=difficulty)


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
    if " point is ringed in thin grey: none " in text:
        return []
    listed = text.split("ringed in thick black: ")[1].split(";")[0]
    return [tuple(map(int, p.split(", "))) for p in re.findall(r"\((-?\d+, -?\d+)\)", listed)]


def test_steps_list_the_ringed_points_without_their_count():
    for index in range(6):
        inst = TASK.make(index, 3).instance
        step2 = inst.steps[-1].text
        inside = [tuple(p) for p in inst.meta["solution"]["details"]["inside_points"]]
        assert _ringed(step2) == inside
        assert "Answer" not in step2 and " of the " not in step2, step2


def test_the_counting_step_always_adds_to_the_hull_step():
    # Every counted point is ringed (thick black inside, thin grey outside), so the second picture differs
    # from the first even when nothing is inside (up to version 3 it could repeat it).
    for difficulty in ("easy", "medium"):
        task = get_task("convex_hull", difficulty=difficulty)
        for index in range(12):
            sample = task.make(index, 0)
            first, last = (sample.images[s.image] for s in sample.instance.steps[-2:])
            assert first.tobytes() != last.tobytes(), (difficulty, index)


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
