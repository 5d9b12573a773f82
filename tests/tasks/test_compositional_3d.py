"""compositional_3d: hand-worked programs over vehicles and their parts, part visibility, balanced answers,
steps that state no answer, corrupted trajectories that differ, parameter limits."""

from __future__ import annotations

import collections

import pytest

from vcot.draw3d.composites import PARTS, part_list
from vcot.tasks import get_task
from vcot.tasks.answer_leaks import answer_statements
from vcot.tasks.base import ParameterError, Reject
from vcot.tasks.scene3d._scene import render_of

CAM = {"azimuth": 0.0, "elevation": 35.0, "distance": 10.5, "fov": 40.0}


def _veh(
    kind: str, x: float, y: float, body: str, cabin: str, wheels: str, size: str = "large", material: str = "rubber"
) -> dict:
    return {
        "type": kind,
        "size": size,
        "material": material,
        "body": body,
        "cabin": cabin,
        "wheels": wheels,
        "x": x,
        "y": y,
        "heading": 30.0,
    }


def _scene(program: dict) -> dict:
    # Camera at azimuth 0 looks along +y: +x is right, larger y is farther.
    objects = [
        _veh("car", -2.2, -1.0, "red", "blue", "green"),
        _veh("truck", 0.0, 0.5, "blue", "red", "green", material="metal"),
        _veh("tractor", 2.3, 2.0, "green", "red", "orange", size="small"),
    ]
    return {
        "kind": "vehicles",
        "objects": objects,
        "camera": CAM,
        "margins": {"left_right_px": 16.0, "front_behind": 0.5},
        "min_visible": 0.5,
        "min_part_px": 20,
        "program": program,
    }


def _ref(*steps: tuple[str | None, dict]) -> list[dict]:
    return [{"relate": rel, "filter": flt} for rel, flt in steps]


@pytest.mark.parametrize(
    "program, expected",
    [
        ({"family": "query_part_colour", "part": "wheels", "ref": _ref((None, {"type": "tractor"}))}, "orange"),
        # Right of the car: the truck and the tractor; the one with a blue body is the truck, whose cabin is red.
        (
            {
                "family": "query_part_colour",
                "part": "cabin",
                "ref": _ref((None, {"type": "car"}), ("right", {"body": "blue"})),
            },
            "red",
        ),
        ({"family": "query_type", "ref": _ref((None, {"material": "metal"}), ("behind", {}))}, "tractor"),
        ({"family": "count", "set": _ref((None, {"cabin": "red"}))}, "2"),
        ({"family": "exist", "set": _ref((None, {"type": "truck"}), ("left", {"wheels": "orange"}))}, "no"),
        (
            {
                "family": "same_part_colour",
                "a": _ref((None, {"type": "car"})),
                "part_a": "body",
                "b": _ref((None, {"type": "truck"})),
                "part_b": "cabin",
            },
            "yes",
        ),
        (
            {
                "family": "same_part_colour",
                "a": _ref((None, {"type": "car"})),
                "part_a": "cabin",
                "b": _ref((None, {"type": "tractor"})),
                "part_b": "cabin",
            },
            "no",
        ),
        # Vehicles other than the car whose wheels match the car's wheels (green): the truck.
        (
            {
                "family": "count_part_match",
                "ref": _ref((None, {"type": "car"})),
                "ref_part": "wheels",
                "part": "wheels",
            },
            "1",
        ),
        # The tractor's body is green; the car's and the truck's wheels are green, the tractor itself does not count.
        (
            {
                "family": "count_part_match",
                "ref": _ref((None, {"type": "tractor"})),
                "ref_part": "body",
                "part": "wheels",
            },
            "2",
        ),
    ],
)
def test_hand_worked(program: dict, expected: str) -> None:
    assert get_task("compositional_3d").solve(_scene(program)).answer == expected


def test_non_unique_reference_is_rejected() -> None:
    prog = {"family": "query_type", "ref": _ref((None, {"wheels": "green"}))}
    with pytest.raises(Reject):
        get_task("compositional_3d").solve(_scene(prog))


def test_part_buffer_maps_back_to_parts() -> None:
    scene = _scene({"family": "count", "set": _ref((None, {"cabin": "red"}))})
    res = render_of(scene)
    owners = part_list(scene["objects"])
    seen = {owners[int(p)] for p in set(res.parts.ravel().tolist()) if p >= 0}
    assert {part for _, part in seen} == set(PARTS)
    assert {k for k, _ in seen} == {0, 1, 2}
    # Every primitive's pixels belong to its object in the id buffer.
    for p in {int(p) for p in res.parts.ravel().tolist() if p >= 0}:
        assert set(res.ids[res.parts == p].tolist()) == {owners[p][0]}


def test_answers_balanced_within_each_family() -> None:
    task = get_task("compositional_3d", "easy")
    n_fam = len(task.config.families)
    per_family: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for i in range(n_fam * 6):
        scene, sol = task.solved_scene(i, 3)
        per_family[scene["program"]["family"]][sol.answer] += 1
    assert set(per_family) == set(task.config.families)
    assert per_family["exist"] == collections.Counter({"yes": 3, "no": 3})
    assert per_family["query_type"] == collections.Counter({"car": 2, "truck": 2, "tractor": 2})


def test_steps_state_no_answer_and_corruption_differs() -> None:
    task = get_task("compositional_3d", "hard")
    for i in range(4):
        inst = task.make(i, 11).instance
        for text in [s.text for s in inst.steps] + [s.text for s in inst.corrupted_steps]:
            assert answer_statements(text, inst) == [], (inst.uid, text)
            assert not any(ch.isdigit() for ch in text)
        right = [s.text for s in inst.steps]
        wrong = [s.text for s in inst.corrupted_steps]
        assert wrong and inst.meta["corruption"] and right[: len(wrong)] != wrong


def test_parameter_limits() -> None:
    with pytest.raises(ParameterError, match="max_objects"):
        get_task("compositional_3d", max_objects=8)
    with pytest.raises(ParameterError, match="max_count"):
        get_task("compositional_3d", max_count=4, max_objects=4)
    for level in ("easy", "medium", "hard"):
        get_task("compositional_3d", level)
