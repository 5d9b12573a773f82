"""The object_attributes oracle (relations read from the id buffer's outlines and floor points) agrees with the
generator, and a moved object changes its answer."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.object_attributes import Unreadable, answer


def test_moving_an_object_across_changes_the_count() -> None:
    cam = {"azimuth": 0.0, "elevation": 35.0, "distance": 10.5, "fov": 40.0}
    objs = [
        {"shape": "cube", "size": "large", "colour": "red", "material": "rubber", "x": 0.0, "y": 0.0, "yaw": 0},
        {"shape": "sphere", "size": "small", "colour": "blue", "material": "metal", "x": -2.0, "y": 1.0, "yaw": 0},
    ]
    scene = {
        "objects": objs,
        "camera": cam,
        "program": {
            "family": "count",
            "set": [{"relate": None, "filter": {"shape": "cube"}}, {"relate": "left", "filter": {}}],
        },
    }
    assert answer(scene, {}) == "1"
    moved = copy.deepcopy(scene)
    moved["objects"][1]["x"] = 2.0
    assert answer(moved, {}) == "0"
    unclear = copy.deepcopy(scene)
    unclear["objects"][1]["shape"] = "cube"
    with pytest.raises(Unreadable):
        answer(unclear, {})
