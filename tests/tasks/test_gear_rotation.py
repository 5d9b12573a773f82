"""gear_rotation: contract, paired rows, hand-worked systems, parity invariants, geometry rejections, balance."""

from __future__ import annotations

import collections
import random
import re

import pytest

from generator_contract import check_generator_contract
from vcot.draw import drawn_labels
from vcot.draw.png import pixel_digest
from vcot.tasks import get_task
from vcot.tasks.base import GenContext, Reject
from vcot.tasks.ct.gear_rotation import check_geometry


def _g(label, x, y, r, host=None):
    return {"label": label, "x": x, "y": y, "r": r, "teeth": max(10, round(6.2832 * r / 19)), "phase": 0.0,
            "host": host}


def _scene(gears, links, driver_dir, target):
    return {"gears": gears, "links": [{"a": a, "b": b, "type": t} for a, b, t in links], "driver": 0,
            "driver_dir": driver_dir, "targets": [target, target], "target": target, "pair_id": 0,
            "sub_question": 1}


def _problem_scene(task, seed, problem):
    ctx = GenContext(random.Random(0), task.name, seed, 2 * problem)
    return task.sample_scene(ctx)


def test_contract():
    check_generator_contract("gear_rotation", n=20)


def test_hand_worked_chain():
    # A -> B -> C in a row, all meshing. A clockwise => B counterclockwise => C clockwise.
    scene = _scene([_g("A", 200, 300, 40), _g("B", 280, 300, 40), _g("C", 360, 300, 40)],
                   [(0, 1, "mesh"), (1, 2, "mesh")], "clockwise", 2)
    check_geometry(scene)
    assert get_task("gear_rotation").solve(scene).answer == "clockwise"


def test_hand_worked_belts_and_shafts():
    # A (ccw, given) meshes B -> B clockwise; C is on B's shaft -> clockwise; C drives D by a crossed belt ->
    # D counterclockwise; E meshes A -> E clockwise.
    gears = [_g("A", 150, 300, 42), _g("B", 244, 300, 52), _g("C", 244, 300, 24, host=1),
             _g("D", 600, 300, 40), _g("E", 150, 376, 34)]
    links = [(0, 1, "mesh"), (1, 2, "shaft"), (2, 3, "crossed_belt"), (0, 4, "mesh")]
    scene = _scene(gears, links, "counterclockwise", 3)
    check_geometry(scene)
    sol = get_task("gear_rotation").solve(scene)
    assert sol.answer == "counterclockwise"
    assert sol.states == ["counterclockwise", "clockwise", "clockwise", "counterclockwise", "clockwise"]


def test_hand_worked_triangle_jams():
    # Three gears meshing pairwise: A cw => B ccw and C ccw, but B and C mesh, so they must differ: jammed.
    gears = [_g("A", 300, 300, 40), _g("B", 380, 300, 40), _g("C", 340, 230.7, 40)]
    scene = _scene(gears, [(0, 1, "mesh"), (1, 2, "mesh"), (0, 2, "mesh")], "clockwise", 2)
    check_geometry(scene)
    sol = get_task("gear_rotation").solve(scene)
    assert sol.answer == "jammed"
    assert sol.details["conflict"] is not None


def test_hand_worked_consistent_cycle():
    # A meshes B (B opposite), A-C open belt (C same as A), B-C crossed belt (C opposite of B = same as A):
    # the cycle has two flips, so it is consistent. A counterclockwise => C counterclockwise.
    gears = [_g("A", 0, 0, 40), _g("B", 80, 0, 40), _g("C", 0, 300, 40)]
    scene = _scene(gears, [(0, 1, "mesh"), (0, 2, "open_belt"), (1, 2, "crossed_belt")], "counterclockwise", 2)
    assert get_task("gear_rotation").solve(scene).answer == "counterclockwise"


def test_hand_worked_steps_are_states():
    # The chain A -> B -> C: one step per layer, each naming the new wheel's link and both arrows; no step says
    # which way the asked wheel turns as a conclusion (the last one describes C's arrow like the others).
    task = get_task("gear_rotation")
    scene = _scene([_g("A", 200, 300, 40), _g("B", 280, 300, 40), _g("C", 360, 300, 40)],
                   [(0, 1, "mesh"), (1, 2, "mesh")], "clockwise", 2)
    steps = task.render(scene, task.solve(scene)).steps
    assert [text for _, text in steps] == [
        "Gear A turns clockwise (given).",
        "Gear B meshes with gear A (clockwise) and turns counterclockwise.",
        "Gear C meshes with gear B (counterclockwise) and turns clockwise.",
    ]


def test_hand_worked_jam_step_shows_the_link_not_the_verdict():
    # Triangle A, B, C meshing pairwise, A clockwise: B and C both counterclockwise (layer 1); the B-C mesh
    # then joins two equal arrows. The last step marks it and says so, without "jammed".
    task = get_task("gear_rotation")
    gears = [_g("A", 300, 300, 40), _g("B", 380, 300, 40), _g("C", 340, 230.7, 40)]
    scene = _scene(gears, [(0, 1, "mesh"), (1, 2, "mesh"), (0, 2, "mesh")], "clockwise", 2)
    steps = task.render(scene, task.solve(scene)).steps
    assert steps[-1][1] == "Gear C (counterclockwise) meshes with gear B (counterclockwise), both outlined in red."
    assert len(steps) == 3


def test_steps_never_conclude():
    task = get_task("gear_rotation", difficulty="hard")
    jammed = 0
    for index in range(24):
        sample = task.make(index, 5)
        inst = sample.instance
        jammed += inst.answer == "jammed"
        for step in inst.steps + inst.corrupted_steps:
            assert not re.search(r"jammed|contradict|\bso\b|cannot turn", step.text, re.I), step.text
            assert "jammed" not in " ".join(drawn_labels(sample.images[step.image]))
    assert jammed  # the hard preset's jammed problems were among those checked


def test_answer_space_is_the_three_offered_words():
    for difficulty in ("easy", "hard"):
        task = get_task("gear_rotation", difficulty=difficulty)
        inst = task.make(0, 0).instance
        assert inst.question.endswith("Answer with one word: clockwise, counterclockwise or jammed.")
        space = task.answer_space(inst)
        # Easy never jams, but the question offers "jammed" all the same.
        assert space.size == 3
        assert all(space.contains(w) for w in ("clockwise", "Counterclockwise", "jammed"))
        assert not space.contains("anticlockwise") and not space.contains("north")


def test_geometry_rejections():
    overlapping = _scene([_g("A", 200, 300, 40), _g("B", 260, 300, 40)], [], "clockwise", 1)
    with pytest.raises(Reject, match="overlap"):
        check_geometry(overlapping)
    apart = _scene([_g("A", 200, 300, 40), _g("B", 300, 300, 40)], [(0, 1, "mesh")], "clockwise", 1)
    with pytest.raises(Reject, match="do not touch"):
        check_geometry(apart)
    over_gear = _scene([_g("A", 150, 300, 34), _g("B", 650, 300, 34), _g("C", 400, 300, 40)],
                       [(0, 1, "open_belt"), (0, 2, "mesh")], "clockwise", 1)
    over_gear["links"] = [{"a": 0, "b": 1, "type": "open_belt"}]
    with pytest.raises(Reject, match="passes over"):
        check_geometry(over_gear)
    crossing = _scene([_g("A", 150, 150, 34), _g("B", 650, 450, 34), _g("C", 150, 450, 34),
                       _g("D", 650, 150, 34)], [(0, 1, "open_belt"), (2, 3, "open_belt")], "clockwise", 1)
    with pytest.raises(Reject, match="cross"):
        check_geometry(crossing)
    short = _scene([_g("A", 200, 300, 40), _g("B", 320, 300, 40)], [(0, 1, "crossed_belt")], "clockwise", 1)
    with pytest.raises(Reject, match="too short"):
        check_geometry(short)
    fine = _scene([_g("A", 150, 150, 34), _g("B", 650, 150, 34)], [(0, 1, "crossed_belt")], "clockwise", 1)
    check_geometry(fine)


def test_pair_rows_share_scene_and_image():
    task = get_task("gear_rotation")
    for problem in (0, 3):
        r1, r2 = task.make(2 * problem, 0), task.make(2 * problem + 1, 0)
        s1, s2 = r1.instance.meta["scene"], r2.instance.meta["scene"]
        assert s1["pair_id"] == s2["pair_id"] == problem
        assert (s1["sub_question"], s2["sub_question"]) == (1, 2)
        strip = {"sub_question", "target"}
        assert {k: v for k, v in s1.items() if k not in strip} == {k: v for k, v in s2.items() if k not in strip}
        assert s1["target"] != s2["target"]
        assert pixel_digest(r1.images[r1.instance.image]) == pixel_digest(r2.images[r2.instance.image])


def _parity_answer(scene, target):
    """Independent re-solve: union-find with parity, then the target's parity relative to the driver."""
    parent = list(range(len(scene["gears"])))
    par = [0] * len(parent)

    def find(x):
        if parent[x] == x:
            return x, 0
        root, p = find(parent[x])
        return root, p ^ par[x]

    jammed = False
    for link in scene["links"]:
        flip = int(link["type"] in ("mesh", "crossed_belt"))
        (ra, pa), (rb, pb) = find(link["a"]), find(link["b"])
        if ra == rb:
            jammed |= (pa ^ pb) != flip
        else:
            parent[rb], par[rb] = ra, pa ^ pb ^ flip
    (r0, p0), (rt, pt) = find(scene["driver"]), find(target)
    assert r0 == rt
    if jammed:
        return "jammed"
    return scene["driver_dir"] if p0 == pt else ({"clockwise", "counterclockwise"} - {scene["driver_dir"]}).pop()


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_invariants(difficulty):
    task = get_task("gear_rotation", difficulty=difficulty)
    for problem in range(40):
        scene = _problem_scene(task, 21, problem)
        check_geometry(scene)
        assert scene["targets"][0] != scene["targets"][1] and scene["driver"] not in scene["targets"]
        for target in scene["targets"]:
            s = dict(scene, target=target)
            assert task.solve(s).answer == _parity_answer(scene, target)
        if task.config.jammed_per_block == 0:
            assert task.solve(scene).answer != "jammed"


@pytest.mark.parametrize("difficulty,expected", [
    ("medium", {"clockwise": 40, "counterclockwise": 40}),
    ("hard", {"clockwise": 32, "counterclockwise": 32, "jammed": 16}),
])
def test_answer_balance(difficulty, expected):
    task = get_task("gear_rotation", difficulty=difficulty)
    counts = collections.Counter()
    for problem in range(40):
        scene = _problem_scene(task, 4, problem)
        for target in scene["targets"]:
            counts[task.solve(dict(scene, target=target)).answer] += 1
    assert counts == expected
