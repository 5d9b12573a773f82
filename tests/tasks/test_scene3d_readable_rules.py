"""The 3D tasks' version-3 rules (issue 29): every hop of a chained reference matters, front and behind need a
margin in the picture, and a question that reads sizes is asked only where the picture shows them right.

Hand-worked cases pin the hop rule; generated instances are then checked with the audit's own reading of
shortened questions (vcot.analysis.shortcuts._scene3d, which shares no reading code with the generators), and
with the pixels of a buffers-only render for sizes."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import Any

import numpy as np
import pytest

from vcot.analysis.shortcuts import _scene3d as reading
from vcot.analysis.shortcuts import compositional_3d as c3d_shortcuts
from vcot.analysis.shortcuts import object_attributes as oa_shortcuts
from vcot.draw3d import render_scene
from vcot.tasks import get_task
from vcot.tasks.scene3d._scene import Layout, camera_of, chain_result, layout, run_chain, uses_size, vocab_of

SET_FAMILIES = {"count", "exist", "compare_count"}


def _obj(shape: str, colour: str) -> dict[str, Any]:
    return {"shape": shape, "colour": colour, "size": "large", "material": "rubber"}


def _row(objects: list[tuple[str, str, float]]) -> tuple[dict[str, Any], Layout]:
    """Objects in one row across the picture (picture x as given, all at one depth): only left/right relate."""
    scene = {"objects": [_obj(shape, colour) for shape, colour, _ in objects]}
    n = len(objects)
    return scene, Layout(
        px=tuple(x for *_, x in objects),
        forward=(0.0,) * n,
        lr_margin=16.0,
        fb_margin=0.5,
        floor_py=(0.0,) * n,
        fb_px=12.0,
    )


CUBE_LEFT_OF_SPHERE_LEFT_OF_CYLINDER = {
    "family": "query_colour",
    "attr": "colour",
    "ref": [
        {"relate": None, "filter": {"shape": "cylinder"}},
        {"relate": "left", "filter": {"shape": "sphere"}},
        {"relate": "left", "filter": {"shape": "cube"}},
    ],
}


@pytest.mark.parametrize(
    "between, kept",
    [
        # Two blue cubes between the sphere and the cylinder: read without the sphere ("the cube left of the
        # cylinder") or with the sphere found by itself (either sphere), most cubes reached are blue, not red.
        ("blue", True),
        # The same cubes red: every shorter reading answers red, the hop is not needed.
        ("red", False),
    ],
)
def test_every_hop_matters_by_hand(between: str, kept: bool) -> None:
    scene, lay = _row(
        [
            ("cube", "red", 100.0),
            ("sphere", "blue", 200.0),
            ("cube", between, 240.0),
            ("cube", between, 280.0),
            ("cylinder", "green", 320.0),
            ("sphere", "green", 420.0),
        ]
    )
    scene["program"] = CUBE_LEFT_OF_SPHERE_LEFT_OF_CYLINDER
    task = get_task("object_attributes", "hard")
    assert task.answer_from(scene, {"ref": [0]}) == "red"
    assert task.every_hop_matters(scene, lay) is kept


def test_a_lone_second_sphere_leaves_the_outermost_reading_with_the_gold() -> None:
    # Without the green sphere on the right, "the cube left of the sphere" reaches only the red cube.
    scene, lay = _row(
        [
            ("cube", "red", 100.0),
            ("sphere", "blue", 200.0),
            ("cube", "blue", 240.0),
            ("cube", "blue", 280.0),
            ("cylinder", "green", 320.0),
        ]
    )
    scene["program"] = CUBE_LEFT_OF_SPHERE_LEFT_OF_CYLINDER
    assert get_task("object_attributes", "hard").every_hop_matters(scene, lay) is False


def _same_colour_as_the_cylinder(cubes: list[str]) -> tuple[dict[str, Any], Layout]:
    """ "Is the cube left of the sphere left of the cylinder the same colour as the cylinder?" with a red cube
    on the far left (the referent) and `cubes` between the sphere and the cylinder."""
    between = [("cube", colour, 240.0 + 15.0 * i) for i, colour in enumerate(cubes)]
    scene, lay = _row(
        [
            ("cube", "red", 100.0),
            ("sphere", "blue", 200.0),
            *between,
            ("cylinder", "green", 320.0),
            ("sphere", "green", 420.0),
        ]
    )
    scene["program"] = {
        "family": "same_attribute",
        "attr": "colour",
        "a": CUBE_LEFT_OF_SPHERE_LEFT_OF_CYLINDER["ref"],
        "b": [{"relate": None, "filter": {"shape": "cylinder"}}],
    }
    return scene, lay


@pytest.mark.parametrize(
    "cubes, kept",
    [
        (["green", "blue"], False),  # shorter readings reach red/no, green/yes, blue/no: a lean to the answer
        (["green", "green"], False),  # red/no and two green/yes: a lean away from it tells it just as well
        (["green", "green", "orange"], True),  # two yes, two no: the shorter readings leave the answer open
    ],
)
def test_a_yes_no_question_needs_shorter_readings_that_lean_neither_way(cubes: list[str], kept: bool) -> None:
    scene, lay = _same_colour_as_the_cylinder(cubes)
    task = get_task("object_attributes", "hard")
    assert task.answer_from(scene, {"a": [0], "b": [len(cubes) + 2]}) == "no"
    assert task.every_hop_matters(scene, lay) is kept


def _shortened_votes(inst: Any, how: str, answer_of: Any) -> Counter[str] | None:
    """The answers every shortened reading of the instance gives, read with the audit's code."""
    parts = reading.objects_and_program(inst)
    assert parts is not None
    objs, prog = parts
    lay = layout(inst.meta["scene"])
    keys = [k for k in ("ref", "set", "a", "b") if isinstance(prog.get(k), list)]
    options, shortened = {}, False
    for key in keys:
        as_set = key == "set" or prog["family"] == "compare_count"
        chains = reading.shortened_chains(prog[key], how)
        shortened |= bool(chains)
        options[key] = list(
            dict.fromkeys(
                r
                for c in (chains or [prog[key]])
                for r in reading.chain_readings(objs, list(lay.px), list(lay.forward), c, as_set)
            )
        )
    if not shortened or not all(options.values()):
        return None
    return Counter(
        answer_of(prog, dict(zip(keys, combo, strict=True)), objs)
        for combo in itertools.product(*(options[k] for k in keys))
    )


@pytest.mark.parametrize("name, shortcuts", [("object_attributes", oa_shortcuts), ("compositional_3d", c3d_shortcuts)])
def test_generated_hard_questions_need_every_hop(name: str, shortcuts: Any) -> None:
    task = get_task(name, "hard")
    checked = Counter()
    for index in range(16):
        inst = task.make(index, 5, with_corruption=False).instance
        fam = inst.meta["scene"]["program"]["family"]
        gold = str(inst.answer).strip().lower()
        for how in (reading.OUTERMOST, reading.DROP_ONE):
            votes = _shortened_votes(inst, how, shortcuts.answer_of)
            if votes is None:
                continue
            checked[fam] += 1
            if fam in SET_FAMILIES:
                assert set(votes) != {gold}, (inst.uid, how, votes)
            elif len(task.answers_of(fam, task.config.max_count)) == 2:  # yes/no, metal/rubber, small/large
                assert len(votes) == 2 and len(set(votes.values())) == 1, (inst.uid, how, votes)
            else:
                assert votes[gold] < max(votes.values()), (inst.uid, how, votes)
    assert sum(checked.values()) >= 10, checked  # most hard questions have a chain of two relations or more


def _floor_py(scene: dict[str, Any]) -> list[float]:
    cam = camera_of(scene)
    pts = [[*vocab_of(scene).centre(o)[:2], 0.0] for o in scene["objects"]]
    return [float(v) for v in cam.project(np.array(pts))[:, 1]]


@pytest.mark.parametrize("name", ["object_attributes", "compositional_3d"])
def test_front_and_behind_have_a_margin_in_the_picture(name: str) -> None:
    task = get_task(name, "hard")
    margin = task.config.front_behind_px
    assert margin == 12.0
    depth = 0
    for index in range(16):
        scene = task.make(index, 7, with_corruption=False).instance.meta["scene"]
        assert scene["margins"]["front_behind_px"] == margin
        lay, floor = layout(scene), _floor_py(scene)
        for key, chain in sorted(scene["program"].items()):
            if not (isinstance(chain, list) and chain and isinstance(chain[0], dict)):
                continue
            for j, step in enumerate(chain):
                if step["relate"] not in ("front", "behind"):
                    continue
                depth += 1
                anchor = chain_result(run_chain(scene, lay, chain[:j], as_set=False))[0]
                gaps = [abs(floor[k] - floor[anchor]) for k in range(len(floor)) if k != anchor]
                assert min(gaps) >= margin, (scene["program"], key, j, min(gaps))
    assert depth >= 4


@pytest.mark.parametrize("name", ["object_attributes", "compositional_3d"])
def test_sizes_read_right_in_the_picture(name: str) -> None:
    task = get_task(name, "hard")
    ratio = task.config.size_ratio
    read = 0
    for index in range(40):
        scene = task.make(index, 11, with_corruption=False).instance.meta["scene"]
        if not uses_size(scene["program"]):
            continue
        read += 1
        res = render_scene(vocab_of(scene).primitives(scene["objects"]), camera_of(scene), ss=1, shade=False)
        looks = {"small": [], "large": []}
        for k, o in enumerate(scene["objects"]):
            looks[o["size"]].append(math.sqrt(res.objects[k].full))
        if looks["small"] and looks["large"]:
            assert min(looks["large"]) >= ratio * max(looks["small"]), (scene["program"], looks)
    assert read >= 3


def test_a_version_2_scene_without_the_new_margins_still_solves() -> None:
    task = get_task("object_attributes", "hard")
    inst = task.make(0, 5, with_corruption=False).instance
    scene = {
        **inst.meta["scene"],
        "margins": {
            k: v for k, v in inst.meta["scene"]["margins"].items() if k not in ("front_behind_px", "size_ratio")
        },
    }
    assert task.solve(scene).answer == inst.answer
