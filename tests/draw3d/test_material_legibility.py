"""Metal and rubber must be told apart by eye on every shape the 3D tasks draw (issue 29).

Questions call metal "shiny", so on every shape a metal object must show a highlight a rubber one does not. The
statistic is an object's *highlight ratio*: the 99th percentile over the median luminance of its pixels (taken
from the renderer's id buffer, or for a vehicle's part from its part buffer, eroded by one pixel so that edge
pixels mixed with the floor do not count). Over many seeded task scenes, for every shape, metal's median ratio
must reach 1.5 and the ratio must separate metal from rubber with a Mann-Whitney AUC of at least 0.9 (for
vehicles: on the body and on the cabin; the wheels are printed, not held to it — see the test).

The same figures are then taken at the sizes objects actually have in the suites (issue 45): objects of scenes the
tasks generate at medium and hard, accepted by their rules, measured in the stored picture at its full size —
over all of them and over the narrower half (the far and small ones, where a glint is a few pixels).

`python tests/draw3d/test_material_legibility.py` prints the figures per shape and per apparent width
(docs/draw3d.md records them).
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import replace

import numpy as np
import pytest

from vcot.draw3d import Camera, Primitive, Render3D, render_scene
from vcot.draw3d.composites import part_list
from vcot.tasks import get_task
from vcot.tasks.scene3d._scene import camera_of, primitives, render_of, sample_camera, sample_objects
from vcot.tasks.scene3d._vehicles import primitives as vehicle_prims
from vcot.tasks.scene3d._vehicles import sample_vehicles

# Half the tasks' picture size keeps the test quick; the camera (and so every object's share of the frame) is
# the tasks' own.
W, H = 240, 160
SCENES = 40
MIN_PIXELS = 12  # fewer interior pixels than this give no stable percentile (distant small wheels)
SHAPE_NAME = {"box": "cube", "sphere": "sphere", "cylinder": "cylinder"}


def luminance(img: np.ndarray) -> np.ndarray:
    return img.astype(np.float64) @ np.array([0.299, 0.587, 0.114])


def interior(mask: np.ndarray) -> np.ndarray:
    """The mask's pixels whose four neighbours are in it too."""
    core = mask.copy()
    core[1:] &= mask[:-1]
    core[:-1] &= mask[1:]
    core[:, 1:] &= mask[:, :-1]
    core[:, :-1] &= mask[:, 1:]
    core[0] = core[-1] = False
    core[:, 0] = core[:, -1] = False
    return core


def highlight_ratio(lum: np.ndarray, mask: np.ndarray) -> float | None:
    px = lum[interior(mask)]
    if px.size < MIN_PIXELS:
        return None
    med = float(np.median(px))
    return float(np.percentile(px, 99)) / max(med, 1.0)


def auc(pos: list[float], neg: list[float]) -> float:
    """Mann-Whitney AUC: the chance that a random metal ratio exceeds a random rubber one (ties count half)."""
    p, n = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float(((p > n).sum() + 0.5 * (p == n).sum()) / (p.size * n.size))


def _small(cam: Camera) -> Camera:
    return replace(cam, width=W, height=H)


def clevr_ratios(scenes: int = SCENES, seed: int = 0) -> dict[str, dict[str, list[float]]]:
    """{shape: {material: ratios}} over seeded object_attributes-like scenes."""
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in range(scenes):
        rng = random.Random(seed * 100_000 + s)
        objects = sample_objects(rng, rng.randint(4, 9))
        scene = {"objects": objects, "camera": sample_camera(rng)}
        prims = primitives(objects)
        res = render_scene(prims, _small(camera_of(scene)))
        lum = luminance(np.asarray(res.image))
        for k, p in enumerate(prims):
            r = highlight_ratio(lum, res.ids == k)
            if r is not None:
                out[SHAPE_NAME[p.kind]][p.material].append(r)
    return out


def vehicle_ratios(scenes: int = SCENES, seed: int = 0) -> dict[str, dict[str, list[float]]]:
    """{"<type> <part>": {material: ratios}} over seeded compositional_3d-like scenes: a vehicle's parts have
    colours of their own, so each part is measured apart (all its wheels together)."""
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in range(scenes):
        rng = random.Random(seed * 100_000 + 50_000 + s)
        objects = sample_vehicles(rng, rng.randint(3, 6))
        scene = {"objects": objects, "camera": sample_camera(rng)}
        prims = vehicle_prims(objects)
        res = render_scene(prims, _small(camera_of(scene)))
        lum = luminance(np.asarray(res.image))
        owners = part_list(objects)
        for k, o in enumerate(objects):
            for part in ("body", "cabin", "wheels"):
                idx = [i for i, key in enumerate(owners) if key == (k, part)]
                r = highlight_ratio(lum, np.isin(res.parts, idx))
                if r is not None:
                    out[f"{o['type']} {part}"][o["material"]].append(r)
    return out


def figures(groups: dict[str, dict[str, list[float]]]) -> dict[str, tuple[float, float, float, int, int]]:
    """{shape: (metal median ratio, rubber median ratio, AUC, metal count, rubber count)}."""
    return {
        shape: (
            float(np.median(g["metal"])),
            float(np.median(g["rubber"])),
            auc(g["metal"], g["rubber"]),
            len(g["metal"]),
            len(g["rubber"]),
        )
        for shape, g in sorted(groups.items())
    }


def table(fig: dict[str, tuple[float, float, float, int, int]]) -> str:
    lines = [f"{'shape':16} {'metal med':>9} {'rubber med':>10} {'AUC':>6} {'n metal':>7} {'n rubber':>8}"]
    for shape, (m, r, a, nm, nr) in fig.items():
        lines.append(f"{shape:16} {m:9.2f} {r:10.2f} {a:6.3f} {nm:7d} {nr:8d}")
    return "\n".join(lines)


def _check(groups: dict[str, dict[str, list[float]]], shapes: list[str]) -> None:
    fig = figures(groups)
    print("\n" + table(fig))
    assert set(shapes) <= set(fig)
    for shape in shapes:
        metal, _rubber, a, nm, nr = fig[shape]
        assert nm >= 10 and nr >= 10, (shape, nm, nr)
        assert metal >= 1.5, f"{shape}: metal's median highlight ratio {metal:.2f} < 1.5"
        assert a >= 0.9, f"{shape}: metal/rubber AUC {a:.3f} < 0.9"


def test_metal_and_rubber_are_legible_on_every_clevr_shape() -> None:
    _check(clevr_ratios(), ["cube", "cylinder", "sphere"])


def test_metal_and_rubber_are_legible_on_every_vehicle_type() -> None:
    # A vehicle has one material, read from its body and cabin. Its wheels are not held to it: their visible
    # faces are mostly the vertical caps, which mirror the plain floor (a flat mirror shows one thing), and the
    # treads that mirror the strip lights are a pixel or two wide; the table prints their figures all the same.
    _check(vehicle_ratios(), [f"{t} {p}" for t in ("car", "tractor", "truck") for p in ("body", "cabin")])


# Generated scenes per task and difficulty: few, since generating and rendering at full size is slow.
GENERATED = (("medium", 5), ("hard", 2))


def generated_ratios(task: str, seed: int = 45) -> list[tuple[str, int, float]]:
    """(material, outline width in pixels, highlight ratio) of the objects of scenes `task` generates at medium
    and hard, measured in the full-size picture the suite stores; for vehicles, the body and the cabin apart."""
    out = []
    for difficulty, n in GENERATED:
        gen = get_task(task, difficulty)
        for index in range(n):
            scene, _ = gen.solved_scene(index, seed)
            res = render_of(scene)
            lum = luminance(np.asarray(res.image))
            owners = part_list(scene["objects"]) if "kind" in scene else None
            for k, o in enumerate(scene["objects"]):
                sil = res.objects[k].silhouette
                assert sil is not None
                masks = (
                    [
                        np.isin(res.parts, [i for i, key in enumerate(owners) if key == (k, p)])
                        for p in ("body", "cabin")
                    ]
                    if owners
                    else [res.ids == k]
                )
                for mask in masks:
                    r = highlight_ratio(lum, mask)
                    if r is not None:
                        out.append((str(o["material"]), sil[2] - sil[0], r))
    return out


def by_width(rows: list[tuple[str, int, float]]) -> dict[str, dict[str, list[float]]]:
    """All rows, and the rows narrower than their median width, as {group: {material: ratios}}."""
    cut = float(np.median([w for _, w, _ in rows]))
    groups: dict[str, dict[str, list[float]]] = {"all": defaultdict(list), f"width < {cut:g} px": defaultdict(list)}
    for material, w, r in rows:
        groups["all"][material].append(r)
        if w < cut:
            groups[f"width < {cut:g} px"][material].append(r)
    return groups


@pytest.mark.parametrize("task", ["object_attributes", "compositional_3d"])
def test_metal_is_legible_at_the_sizes_generated_scenes_show(task: str) -> None:
    fig = figures(by_width(generated_ratios(task)))
    print("\n" + table(fig))
    for group, (metal, _rubber, a, nm, nr) in fig.items():
        assert nm >= 5 and nr >= 5, (group, nm, nr)
        assert metal >= 1.5, f"{task} {group}: metal's median highlight ratio {metal:.2f} < 1.5"
        assert a >= 0.9, f"{task} {group}: metal/rubber AUC {a:.3f} < 0.9"


@pytest.mark.parametrize("kind, size", [("box", (0.6, 0.6, 0.6)), ("cylinder", (0.6, 0.6)), ("sphere", (0.6,))])
def test_metal_keeps_its_colour(kind: str, size: tuple[float, ...]) -> None:
    # Real metal tints what it reflects: a red metal object still reads red (its mean hue stays red).
    cam = Camera(azimuth=5, elevation=35, distance=7, width=120, height=80)
    res: Render3D = render_scene([Primitive(kind, (0, 0, size[-1]), size, (229, 15, 65), "metal", 0, yaw=30)], cam)
    px = np.asarray(res.image, dtype=float)[interior(res.ids == 0)]
    r, g, b = px.mean(0)
    assert r > 1.4 * g and r > 1.2 * b, (r, g, b)


if __name__ == "__main__":
    print("CLEVR shapes\n" + table(figures(clevr_ratios())))
    print("\nvehicle parts\n" + table(figures(vehicle_ratios())))
    for name in ("object_attributes", "compositional_3d"):
        print(
            f"\n{name}, objects of generated scenes at full size\n" + table(figures(by_width(generated_ratios(name))))
        )
