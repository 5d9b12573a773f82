"""Legibility rules of the 3D scene tasks (issue 45): a scene is asked about only where the picture shows what the
question needs at the size the suite stores it (docs/tasks/object_attributes.md and docs/tasks/compositional_3d.md,
"Legibility rules").

Every object counts as one the question depends on: a filter is read over every object (a count or an existence
question judges each one), and a reference picks its object only because every other object fails its
description. So the rules hold for all objects of the scene, with stricter ones when the question reads a
judgement that needs more pixels:

- apparent size: the width of each object's unoccluded outline in the picture (pixels, at the tasks' picture
  size) is at least a minimum; a wider one when the question reads material (metal shows as a highlight, which
  on a small or far object is a glint of a few pixels);
- orientation (vehicles): when the question reads a cabin, a body or a type, no vehicle is seen within a few
  degrees of end-on, where the cabin hides behind the body or in front of it and the two cannot be told apart;
- occlusion (vehicles): beside each vehicle's visible share (`min_visible`), its body and cabin are each hidden by
  other vehicles by at most a share, measured from the part buffers of the scene against those of the vehicle
  drawn alone.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from vcot.draw3d import Render3D, render_scene
from vcot.tasks.base import Reject
from vcot.tasks.scene3d._scene import camera_of, vocab_of

# Program keys that name a vehicle part (compositional_3d's query, comparison and match questions).
PART_KEYS = ("part", "ref_part", "part_a", "part_b")
CABIN_OR_BODY = ("cabin", "body")


def filters_of(program: dict[str, Any]) -> list[dict[str, str]]:
    """Every filter of the program's chains (the descriptions its question reads)."""
    return [
        step["filter"]
        for value in program.values()
        if isinstance(value, list)
        for step in value
        if isinstance(step, dict) and "filter" in step
    ]


def reads_material(program: dict[str, Any]) -> bool:
    """Whether the question reads an object's material (a material in a description, or one asked for)."""
    return program.get("attr") == "material" or any("material" in f for f in filters_of(program))


def reads_cabin_or_body(program: dict[str, Any]) -> bool:
    """Whether the question needs a vehicle's cabin told from its body: it names or asks for either part's
    colour, or names or asks for a type (the types differ in where the cabin sits on the body)."""
    if program.get("family") == "query_type" or any(program.get(k) in CABIN_OR_BODY for k in PART_KEYS):
        return True
    return any(k in f for f in filters_of(program) for k in (*CABIN_OR_BODY, "type"))


def outline_widths(res: Render3D, n: int) -> list[int]:
    """Width in pixels of each object's unoccluded outline (0 for one outside the picture)."""
    out = []
    for k in range(n):
        sil = res.objects[k].silhouette if k in res.objects else None
        out.append(0 if sil is None else sil[2] - sil[0])
    return out


def check_apparent_size(scene: dict[str, Any], res: Render3D, min_px: float, material_px: float) -> None:
    """Reject a scene with an object narrower than `min_px` (or `material_px` when the question reads
    material) in the picture."""
    need = max(min_px, material_px) if reads_material(scene.get("program", {})) else min_px
    for k, w in enumerate(outline_widths(res, len(scene["objects"]))):
        if w < need:
            raise Reject(f"object {k} only {w} pixels wide (at least {need:g} needed)")


def end_on_angle(scene: dict[str, Any], k: int) -> float:
    """Degrees between vehicle k's long axis and the camera's line of sight to it on the floor (0 = end-on)."""
    o = scene["objects"][k]
    pos, *_ = camera_of(scene).basis()
    sight = np.array([o["x"] - pos[0], o["y"] - pos[1]])
    sight /= np.linalg.norm(sight)
    h = math.radians(o["heading"])
    c = abs(math.cos(h) * sight[0] + math.sin(h) * sight[1])
    return math.degrees(math.acos(min(1.0, c)))


def check_not_end_on(scene: dict[str, Any], min_deg: float) -> None:
    """Reject a scene whose question reads a cabin, a body or a type when a vehicle is seen within `min_deg`
    degrees of end-on."""
    if not reads_cabin_or_body(scene.get("program", {})):
        return
    for k in range(len(scene["objects"])):
        angle = end_on_angle(scene, k)
        if angle < min_deg:
            raise Reject(f"vehicle {k} seen {angle:.0f} degrees from end-on")


def part_occlusion(scene: dict[str, Any], res: Render3D, owners: list[tuple[int, str]]) -> dict[tuple[int, str], float]:
    """Per (vehicle, part): the share of the part's pixels, as the vehicle drawn alone shows them, that other
    vehicles hide in the scene (`res` and the solo renders are buffers-only, one subpixel per pixel)."""
    prims = vocab_of(scene).primitives(scene["objects"])
    cam = camera_of(scene)
    seen = np.bincount(res.parts.ravel().astype(np.int64) + 1, minlength=len(owners) + 1)[1:]
    out: dict[tuple[int, str], float] = {}
    for k in range(len(scene["objects"])):
        idx = [i for i, key in enumerate(owners) if key[0] == k]
        solo = render_scene([prims[i] for i in idx], cam, ss=1, shade=False)
        alone = np.bincount(solo.parts.ravel().astype(np.int64) + 1, minlength=len(idx) + 1)[1:]
        shown: dict[str, list[int]] = {}
        for j, i in enumerate(idx):
            acc = shown.setdefault(owners[i][1], [0, 0])
            acc[0] += int(seen[i])
            acc[1] += int(alone[j])
        for part, (s, a) in shown.items():
            out[(k, part)] = 1.0 - s / a if a else 0.0
    return out


def check_part_occlusion(
    scene: dict[str, Any], res: Render3D, owners: list[tuple[int, str]], max_hidden: float
) -> None:
    """Reject a scene where other vehicles hide more than `max_hidden` of some vehicle's body or cabin."""
    for (k, part), hidden in part_occlusion(scene, res, owners).items():
        if part in CABIN_OR_BODY and hidden > max_hidden:
            raise Reject(f"the {part} of vehicle {k} is {hidden:.0%} hidden by other vehicles")
