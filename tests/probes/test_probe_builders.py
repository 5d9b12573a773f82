"""Every task's probes on 3 seeds x 3 difficulties: one per step, gradable by rule, and (where cheap) equal to an
independent recomputation from the scene."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from die_rotation_model import NORMALS, apply, roll_matrix
from task_pieces import builtin_task_names
from vcot.engine.mock.scripted import wrong_value
from vcot.probes import PROBE_TASKS, build_probes, probe_reason
from vcot.schema import Instance
from vcot.scoring import grade
from vcot.tasks import get_task

SEEDS = (1, 2, 3)
LEVELS = ("easy", "medium", "hard")
_CACHE: dict[str, list[Instance]] = {}


def instances(task: str) -> list[Instance]:
    if task not in _CACHE:
        _CACHE[task] = [get_task(task, lv).make(0, s, with_corruption=False).instance for lv in LEVELS for s in SEEDS]
    return _CACHE[task]


def test_probe_builders_are_the_registered_tasks():
    # A module in probes/ for a task nobody registers is dead code (completeness asks the converse).
    assert set(PROBE_TASKS) == set(builtin_task_names())


@pytest.mark.parametrize("task", ["object_attributes", "compositional_3d"])
def test_3d_count_probes_recount_from_the_scene(task):
    # Recounted here from the stored objects and picture centres, without the solver's program runner: a
    # relation count is every object beyond the anchor's centre (left/right in the picture, front/behind along
    # the camera's forward direction on the floor); a first filter counts the objects whose attributes match.
    import math

    for inst in instances(task):
        scene = inst.meta["scene"]
        objs, centres = scene["objects"], scene["picture"]["object_centres"]
        az = math.radians(scene["camera"]["azimuth"])
        fwd = [o["x"] * math.sin(az) + o["y"] * math.cos(az) for o in objs]
        states = inst.meta["solution"]["states"]
        for p in build_probes(inst):
            if p.kind == "relate_count":
                st = states[p.step - 1]
                a = st["anchor"]
                keys = {"left": (0, -1), "right": (0, 1), "front": (1, -1), "behind": (1, 1)}[st["rel"]]
                pos = [(c[0], f) for c, f in zip(centres, fwd, strict=True)]
                beyond = [k for k in range(len(objs)) if k != a and keys[1] * (pos[k][keys[0]] - pos[a][keys[0]]) > 0]
                assert int(p.answer) == len(beyond), (inst.uid, p)
            elif p.kind == "filter_count" and states[p.step - 1].get("anchor") is None:
                flt = states[p.step - 1]["filter"]
                assert int(p.answer) == sum(all(o.get(f) == v for f, v in flt.items()) for o in objs), (inst.uid, p)


@pytest.mark.parametrize("task", PROBE_TASKS)
def test_one_gradable_probe_per_step(task):
    rng = random.Random(0)
    for inst in instances(task):
        assert probe_reason(inst) is None
        probes = build_probes(inst)
        assert [p.step for p in probes] == list(range(1, len(inst.steps) + 1))
        for p in probes:
            assert grade(p.answer, p.answer, p.answer_type, p.options), (inst.uid, p)
            wrong = wrong_value(p.answer, p.answer_type, p.options, rng)
            assert not grade(wrong, p.answer, p.answer_type, p.options), (inst.uid, p, wrong)
            if p.kind == "final":
                assert (p.question, p.answer) == (inst.question, inst.answer)
            else:
                assert p.answer not in ("", "None")


def test_a_probe_never_names_a_step_picture_or_its_text():
    # Probes must be answerable from the input image + question: no probe quotes a step text.
    for task in PROBE_TASKS:
        for inst in instances(task)[:3]:
            for p in build_probes(inst):
                assert all(s.text not in p.question for s in inst.steps)
                assert "step image" not in p.question.lower()


def _die_faces(start: dict, path: list[list[int]]) -> list[dict[str, int]]:
    faces = {
        "top": start["top"],
        "bottom": 7 - start["top"],
        "south": start["south"],
        "north": 7 - start["south"],
        "east": start["east"],
        "west": 7 - start["east"],
    }
    normal_of = {faces[f]: NORMALS[f] for f in NORMALS}
    out = []
    for (r0, c0), (r1, c1) in zip(path, path[1:], strict=False):
        move = {(-1, 0): "north", (1, 0): "south", (0, 1): "east", (0, -1): "west"}[(r1 - r0, c1 - c0)]
        mat = roll_matrix(move)
        normal_of = {num: apply(mat, n) for num, n in normal_of.items()}
        out.append({f: next(num for num, n in normal_of.items() if n == NORMALS[f]) for f in ("top", "bottom")})
    return out


@pytest.mark.parametrize("task,face", [("rolling_dice_top", "top"), ("rolling_dice_sum", "bottom")])
def test_dice_probes_match_an_independent_die(task, face):
    for inst in instances(task):
        scene = inst.meta["scene"]
        expected = [str(f[face]) for f in _die_faces(scene["start_die"], scene["path"])]
        assert [p.answer for p in build_probes(inst)] == expected[: len(inst.steps)]
        if task == "rolling_dice_top":
            assert expected[-1] == inst.answer


def test_rolling_dice_two_red_path():
    for inst in instances("rolling_dice_two"):
        scene = inst.meta["scene"]
        for p in build_probes(inst):
            colour = "red" if "red path" in p.question else "black"
            tops = [str(f["top"]) for f in _die_faces(scene["start_die"], scene["paths"][colour])]
            assert p.answer == tops[p.step - 1]


def _area(poly) -> Fraction:
    pts = [(Fraction(str(x)), Fraction(str(y))) for x, y in poly]
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(pts, pts[1:] + pts[:1], strict=True))) / 2


def test_paper_airplane_last_area_is_the_right_candidate():
    for inst in instances("paper_airplane"):
        scene = inst.meta["scene"]
        last = build_probes(inst)[-1]
        right = scene["candidates"]["ABCD".index(inst.answer)]
        assert Fraction(last.answer) == _area(right)
        first = build_probes(inst)[0]
        assert Fraction(first.answer) < scene["size"] ** 2  # the first fold covers part of the sheet


def test_cubes_missing_layers_sum_to_the_answer():
    for inst in instances("cubes_missing"):
        assert sum(int(p.answer) for p in build_probes(inst)) == int(inst.answer)


def test_trailer_cubes_missing_max_structure_plus_answer_fills_the_block():
    for inst in instances("trailer_cubes_missing"):
        d = inst.meta["solution"]["details"]
        w, dd, h = d["block"]
        assert int(build_probes(inst)[0].answer) + int(inst.answer) == w * dd * h


def _hull_size(points) -> int:
    pts = sorted(set(map(tuple, points)))

    def half(seq):
        out: list[tuple] = []
        for p in seq:
            while (
                len(out) >= 2
                and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1]) - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0]))
                <= 0
            ):
                out.pop()
            out.append(p)
        return out

    return len(half(pts)) + len(half(pts[::-1])) - 2


def test_convex_hull_vertex_count_is_recomputed():
    for inst in instances("convex_hull"):
        scene = inst.meta["scene"]
        colour = scene["hull_colours"][0]
        pts = next(s["points"] for s in scene["sets"] if s["colour"] == colour)
        assert build_probes(inst)[0].answer == str(_hull_size(pts))


def test_gear_probe_follows_mesh_parity():
    for inst in instances("gear_rotation"):
        scene = inst.meta["scene"]
        layers = inst.meta["solution"]["details"]["layers"]
        driver_dir = scene["driver_dir"]
        other = {"clockwise": "counterclockwise", "counterclockwise": "clockwise"}
        for p in build_probes(inst):
            if p.kind == "final":
                continue
            label = p.question.split("does gear ")[1].split(" ")[0]
            g = next(i for i, gear in enumerate(scene["gears"]) if gear["label"] == label)
            links = [ln for ln in scene["links"] if g in (ln["a"], ln["b"])]
            if all(ln["type"] == "mesh" for ln in links):
                assert p.answer == (driver_dir if layers[g] % 2 == 0 else other[driver_dir])


def test_mirror_clock_last_probe_is_the_answer():
    for inst in instances("mirror_clock"):
        assert build_probes(inst)[-1].answer == inst.answer


def test_count_probes_recomputed_from_heights():
    for task in ("cubes_count", "trailer_cubes_count"):
        for inst in instances(task):
            grid = inst.meta["scene"]["heights"] if task == "cubes_count" else inst.meta["solution"]["states"][0]
            assert build_probes(inst)[0].answer == str(sum(h == 1 for row in grid for h in row))


def test_electric_charge_attracting_count():
    for inst in instances("electric_charge"):
        scene = inst.meta["scene"]
        n = sum(1 for s in scene["sources"] if (s["q"] > 0) != (scene["target"]["q"] > 0))
        assert build_probes(inst)[0].answer == str(n)


def test_defuse_panels_match_the_step_text():
    for inst in instances("defuse_a_bomb"):
        assert build_probes(inst)[0].answer == str(inst.steps[0].text.count("enters panel"))


def test_multi_piece_probe_names_one_of_the_answer_pieces():
    for inst in instances("multi_piece_puzzle"):
        p = build_probes(inst)[0]
        if p.kind != "final":
            assert p.answer in inst.answer.split(", ")


def test_unfolded_cube_top_cell_is_the_one_the_step_tints():
    # The stored correspondence (what the step picture tints) names the same cell the probe asks for.
    seen = 0
    for inst in instances("unfolded_cube"):
        corr = inst.meta["solution"]["details"]["correspondence"]
        for p in build_probes(inst):
            assert p.kind == "top_cell", (inst.uid, p)
            col, row = corr[p.step - 1]["cells"]["top"]
            assert p.answer == f"({col + 1}, {row + 1})"
            seen += 1
    assert seen >= 9
