"""The gear_rotation oracle (exhaustive search over direction assignments) agrees with the generator and
reacts to a flipped driver and to a changed link."""

from __future__ import annotations

import copy

from vcot.oracles.gear_rotation import answer
from vcot.tasks import get_task

FLIP = {"clockwise": "counterclockwise", "counterclockwise": "clockwise"}


def _gear(label: str) -> dict:
    return {"label": label, "x": 0, "y": 0, "r": 40, "teeth": 13, "phase": 0, "host": None}


def test_hand_worked() -> None:
    # A meshes B, B crossed belt C, C shaft D: A cw -> B ccw -> C cw -> D cw.
    links = [
        {"a": 0, "b": 1, "type": "mesh"},
        {"a": 1, "b": 2, "type": "crossed_belt"},
        {"a": 2, "b": 3, "type": "shaft"},
    ]
    scene = {"gears": [_gear(c) for c in "ABCD"], "links": links, "driver": 0, "driver_dir": "clockwise", "target": 3}
    assert answer(scene, {}) == "clockwise"
    scene["target"] = 1
    assert answer(scene, {}) == "counterclockwise"
    # Three gears meshing in a triangle jam.
    tri = {
        "gears": [_gear(c) for c in "ABC"],
        "driver": 0,
        "driver_dir": "clockwise",
        "target": 2,
        "links": [{"a": 0, "b": 1, "type": "mesh"}, {"a": 1, "b": 2, "type": "mesh"}, {"a": 2, "b": 0, "type": "mesh"}],
    }
    assert answer(tri, {}) == "jammed"
    tri["links"][2]["type"] = "open_belt"  # now consistent: A and C the same
    assert answer(tri, {}) == "clockwise"


def test_wrong_scene_changes_answer() -> None:
    task = get_task("gear_rotation", "hard")
    flipped_jam = 0
    for i in range(40):
        scene, solution = task.solved_scene(i, 5)
        bad = copy.deepcopy(scene)
        bad["driver_dir"] = FLIP[scene["driver_dir"]]
        if solution.answer == "jammed":
            assert answer(bad, task.params()) == "jammed"
            # Making every link keep the direction removes every contradiction: all wheels turn as A does.
            calm = copy.deepcopy(scene)
            for link in calm["links"]:
                link["type"] = "open_belt"
            assert answer(calm, task.params()) == scene["driver_dir"]
            flipped_jam += 1
        else:
            assert answer(bad, task.params()) == FLIP[solution.answer], i
    assert flipped_jam > 0
