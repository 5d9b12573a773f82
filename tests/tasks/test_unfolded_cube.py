"""unfolded_cube: the 11 nets, folding by hand, view matching, distractor rejection, balance."""

from __future__ import annotations

import collections
import copy
import random
import re

import pytest
from shapely.affinity import rotate
from shapely.geometry import Polygon

from vcot.draw import drawn_labels
from vcot.engine.chance import answer_space
from vcot.tasks import Reject, get_task
from vcot.tasks.aslp.unfolded_cube import GLYPHS, draw_distractors, net_consistent
from vcot.tasks.common import cube_nets as cn
from vcot.tasks.common.options import only_match

# The standard cross: A on top of the column, B C D E in the row, F below C.
#        A
#      B C D E
#        F
CROSS = [
    ("A", 1, 0, "arrow", "red"),
    ("B", 0, 1, "L", "blue"),
    ("C", 1, 1, "T", "green"),
    ("D", 2, 1, "F", "orange"),
    ("E", 3, 1, "flag", "purple"),
    ("F", 1, 2, "Y", "brown"),
]


def cross_net(rots: dict[str, int] | None = None, mirror: bool = False) -> list[dict]:
    out = []
    for key, col, row, glyph, color in CROSS:
        out.append(
            {
                "col": 3 - col if mirror else col,
                "row": row,
                "glyph": glyph,
                "color": color,
                "rot": (rots or {}).get(key, 0),
            }
        )
    # C first, so that the fold starts from the face the viewer looks at.
    return sorted(out, key=lambda c: c["glyph"] != "T")


def face(glyph: str, color: str, up: list[int]) -> dict:
    return {"glyph": glyph, "color": color, "up": up}


# By hand: with C as the front face (+z, towards the viewer), the cells fold away from the viewer, so
# A becomes the top (+y) with its screen-up now pointing to the back (-z), D the right face (+x) and B the
# left (-x), both upright (+y), E the back (-z) and F the bottom. In the task's view frame (top = +y,
# front-left = +z, front-right = +x) the unturned cube shows A on top (up -z), C front-left (up +y) and
# D front-right (up +y).
VIEW_FRONT = {
    "top": face("arrow", "red", [0, 0, -1]),
    "left": face("T", "green", [0, 1, 0]),
    "right": face("F", "orange", [0, 1, 0]),
}
# Turned a quarter about the vertical axis so that x -> z, z -> -x: D comes to the front-left, E (the back
# face, upright) to the front-right, and A's glyph, which pointed to -z, now points to +x: the right face.
VIEW_TURNED = {
    "top": face("arrow", "red", [1, 0, 0]),
    "left": face("F", "orange", [0, 1, 0]),
    "right": face("flag", "purple", [0, 1, 0]),
}


def test_exactly_eleven_cube_nets_among_35_hexominoes():
    assert len(cn.free_hexominoes()) == 35
    assert len(cn.cube_nets()) == 11


@pytest.mark.parametrize("shape", cn.cube_nets())
def test_each_net_folds_to_a_closed_cube(shape):
    frames = cn.fold_frames(shape)
    assert {f.n for f in frames.values()} == {(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)}
    # Every cube edge is met by exactly two cell edges (one from each of its faces).
    edges = collections.Counter()
    for f in frames.values():
        for d in cn.NEIGHBOURS:
            edges[frozenset((f.n, f.edge_normal(d)))] += 1
    assert len(edges) == 12 and set(edges.values()) == {2}
    # Net-adjacent cells meet along their shared edge; the 14 free edges glue in 7 pairs.
    cells = set(frames)
    free = 0
    for c, f in frames.items():
        for d in cn.NEIGHBOURS:
            nb = (c[0] + d[0], c[1] + d[1])
            if nb in cells:
                assert frames[nb].n == f.edge_normal(d)
            else:
                free += 1
    assert free == 14


def test_shapes_that_are_not_nets_are_refused():
    with pytest.raises(cn.NotACubeNet):
        cn.fold_frames([(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)])  # a strip of six wraps onto itself
    with pytest.raises(cn.NotACubeNet):
        cn.fold_frames([(0, 0), (1, 0), (0, 1), (1, 1), (2, 1), (3, 1)])  # contains a 2x2 block


def test_cross_net_opposite_faces_by_hand():
    cube = cn.net_to_cube(cross_net())
    normal = {f.glyph: n for n, f in cube.items()}
    # In the cross, A/F, B/D and C/E are opposite.
    assert normal["arrow"] == cn.neg(normal["Y"])
    assert normal["L"] == cn.neg(normal["F"])
    assert normal["T"] == cn.neg(normal["flag"])
    assert normal["T"] == (0, 0, 1) and normal["arrow"] == (0, 1, 0) and normal["F"] == (1, 0, 0)
    assert cube[(0, 1, 0)].up == (0, 0, -1)


def test_glyphs_have_no_rotational_symmetry():
    for name, pts in GLYPHS.items():
        poly = Polygon(pts)
        assert poly.is_valid, name
        for angle in (90, 180, 270):
            turned = rotate(poly, angle, origin=(0, 0))
            overlap = poly.intersection(turned).area / poly.union(turned).area
            assert overlap < 0.9, f"{name} looks the same turned by {angle}"


def test_rotated_view_accepted_and_mirrored_rejected():
    cube = cn.net_to_cube(cross_net())
    assert cn.view_matches(cube, cn.view_from_json(VIEW_FRONT)) is not None
    assert cn.view_matches(cube, cn.view_from_json(VIEW_TURNED)) is not None
    assert net_consistent(cross_net(mirror=True), [cn.view_from_json(VIEW_FRONT)]) is False
    swapped = dict(VIEW_FRONT, left=VIEW_FRONT["right"], right=VIEW_FRONT["left"])  # mirror image corner
    assert cn.view_matches(cube, cn.view_from_json(swapped)) is None


def test_hand_instance_net_form():
    task = get_task("unfolded_cube")
    scene = {
        "form": "net",
        "views": [VIEW_FRONT],
        "colored": True,
        "glyph_kinds": sorted(GLYPHS),
        "nets": [
            cross_net(),  # correct
            cross_net(rots={"D": 1}),  # the right face's glyph turned a quarter
            [
                dict(c, glyph="Y", color="brown")
                if c["glyph"] == "arrow"
                else dict(c, glyph="arrow", color="red")
                if c["glyph"] == "Y"
                else c
                for c in cross_net()
            ],
            cross_net(mirror=True),
        ],  # the mirror image
        "candidate_kinds": ["correct", "turn", "swap", "mirror"],
    }
    # Only net A shows A on top pointing back, C front-left and D front-right, all as drawn: answer A.
    sol = task.solve(scene)
    assert sol.answer == "A"
    assert sol.details["consistent"] == [True, False, False, False]
    # The solver's account of each option, read off the best alignment with the answer's cube.
    assert sol.details["candidate_kinds"] == ["correct", "turn", "swap", "mirror"]
    corr = sol.details["correspondence"][0]["cells"]
    assert corr == {"top": [1, 0], "left": [1, 1], "right": [2, 1]}


def test_hand_instance_view_form():
    task = get_task("unfolded_cube")
    # C (T) and E (flag) are opposite faces, so they are never visible together.
    opposite = dict(VIEW_TURNED, left=face("flag", "purple", [0, 1, 0]), right=face("T", "green", [0, 1, 0]))
    turned_glyph = dict(VIEW_TURNED, left=face("F", "orange", [-1, 0, 0]))
    mirrored = dict(VIEW_TURNED, left=VIEW_TURNED["right"], right=VIEW_TURNED["left"])
    scene = {
        "form": "view",
        "net": cross_net(),
        "colored": True,
        "glyph_kinds": sorted(GLYPHS),
        "candidate_views": [opposite, turned_glyph, VIEW_TURNED, mirrored],
    }
    # The turned pose worked out above is view C; the others break adjacency, orientation or handedness.
    assert task.solve(scene).answer == "C"


def test_hand_instance_two_views():
    task = get_task("unfolded_cube")
    scene = {
        "form": "net",
        "views": [VIEW_FRONT, VIEW_TURNED],
        "colored": True,
        "glyph_kinds": sorted(GLYPHS),
        # B and E swapped: consistent with the front view (neither visible) but not with the turned one.
        "nets": [
            [
                dict(c, glyph="flag", color="purple")
                if c["glyph"] == "L"
                else dict(c, glyph="L", color="blue")
                if c["glyph"] == "flag"
                else c
                for c in cross_net()
            ],
            cross_net(rots={"A": 2}),
            cross_net(mirror=True),
            cross_net(),
        ],
    }
    assert net_consistent(scene["nets"][0], [cn.view_from_json(VIEW_FRONT)])
    assert task.solve(scene).answer == "D"


def test_two_consistent_candidates_rejected():
    task = get_task("unfolded_cube")
    scene = {
        "form": "net",
        "views": [VIEW_FRONT],
        "colored": True,
        "glyph_kinds": sorted(GLYPHS),
        "nets": [
            cross_net(),
            cross_net(rots={"E": 1}),  # E is hidden: still consistent
            cross_net(rots={"D": 1}),
            cross_net(mirror=True),
        ],
    }
    with pytest.raises(Reject):
        task.solve(scene)
    with pytest.raises(Reject):
        only_match([False, False, False, False], bool)


def _sample(task, index: int, seed: int = 0):
    return task.solved_scene(index, seed)[0]


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants_on_many_seeds(difficulty):
    task = get_task("unfolded_cube", difficulty=difficulty)
    for i in range(48):
        scene = _sample(task, i, seed=7)
        sol = task.solve(copy.deepcopy(scene))
        k = "ABCD".index(sol.answer)
        assert "candidate_kinds" not in scene  # the scene poses the problem; the labels are the solver's
        assert sol.details["candidate_kinds"][k] == "correct"
        assert sol.details["candidate_kinds"].count("correct") == 1
        assert sum(sol.details["consistent"]) == 1
        if scene["form"] == "net":
            views = [cn.view_from_json(v) for v in scene["views"]]
            cubes = [cn.net_to_cube(n) for n in scene["nets"]]
            for j, cube in enumerate(cubes):
                assert net_consistent(scene["nets"][j], views) == (j == k)
                for other in cubes[j + 1 :]:
                    assert not cn.cubes_equivalent(cube, other)
        else:
            cube = cn.net_to_cube(scene["net"])
            views = [cn.view_from_json(v) for v in scene["candidate_views"]]
            for j, v in enumerate(views):
                assert (cn.view_matches(cube, v) is not None) == (j == k)
                for w in views[j + 1 :]:
                    assert not cn.views_equivalent(v, w)


def test_answer_balance():
    task = get_task("unfolded_cube")
    counts = collections.Counter()
    for i in range(40):
        scene = _sample(task, i, seed=3)
        counts[task.solve(scene).answer] += 1
    assert counts == {"A": 10, "B": 10, "C": 10, "D": 10}


def test_distractors_are_impossible_distinct_and_first_tried_in_three_kinds() -> None:
    # Candidates are numbers; a change of kind k adds shift[k] + 10 * (a random digit); 0 mod 3 is "possible".
    rng = random.Random(5)
    shift = {"a": 1, "b": 2, "c": 4, "d": 5}

    def modified(base: int, kind: str) -> int:
        return base + shift[kind] + 10 * rng.randrange(10)

    def same(u: int, v: int) -> bool:
        return u == v

    first_tries = draw_distractors(rng, 0, list(shift), lambda b, kind: b + shift[kind], lambda v: False, same, "none")
    assert len({kind for _, kind in first_tries}) == 3
    out = draw_distractors(rng, 0, list(shift), modified, lambda v: v % 3 == 0, same, "none")
    assert len(out) == 3 and len({v for v, _ in out}) == 3
    assert all(v % 3 and v % 10 == shift[kind] for v, kind in out)
    with pytest.raises(Reject):
        draw_distractors(rng, 0, list(shift), modified, lambda v: True, same, "none")
    # Around another hub, avoiding options already chosen: two changes of 1000, never equal to 1000 or to 0.
    around = draw_distractors(
        rng, 1000, list(shift), modified, lambda v: False, same, "none", count=2, chosen=[0, 1000]
    )
    assert len(around) == 2 and all(1000 < v < 1100 for v, _ in around)


def test_hand_step_text_describes_the_cells_without_the_letter():
    task = get_task("unfolded_cube")
    scene = {
        "form": "net",
        "views": [VIEW_FRONT],
        "colored": True,
        "glyph_kinds": sorted(GLYPHS),
        "nets": [cross_net(), cross_net(rots={"D": 1}), cross_net(rots={"A": 2}), cross_net(mirror=True)],
    }
    sol = task.solve(scene)
    assert sol.answer == "A"
    ((image, text),) = task.render(scene, sol).steps
    # Worked above: A (column 2, row 1, upright in the net) is the top face pointing back (-z), which the view
    # shows as its back-right edge; C (column 2, row 2) is front-left and D (column 3, row 2) front-right,
    # both upright, pointing at the top face.
    assert (
        "the net cell in column 2, row 1 (red arrow, its top pointing up in the net) becomes the top face, "
        "the top of its glyph pointing toward its back-right edge"
    ) in text
    assert "column 2, row 2 (green letter T, its top pointing up in the net) becomes the front-left face" in text
    assert "column 3, row 2 (orange letter F, its top pointing up in the net) becomes the front-right face" in text
    # The right net is net A, and the step names no option letter.
    assert not re.search(r"(?<![A-Za-z])[A-D](?![A-Za-z])", text)
    assert "net:" in " ".join(drawn_labels(image))
    # Corrupted: a wrong net taken for the answer. Net B (the F cell turned a quarter) folds into a cube whose
    # closest pose to the view is the unturned one: the same top and front-left faces, and the F on the
    # front-right face pointing (like its cell, turned from up to left in the net) toward the front-left face.
    bad = _corruption_of(task, scene, sol, "net B")
    ((bad_image, bad_text),) = bad.steps
    assert bad.description.startswith("net B (turn)")
    assert (
        "the net cell in column 3, row 2 (orange letter F, its top pointing left in the net) becomes the "
        "front-right face, the top of its glyph pointing toward the front-left face"
    ) in bad_text
    assert bad_text.split("; the net cell in column 3")[0] == text.split("; the net cell in column 3")[0]
    assert bad_text != text and not re.search(r"(?<![A-Za-z])[A-D](?![A-Za-z])", bad_text)


def _corruption_of(task, scene, sol, prefix: str):
    """The corruption whose description starts with `prefix`, over a few corruption seeds."""
    for seed in range(40):
        bad = task.corrupt(scene, sol, random.Random(seed))
        if bad is not None and bad.description.startswith(prefix):
            return bad
    raise AssertionError(f"no corruption starts with {prefix!r}")


def test_corrupted_view_form_shows_the_misread_net():
    # The view form of test_hand_instance_view_form: view B is the right view with the front-left F turned to
    # point at the outer left edge. The corruption misreads the net so that it folds into view B: only the F
    # cell (column 3, row 2) is redrawn, its top turned from up to left in the net; its text says so.
    task = get_task("unfolded_cube")
    scene = {
        "form": "view",
        "net": cross_net(),
        "colored": True,
        "glyph_kinds": sorted(GLYPHS),
        "candidate_views": [
            dict(VIEW_TURNED, left=VIEW_TURNED["right"], right=VIEW_TURNED["left"]),
            dict(VIEW_TURNED, left=face("F", "orange", [-1, 0, 0])),
            VIEW_TURNED,
            dict(VIEW_TURNED, left=face("flag", "purple", [0, 1, 0]), right=face("T", "green", [0, 1, 0])),
        ],
    }
    sol = task.solve(scene)
    assert sol.answer == "C" and sol.details["candidate_kinds"][1] == "turn"
    ((_, text),) = task.render(scene, sol).steps
    bad = _corruption_of(
        task, scene, sol, "the net is misread (1 of its cells drawn otherwise) so that it folds into view B"
    )
    ((_, bad_text),) = bad.steps
    assert "column 3, row 2 (orange letter F, its top pointing up in the net) becomes the front-left face" in text
    assert (
        "column 3, row 2 (orange letter F, its top pointing left in the net) becomes the front-left face, the "
        "top of its glyph pointing toward its outer left edge"
    ) in bad_text


@pytest.mark.parametrize("difficulty", ["easy", "hard"])
def test_corrupted_steps_describe_their_own_pictures(difficulty):
    # Each corrupted step's text names, for every tinted cell, the mark and the net direction of a cell of the
    # net it was drawn from: in the net form a wrong option's net, so the texts differ from the right ones.
    task = get_task("unfolded_cube", difficulty=difficulty)
    cell_re = re.compile(r"column (\d), row (\d) \((?:(\w+) )?(arrow|letter \w|flag), its top pointing (\w+)")
    words = {"arrow": "arrow", "letter L": "L", "letter T": "T", "letter F": "F", "flag": "flag", "letter Y": "Y"}
    directions = ("up", "left", "down", "right")
    for i in range(6):
        sample = task.make(i, 2)
        inst, scene = sample.instance, sample.instance.meta["scene"]
        assert [s.text for s in inst.corrupted_steps] != [s.text for s in inst.steps]
        if scene["form"] != "net":
            continue
        letter = inst.meta["corruption"].split()[1]
        assert letter != inst.answer
        net = {(c["col"], c["row"]): c for c in scene["nets"]["ABCD".index(letter)]}
        for step in inst.corrupted_steps:
            found = cell_re.findall(step.text)
            assert len(found) == 3
            for col, row, colour, glyph, pointing in found:
                cell = net[(int(col) - 1, int(row) - 1)]
                assert cell["glyph"] == words[glyph] and directions[cell["rot"] % 4] == pointing
                assert not scene["colored"] or cell["color"] == colour


def test_glyphs_are_large_enough_to_read_their_orientation():
    # Every glyph, at every turn, spans at least 45 % of its net cell or view face and at least 45 px, in the
    # input pictures and in the steps.
    from vcot.tasks.aslp.unfolded_cube import NET_CELL, VIEW_SIZE, glyph_in_cell, glyph_on_face

    for where, cell in NET_CELL.items():
        for glyph in GLYPHS:
            for rot in range(4):
                pts = glyph_in_cell((0, 0), cell / 2, glyph, rot)
                span = max(max(p[k] for p in pts) - min(p[k] for p in pts) for k in (0, 1))
                assert span >= max(45, 0.45 * cell), (where, glyph, rot, span)
    for where, s in VIEW_SIZE.items():
        edge = 2 * s  # a face's edge, drawn isometrically at full length
        for name, n in cn.VIEW_NORMALS.items():
            for up in [v for v in cn.VIEW_NORMALS.values() if v != n] + [
                cn.neg(v) for v in cn.VIEW_NORMALS.values() if v != n
            ]:
                for glyph in GLYPHS:
                    poly = Polygon(glyph_on_face((0, 0), s, n, cn.Face(glyph, "red", up)))
                    x0, y0, x1, y1 = poly.bounds
                    assert max(x1 - x0, y1 - y0) >= max(45, 0.45 * edge), (where, name, up, glyph)


def test_answer_is_the_option_most_like_the_others_only_as_often_as_a_guess():
    # With the audit's own cue (analysis/shortcuts/unfolded_cube.py): over each block of four indices the answer
    # is the unique most alike option once and the unique least alike option once.
    from types import SimpleNamespace

    from vcot.analysis.shortcuts.unfolded_cube import _candidates, _likeness

    task = get_task("unfolded_cube", difficulty="medium")
    most = least = 0
    for i in range(8):
        scene, sol = task.solved_scene(i, 4)
        cands = _candidates(SimpleNamespace(meta={"scene": scene}))
        like = [_likeness(cands, j) for j in range(4)]
        k = "ABCD".index(sol.answer)
        most += like[k] == max(like) and like.count(max(like)) == 1
        least += like[k] == min(like) and like.count(min(like)) == 1
        assert not (like[k] == max(like) and like.count(max(like)) > 1)
    assert (most, least) == (2, 2)


def test_answer_space_is_the_four_option_letters():
    # Four nets or four views, A-D, at every preset: the base default space, size 4.
    for difficulty in ("easy", "hard"):
        inst = get_task("unfolded_cube", difficulty=difficulty).make(3, 1).instance
        space = answer_space(inst)
        assert space.size == 4
        assert all(space.contains(x) for x in "ABCD") and not space.contains("E")
        assert {space.sample(random.Random(k)) for k in range(100)} == set("ABCD")
