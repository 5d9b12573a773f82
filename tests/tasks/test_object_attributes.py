"""object_attributes: hand-worked programs, ambiguity rejected, balanced answers, steps that state no answer,
corrupted trajectories that differ, parameter limits."""

from __future__ import annotations

import collections
import random

import pytest

from vcot.tasks import get_task
from vcot.tasks.answer_leaks import answer_statements
from vcot.tasks.base import ParameterError, Reject
from vcot.tasks.scene3d._scene import layout, related

CAM = {"azimuth": 0.0, "elevation": 35.0, "distance": 10.5, "fov": 40.0}


def _obj(shape: str, colour: str, x: float, y: float, size: str = "large", material: str = "rubber") -> dict:
    return {"shape": shape, "size": size, "colour": colour, "material": material, "x": x, "y": y, "yaw": 0.0}


def _scene(program: dict, objects: list[dict] | None = None) -> dict:
    # Camera at azimuth 0 looks along +y: +x is right, larger y is farther (behind).
    objects = objects or [
        _obj("cube", "red", -2.0, -1.0),
        _obj("sphere", "blue", 0.0, 0.0, material="metal"),
        _obj("cylinder", "green", 2.0, 1.0, size="small"),
        _obj("sphere", "red", 0.8, 2.5),
    ]
    return {
        "objects": objects,
        "camera": CAM,
        "margins": {"left_right_px": 16.0, "front_behind": 0.5},
        "min_visible": 0.5,
        "program": program,
    }


def _f(**kw: str) -> dict:
    return kw


@pytest.mark.parametrize(
    "program, expected",
    [
        (
            {"family": "query_colour", "attr": "colour", "ref": [{"relate": None, "filter": _f(shape="cylinder")}]},
            "green",
        ),
        # Every other object is right of the red cube, so only "metal" singles out the blue sphere.
        (
            {
                "family": "query_colour",
                "attr": "colour",
                "ref": [
                    {"relate": None, "filter": _f(shape="cube")},
                    {"relate": "right", "filter": _f(material="metal")},
                ],
            },
            "blue",
        ),
        # Behind the blue sphere: the green cylinder and the red sphere; the sphere among them is red.
        (
            {
                "family": "query_colour",
                "attr": "colour",
                "ref": [
                    {"relate": None, "filter": _f(colour="blue")},
                    {"relate": "behind", "filter": _f(shape="sphere")},
                ],
            },
            "red",
        ),
        ({"family": "count", "set": [{"relate": None, "filter": _f(shape="sphere")}]}, "2"),
        (
            {
                "family": "count",
                "set": [
                    {"relate": None, "filter": _f(shape="cylinder")},
                    {"relate": "left", "filter": _f(size="large")},
                ],
            },
            "3",
        ),
        (
            {
                "family": "exist",
                "set": [{"relate": None, "filter": _f(colour="green")}, {"relate": "right", "filter": {}}],
            },
            "no",
        ),
        (
            {
                "family": "compare_count",
                "a": [{"relate": None, "filter": _f(colour="red")}],
                "b": [{"relate": None, "filter": _f(size="small")}],
            },
            "yes",
        ),
        (
            {
                "family": "same_attribute",
                "attr": "colour",
                "a": [{"relate": None, "filter": _f(shape="cube")}],
                "b": [
                    {"relate": None, "filter": _f(colour="blue")},
                    {"relate": "behind", "filter": _f(shape="sphere")},
                ],
            },
            "yes",
        ),
    ],
)
def test_hand_worked(program: dict, expected: str) -> None:
    assert get_task("object_attributes").solve(_scene(program)).answer == expected


def test_non_unique_reference_is_rejected() -> None:
    prog = {"family": "query_size", "attr": "size", "ref": [{"relate": None, "filter": _f(shape="sphere")}]}
    with pytest.raises(Reject):
        get_task("object_attributes").solve(_scene(prog))


def test_relation_within_the_margin_is_rejected() -> None:
    objects = [_obj("cube", "red", 0.0, 0.0), _obj("sphere", "blue", 0.05, 2.5, size="small")]
    prog = {"family": "exist", "set": [{"relate": None, "filter": _f(shape="cube")}, {"relate": "left", "filter": {}}]}
    scene = _scene(prog, objects)
    with pytest.raises(Reject):
        get_task("object_attributes").solve(scene)
    # Front/behind is decided there (2.5 units apart), so that relation is fine.
    assert related(layout(scene), 0, "behind") == [1]


def test_answers_balanced_within_each_family() -> None:
    task = get_task("object_attributes", "easy")
    per_family: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    n_fam = len(task.config.families)
    for i in range(n_fam * 6):
        scene, sol = task.solved_scene(i, 3)
        per_family[scene["program"]["family"]][sol.answer] += 1
    assert set(per_family) == set(task.config.families)
    for fam, counts in per_family.items():
        assert sum(counts.values()) == 6
        assert max(counts.values()) - min(counts.values()) <= 1 or len(counts) > 3, (fam, counts)
    assert per_family["exist"] == collections.Counter({"yes": 3, "no": 3})


def test_steps_state_no_answer_and_corruption_differs() -> None:
    task = get_task("object_attributes", "hard")
    for i in range(4):
        sample = task.make(i, 11)
        inst = sample.instance
        steps = [s.text for s in inst.steps] + [s.text for s in inst.corrupted_steps]
        for text in steps:
            assert answer_statements(text, inst) == [], (inst.uid, text)
            assert not any(ch.isdigit() for ch in text)
        assert inst.corrupted_steps and inst.meta["corruption"]
        right = [s.text for s in inst.steps]
        wrong = [s.text for s in inst.corrupted_steps]
        assert right[: len(wrong)] != wrong


def test_query_answer_never_named_in_the_question() -> None:
    task = get_task("object_attributes", "medium")
    for i in range(24):
        scene, sol = task.solved_scene(i, 7)
        if scene["program"]["family"].startswith("query_"):
            q = task.question(scene).split("farther from it. ", 1)[1].split("?")[0]
            assert sol.answer not in q.split(), (q, sol.answer)


def test_parameter_limits() -> None:
    with pytest.raises(ParameterError, match="max_hops"):
        get_task("object_attributes", max_hops=4)
    with pytest.raises(ParameterError, match="max_count"):
        get_task("object_attributes", max_count=5, max_objects=5)
    with pytest.raises(ParameterError, match="families"):
        get_task("object_attributes", families=["count", "colour"])
    for level in ("easy", "medium", "hard"):
        get_task("object_attributes", level)


def test_scenes_vary_with_the_seed() -> None:
    task = get_task("object_attributes", "easy")
    a = task.solved_scene(0, 1)[0]
    b = task.solved_scene(0, 2)[0]
    assert a["objects"] != b["objects"]
    assert random.Random(0).random() == random.Random(0).random()


def test_modify_key_moves_a_mark_onto_another_object() -> None:
    # VAoT's modify_key reads the object centres the id buffer gave (meta scene.picture) instead of blobs.
    from vcot.tasks.scene3d._scene import render_of
    from vcot.vaot import actions as act
    from vcot.vaot.corrupt import perturb_key, picture_objects

    sample = get_task("object_attributes", "hard").make(0, 0, with_corruption=False)
    inst = sample.instance
    centres = picture_objects(inst.meta)
    ids = render_of(inst.meta["scene"]).ids
    assert centres and len(centres) == len(inst.meta["scene"]["objects"])
    assert [int(ids[int(y), int(x)]) for x, y in centres] == list(range(len(centres)))
    x, y = centres[0]
    mark = act.MarkPoint.model_validate({"action": "mark_point", "x": x, "y": y})
    wrong, desc = perturb_key(mark, sample.images[inst.image], random.Random(0), centres)
    assert "neighbouring object" in desc
    assert int(ids[int(wrong.y), int(wrong.x)]) not in (-1, 0)


def test_see2think_plan() -> None:
    from vcot.tasks import task_names
    from vcot.tasks.see2think_categories import CATEGORY_TASKS, LEVELS, counts_per_category, level_of, plan

    assert sorted(CATEGORY_TASKS) == sorted(c for cats in LEVELS.values() for c in cats)
    assert len(CATEGORY_TASKS) == 12 and level_of("Object Attributes") == "3D scene"
    from vcot.tasks import get_task_class

    names = set(task_names())
    per_problem = {t: get_task_class(t).rows_per_problem for t in names}
    rows = plan(names, per_problem)
    assert all(t in names for _, t, _ in rows)
    assert all(n % per_problem[t] == 0 for _, t, n in rows)  # gear_rotation's pairs stay whole
    counts = counts_per_category(names, per_problem)
    assert counts["Object Attributes"] == 100 and counts["Geometry"] == 100 and counts["Chemistry"] == 100
    # Visual Commonsense needs real photographs: a curation-only category, never generated.
    assert counts["Visual Commonsense"] == 0 and not CATEGORY_TASKS["Visual Commonsense"]
    assert set(counts.values()) <= {0, 100}
    mapped = {t for tasks in CATEGORY_TASKS.values() for t in tasks}
    assert len(mapped) == sum(len(t) for t in CATEGORY_TASKS.values())  # no task in two categories
