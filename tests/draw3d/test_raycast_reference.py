"""The fast ray caster equals the straightforward one (reference_raycast.py, the earlier code kept verbatim) on
random small scenes and on full-size task-like ones.

What must still be identical since metal got its own shading (issue 29: mirror rays, the studio's strip lights):
the geometry — id buffer, part buffer, every object view (visible and unoccluded areas, boxes, centres) — on
every scene, and the picture's every pixel none of whose subpixels shows a metal primitive (floor, sky, shadows,
rubber). A scene with its metal turned to rubber must give the reference's picture to the last pixel, so the
whole rest of the shading pipeline (supersampling, shadow prefilters, floor table, averaging) is still checked
bit for bit. Metal pixels are not compared: the reference's metal is the old one."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
import reference_raycast as ref

from vcot.draw3d import Camera, Primitive, render_scene
from vcot.draw3d.composites import vehicle_primitives
from vcot.draw3d.raycast import F, Render3D, _mm


def _random_scene(rng: random.Random) -> tuple[list[Primitive], Camera]:
    """Up to 8 objects of every kind (vehicles, specks a subpixel wide, turned, tilted, sunk into the floor or
    floating, off screen), sometimes sharing an object id; cameras near and far, from below the horizon to
    overhead, small pictures of odd sizes."""
    prims: list[Primitive] = []
    obj = 0
    for _ in range(rng.randint(0, 8)):
        kind = rng.choice(["sphere", "box", "cylinder", "vehicle", "speck"])
        x, y = rng.uniform(-5, 5), rng.uniform(-5, 5)
        mat = rng.choice(["rubber", "metal"])
        col = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        if kind == "vehicle":
            o = {
                "type": rng.choice(["car", "truck", "tractor"]),
                "size": rng.choice(["small", "large"]),
                "material": mat,
                "body": "a",
                "cabin": "b",
                "wheels": "c",
                "x": x,
                "y": y,
                "heading": rng.uniform(0, 360),
            }
            for p in vehicle_primitives([o], {"a": col, "b": (10, 200, 30), "c": (40, 40, 40)}):
                prims.append(Primitive(p.kind, p.centre, p.size, p.colour, p.material, obj, p.yaw, p.tilt))
        elif kind == "speck":
            prims.append(Primitive("sphere", (x, y, rng.uniform(-0.1, 2)), (rng.uniform(0.005, 0.03),), col, mat, obj))
        else:
            r = rng.uniform(0.1, 1.2)
            z = rng.choice([r, r, rng.uniform(-0.5, 3)])
            size = {
                "sphere": (r,),
                "box": (r, rng.uniform(0.1, 1.2), rng.uniform(0.1, 1.2)),
                "cylinder": (r, rng.uniform(0.1, 1.2)),
            }[kind]
            prims.append(
                Primitive(
                    kind,
                    (x, y, z),
                    size,
                    col,
                    mat,
                    obj,
                    yaw=rng.uniform(0, 360),
                    tilt=rng.choice([0.0, 90.0, rng.uniform(0, 180)]),
                )
            )
        obj += rng.choice([1, 1, 1, 0])
    cam = Camera(
        azimuth=rng.uniform(-180, 180),
        elevation=rng.choice([rng.uniform(-5, 89), rng.uniform(25, 45)]),
        distance=rng.choice([rng.uniform(0.5, 4), rng.uniform(6, 14), rng.uniform(14, 40)]),
        fov=rng.uniform(20, 80),
        width=rng.choice([32, 48, 64, 80, 120]),
        height=rng.choice([24, 32, 48, 64]),
        target=(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(0, 1)),
    )
    return prims, cam


def _assert_same_geometry(fast: Render3D, slow: Render3D) -> None:
    assert (fast.image is None) == (slow.image is None)
    assert fast.ids.dtype == slow.ids.dtype and np.array_equal(fast.ids, slow.ids)
    assert fast.parts.dtype == slow.parts.dtype and np.array_equal(fast.parts, slow.parts)
    assert fast.objects == slow.objects
    assert fast.subparts is not None and np.array_equal(fast.subparts[:: fast.ss, :: fast.ss], fast.parts)


def _as_rubber(prims: list[Primitive]) -> list[Primitive]:
    return [replace(p, material="rubber") for p in prims]


def _assert_same(prims: list[Primitive], cam: Camera, ss: int, shade: bool) -> None:
    """Geometry identical; the picture identical off metal, and identical everywhere with the metal as rubber."""
    fast, slow = render_scene(prims, cam, ss=ss, shade=shade), ref.render_scene(prims, cam, ss=ss, shade=shade)
    _assert_same_geometry(fast, slow)
    if slow.image is None:
        return
    assert fast.image is not None
    metal = [k for k, p in enumerate(prims) if p.material == "metal"]
    off_metal = fast.coverage(metal) == 0
    assert np.array_equal(np.asarray(fast.image)[off_metal], np.asarray(slow.image)[off_metal])
    if metal:
        rubber = _as_rubber(prims)
        fast_r, slow_r = render_scene(rubber, cam, ss=ss), ref.render_scene(rubber, cam, ss=ss)
        assert fast_r.image is not None and slow_r.image is not None
        assert np.array_equal(np.asarray(fast_r.image), np.asarray(slow_r.image))


@pytest.mark.parametrize("block", range(4))
def test_random_small_scenes_match_the_reference(block: int) -> None:
    for seed in range(block * 40, block * 40 + 40):
        rng = random.Random(seed)
        prims, cam = _random_scene(rng)
        ss = rng.choice([1, 2, 2, 3])
        shade = rng.random() < 0.75
        _assert_same(prims, cam, ss, shade)


def _clevr_like(rng: random.Random) -> list[Primitive]:
    prims = []
    for k in range(rng.randint(3, 10)):
        r = rng.choice([0.35, 0.7])
        x, y = rng.uniform(-3.2, 3.2), rng.uniform(-3.2, 3.2)
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        mat = rng.choice(["rubber", "metal"])
        kind = rng.choice(["sphere", "box", "cylinder"])
        if kind == "sphere":
            prims.append(Primitive("sphere", (x, y, r), (r,), colour, mat, k))
        elif kind == "box":
            h = 0.85 * r
            prims.append(Primitive("box", (x, y, h), (h, h, h), colour, mat, k, yaw=rng.uniform(0, 90)))
        else:
            prims.append(Primitive("cylinder", (x, y, r), (r, r), colour, mat, k))
    return prims


@pytest.mark.parametrize("seed", [0, 1])
def test_full_size_task_like_scenes_match_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    cam = Camera(azimuth=rng.uniform(-12, 12), elevation=rng.uniform(32, 40), distance=rng.uniform(10, 10.8), fov=40)
    scenes = [_clevr_like(rng)]
    vehicles = [
        {
            "type": t,
            "size": rng.choice(["small", "large"]),
            "material": rng.choice(["rubber", "metal"]),
            "body": "a",
            "cabin": "b",
            "wheels": "c",
            "x": x,
            "y": y,
            "heading": rng.uniform(0, 360),
        }
        for t, x, y in [("car", -2.0, -1.0), ("truck", 1.5, 0.5), ("tractor", -0.5, 2.5)]
    ]
    scenes.append(vehicle_primitives(vehicles, {"a": (229, 15, 65), "b": (0, 96, 245), "c": (40, 40, 40)}))
    for prims in scenes:
        for ss, shade in ((2, True), (1, False)):
            _assert_same(prims, cam, ss, shade)


def test_a_row_is_multiplied_alike_alone_and_in_any_batch() -> None:
    # The fast caster multiplies a primitive's few winning rays where the reference multiplied them among the
    # whole rectangle; BLAS (`@`) rounds a row by its place in the batch on some CPUs, `_mm` must not.
    rng = np.random.default_rng(0)
    rows = rng.standard_normal((4000, 3)).astype(F)
    for m in (
        rng.standard_normal((3, 3)).astype(F),
        rng.standard_normal((3, 3)).astype(F).T,
        rng.standard_normal(3).astype(F),
    ):
        many = _mm(rows, m)
        assert many.dtype == F and many.shape == (4000, 3)[: m.ndim]
        assert np.allclose(many, rows.astype(float) @ m.astype(float), rtol=1e-5, atol=1e-5)
        for i in range(0, 4000, 37):
            # Row i first in batches of 1, 2 and up to 6 rows (alone, before a neighbour, after its neighbours).
            for batch in (rows[i : i + 1], rows[i : i + 2], rows[max(0, i - 5) : i + 1][::-1]):
                assert np.array_equal(_mm(np.ascontiguousarray(batch), m)[0], many[i])
