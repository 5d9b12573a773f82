"""gear_rotation: contract, paired rows, hand-worked systems, parity invariants, geometry rejections, balance,
jammed answers at every preset, labels clear of belts, parameter limits."""

from __future__ import annotations

import collections
import math
import random
import re

import pytest

from vcot.analysis.shortcuts.gear_rotation import distance_parity, label_parity
from vcot.draw import drawn_labels
from vcot.draw.png import pixel_digest
from vcot.schema import AnswerType, Instance
from vcot.tasks import get_task
from vcot.tasks.base import GenContext, ParameterError, Reject
from vcot.tasks.ct._gear_geometry import TOOTH, H, W, belt_path, check_geometry
from vcot.tasks.ct._gear_labels import check_labels, label_layout
from vcot.tasks.ct.gear_rotation import distance_cue


def _g(label, x, y, r, host=None):
    return {
        "label": label,
        "x": x,
        "y": y,
        "r": r,
        "teeth": max(10, round(6.2832 * r / 19)),
        "phase": 0.0,
        "host": host,
    }


def _scene(gears, links, driver_dir, target):
    return {
        "gears": gears,
        "links": [{"a": a, "b": b, "type": t} for a, b, t in links],
        "driver": 0,
        "driver_dir": driver_dir,
        "targets": [target, target],
        "target": target,
        "pair_id": 0,
        "sub_question": 1,
    }


def _problem_scene(task, seed, problem):
    ctx = GenContext(random.Random(0), task.name, seed, 2 * problem)
    return task.sample_scene(ctx)


def test_hand_worked_chain():
    # A -> B -> C in a row, all meshing. A clockwise => B counterclockwise => C clockwise.
    scene = _scene(
        [_g("A", 200, 300, 40), _g("B", 280, 300, 40), _g("C", 360, 300, 40)],
        [(0, 1, "mesh"), (1, 2, "mesh")],
        "clockwise",
        2,
    )
    check_geometry(scene)
    assert get_task("gear_rotation").solve(scene).answer == "clockwise"


def test_hand_worked_belts_and_shafts():
    # A (ccw, given) meshes B -> B clockwise; C is on B's shaft -> clockwise; C drives D by a crossed belt ->
    # D counterclockwise; E meshes A -> E clockwise.
    gears = [
        _g("A", 150, 300, 42),
        _g("B", 244, 300, 52),
        _g("C", 244, 300, 24, host=1),
        _g("D", 600, 300, 40),
        _g("E", 150, 376, 34),
    ]
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
    scene = _scene(
        [_g("A", 200, 300, 40), _g("B", 280, 300, 40), _g("C", 360, 300, 40)],
        [(0, 1, "mesh"), (1, 2, "mesh")],
        "clockwise",
        2,
    )
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
    assert (
        steps[-1][1] == "Gear C (counterclockwise) meshes with gear B (counterclockwise), their contact ringed in red."
    )
    assert len(steps) == 3
    # B and C are the wheels layer 1 just outlined: only the ring tells the last picture from the one before.
    assert steps[-1][0].tobytes() != steps[-2][0].tobytes()


def test_a_jammed_systems_last_step_picture_adds_something():
    task = get_task("gear_rotation", difficulty="hard")
    seen = 0
    for i in range(60):
        scene, sol = task.solved_scene(i, 5)
        if sol.answer != "jammed":
            continue
        steps = task.render(scene, sol).steps
        assert steps[-1][0].tobytes() != steps[-2][0].tobytes(), i
        seen += 1
    assert seen >= 5


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
        # Every preset jams in a third of its rows; the question offers "jammed" whatever the configuration.
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
    over_gear = _scene(
        [_g("A", 150, 300, 34), _g("B", 650, 300, 34), _g("C", 400, 300, 40)],
        [(0, 1, "open_belt"), (0, 2, "mesh")],
        "clockwise",
        1,
    )
    over_gear["links"] = [{"a": 0, "b": 1, "type": "open_belt"}]
    with pytest.raises(Reject, match="passes over"):
        check_geometry(over_gear)
    crossing = _scene(
        [_g("A", 150, 150, 34), _g("B", 650, 450, 34), _g("C", 150, 450, 34), _g("D", 650, 150, 34)],
        [(0, 1, "open_belt"), (2, 3, "open_belt")],
        "clockwise",
        1,
    )
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


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_answer_balance(difficulty):
    """Three blocks of 12 problems: 4 jammed problems per block, the 16 other rows split evenly between the
    two directions and between the distance cue agreeing and disagreeing; each wheel count equally often."""
    task = get_task("gear_rotation", difficulty=difficulty)
    counts, cue, sizes = collections.Counter(), collections.Counter(), collections.Counter()
    for problem in range(36):
        scene = _problem_scene(task, 4, problem)
        sizes[len(scene["gears"])] += 1
        for target in scene["targets"]:
            answer = task.solve(dict(scene, target=target)).answer
            counts[answer] += 1
            if answer != "jammed":
                cue[distance_cue(scene, target) == answer] += 1
    assert counts == {"clockwise": 24, "counterclockwise": 24, "jammed": 24}
    assert cue == {True: 24, False: 24}
    span = range(task.config.n_min, task.config.n_max + 1)
    assert set(sizes) <= set(span) and max(sizes.values()) - min(sizes.values()) <= 1 + 36 % len(span)


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_jammed_at_every_preset(difficulty):
    # The first block of 12 problems (24 rows) holds exactly 4 jammed problems, both rows answering "jammed".
    task = get_task("gear_rotation", difficulty=difficulty)
    answers = [task.solved_scene(index, 9)[1].answer for index in range(24)]
    assert answers.count("jammed") == 8
    assert all(answers[2 * p] == answers[2 * p + 1] for p in range(12) if "jammed" in answers[2 * p : 2 * p + 2])


def _instance(scene):
    return Instance(
        uid="g",
        task="gear_rotation",
        domain="CT",
        question="?",
        image="a.png",
        answer="jammed",
        answer_type=AnswerType.TEXT,
        meta={"scene": scene},
    )


def test_distance_cue_is_the_audit_heuristic():
    # The generator balances the cue the audit measures; both must read the drawing the same way.
    task = get_task("gear_rotation", difficulty="medium")
    for problem in range(12):
        scene = _problem_scene(task, 2, problem)
        for target in scene["targets"]:
            s = dict(scene, target=target)
            assert distance_parity(_instance(s)) == distance_cue(scene, target)


def test_labels_are_shuffled_but_a_drives():
    # Labels in building order would let letter parity stand for link parity.
    task = get_task("gear_rotation", difficulty="easy")
    right = 0
    for problem in range(36):
        scene = _problem_scene(task, 6, problem)
        assert scene["driver"] == 0 and scene["gears"][0]["label"] == "A"
        assert [g["label"] for g in scene["gears"]] == [chr(65 + i) for i in range(len(scene["gears"]))]
        for target in scene["targets"]:
            s = dict(scene, target=target)
            right += label_parity(_instance(s)) == task.solve(s).answer
    assert right < 0.55 * 72


def _seg_dist(p, a, b):
    ax, ay, px, py = b[0] - a[0], b[1] - a[1], p[0] - a[0], p[1] - a[1]
    t = max(0.0, min(1.0, (px * ax + py * ay) / (ax * ax + ay * ay or 1.0)))
    return math.hypot(px - t * ax, py - t * ay)


def _assert_labels_clear(scene):
    """Every label disc as drawn stays off every belt (drawn 4 px wide), off every wheel but its own (and the
    host under a shaft wheel), off the other labels and inside the picture."""
    gears, discs = scene["gears"], label_layout(scene)
    belts = [
        seg
        for lk in scene["links"]
        if lk["type"] in ("open_belt", "crossed_belt")
        for pl in belt_path(scene, lk)
        for seg in zip(pl, pl[1:], strict=False)
    ]
    for i, (x, y, rad) in enumerate(discs):
        assert rad <= x <= W - rad and rad <= y <= H - rad
        assert math.hypot(x - gears[i]["x"], y - gears[i]["y"]) + rad <= gears[i]["r"] + TOOTH + 1e-6
        for a, b in belts:
            assert _seg_dist((x, y), a, b) >= rad + 2, (gears[i]["label"], a, b)
        for k, g in enumerate(gears):
            if k not in (i, gears[i]["host"]):
                assert math.hypot(x - g["x"], y - g["y"]) >= g["r"] + TOOTH + rad, (gears[i]["label"], g["label"])
        for k, (x2, y2, rad2) in enumerate(discs):
            if k != i:
                assert math.hypot(x - x2, y - y2) >= rad + rad2


def test_hand_worked_host_label_avoids_its_belt():
    # B (r 52) meshes A and carries C (r 24) on its shaft; C's crossed belt to D runs across B's ring towards
    # the right. B's label goes in that ring, clear of the belt; every other label sits on its hub.
    gears = [_g("A", 200, 300, 42), _g("B", 294, 300, 52), _g("C", 294, 300, 24, host=1), _g("D", 650, 300, 40)]
    scene = _scene(gears, [(0, 1, "mesh"), (1, 2, "shaft"), (2, 3, "crossed_belt")], "clockwise", 3)
    check_geometry(scene)
    check_labels(scene)
    discs = label_layout(scene)
    assert [d[:2] for k, d in enumerate(discs) if k != 1] == [(g["x"], g["y"]) for k, g in enumerate(gears) if k != 1]
    assert discs[1][:2] != (294, 300)
    _assert_labels_clear(scene)


def test_label_rejections():
    in_corner = _scene([_g("A", W - 80, H - 72, 40), _g("B", W - 160, H - 72, 40)], [(0, 1, "mesh")], "clockwise", 1)
    check_geometry(in_corner)
    with pytest.raises(Reject, match="legend"):
        check_labels(in_corner)
    # A host whose rim is hemmed in by meshing gears has no free spot in its ring for a label (a made-up crowd
    # for the label check alone: the eight gears would overlap each other).
    host = _g("A", 400, 300, 62)
    ring = [
        _g(chr(66 + k), 400 + 96 * math.cos(k * math.pi / 4), 300 + 96 * math.sin(k * math.pi / 4), 34)
        for k in range(8)
    ]
    crowded = _scene(
        [host, *ring, _g("J", 400, 300, 34, host=0)],
        [(0, k + 1, "mesh") for k in range(8)] + [(0, 9, "shaft")],
        "clockwise",
        1,
    )
    with pytest.raises(Reject, match="label A"):
        check_labels(crowded)


@pytest.mark.parametrize("difficulty", ["medium", "hard"])
def test_labels_never_touch_belts(difficulty):
    task = get_task("gear_rotation", difficulty=difficulty)
    hosts = 0
    for problem in range(30):
        scene = _problem_scene(task, 8, problem)
        _assert_labels_clear(scene)
        hosts += any(g["host"] is not None for g in scene["gears"])
    assert hosts  # ring labels (the ones that can meet a belt) were among those checked


def test_parameter_limits():
    for difficulty in ("easy", "medium", "hard"):
        get_task("gear_rotation", difficulty=difficulty)  # every preset lies within the limits
    with pytest.raises(ParameterError, match="n_max"):
        get_task("gear_rotation", difficulty="hard", n_max=30)
    with pytest.raises(ParameterError, match="extra_links"):
        get_task("gear_rotation", difficulty="easy", extra_links=0)
    with pytest.raises(ParameterError, match="p_mesh"):
        get_task("gear_rotation", difficulty="easy", p_mesh=0.0)
    get_task("gear_rotation", difficulty="easy", extra_links=0, jammed_per_block=0)
