"""defuse_a_bomb: hand-traced boards, geometry rejections, evidence tracing on many seeds, balance."""

from __future__ import annotations

import collections
import copy
import re

import pytest

from vcot.draw import drawn_labels
from vcot.engine.chance import answer_space, chance_level
from vcot.tasks import Reject, get_task
from vcot.tasks.aslp.defuse_a_bomb import (
    Q,
    check_geometry,
    panels_from_scene,
    trace,
    visible_pieces,
    wire_points,
)

# Board 7 x 5 with one panel over x 2.5..4.5, y 0.5..4.5 (rows grow downward).
# Wire A runs on the diagonal y = x - 1 through the panel: rows 0,0,1,2,3,4,4,4.
# Wire B runs on y = 6 - x through the panel: rows 4,4,4,3,2,1,1,1. A and B cross at (3.5, 2.5), hidden.
# Wire C stays on row 5 below the panel.
# Final rows: A 4, B 1, C 5 -> terminals numbered top to bottom: 1 = row 1 (B), 2 = row 4 (A), 3 = row 5 (C).
# A enters the panel at (2.5, 1.5) heading southeast; continuing straight it leaves at (4.5, 3.5), where the
# piece running to terminal 2 starts. (Someone who keeps the height would pick B's exit at (4.5, 1.5).)
BASE = {
    "width": 7,
    "height": 5,
    "same_color": True,
    "panels": [{"x0": 2.5, "y0": 0.5, "x1": 4.5, "y1": 4.5}],
    "wires": [
        {"label": "A", "color": "black", "rows": [0, 0, 1, 2, 3, 4, 4, 4]},
        {"label": "B", "color": "black", "rows": [4, 4, 4, 3, 2, 1, 1, 1]},
        {"label": "C", "color": "black", "rows": [5, 5, 5, 5, 5, 5, 5, 5]},
    ],
    "terminals": [{"number": 1, "row": 1}, {"number": 2, "row": 4}, {"number": 3, "row": 5}],
    "detonator": 2,
}


def scene_with(**changes) -> dict:
    s = copy.deepcopy(BASE)
    s.update(changes)
    return s


def test_hand_detonator_on_terminal_2_is_wire_a():
    task = get_task("defuse_a_bomb")
    sol = task.solve(scene_with(detonator=2))
    assert sol.answer == "A"
    hidden = [p["hidden"] for p in sol.details["trace"] if "hidden" in p]
    assert hidden == [[[10, 6], [18, 14]]]  # (2.5, 1.5) -> (4.5, 3.5) in quad units


def test_hand_detonator_on_terminal_1_is_wire_b():
    # B enters at (2.5, 3.5) heading northeast and leaves at (4.5, 1.5): terminal 1.
    assert get_task("defuse_a_bomb").solve(scene_with(detonator=1)).answer == "B"


def test_hand_detonator_on_terminal_3_is_wire_c():
    # C never meets the panel and runs straight to terminal 3.
    assert get_task("defuse_a_bomb").solve(scene_with(detonator=3)).answer == "C"


def test_visible_pieces_are_cut_at_the_panel():
    pieces = visible_pieces(BASE)
    assert len(pieces) == 5  # A and B in two pieces each, C whole
    assert [(0, 0), (2, 0), (4, 0), (6, 2), (8, 4), (10, 6)] in pieces


def test_bend_under_panel_rejected():
    bad = scene_with(wires=[dict(BASE["wires"][0], rows=[0, 0, 1, 2, 3, 3, 3, 3]), BASE["wires"][1], BASE["wires"][2]])
    with pytest.raises(Reject, match="bends under a panel"):
        check_geometry(bad)


def test_shared_grid_point_rejected():
    bad = scene_with(wires=[BASE["wires"][0], dict(BASE["wires"][1], rows=[4, 4, 4, 3, 3, 2, 1, 1]), BASE["wires"][2]])
    with pytest.raises(Reject):
        check_geometry(bad)


def test_crossing_on_panel_edge_rejected():
    # Panel moved so that its left edge x = 3.5 passes through the hidden crossing at (3.5, 2.5).
    bad = scene_with(panels=[{"x0": 3.5, "y0": 0.5, "x1": 5.5, "y1": 4.5}])
    with pytest.raises(Reject):
        check_geometry(bad)


def test_corner_graze_rejected():
    # Wire A's diagonal y = x - 1 passes exactly through the corner (4.5, 3.5) of this panel.
    bad = scene_with(panels=[{"x0": 2.5, "y0": 0.5, "x1": 4.5, "y1": 3.5}])
    with pytest.raises(Reject, match="corner"):
        check_geometry(bad)


def test_missing_continuation_rejected():
    # If the evidence had no piece where the straight continuation leaves, tracing must refuse.
    pieces = [p for p in visible_pieces(BASE) if p[0] != (18, 14)]
    with pytest.raises(Reject):
        trace(BASE, pieces, (0, 0))


def _sample(task, index: int, seed: int = 0):
    return task.solved_scene(index, seed)[0]


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants_on_many_seeds(difficulty):
    task = get_task("defuse_a_bomb", difficulty=difficulty)
    for i in range(150):
        scene = _sample(task, i, seed=11)
        check_geometry(scene)
        pieces = visible_pieces(scene)
        panels = panels_from_scene(scene)
        # The evidence trace of every wire ends where the wire really ends.
        for w in scene["wires"]:
            passages = trace(scene, pieces, (0, w["rows"][0] * Q))
            assert passages[-1]["points"][-1] == [scene["width"] * Q, w["rows"][-1] * Q]
        ans = task.solve(scene).answer
        wire = next(w for w in scene["wires"] if w["label"] == ans)
        det_row = next(t["row"] for t in scene["terminals"] if t["number"] == scene["detonator"])
        assert wire["rows"][-1] == det_row
        assert sum(w["rows"][-1] == det_row for w in scene["wires"]) == 1
        # The answer wire passes under a panel, and every panel hides at least two wires.
        pts = wire_points(wire["rows"])
        assert any(
            pn.inside(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))
            for pn in panels
            for a, b in zip(pts, pts[1:], strict=False)
        )
        for pn in panels:
            under = sum(any(pn.inside(p) for p in wire_points(w["rows"])) for w in scene["wires"])
            assert under >= 2
        assert len(scene["wires"]) == task.config.n_wires


def test_answer_balance():
    task = get_task("defuse_a_bomb")
    counts = collections.Counter()
    for i in range(100):
        counts[task.solve(_sample(task, i, seed=5)).answer] += 1
    assert counts == {"A": 25, "B": 25, "C": 25, "D": 25}


def test_hand_step_text_follows_wire_a_without_naming_it():
    # BASE with the detonator on terminal 2: the step traces A from its end (0, 0), into the panel at
    # (2.5, 1.5) heading southeast, out at (4.5, 3.5), to terminal 2 at (7, 4); no wire letter is written.
    task = get_task("defuse_a_bomb")
    scene = scene_with(detonator=2)
    step_img, text = task.render(scene, task.solve(scene)).steps[0]
    assert text.startswith(
        "The highlighted wire starts at the wire end at (0, 0); enters panel 1 at (2.5, 1.5) "
        "heading southeast, runs under it (dashed) and leaves it at (4.5, 3.5); it ends at "
        "terminal 2 at (7, 4), which is the detonator."
    )
    assert not re.search(r"(?<![A-Za-z])[ABC](?![A-Za-z])", text)
    assert "P1" in drawn_labels(step_img)


def test_steps_never_name_a_wire_letter():
    # Neither the correct trace nor the corrupted one (which usually also reaches the bomb) says which letter it
    # follows; the trace starts at the end of the wire the text names by position.
    task = get_task("defuse_a_bomb", difficulty="hard")
    for index in range(6):
        sample = task.make(index, 1)
        inst = sample.instance
        scene = inst.meta["scene"]
        start_row = next(w["rows"][0] for w in scene["wires"] if w["label"] == inst.answer)
        assert inst.steps[0].text.startswith(f"The highlighted wire starts at the wire end at (0, {start_row});")
        scene_labels = set(drawn_labels(sample.images[inst.image]))
        for step in [*inst.steps, *inst.corrupted_steps]:
            assert not re.search(r"(?<![A-Za-z])[A-F](?![A-Za-z])", step.text), step.text
            assert "which is the detonator" in step.text or step in inst.corrupted_steps
            assert set(drawn_labels(sample.images[step.image])) <= scene_labels


def test_answer_space_is_one_letter_per_wire():
    # The options are the wire letters: 3 at easy (chance 1/3), 4 at medium (1/4), 6 at hard (1/6).
    for difficulty, letters in (("easy", "ABC"), ("medium", "ABCD"), ("hard", "ABCDEF")):
        inst = get_task("defuse_a_bomb", difficulty=difficulty).make(0, 0, with_corruption=False).instance
        space = answer_space(inst)
        assert space.size == len(letters) and chance_level(inst) == pytest.approx(1 / len(letters))
        assert all(space.contains(x) for x in letters) and not space.contains(chr(ord(letters[-1]) + 1))
