"""The 3D tasks' legibility rules (issue 45): apparent size, vehicles seen end-on, parts hidden by other vehicles
(vcot.tasks.scene3d._legible; docs/tasks/compositional_3d.md, "Rejection rules")."""

from __future__ import annotations

import random
from typing import Any

import pytest

from vcot.draw3d import render_scene
from vcot.draw3d.composites import part_list
from vcot.tasks import get_task
from vcot.tasks.base import Reject
from vcot.tasks.scene3d._legible import (
    check_apparent_size,
    check_not_end_on,
    end_on_angle,
    outline_widths,
    part_occlusion,
    reads_cabin_or_body,
    reads_material,
)
from vcot.tasks.scene3d._scene import camera_of, vocab_of
from vcot.tasks.scene3d._vehicles import KIND, end_on_to_eye, sample_vehicles

CAMERA = {"azimuth": 0.0, "elevation": 36.0, "distance": 10.4, "fov": 40.0}


def _truck(heading: float, x: float = 0.0, y: float = 0.0, size: str = "large") -> dict[str, Any]:
    return {
        "type": "truck",
        "size": size,
        "material": "metal",
        "body": "red",
        "cabin": "blue",
        "wheels": "green",
        "x": x,
        "y": y,
        "heading": heading,
    }


def _scene(objects: list[dict[str, Any]], program: dict[str, Any]) -> dict[str, Any]:
    return {"kind": KIND, "objects": objects, "camera": CAMERA, "program": program}


CABIN = {"family": "query_part_colour", "part": "cabin", "ref": [{"relate": None, "filter": {"material": "metal"}}]}
WHEELS_ONLY = {"family": "count", "set": [{"relate": None, "filter": {"wheels": "green"}}]}


def test_end_on_is_measured_from_the_line_of_sight() -> None:
    # The camera stands on the -y side looking along +y: heading 90 points the truck away from it.
    scene = _scene([_truck(90.0), _truck(270.0), _truck(0.0), _truck(45.0)], CABIN)
    angles = [end_on_angle(scene, k) for k in range(4)]
    assert angles[0] < 1 and angles[1] < 1 and abs(angles[2] - 90) < 1 and abs(angles[3] - 45) < 1


def test_which_questions_read_a_cabin_or_a_body() -> None:
    assert reads_cabin_or_body(CABIN)
    assert reads_cabin_or_body({"family": "query_type", "ref": [{"relate": None, "filter": {"size": "small"}}]})
    assert reads_cabin_or_body({"family": "count", "set": [{"relate": None, "filter": {"body": "red"}}]})
    assert not reads_cabin_or_body(WHEELS_ONLY)
    assert not reads_cabin_or_body(
        {"family": "count_part_match", "ref": [{"relate": None, "filter": {}}], "ref_part": "wheels", "part": "wheels"}
    )
    assert reads_material({"family": "query_material", "attr": "material", "ref": []})
    assert not reads_material(WHEELS_ONLY)


def test_an_end_on_truck_is_refused_only_when_the_question_reads_its_cabin() -> None:
    objects = [_truck(88.0), _truck(0.0, x=2.5)]
    with pytest.raises(Reject, match="end-on"):
        check_not_end_on(_scene(objects, CABIN), 20.0)
    check_not_end_on(_scene(objects, WHEELS_ONLY), 20.0)
    check_not_end_on(_scene([_truck(60.0), _truck(0.0, x=2.5)], CABIN), 20.0)


def test_a_far_small_vehicle_is_too_narrow_for_a_material_question() -> None:
    scene = _scene([_truck(0.0, y=3.3, size="small"), _truck(0.0, y=-2.0)], WHEELS_ONLY)
    res = render_scene(vocab_of(scene).primitives(scene["objects"]), camera_of(scene), ss=1, shade=False)
    far, near = outline_widths(res, 2)
    assert far < near
    check_apparent_size(scene, res, far, far + 10)  # no material read: the looser minimum
    with pytest.raises(Reject, match="pixels wide"):
        check_apparent_size(
            {**scene, "program": {**WHEELS_ONLY, "set": [{"relate": None, "filter": {"material": "metal"}}]}},
            res,
            far,
            far + 10,
        )


def test_a_vehicle_parked_behind_another_has_its_parts_hidden() -> None:
    # Seen side on, a truck right behind a large one loses much of its body; alone, nothing of it is hidden.
    objects = [_truck(0.0, y=-1.0), _truck(0.0, y=0.0, size="small")]
    scene = _scene(objects, CABIN)
    res = render_scene(vocab_of(scene).primitives(objects), camera_of(scene), ss=1, shade=False)
    hidden = part_occlusion(scene, res, part_list(objects))
    assert hidden[(0, "body")] == 0.0 and hidden[(0, "cabin")] == 0.0
    assert max(hidden[(1, "body")], hidden[(1, "cabin")]) > 0.3


def test_sampling_draws_end_on_headings_again() -> None:
    rng = random.Random(3)
    for _ in range(20):
        for o in sample_vehicles(rng, 5, avoid_end_on=28.0):
            assert end_on_to_eye(o["x"], o["y"], o["heading"]) >= 28.0


@pytest.mark.parametrize("name", ["object_attributes", "compositional_3d"])
def test_generated_scenes_keep_the_legibility_rules(name: str) -> None:
    for difficulty, n in (("medium", 3), ("hard", 1)):
        task = get_task(name, difficulty)
        cfg = task.config
        for index in range(n):
            scene, _ = task.solved_scene(index, 45)
            res = render_scene(vocab_of(scene).primitives(scene["objects"]), camera_of(scene), ss=1, shade=False)
            need = cfg.material_width_px if reads_material(scene["program"]) else cfg.min_width_px
            assert min(outline_widths(res, len(scene["objects"]))) >= need, scene["program"]
            if name == "compositional_3d":
                if reads_cabin_or_body(scene["program"]):
                    assert min(end_on_angle(scene, k) for k in range(len(scene["objects"]))) >= cfg.end_on_deg
                hidden = part_occlusion(scene, res, part_list(scene["objects"]))
                assert max(v for (_, p), v in hidden.items() if p != "wheels") <= cfg.max_part_hidden
